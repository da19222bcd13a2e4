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
 *     open_cpuinfo  openat + close of /proc/cpuinfo (a kept view)
 *   bench_supervise floor N prints "NAME ns-per-call" for N rounds each
 *   of the floor of a supervised call, this process its own supervisor:
 *     getppid       a raw getppid
 *     notify        getppid through a seccomp user notification that a
 *                   child process answers at once (RECV, SEND)
 *     notify_sync   the same with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
 *                   (Linux 6.6; -1 without)
 *   bench_supervise start prints nothing: a program's start alone
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* getppid handed to a listener: its fd, or -1 */
static int notify_getppid(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

/* The answering child: each call answered 0 at once, as the supervisor
 * answers (a blocking RECV, then SEND). */
static void answer_all(int l)
{
	for (;;) {
		struct seccomp_notif q;
		struct seccomp_notif_resp a;
		memset(&q, 0, sizeof(q));
		if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &q) < 0)
			continue;
		memset(&a, 0, sizeof(a));
		a.id = q.id;
		ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &a);
	}
}

/* One notified getppid's time, ns a call; the listener synchronous or
 * not (-1: the kernel has no such flag). The filter stays on this process
 * (a child of ours makes it; this one is only timed). */
static double floor_of(long n, int sync)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t c = fork();
	if (c == 0) {
		int l = notify_getppid();
		if (l < 0)
			_exit(1);
		if (sync && ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0)
			_exit(2);
		pid_t a = fork();
		if (a == 0)
			answer_all(l);
		close(l);
		syscall(SYS_getppid);
		double t = now();
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		double r = (now() - t) / n;
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	double r = -1;
	if (c < 0 || read(p[0], &r, sizeof(r)) != sizeof(r))
		r = -1;
	close(p[0]);
	if (c > 0)
		waitpid(c, NULL, 0);
	return r;
}

static int floors(long n)
{
	double t = now();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("getppid %.0f\n", (now() - t) / n);
	printf("notify %.0f\n", floor_of(n, 0));
	printf("notify_sync %.0f\n", floor_of(n, 1));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "start"))
		return 0;
	if (!strcmp(argv[1], "floor") && argc > 2)
		return floors(atol(argv[2]));
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
						{ "open_other", "/etc/hostname" },
						{ "open_cpuinfo", "/proc/cpuinfo" } };
	for (int f = 0; f < 4; f++) {
		open_close(files[f][1]);
		t = now();
		for (long i = 0; i < n; i++)
			open_close(files[f][1]);
		printf("%s %.0f\n", files[f][0], (now() - t) / n);
	}
	return 0;
}
