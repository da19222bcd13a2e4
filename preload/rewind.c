/* SPDX-License-Identifier: BSD-3-Clause */
/* The rewind table: views made at each open (stat, status) are made
 * again in place when the program goes back to the start, as procfs
 * does; and the interposers that notice it (lseek, pread, rewind,
 * fseek...). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/rawsys.h"
#include "src/views.h"

/* ---- reading a view again from the start ----
 *
 * Kept views (cpuinfo, the ranges) and real files that are their own view
 * (stat of other processes when the set is the whole machine) are
 * remembered too: going back to the start gives the descriptor a new view
 * (dup3), so a program holding one sees a resize as it sees the kernel's
 * files change.
 *
 * The real /proc/stat and status files are made again when a reader goes
 * back to the start: top keeps /proc/stat open and does rewind() and
 * fflush(), others lseek() to 0 or pread() at 0. The views made at each
 * open are remembered by descriptor (the ones opened through the shim,
 * below VFD_MAX) and made again in place, in the same file, when the
 * program calls one of those on them: its offset and stdio's buffer
 * handling stay as they are, only the contents are new. */
#define VFD_MAX 4096
struct vfd {
	enum cps_vkind k;
	int how;       /* SHIM_VIEW_*: made again in place, or replaced */
	pid_t tid;     /* of a thread's status */
	dev_t dev;     /* the view's file, to tell it from a later file */
	ino_t ino;     /* that got the same descriptor number */
	char real[];
};
static struct vfd **vfds; /* VFD_MAX entries, allocated at the first view */
static pthread_mutex_t vfd_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether fd is still the file entry t was remembered for; *sb its
 * fstat when that was asked. A kept view's identity is not taken at its
 * open (an fstat at every open of a file that costs four system calls
 * natively): it is recognised by its name, a file in the kept views'
 * directory (ino 0 in t). */
static bool still_the_view(int fd, const struct vfd *t, struct stat *sb)
{
	if (t->ino)
		return fstat(fd, sb) == 0 && sb->st_dev == t->dev && sb->st_ino == t->ino;
	const char *kd = shim_kept_dirname();
	char link[32], target[SHIM_KEPT_DIR_MAX + 64];
	size_t kl = kd ? strlen(kd) : 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = kd ? cps_sys_readlink(link, target, sizeof(target)) : -1;
	return n > (ssize_t)kl + 1 && !memcmp(target, kd, kl) && target[kl] == '/' &&
	       fstat(fd, sb) == 0;
}

void shim_rewind_remember(int fd, enum cps_vkind k, const char *real, const struct stat *id, int how)
{
	struct stat sb = { 0 };
	if (id) {
		sb.st_dev = id->st_dev;
		sb.st_ino = id->st_ino;
	}
	if ((unsigned)fd >= VFD_MAX || (!id && how != SHIM_VIEW_KEPT && fstat(fd, &sb) < 0) ||
	    pthread_mutex_trylock(&vfd_lock))
		return;
	if (!vfds) {
		/* from the heap, not a mapping of its own: the entries it
		 * points to stay reachable for a leak checker */
		void *m = calloc(VFD_MAX, sizeof(*vfds));
		if (m)
			__atomic_store_n(&vfds, (struct vfd **)m, __ATOMIC_RELEASE);
	}
	size_t rl = strlen(real) + 1;
	struct vfd *t = vfds ? malloc(sizeof(*t) + rl) : NULL;
	if (t) {
		t->k = k;
		t->how = how;
		t->tid = k == CPS_VK_STATUS_TASK ? shim_gettid() : 0;
		t->dev = sb.st_dev;
		t->ino = sb.st_ino;
		memcpy(t->real, real, rl);
		struct vfd *old = vfds[fd];
		__atomic_store_n(&vfds[fd], t, __ATOMIC_RELEASE);
		free(old);
	}
	pthread_mutex_unlock(&vfd_lock);
}

void shim_rewind_move(int fd, int to)
{
	struct vfd **v = __atomic_load_n(&vfds, __ATOMIC_ACQUIRE);
	if ((unsigned)fd >= VFD_MAX || (unsigned)to >= VFD_MAX || fd == to || !v ||
	    pthread_mutex_trylock(&vfd_lock))
		return;
	struct vfd *t = v[fd], *old = v[to];
	__atomic_store_n(&v[to], t, __ATOMIC_RELEASE);
	__atomic_store_n(&v[fd], NULL, __ATOMIC_RELEASE);
	free(old);
	pthread_mutex_unlock(&vfd_lock);
}

bool shim_rewind_real(int fd, char *real, size_t len)
{
	struct vfd **v = __atomic_load_n(&vfds, __ATOMIC_ACQUIRE);
	struct stat sb;
	bool ok = false;
	if ((unsigned)fd >= VFD_MAX || !v || pthread_mutex_trylock(&vfd_lock))
		return false;
	struct vfd *t = v[fd];
	if (t && still_the_view(fd, t, &sb) && strlen(t->real) < len) {
		strcpy(real, t->real);
		ok = true;
	}
	pthread_mutex_unlock(&vfd_lock);
	return ok;
}

/* fd is going back to the start: if it is one of our views, make its
 * contents again. Keeps errno; does nothing it cannot do safely. */
static void view_rewound(int fd)
{
	struct vfd **tab = __atomic_load_n(&vfds, __ATOMIC_ACQUIRE);
	if ((unsigned)fd >= VFD_MAX || !__atomic_load_n(&tab[fd], __ATOMIC_ACQUIRE))
		return;
	SHIM_KEEP_ERRNO;
	if (pthread_mutex_trylock(&vfd_lock))
		return;
	struct vfd *t = vfds[fd];
	struct stat sb;
	struct shim_cpus v;
	if (!still_the_view(fd, t, &sb)) {
		/* closed since, and the number given to another file */
		__atomic_store_n(&vfds[fd], NULL, __ATOMIC_RELEASE);
		free(t);
	} else if (t->how != SHIM_VIEW_MADE) {
		/* a kept view or the real file: shared with others, or not
		 * ours to write; a new view takes its descriptor number, at
		 * offset 0 where the program is going (a resize since shows) */
		int how = t->how, fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
		struct stat id;
		bool have_id = false;
		int nfd = fl < 0 || fdfl < 0 ? -1
			: shim_view_open_kind(t->k, t->real, t->tid, NULL,
					      O_RDONLY | (fl & (O_NONBLOCK | O_NOATIME | SHIM_VIEW_STATUS_FLAGS)), &how, &id,
					      &have_id);
		if (nfd >= 0 && nfd != fd) {
			if (dup3(nfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) == fd &&
			    fstat(fd, &sb) == 0) {
				/* its identity now, whichever kind it is */
				t->how = how;
				t->dev = sb.st_dev;
				t->ino = sb.st_ino;
			}
			close(nfd);
		}
	} else if (shim_pool_rewound(&sb) == 0) {
		/* one of the pool's files: made again from what it holds now
		 * (the same file serves one view after another) */
	} else if (shim_cpus_now(&v)) {
		struct cps_buf b = { 0 };
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		int w;
		if (shim_view_build(t->k, t->real, t->tid, &v, &b) == 0 &&
		    (w = shim_real.open(p, O_RDWR | O_CLOEXEC)) >= 0) {
			/* a file the shim cannot cut keeps the old view's tail */
			if (shim_write_all(w, b.p, b.len) && ftruncate(w, (off_t)b.len) < 0)
				shim_debug("a view read again after rewind keeps its old length: %s",
					   strerror(errno));
			close(w);
		}
		cps_buf_free(&b);
	}
	pthread_mutex_unlock(&vfd_lock);
}

/* ---- going back to the start (see view_rewound) ----
 *
 * Each is one test of a pointer that stays NULL until the process opens
 * a view made at its open, then libc's function. */

#define REWOUND(fd, cond)                                                            \
	do {                                                                          \
		struct vfd **tab_ = __atomic_load_n(&vfds, __ATOMIC_RELAXED);         \
		if (CPS_UNLIKELY(tab_ != NULL) && (cond)) {                            \
			int fd_ = (fd);                                                \
			if ((unsigned)fd_ < VFD_MAX &&                                 \
			    __atomic_load_n(&tab_[fd_], __ATOMIC_RELAXED))             \
				view_rewound(fd_);                                     \
		}                                                                     \
	} while (0)

/* A seek the view's file would answer otherwise than its real file: to
 * the end, data or hole (sysfs counts from a page; procfs refuses them),
 * or past 2 GiB (sysfs refuses). Common seeks never get here. */
static inline bool seek_unusual(off64_t off, int whence)
{
	return (whence != SEEK_SET && whence != SEEK_CUR) || off > INT32_MAX || off < 0;
}

/* The real file's answer to a seek of view fd from position cur: true if
 * fd is one of our views (then *res is the position to go to, or -1 with
 * errno), false if not. The real file is opened, sought and closed. A
 * stream's seek to the end (stdio) is stdio's: the real file's size plus
 * off from the start, for a regular file (procfs's and sysfs's are), as
 * glibc's _IO_new_file_seekoff makes it. */
static off64_t real_lseek64(int fd, off64_t off, int whence)
{
	if (!shim_real.lseek64 && (shim_ready(), !shim_ensure(shim_real.lseek64)))
		return -1;
	return shim_real.lseek64(fd, off, whence);
}

/* stdio's seek to the end of the real file rfd */
static off64_t stdio_seek_end(int rfd, off64_t off)
{
	struct stat st;
	off64_t to;
	if (fstat(rfd, &st) < 0 || !S_ISREG(st.st_mode))
		return real_lseek64(rfd, off, SEEK_END);
	if (__builtin_add_overflow((off64_t)st.st_size, off, &to)) {
		errno = EOVERFLOW;
		return -1;
	}
	return real_lseek64(rfd, to, SEEK_SET);
}

static bool seek_as_real(int fd, off64_t cur, off64_t off, int whence, bool stdio, off64_t *res)
{
	char real[SHIM_VIEW_REAL_MAX];
	int saved = errno;
	if (!shim_rewind_real(fd, real, sizeof(real)))
		return false;
	int rfd = shim_real.open ? shim_real.open(real, O_RDONLY | O_CLOEXEC) : -1;
	if (rfd < 0) {
		errno = saved;
		return false;
	}
	off64_t r;
	if (whence == SEEK_CUR) {
		/* from our position: the same as from the start there */
		if (__builtin_add_overflow(cur, off, &r))
			r = -1, errno = EOVERFLOW;
		else
			r = real_lseek64(rfd, r, SEEK_SET);
	} else if (stdio && whence == SEEK_END) {
		r = stdio_seek_end(rfd, off);
	} else {
		r = real_lseek64(rfd, off, whence);
	}
	int e = errno;
	close(rfd);
	*res = r;
	errno = r < 0 ? e : saved;
	return true;
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	REWOUND(fd, off == 0 && whence == SEEK_SET);
	if (CPS_UNLIKELY(__atomic_load_n(&vfds, __ATOMIC_RELAXED) != NULL) && seek_unusual(off, whence)) {
		off64_t to, cur = whence == SEEK_CUR ? real_lseek64(fd, 0, SEEK_CUR) : 0;
		if (cur >= 0 && seek_as_real(fd, cur, off, whence, false, &to))
			return to < 0 ? -1 : (off_t)real_lseek64(fd, to, SEEK_SET);
	}
	if (!shim_real.lseek && (shim_ready(), !shim_ensure(shim_real.lseek)))
		return -1;
	return shim_real.lseek(fd, off, whence);
}

EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
	REWOUND(fd, off == 0 && whence == SEEK_SET);
	if (CPS_UNLIKELY(__atomic_load_n(&vfds, __ATOMIC_RELAXED) != NULL) && seek_unusual(off, whence)) {
		off64_t to, cur = whence == SEEK_CUR ? real_lseek64(fd, 0, SEEK_CUR) : 0;
		if (cur >= 0 && seek_as_real(fd, cur, off, whence, false, &to))
			return to < 0 ? -1 : real_lseek64(fd, to, SEEK_SET);
	}
	if (!shim_real.lseek64 && (shim_ready(), !shim_ensure(shim_real.lseek64)))
		return -1;
	return shim_real.lseek64(fd, off, whence);
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REWOUND(fd, off == 0);
	if (!shim_real.pread && (shim_ready(), !shim_ensure(shim_real.pread)))
		return -1;
	return shim_real.pread(fd, buf, n, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	REWOUND(fd, off == 0);
	if (!shim_real.pread64 && (shim_ready(), !shim_ensure(shim_real.pread64)))
		return -1;
	return shim_real.pread64(fd, buf, n, off);
}

/* libc's fseeko64 to an absolute position the real file allowed */
static int stream_seek_to(FILE *f, off64_t to)
{
	if (!shim_real.fseeko64 && (shim_ready(), !shim_ensure(shim_real.fseeko64)))
		return -1;
	return shim_real.fseeko64(f, to, SEEK_SET);
}

EXPORT void rewind(FILE *f)
{
	REWOUND(fileno(f), true);
	if (!shim_real.rewind && (shim_ready(), !shim_ensure(shim_real.rewind)))
		return;
	shim_real.rewind(f);
}

/* fseek, fseeko and fseeko64: a view's unusual seek answered as its
 * real file would take it, the rest libc's. */
#define SEEK_FN(NAME, OFF_T)                                                               \
	EXPORT int NAME(FILE *f, OFF_T off, int whence)                                    \
	{                                                                                  \
		REWOUND(fileno(f), off == 0 && whence == SEEK_SET);                        \
		if (CPS_UNLIKELY(__atomic_load_n(&vfds, __ATOMIC_RELAXED) != NULL) &&      \
		    seek_unusual(off, whence) &&                                           \
		    (unsigned)whence <= SEEK_END /* stdio takes no other */) {             \
			off64_t to, cur = whence == SEEK_CUR ? ftello64(f) : 0;            \
			if (cur >= 0 && seek_as_real(fileno(f), cur, off, whence, true, &to)) \
				return to < 0 ? -1 : stream_seek_to(f, to);                \
		}                                                                          \
		if (!shim_real.NAME && (shim_ready(), !shim_ensure(shim_real.NAME)))       \
			return -1;                                                         \
		return shim_real.NAME(f, off, whence);                                     \
	}
SEEK_FN(fseek, long)
SEEK_FN(fseeko, off_t)
SEEK_FN(fseeko64, off64_t)
#undef SEEK_FN
