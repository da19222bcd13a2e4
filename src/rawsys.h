/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw system calls for the core code that also runs inside the shim.
 *
 * src/ is linked into libcpusetshim.so, where calling open(), syscall()
 * or sched_getaffinity() would meet the shim's own interposers: a path
 * test on every open, and for the affinity calls a translation into
 * virtual numbers that core code, which works in physical ones, must not
 * get. The system call instruction itself is base/rawsys.h's (shm/ needs
 * it too); these are the core's helpers on it: whole files, directories,
 * links, owners and the affinity calls. Each returns its result or a
 * negative errno; errno is never touched.
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

#include "base/rawsys.h"

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

/* pread(2) and lseek(2): the result, or a negative errno. */
static inline ssize_t cps_sys_pread(int fd, void *buf, size_t len, off_t at)
{
	return (ssize_t)cps_sys4(SYS_pread64, fd, (long)buf, (long)len, (long)at);
}

static inline off_t cps_sys_lseek(int fd, off_t at, int whence)
{
	return (off_t)cps_sys3(SYS_lseek, fd, (long)at, whence);
}

static inline long cps_sys_getdents64(int fd, void *buf, size_t len)
{
	return cps_sys3(SYS_getdents64, fd, (long)buf, (long)len);
}

/* What getdents64 returns (the kernel's struct linux_dirent64). */
struct cps_dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* fn(fd, name, arg) for each entry of the directory fd but "." and "..",
 * read by getdents64 (opendir and readdir are the shim's interposers),
 * until fn returns non-zero: that value, else 0 at the end or a negative
 * errno of the read. */
static inline int cps_sys_each_entry(int fd, int (*fn)(int dir, const char *name, void *arg),
				     void *arg)
{
	_Alignas(8) char buf[4096];
	for (;;) {
		long n = cps_sys_getdents64(fd, buf, sizeof(buf));
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		for (long o = 0; o < n;) {
			const struct cps_dent64 *e = (const struct cps_dent64 *)(buf + o);
			const char *nm = e->name;
			if (!e->reclen)
				return -EIO;
			o += e->reclen;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			int r = fn(fd, nm, arg);
			if (r)
				return r;
		}
	}
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
