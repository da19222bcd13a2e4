/* SPDX-License-Identifier: BSD-3-Clause */
/* stat, stat64, lstat, lstat64, fstatat, fstatat64 and statx of the CPU
 * directories by their virtual names (preload/view_sys.c): cpuV is
 * physical cpu<p(V)>, cpuN for N >= n does not exist. A path that can be
 * no view (absolute, outside /s... and /p..., no test root) goes to libc's
 * function after two byte compares. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/path.h"
#include "src/vfiles.h"
#include "src/vpath.h"

#define NO_VIEW(path) shim_path_no_view(path)


/* libc's fstatat, also for preload/view_sys.c */
int shim_real_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	if (!SHIM_HAVE_REAL(fstatat)) {
		errno = ENOSYS;
		return -1;
	}
	return shim_real.fstatat(dirfd, path, st, flags);
}

/* The canonical path of a stat-like call's (dirfd, path), looked up into
 * *vp, or false. */
static bool stat_canon(int dirfd, const char *path, int flags, char *canon, size_t len,
		       struct shim_vpath *vp)
{
	/* the shim is set up only for a path of ours: a stat of /sbin or
	 * /srv costs no set-up. Flags the kernel does not know are its to
	 * refuse (EINVAL), before it looks at the buffer. */
	return !(flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE)) &&
	       shim_sys_lookup(dirfd, path, flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, canon, len,
			       vp);
}

/* 0 or -1 with errno: the answer; -2: not ours. */
__attribute__((noinline)) static int stat_view(int dirfd, const char *path, struct stat *st, int flags)
{
	char canon[PATH_MAX];
	struct shim_vpath vp;
	int saved = errno;

	if (!stat_canon(dirfd, path, flags, canon, sizeof(canon), &vp))
		return -2;
	int r = shim_view_stat_hook(&vp, st, flags);
	if (r == -1) {
		errno = saved;
		return -2;
	}
	return r == 0 ? 0 : -1;
}

#define STAT_FNS(SUFFIX, STRUCT)                                                         \
	EXPORT int fstatat##SUFFIX(int dirfd, const char *path, struct STRUCT *st, int flags) \
	{                                                                                \
		if (NO_VIEW(path) && shim_real.fstatat)                                       \
			return shim_real.fstatat(dirfd, path, (struct stat *)st, flags);      \
		int r = stat_view(dirfd, path, (struct stat *)st, flags);                \
		return r != -2 ? r : shim_real_fstatat(dirfd, path, (struct stat *)st, flags); \
	}                                                                                \
	EXPORT int stat##SUFFIX(const char *path, struct STRUCT *st)                     \
	{                                                                                \
		if (NO_VIEW(path) && shim_real.fstatat)                                       \
			return shim_real.fstatat(AT_FDCWD, path, (struct stat *)st, 0);       \
		int r = stat_view(AT_FDCWD, path, (struct stat *)st, 0);                 \
		return r != -2 ? r : shim_real_fstatat(AT_FDCWD, path, (struct stat *)st, 0); \
	}                                                                                \
	EXPORT int lstat##SUFFIX(const char *path, struct STRUCT *st)                    \
	{                                                                                \
		if (NO_VIEW(path) && shim_real.fstatat)                                       \
			return shim_real.fstatat(AT_FDCWD, path, (struct stat *)st,           \
					    AT_SYMLINK_NOFOLLOW);                        \
		int r = stat_view(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW); \
		return r != -2 ? r                                                       \
			       : shim_real_fstatat(AT_FDCWD, path, (struct stat *)st,           \
					      AT_SYMLINK_NOFOLLOW);                        \
	}
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 is stat here");
STAT_FNS(, stat)
STAT_FNS(64, stat64)

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)
{
	char canon[PATH_MAX], rp[PATH_MAX];
	struct shim_vpath vp;

	if (!SHIM_HAVE_REAL(statx)) {
		errno = ENOSYS;
		return -1;
	}
	if (!NO_VIEW(path) && stat_canon(dirfd, path, flags, canon, sizeof(canon), &vp) &&
	    shim_vpath_sys(&vp)) {
		int saved = errno;
		if (!shim_vpath_physical(&vp, rp, sizeof(rp)))
			return errno == ENOENT ? -1 : shim_real.statx(dirfd, path, flags, mask, buf);
		errno = saved;
		return shim_real.statx(AT_FDCWD, rp, flags, mask, buf);
	}
	return shim_real.statx(dirfd, path, flags, mask, buf);
}
