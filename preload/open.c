/* SPDX-License-Identifier: BSD-3-Clause */
/* The open and stdio wrappers: open, open64, openat, openat64, the
 * fortified __open*_2 entries, fopen, fopen64, freopen, freopen64. A path
 * that may be a virtual file (shim_view_path_candidate) goes to
 * shim_view_open; everything else to libc's. Where the architecture has
 * frameless entry points (preload/stubs.h) the open family's are stubs and
 * these are their slow paths; elsewhere they are the open family. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/stubs.h"
#include "preload/view.h"

static int mode_of(int flags, va_list ap)
{
	if (flags & (O_CREAT | __O_TMPFILE))
		return va_arg(ap, int);
	return 0;
}

#define VIEW_OR(dirfd, path, flags)                                                   \
	do {                                                                          \
		if (CPS_UNLIKELY(shim_view_path_candidate(path)) &&                    \
		    shim_path_may_view((dirfd), (path)) && shim_ready()) {            \
			int vfd_ = shim_view_open((dirfd), (path), (flags));          \
			if (vfd_ != -1)                                                \
				return vfd_ >= 0 ? vfd_ : -1;                          \
		}                                                                     \
	} while (0)

#define OPEN_C(name) __attribute__((used)) shim_##name##_slow

int OPEN_C(open)(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.open && (shim_ready(), !shim_ensure(shim_real.open)))
		return -1;
	return shim_real.open(path, flags, mode);
}

int OPEN_C(open64)(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.open64 && (shim_ready(), !shim_ensure(shim_real.open64)))
		return -1;
	return shim_real.open64(path, flags, mode);
}

int OPEN_C(openat)(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.openat && (shim_ready(), !shim_ensure(shim_real.openat)))
		return -1;
	return shim_real.openat(dirfd, path, flags, mode);
}

int OPEN_C(openat64)(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.openat64 && (shim_ready(), !shim_ensure(shim_real.openat64)))
		return -1;
	return shim_real.openat64(dirfd, path, flags, mode);
}

/* the open family itself where no stub takes the names (preload/stubs.h) */
SHIM_STUB_DEFAULT(open, shim_open_slow);
SHIM_STUB_DEFAULT(open64, shim_open64_slow);
SHIM_STUB_DEFAULT(openat, shim_openat_slow);
SHIM_STUB_DEFAULT(openat64, shim_openat64_slow);

EXPORT int __open_2(const char *path, int flags)
{
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.__open_2 && (shim_ready(), !shim_ensure(shim_real.__open_2)))
		return -1;
	return shim_real.__open_2(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.__open64_2 && (shim_ready(), !shim_ensure(shim_real.__open64_2)))
		return -1;
	return shim_real.__open64_2(path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.__openat_2 && (shim_ready(), !shim_ensure(shim_real.__openat_2)))
		return -1;
	return shim_real.__openat_2(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.__openat64_2 && (shim_ready(), !shim_ensure(shim_real.__openat64_2)))
		return -1;
	return shim_real.__openat64_2(dirfd, path, flags);
}

/* stdio: only plain reading modes can be virtual ("r", "rb", "re", "rm"...). */
static int read_mode_flags(const char *mode)
{
	if (!mode || mode[0] != 'r')
		return -1;
	int fl = O_RDONLY;
	for (const char *m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+' )
			return -1;
		if (*m == 'e')
			fl |= O_CLOEXEC;
	}
	return fl;
}

/* A stream of libc's fopen (real) on the view fd, opened again through
 * its link, for what only fopen's modes do (",ccs=": the stream's
 * conversion and wide orientation, which fdopen ignores); fd is closed.
 * The view is none of the pool's, whose files only the descriptions the
 * pool hands out keep. */
static FILE *stream_by_link(FILE *(*real)(const char *, const char *), int fd, const char *mode)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	FILE *f = real(p, mode);
	SHIM_KEEP_ERRNO;
	if (f)
		shim_rewind_move(fd, fileno(f));
	close(fd);
	return f;
}

/* *done: the answer is the view's (NULL with errno: a CPU that does not
 * exist in the set), else the real file is the answer. */
static FILE *view_fopen(FILE *(*real)(const char *, const char *), const char *path,
			const char *mode, bool *done)
{
	int fl = read_mode_flags(mode);
	*done = false;
	if (fl < 0 || !shim_path_may_view(AT_FDCWD, path) || !shim_ready())
		return NULL;
	bool relink = real && strstr(mode, ",ccs=");
	shim_view_no_pool = relink;
	int fd = shim_view_open(AT_FDCWD, path, fl);
	shim_view_no_pool = false;
	if (fd == -2)
		*done = true;
	if (fd < 0)
		return NULL;
	*done = true;
	if (relink)
		return stream_by_link(real, fd, mode);
	FILE *f = fdopen(fd, mode);
	if (!f) {
		SHIM_KEEP_ERRNO;
		close(fd);
	}
	return f;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	/* an absolute path whose second byte is none of p, s, '/', '.' can
	 * be no view (shim_view_path_candidate): straight to libc's */
	if (CPS_LIKELY(path && path[0] == '/' && !shim_view_path_candidate(path) &&
		       shim_real.fopen))
		return shim_real.fopen(path, mode);
	bool done;
	FILE *f = view_fopen(shim_real.fopen, path, mode, &done);
	if (done)
		return f;
	if (!shim_real.fopen && (shim_ready(), !shim_ensure(shim_real.fopen)))
		return NULL;
	return shim_real.fopen(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	/* an absolute path whose second byte is none of p, s, '/', '.' can
	 * be no view (shim_view_path_candidate): straight to libc's */
	if (CPS_LIKELY(path && path[0] == '/' && !shim_view_path_candidate(path) &&
		       shim_real.fopen64))
		return shim_real.fopen64(path, mode);
	bool done;
	FILE *f = view_fopen(shim_real.fopen64, path, mode, &done);
	if (done)
		return f;
	if (!shim_real.fopen64 && (shim_ready(), !shim_ensure(shim_real.fopen64)))
		return NULL;
	return shim_real.fopen64(path, mode);
}

static FILE *view_freopen(FILE *(*real)(const char *, const char *, FILE *), const char *path,
			  const char *mode, FILE *stream)
{
	int fl = read_mode_flags(mode);
	/* freopen(NULL, "w", stream on a view) reopens the view's own file
	 * through /proc/self/fd inside libc: the real file's answer instead
	 * (root would truncate a view every process of the table shares) */
	if (!path && fl < 0 && mode && stream) {
		char realp[PATH_MAX];
		int sfd = fileno(stream);
		if (sfd >= 0 && shim_view_own_file(NULL, sfd, realp, sizeof(realp))) {
			if (*realp)
				return real(realp, mode, stream);
			fclose(stream); /* freopen's failure closes the stream */
			errno = EACCES;
			return NULL;
		}
	}
	if (fl < 0 || !shim_path_may_view(AT_FDCWD, path) || !shim_ready())
		return real(path, mode, stream);
	/* the stream gets a description of its own, opened through
	 * /proc/self/fd: not a pool file, which only the descriptions the
	 * pool hands out keep */
	shim_view_no_pool = true;
	int fd = shim_view_open(AT_FDCWD, path, fl);
	shim_view_no_pool = false;
	if (fd < 0) /* -2, a CPU not in the set: the real call says ENOENT too */
		return real(path, mode, stream);
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	FILE *f = real(p, mode, stream);
	{
		SHIM_KEEP_ERRNO;
		close(fd);
	}
	return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	if (!shim_real.freopen && (shim_ready(), !shim_ensure(shim_real.freopen)))
		return NULL;
	return view_freopen(shim_real.freopen, path, mode, stream);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	if (!shim_real.freopen64 && (shim_ready(), !shim_ensure(shim_real.freopen64)))
		return NULL;
	return view_freopen(shim_real.freopen64, path, mode, stream);
}

