/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a virtual file: a kept view (preload/kept_views.c) when its
 * kind is kept, else the view made now into a memfd reopened read-only;
 * the views made at each open are remembered for the rewind table
 * (preload/rewind.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/path.h"
#include "src/rawsys.h"
#include "src/vfd.h"
#include "src/views.h"

/* All of data to fd; false on an error or a short write. */
bool shim_write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		off += (size_t)w;
	}
	return true;
}

/* A view made at its open: an unlinked tmpfs file holding data, reopened
 * read-only with the caller's flags, like the real file (mode 0444, as
 * the real files; 0644 for one made again in place when the reader goes
 * back to the start, see preload/rewind.c, as the real file's are). An
 * O_TMPFILE in /dev/shm first, a memfd (sealed when kept) only where no
 * tmpfs takes one (src/vfd.h says why). Rare (the pool and the kept
 * views come first): kept out of the open's own frame. */
static __attribute__((noinline)) int make_fd(const char *data, size_t len, int flags,
						   bool sealed)
{
	int fd = cps_vfd(data, len, CPS_VFD_TMPFILE | (sealed ? CPS_VFD_SEAL : 0),
			 shim_getenv("TMPDIR"), sealed ? 0444 : 0644,
			 O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK | O_NOATIME |
					      SHIM_VIEW_STATUS_FLAGS)));
	if (fd < 0) {
		shim_debug("a file for a view: %s", strerror(-fd));
		return -1;
	}
	return fd;
}

bool shim_view_own_file(const char *path, int fd, char *real, size_t len)
{
	char link[64], target[PATH_MAX];
	const char *kd = shim_kept_dirname();
	*real = 0;
	if (!kd)
		return false;
	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		path = link;
	}
	ssize_t n = cps_sys_readlink(path, target, sizeof(target) - 1);
	size_t kl = strlen(kd);
	if (n <= 0 || (size_t)n <= kl || strncmp(target, kd, kl) || target[kl] != '/')
		return false;
	/* ours: the real file, if the descriptor is one of this process's */
	const char *num = strrchr(path, '/');
	bool own = fd >= 0 || !strncmp(path, "/proc/self/fd/", 14) ||
		   !strncmp(path, "/proc/thread-self/fd/", 21);
	if (!own) {
		char me[32];
		int ml = snprintf(me, sizeof(me), "/proc/%d/fd/", (int)getpid());
		own = !strncmp(path, me, (size_t)ml);
	}
	if (own && num && num[1] >= '0' && num[1] <= '9')
		shim_rewind_real(fd >= 0 ? fd : atoi(num + 1), real, len);
	return true;
}

int shim_view_fd(const char *data, size_t len, int flags)
{
	return make_fd(data, len, flags, true);
}

__thread bool shim_view_no_pool;

/* Whether every CPU a /proc/<pid>/stat can name is already its own
 * virtual number: the set is CPUs 0..n-1 and the machine can have no
 * other (its possible CPUs, read once: they never change). Then the real
 * file is the view, at no cost. */
static bool pidstat_is_real(const struct shim_cpus *v)
{
	static int possible;
	int p = __atomic_load_n(&possible, __ATOMIC_RELAXED);
	if (!p && shim_real.get_nprocs_conf) {
		p = shim_real.get_nprocs_conf();
		__atomic_store_n(&possible, p, __ATOMIC_RELAXED);
	}
	return p > 0 && (unsigned)p <= v->n && cps_mask_last(v->cpus, v->nw) == (int)v->n - 1;
}

/* A view of kind k made now (out) delivered: a content-named kept file
 * (the cgroup's lists, online with CPUs offline), else the pool, else a
 * file of its own. */
static int deliver_made(enum cps_vkind k, const char *real, pid_t tid, const struct cps_buf *out,
			int flags, int *how, struct stat *id, bool *have_id)
{
	int fd;
	unsigned char d = cps_vkind_delivery[k];
	if (d == CPS_VD_MADE &&
	    (fd = shim_kept_content(k == CPS_VK_ONLINE ? "on" : "cg", out->p, out->len, flags)) >= 0) {
		*how = SHIM_VIEW_KEPT; /* going back to the start opens it again */
		return fd;
	}
	bool kept_kind = d == CPS_VD_KEPT;
	*how = kept_kind ? SHIM_VIEW_KEPT : SHIM_VIEW_MADE;
	if (!kept_kind && !shim_view_no_pool &&
	    (fd = shim_pool_deliver(k, real, k == CPS_VK_STATUS_TASK ? (tid ? tid : shim_gettid()) : 0,
				    out->p, out->len, flags, id)) >= 0) {
		*have_id = true;
		return fd;
	}
	return make_fd(out->p, out->len, flags, kept_kind);
}

int shim_view_open_kind(enum cps_vkind k, const char *real, pid_t tid, const struct shim_cpus *set,
			int flags, int *how, struct stat *id, bool *have_id)
{
	char name[SHIM_KEPT_NAME_MAX];
	struct shim_cpus now;
	*have_id = false;
	if (!set && !shim_cpus_now(&now))
		return -1;
	const struct shim_cpus *v = set ? set : &now;
	SHIM_KEEP_ERRNO;
	bool store = false;
	uint64_t key = 0;
	int fd = -1;
	if (k == CPS_VK_PIDSTAT && pidstat_is_real(v)) {
		/* the real file, remembered all the same: after a resize its
		 * next reading from the start may have to be a view */
		*how = SHIM_VIEW_REAL;
		return shim_real.open(real, O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK | O_NOATIME |
								 SHIM_VIEW_STATUS_FLAGS)));
	}
	*how = SHIM_VIEW_KEPT;
	/* online while all the set's CPUs are: the range of n, kept */
	if (k == CPS_VK_ONLINE && shim_online_count(v->n) == v->n)
		k = CPS_VK_RANGE;
	if (cps_vkind_delivery[k] == CPS_VD_KEPT) {
		fd = shim_kept_open(k, v, flags, name, sizeof(name), &key, &store);
		if (fd >= 0)
			return fd;
	}
	char ob[SHIM_VIEW_STACK];
	struct cps_buf out = cps_buf_on(ob, sizeof(ob));
	int r = shim_view_build(k, real, tid, v, &out);
	if (r == 0 && store)
		fd = shim_kept_store(k, name, key, out.p, out.len, flags);
	if (r == 0 && fd < 0)
		fd = deliver_made(k, real, tid, &out, flags, how, id, have_id);
	cps_buf_free(&out);
	if (fd < 0)
		shim_debug("view of %s failed; passing the real file through", real);
	return fd;
}

/* A view's own file reopened to write through its descriptor's link
 * (/proc/self/fd/N): the real file's answer (root would truncate a view
 * that every process of the table shares). The real file's descriptor,
 * -2 with errno (refused), or -1: not such a reopening. */
static __attribute__((noinline)) int view_reopened_to_write(const char *path, int flags)
{
	if (strncmp(path, "/proc/", 6) || !strstr(path, "/fd/"))
		return -1;
	char real[PATH_MAX];
	if (!shim_view_own_file(path, -1, real, sizeof(real)))
		return -1;
	if (!*real) {
		errno = EACCES;
		return -2;
	}
	int rfd = shim_real.open(real, flags, 0);
	return rfd >= 0 ? rfd : -2;
}

/* The one delivery step: the view vp says (shim_vlookup) handed over,
 * by its kind's delivery (ro: opened only to read, as shim_vlookup's).
 * An fd, -2 with errno, or -1: libc's open. */
static int deliver(struct shim_vpath *vp, int flags, bool ro)
{
	int k = vp->kind;
	bool sys = shim_vpath_sys(vp);

	if (CPS_UNLIKELY(vp->rl != 0) && !sys) {
		int tfd = shim_troot_open(vp, flags);
		if (tfd != -1)
			return tfd;
	}
	if (k <= CPS_VK_ABSENT) {
		if (k == CPS_VK_NONE)
			return -1;
		errno = ENOENT;
		return -2;
	}
	if (sys) {
		/* the ranges are kept views of their own (by the set's size,
		 * or the possible CPUs' count), as cpuinfo; every other /sys
		 * view by its path: the physical file, or a content view */
		bool reading = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_DIRECTORY | O_PATH));
		bool own = k == CPS_VK_RANGE || k == CPS_VK_POSSIBLE || k == CPS_VK_ONLINE;
		if (!reading || k < CPS_VK_MASK)
			return shim_sys_physical(vp, flags, 0);
		if (!own || vp->rl)
			return shim_sys_content(vp, flags, 0);
	}
	if (!ro || vp->len >= SHIM_VIEW_REAL_MAX)
		return -1;
	int how = SHIM_VIEW_MADE;
	struct stat id;
	bool have_id;
	int fd = shim_view_open_kind(k, vp->canon, 0, &vp->set.v, flags, &how, &id, &have_id);
	if (fd >= 0)
		shim_rewind_remember(fd, k, vp->canon, have_id ? &id : NULL, how);
	return fd;
}

/* Any spelling, one canonical path (preload/path.c), one look-up (its
 * row, kind, set, physical path), one delivery. Out of line: its frame
 * (two paths and a set) stays off the redirects' way. */
static __attribute__((noinline)) int view_open_any(int dirfd, const char *path, int flags)
{
	char canon[PATH_MAX];
	bool dironly = false;
	const char *c = shim_path_resolve(dirfd, path, flags & O_NOFOLLOW ? CPS_CANON_NOFOLLOW : 0,
					  canon, sizeof(canon), &dironly);
	if (!c)
		return -1;
	bool ro = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_DIRECTORY | O_PATH | O_CREAT)) &&
		  !dironly;
	struct shim_vpath vp;
	shim_vlookup(c, ro, &vp);
	return deliver(&vp, flags, ro);
}

int shim_view_open(int dirfd, const char *path, int flags)
{
	int fd = -1;
	if (CPS_UNLIKELY(((flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_APPEND))) &&
			 dirfd == AT_FDCWD))
		fd = view_reopened_to_write(path, flags);
	/* a virtual CPU's file opened before by this spelling (redirect.c;
	 * it keeps only spellings of /sys/devices/system/cpu/...) */
	if (fd == -1 && dirfd == AT_FDCWD && path[0] == '/' && path[1] == 's')
		fd = shim_redirect_open(path, flags);
	if (fd == -1)
		fd = view_open_any(dirfd, path, flags);
	/* O_DIRECT: every file of /proc and /sys refuses it (EINVAL, once
	 * the path is found), where a view's own file would take it */
	if (CPS_UNLIKELY(fd >= 0 && (flags & O_DIRECT) && !(flags & O_PATH))) {
		close(fd);
		errno = EINVAL;
		return -2;
	}
	return fd;
}
