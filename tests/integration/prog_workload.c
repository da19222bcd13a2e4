/* SPDX-License-Identifier: BSD-3-Clause */
/* A multi-threaded workload of two processes for the resize test:
 *   prog_workload DIR NTHREADS
 * forks once; in each process thread 0 pins itself to virtual CPU 0,
 * thread 1 to virtual CPU 1, the others ask for nothing. Each thread writes
 * "TID WANT" to DIR/threads.PID; each process rewrites DIR/view.PID every
 * 10 ms with what it sees: "n=.. online=.. cpuinfo=.. affinity=..". Ends
 * when DIR/stop exists. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int stopped(void)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/stop", dir);
	return access(p, F_OK) == 0;
}

static void *worker(void *arg)
{
	long i = (long)arg;
	const char *want = "-";
	cpu_set_t s;
	if (i < 2) {
		CPU_ZERO(&s);
		CPU_SET(i, &s);
		if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s) != 0)
			want = "error";
		else
			want = i == 0 ? "0" : "1";
	}
	char p[512];
	snprintf(p, sizeof(p), "%s/threads.%d", dir, (int)getpid());
	pthread_mutex_lock(&lock);
	FILE *f = fopen(p, "a");
	if (f) {
		fprintf(f, "%d %s\n", (int)syscall(SYS_gettid), want);
		fclose(f);
	}
	pthread_mutex_unlock(&lock);
	while (!stopped()) {
		volatile unsigned long x = 0;
		for (int k = 0; k < 200000; k++)
			x += (unsigned long)k;
		usleep(2000);
	}
	return NULL;
}

static int count_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			n++;
	fclose(f);
	return n;
}

static void report(void)
{
	char p[512], tmp[600], online[64] = "";
	cpu_set_t s;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		if (!fgets(online, sizeof(online), f))
			online[0] = 0;
		online[strcspn(online, "\n")] = 0;
		fclose(f);
	}
	sched_getaffinity(0, sizeof(s), &s);
	snprintf(p, sizeof(p), "%s/view.%d", dir, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "n=%ld online=%s cpuinfo=%d stat=%d affinity=%d\n",
		sysconf(_SC_NPROCESSORS_ONLN), online, count_lines("/proc/cpuinfo", "processor"),
		count_lines("/proc/stat", "cpu") - 1, CPU_COUNT(&s));
	fclose(f);
	rename(tmp, p);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	dir = argv[1];
	long n = atol(argv[2]);
	pid_t child = fork();
	pthread_t th[64];
	for (long i = 0; i < n && i < 64; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	while (!stopped()) {
		report();
		usleep(10000);
	}
	for (long i = 0; i < n && i < 64; i++)
		pthread_join(th[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
