/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor's costs per call (tests/bench/supervise.sh): built
 * -static by the script, run natively and under cpuset-run's supervisor.
 *
 *   bench_supervise N     prints "NAME ns-per-call" for N rounds each of:
 *     getaffinity   a raw sched_getaffinity
 *     setaffinity   a raw sched_setaffinity to the mask it has
 *     open_view     openat + close of /sys/devices/system/cpu/online
 *     open_stat     openat + close of /proc/stat
 *     open_other    openat + close of /etc/hostname (no view: continued)
 *   bench_supervise start prints nothing: a program's start alone
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void open_close(const char *p)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "start"))
		return 0;
	long n = atol(argv[1]);
	cpu_set_t s;
	CPU_ZERO(&s);
	syscall(SYS_sched_getaffinity, 0, sizeof(s), &s);
	double t = now();
	for (long i = 0; i < n; i++)
		syscall(SYS_sched_getaffinity, 0, sizeof(s), &s);
	printf("getaffinity %.0f\n", (now() - t) / n);
	t = now();
	for (long i = 0; i < n; i++)
		syscall(SYS_sched_setaffinity, 0, sizeof(s), &s);
	printf("setaffinity %.0f\n", (now() - t) / n);
	static const char *const files[][2] = { { "open_view", "/sys/devices/system/cpu/online" },
						{ "open_stat", "/proc/stat" },
						{ "open_other", "/etc/hostname" } };
	for (int f = 0; f < 3; f++) {
		open_close(files[f][1]);
		t = now();
		for (long i = 0; i < n; i++)
			open_close(files[f][1]);
		printf("%s %.0f\n", files[f][0], (now() - t) / n);
	}
	return 0;
}
