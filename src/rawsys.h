/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw system calls for the core code that also runs inside the shim.
 *
 * src/ is linked into libcpusetshim.so, where calling open(), syscall()
 * or sched_getaffinity() would meet the shim's own interposers: a path
 * test on every open, and for the affinity calls a translation into
 * virtual numbers that core code, which works in physical ones, must not
 * get. These make the system call themselves (the syscall instruction on
 * x86-64 and aarch64, libc's syscall() elsewhere) and return the result or
 * a negative errno; errno is never touched.
 */
#ifndef CPS_RAWSYS_H
#define CPS_RAWSYS_H

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
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

/* open(path, flags) for reading: an fd or a negative errno. */
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

/* The one whole-file reader of the raw side: path's contents into buf
 * (len > 0), NUL-terminated, at most len - 1 bytes. once: a single read,
 * for the small /proc and /sys files the kernel makes in one go (a
 * loop's last read, the one that returns 0, is a system call more);
 * else reads until the end or a full buffer. Returns the bytes read, or a
 * negative errno (of open, or of the first read). */
static inline int cps_sys_slurp(const char *path, char *buf, size_t len, bool once)
{
	int fd = cps_sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	size_t got = 0;
	ssize_t n = 0;
	while (got < len - 1 && (n = cps_sys_read(fd, buf + got, len - 1 - got)) > 0) {
		got += (size_t)n;
		if (once)
			break;
	}
	cps_sys_close(fd);
	buf[got] = 0;
	if (n < 0 && got == 0)
		return (int)n;
	return (int)got;
}

/* The same to the end, for a whole file that must fit: its length in
 * buf (cap bytes, no NUL added), -EFBIG when it fills cap (it may be
 * longer), or a negative errno. */
static inline long cps_sys_read_file(const char *path, char *buf, size_t cap)
{
	int fd = cps_sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	size_t n = 0;
	ssize_t r = 1;
	while (n < cap && (r = cps_sys_read(fd, buf + n, cap - n)) > 0)
		n += (size_t)r;
	cps_sys_close(fd);
	if (r < 0)
		return (long)r;
	return n == cap ? -EFBIG : (long)n;
}

static inline long cps_sys_getdents64(int fd, void *buf, size_t len)
{
	return cps_sys3(SYS_getdents64, fd, (long)buf, (long)len);
}

/* The target of link path into buf (not NUL-terminated): its length, or
 * a negative errno. */
static inline long cps_sys_readlink(const char *path, char *buf, size_t len)
{
	return cps_sys4(SYS_readlinkat, AT_FDCWD, (long)path, (long)buf, (long)len);
}

/* The owner of path (its st_uid): 0 or a negative errno. */
static inline int cps_sys_owner(const char *path, uid_t *uid)
{
#if defined(SYS_newfstatat) && (defined(__x86_64__) || defined(__aarch64__))
	/* the kernel's struct stat is libc's on these two */
	struct stat st;
	long r = cps_sys4(SYS_newfstatat, AT_FDCWD, (long)path, (long)&st, 0);
	if (r < 0)
		return (int)r;
	*uid = st.st_uid;
	return 0;
#else
	struct stat st;
	int saved = errno;
	if (stat(path, &st) < 0) {
		int e = -errno;
		errno = saved;
		return e;
	}
	*uid = st.st_uid;
	return 0;
#endif
}

static inline pid_t cps_sys_gettid(void)
{
	return (pid_t)cps_sys3(SYS_gettid, 0, 0, 0);
}

/* The physical marker: the kernel reads the size argument of the two
 * affinity calls as an unsigned int and ignores its upper 32 bits, where
 * core code puts this word. Under cpuset-run's supervisor
 * (doc/supervisor.md) a marked call is in physical CPUs: a marked read
 * passes the filter (reading the kernel's mask grants nothing), a marked set is
 * still made by the supervisor, inside the supervised tree's CPUs. Only
 * where the system call instruction is ours (elsewhere libc's syscall()
 * may pass the word on as it is, which is harmless, but is not relied
 * on). */
#define CPS_PHYS_MARK 0x43505350u /* "PSPC" */
#if defined(__x86_64__) || defined(__aarch64__)
#define CPS_PHYS_SIZE(size) ((long)(((uint64_t)CPS_PHYS_MARK << 32) | (uint32_t)(size)))
#else
#define CPS_PHYS_SIZE(size) ((long)(size))
#endif

/* The kernel's sched_setaffinity / sched_getaffinity, physical CPUs. */
static inline int cps_sys_setaffinity(pid_t tid, size_t size, const void *mask)
{
	return (int)cps_sys3(SYS_sched_setaffinity, tid, CPS_PHYS_SIZE(size), (long)mask);
}

/* Bytes of the kernel's mask written, or a negative errno. */
static inline long cps_sys_getaffinity(pid_t tid, size_t size, void *mask)
{
	return cps_sys3(SYS_sched_getaffinity, tid, CPS_PHYS_SIZE(size), (long)mask);
}

static inline int cps_sys_tgkill(pid_t pid, pid_t tid, int sig)
{
	return (int)cps_sys3(SYS_tgkill, pid, tid, sig);
}

#endif
