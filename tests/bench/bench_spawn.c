/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_spawn — the start-up cost of a program.
 *
 *   bench_spawn N [-e VAR=VALUE]... [-u VAR]... -- PROGRAM [ARGS...]
 *
 * Starts PROGRAM N times, one after the other (posix_spawnp, then wait4),
 * with this process's environment plus the -e settings, less the -u names,
 * and prints "MEDIAN_US MIN_US MAX_US MEDIAN_FAULTS MEDIAN_CPU_US" of the
 * N start-to-exit times, of the page faults each start took (its minor
 * and major faults, wait4's count, the spawn's own before the exec
 * included) and of the processor time it used (user and system: what a
 * loaded machine's waits for a CPU leave out). The spawner is the same in
 * every mode, so only PROGRAM's start differs.
 * Exits 1 if PROGRAM ever fails to start or exits non-zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_spawn N [-e VAR=VALUE]... [-u VAR]... -- PROGRAM [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		usage();
	long n = atol(argv[1]);
	if (n < 1 || n > 1000000)
		usage();
	int i = 2;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-e") && i + 1 < argc && strchr(argv[i + 1], '=')) {
			if (putenv(argv[++i]) != 0)
				usage();
		} else if (!strcmp(argv[i], "-u") && i + 1 < argc) {
			unsetenv(argv[++i]);
		} else {
			usage();
		}
	}
	if (i + 1 >= argc)
		usage();
	char **prog = argv + i + 1;
	double *t = calloc((size_t)n, sizeof(double));
	double *f = calloc((size_t)n, sizeof(double));
	double *c = calloc((size_t)n, sizeof(double));
	if (!t || !f || !c)
		return 1;
	for (long k = 0; k < n; k++) {
		pid_t pid;
		int st;
		double t0 = now_us();
		int e = posix_spawnp(&pid, prog[0], NULL, NULL, prog, environ);
		if (e != 0) {
			fprintf(stderr, "bench_spawn: %s: %s\n", prog[0], strerror(e));
			return 1;
		}
		struct rusage ru;
		while (wait4(pid, &st, 0, &ru) < 0) {
			if (errno != EINTR) {
				perror("bench_spawn: wait4");
				return 1;
			}
		}
		t[k] = now_us() - t0;
		f[k] = (double)(ru.ru_minflt + ru.ru_majflt);
		c[k] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bench_spawn: %s: exit status %d\n", prog[0], st);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof(double), cmp_d);
	qsort(f, (size_t)n, sizeof(double), cmp_d);
	qsort(c, (size_t)n, sizeof(double), cmp_d);
	printf("%.1f %.1f %.1f %.0f %.0f\n", t[n / 2], t[0], t[n - 1], f[n / 2], c[n / 2]);
	free(t);
	free(f);
	free(c);
	return 0;
}
