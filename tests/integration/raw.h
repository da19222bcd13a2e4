/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel without libc, for the integration programs: the shim wraps
 * syscall() too, so the truth ("real") is asked with the system call
 * instruction itself. RAW_SYSCALL_INLINE is defined where that exists. */
#ifndef CPS_TESTS_RAW_H
#define CPS_TESTS_RAW_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define RAW_SYSCALL_INLINE 1
#define NR_SCHED_GETAFFINITY 204
#define NR_SCHED_SETAFFINITY 203
#define NR_GETCPU 309
static inline long raw_syscall3(long nr, long a, long b, long c)
{
	long r;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"(nr), "D"(a), "S"(b), "d"(c)
			     : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
#define RAW_SYSCALL_INLINE 1
#define NR_SCHED_GETAFFINITY SYS_sched_getaffinity
#define NR_SCHED_SETAFFINITY SYS_sched_setaffinity
static inline long raw_syscall3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ __volatile__("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}
#else
/* syscall() forwards every number but the affinity and getcpu ones
 * untouched, which is enough for the open/read/close of real_cpu(). */
static inline long raw_syscall3(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}
#endif

/* The physical CPU this thread runs on, or -1. */
static inline int real_cpu(void)
{
#ifdef NR_GETCPU
	unsigned cpu = 0;
	if (raw_syscall3(NR_GETCPU, (long)&cpu, 0, 0) != 0)
		return -1;
	return (int)cpu;
#else
	/* Field 39 of /proc/thread-self/stat; the shim may one day virtualise
	 * that file, so it is opened with the system call, not open(). */
	char buf[1024];
	long fd = raw_syscall3(SYS_openat, AT_FDCWD, (long)"/proc/thread-self/stat", O_RDONLY);
	if (fd < 0)
		return -1;
	long n = raw_syscall3(SYS_read, fd, (long)buf, sizeof(buf) - 1);
	raw_syscall3(SYS_close, fd, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* comm (field 2) may hold blanks: count from its closing paren */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	int field = 2;
	for (p++; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	return field == 39 ? atoi(p) : -1;
#endif
}

#endif
