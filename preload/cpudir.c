/* SPDX-License-Identifier: BSD-3-Clause */
/* /sys/devices/system/cpu kept open, and the physical CPU files opened
 * relative to it.
 *
 * A physical file of a CPU (cpu<p>/topology/core_id, the directory
 * itself for a listing) is otherwise opened by its absolute path, and the
 * kernel walks /sys, devices, system and cpu again at every open: on
 * sysfs that walk is most of an open's cost (about 1.5 us of 6 here for
 * cpu1/topology/core_id, 1.4 of 3 for the directory). A view of such a
 * file must cost no more than the file itself, so the shim walks less
 * than the program would: one O_PATH descriptor of the directory (close
 * on exec, placed high, out of the way of programs that count on the
 * lowest free numbers) and openat() below it.
 *
 * The descriptor is the program's to close: it may close it (a loop over
 * every descriptor, closefrom) and get the number again for a file of its
 * own. So: a failed openat below it (EBADF, ENOTDIR, ENOENT...) is
 * believed only when fstat still finds the directory (else the
 * descriptor is forgotten, never closed: the number is the program's; the
 * directory is kept again at once, and the path opened in full if that
 * fails); and the directory itself (".", opened as a directory) is
 * checked on the descriptor it gives. A listing by opendir(3) of the
 * directory itself is libc's of its path (dir.c): fewer system calls. What is not checked: a
 * file opened below a number the program has made another directory
 * holding the same relative path (a copy of sysfs, at that number). Not
 * under the test root (its paths are another tree's). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"

#define CPUDIR "/sys/devices/system/cpu"
#define CPUDIR_LEN (sizeof(CPUDIR) - 1)

static struct {
	int fd; /* -1: none (yet); -2: not to be had */
	dev_t dev;
	ino_t ino;
} kept = { .fd = -1 };

static int cpudir_fd(void)
{
	int fd = __atomic_load_n(&kept.fd, __ATOMIC_ACQUIRE);
	/* (never under the test root: its callers open physical paths that
	 * are no root's, shim_vlookup) */
	if (CPS_LIKELY(fd >= 0) || fd == -2 || !shim_real.openat)
		return fd;
	SHIM_KEEP_ERRNO;
	struct stat sb;
	int lo = shim_real.openat(AT_FDCWD, CPUDIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lo < 0)
		return -1;
	fd = fcntl(lo, F_DUPFD_CLOEXEC, SHIM_REAL_FD_MIN);
	if (fd >= 0)
		close(lo);
	else
		fd = lo;
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return -1;
	}
	/* dev and ino before fd: a reader that sees fd sees them */
	kept.dev = sb.st_dev;
	kept.ino = sb.st_ino;
	int none = -1;
	if (!__atomic_compare_exchange_n(&kept.fd, &none, fd, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(fd); /* another thread's came first */
		fd = none;
	}
	return fd;
}

static bool is_cpudir(const struct stat *sb)
{
	return S_ISDIR(sb->st_mode) && sb->st_dev == kept.dev && sb->st_ino == kept.ino;
}

/* Whether the kept descriptor fd is still the directory; if not it is
 * forgotten (not closed: the number is the program's now). */
static bool still_ours(int fd)
{
	struct stat sb;
	if (fstat(fd, &sb) == 0 && is_cpudir(&sb))
		return true;
	int was = fd;
	__atomic_compare_exchange_n(&kept.fd, &was, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	shim_debug("the kept descriptor of " CPUDIR " was closed; opening it again");
	return false;
}

int shim_cpudir_open(const char *phys, int flags, int mode)
{
	int k;
	if (strncmp(phys, CPUDIR, CPUDIR_LEN) != 0 || (phys[CPUDIR_LEN] && phys[CPUDIR_LEN] != '/') ||
	    (k = cpudir_fd()) < 0)
		return shim_real.openat(AT_FDCWD, phys, flags, mode);
	bool self = !phys[CPUDIR_LEN] || !phys[CPUDIR_LEN + 1];
	const char *rel = self ? "." : phys + CPUDIR_LEN + 1;
	int saved = errno;
	for (int again = 0;; again++) {
		int fd = shim_real.openat(k, rel, flags, mode);
		if (fd >= 0) {
			struct stat sb;
			if (!self)
				return fd;
			/* the directory itself: this descriptor must be it */
			if (fstat(fd, &sb) == 0 && is_cpudir(&sb))
				return fd;
			close(fd);
			if (still_ours(k))
				break;
		} else if (still_ours(k)) {
			return -1; /* the directory's own answer */
		}
		/* lost: kept again at once, once */
		errno = saved;
		if (again || (k = cpudir_fd()) < 0)
			break;
	}
	errno = saved;
	return shim_real.openat(AT_FDCWD, phys, flags, mode);
}
