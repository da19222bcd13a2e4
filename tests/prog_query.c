/* SPDX-License-Identifier: BSD-3-Clause */
/* prog_query SECONDS [READY] [fork|forkloop] — asks about CPUs again and
 * again, as a long-running program does, for SECONDS; touches READY ("-":
 * none) after its first answers; with "fork", forks a child that asks too,
 * and waits for it; with "forkloop", forks such a child at every round and
 * counts those that died of a signal and those whose answers differed from
 * the parent's first ones (" forks N crashed C wrong W" at the end). Prints "start N M end N M real K": the online count
 * (sysconf) and the size of its affinity mask (sched_getaffinity), first
 * and last, and the number of CPUs the kernel really lets it run on and
 * the first of them ("... real K first F"; asked
 * with the system call instruction: the shim interposes everything else).
 * The hostile-table tests run it under the shim while they damage the
 * table. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/raw.h"

static int mask_count(void)
{
	cpu_set_t cs;
	CPU_ZERO(&cs);
	if (sched_getaffinity(0, sizeof(cs), &cs) < 0)
		return -1;
	return CPU_COUNT(&cs);
}

/* How many CPUs the kernel lets us run on, and the first of them. */
static int real_count(int *first)
{
	*first = -1;
#ifdef RAW_SYSCALL_INLINE
	unsigned long m[16] = { 0 };
	long r = raw_syscall3(NR_SCHED_GETAFFINITY, 0, sizeof(m), (long)m);
	int n = 0;
	for (long i = 0; i < r / 8; i++) {
		if (m[i] && *first < 0)
			*first = (int)i * 64 + __builtin_ctzl(m[i]);
		n += __builtin_popcountl(m[i]);
	}
	return r < 0 ? -1 : n;
#else
	return -1;
#endif
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	double secs = atof(argv[1]);
	long n0 = sysconf(_SC_NPROCESSORS_ONLN), n = n0;
	int m0 = mask_count(), m = m0;
	if (argc > 2 && strcmp(argv[2], "-")) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	if (argc > 3 && !strcmp(argv[3], "fork")) {
		pid_t p = fork();
		if (p == 0)
			_exit(sysconf(_SC_NPROCESSORS_ONLN) > 0 && mask_count() > 0 ? 0 : 1);
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	int forkloop = argc > 3 && !strcmp(argv[3], "forkloop");
	unsigned forks = 0, crashed = 0, wrong = 0;
	struct timespec t0, now, nap = { 0, 2000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0;; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
		n = sysconf(_SC_NPROCESSORS_ONLN);
		m = mask_count();
		(void)sched_getcpu();
		if (forkloop) {
			pid_t p = fork();
			if (p == 0)
				_exit(sysconf(_SC_NPROCESSORS_ONLN) == n0 && mask_count() == m0 ? 0 : 1);
			int st;
			if (p > 0 && waitpid(p, &st, 0) == p) {
				forks++;
				if (WIFSIGNALED(st))
					crashed++;
				else if (!WIFEXITED(st) || WEXITSTATUS(st))
					wrong++;
			}
		}
		if (i % 16 == 0) {
			char buf[4096];
			int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				while (read(fd, buf, sizeof(buf)) > 0)
					;
				close(fd);
			}
		}
		nanosleep(&nap, NULL);
	}
	int first, k = real_count(&first);
	printf("start %ld %d end %ld %d real %d first %d", n0, m0, n, m, k, first);
	if (forkloop)
		printf(" forks %u crashed %u wrong %u", forks, crashed, wrong);
	printf("\n");
	return 0;
}
