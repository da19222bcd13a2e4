/* SPDX-License-Identifier: BSD-3-Clause */
/* The system call instruction, for every layer whose code the shim links
 * (shm/, src/; src/rawsys.h adds the core's raw helpers on top).
 *
 * Inside libcpusetshim.so, open(), syscall() or fopen() by name would meet
 * the shim's own interposers (a path test, a translation into virtual
 * numbers) instead of libc. These make the system call themselves (the
 * syscall instruction on x86-64 and aarch64, libc's syscall() elsewhere)
 * and return the result or a negative errno; errno is never touched.
 * tests/shim_selfcalls.sh holds every object of the shim to this.
 */
#ifndef CPS_BASE_RAWSYS_H
#define CPS_BASE_RAWSYS_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline long cps_sys4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			     : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	__asm__ __volatile__("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
#else
	int saved = errno;
	long r = syscall(nr, a, b, c, d);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
#endif
}

static inline long cps_sys3(long nr, long a, long b, long c)
{
	return cps_sys4(nr, a, b, c, 0);
}

/* Six arguments (the memory-policy calls: mbind has six). */
static inline long cps_sys6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return r;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			     : "memory");
	return x0;
#else
	int saved = errno;
	long r = syscall(nr, a, b, c, d, e, f);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
#endif
}

static inline long cps_sys5(long nr, long a, long b, long c, long d, long e)
{
	return cps_sys6(nr, a, b, c, d, e, 0);
}

/* mmap(2): the address or a negative errno. s390x's mmap takes its six
 * arguments in memory (the kernel's old_mmap), as glibc passes them. */
static inline long cps_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#if defined(__s390x__)
	long args[6] = {(long)addr, (long)len, prot, flags, fd, (long)off};
	return cps_sys4(SYS_mmap, (long)args, 0, 0, 0);
#else
	return cps_sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, (long)off);
#endif
}

/* open(path, flags), no O_CREAT: an fd or a negative errno. */
static inline int cps_sys_open(const char *path, int flags)
{
	return (int)cps_sys4(SYS_openat, AT_FDCWD, (long)path, flags, 0);
}

/* read(2), retried on EINTR: bytes read or a negative errno. */
static inline ssize_t cps_sys_read(int fd, void *buf, size_t len)
{
	long r;
	do
		r = cps_sys3(SYS_read, fd, (long)buf, (long)len);
	while (r == -EINTR);
	return (ssize_t)r;
}

static inline void cps_sys_close(int fd)
{
	cps_sys3(SYS_close, fd, 0, 0);
}

/* openat(2) in full (a directory's descriptor or AT_FDCWD; the mode of
 * O_CREAT): an fd or a negative errno. */
static inline int cps_sys_openat(int dir, const char *path, int flags, mode_t mode)
{
	return (int)cps_sys4(SYS_openat, dir, (long)path, flags, (long)mode);
}

static inline pid_t cps_sys_gettid(void)
{
	return (pid_t)cps_sys3(SYS_gettid, 0, 0, 0);
}

#endif
