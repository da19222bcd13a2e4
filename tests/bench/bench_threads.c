/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_threads — a member process that holds many sleeping threads, for
 * the resize benchmark.
 *
 *   bench_threads NTHREADS READYFILE
 *
 * Holds NTHREADS threads in all (the main one included), each asleep in
 * pause(); writes READYFILE (atomically, by rename) once every thread
 * runs, then sleeps until a signal ends it. Small stacks, so that ten
 * thousand threads fit anywhere.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long started;

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	started++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_threads NTHREADS READYFILE\n");
		return 2;
	}
	long n = atol(argv[1]);
	if (n < 1 || n > 100000) {
		fprintf(stderr, "bench_threads: NTHREADS out of range\n");
		return 2;
	}
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 1; i < n; i++) {
		pthread_t th;
		int e = pthread_create(&th, &a, sleeper, NULL);
		if (e != 0) {
			fprintf(stderr, "bench_threads: thread %ld of %ld: %s\n", i + 1, n, strerror(e));
			return 1;
		}
	}
	pthread_mutex_lock(&lock);
	while (started < n - 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d %ld\n", (int)getpid(), n) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[2]) != 0) {
		perror("bench_threads: ready file");
		return 1;
	}
	for (;;)
		pause();
}
