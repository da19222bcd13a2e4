/* SPDX-License-Identifier: BSD-3-Clause */
/* The /sys families of views (src/vsys.h): the CPU directory
 * (/sys/devices/system/cpu, /sys/bus/cpu/devices) and the NUMA nodes
 * (/sys/devices/system/node), opened, stat'ed and tested by their virtual
 * names.
 *
 * cpuV/... is physical cpu<p(V)>/...: a file that names no CPU is the
 * physical file itself, opened with the caller's flags (one open, as the
 * native call); a CPU list or mask is a view, kept beside the table
 * (preload/kept_views.c) once made, so that each later open is one open of
 * a tmpfs file; cpuN for N >= n does not exist. Listings go through
 * preload/dir.c. The test-only root is preload/troot.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "preload/shim.h"
#include "src/rawsys.h"
#include "preload/view.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/kept_views.h"
#include "src/path.h"
#include "src/vfiles.h"
#include "src/vcgroup.h"
#include "src/vcpuinfo.h"
#include "src/vpath.h"
#include "src/vsys.h"

/* A path that can be no view (shim_path_no_view, preload/shim.h): the
 * interposers below hand it to libc's function at once. */
#define NO_VIEW(path) shim_path_no_view(path)


/* ---- canonical paths ---- */

bool shim_sys_canon(int dirfd, const char *path, int flags, char *out, size_t len)
{
	/* one place for every spelling and the test root: preload/path.c */
	bool dironly;
	return shim_path_resolve(dirfd, path, flags & O_NOFOLLOW ? CPS_CANON_NOFOLLOW : 0, out, len,
				 &dironly) != NULL;
}

/* The test root's cpuinfo (vp looked up below it): stat'ed and opened
 * below it. */
static bool troot_cpuinfo(const struct shim_vpath *vp)
{
	return vp->rl && vp->row && vp->row->family == CPS_VF_CPUINFO;
}

bool shim_sys_lookup(int dirfd, const char *path, int oflags, char *canon, size_t len,
		     struct shim_vpath *vp)
{
	/* the quick test first: a path of no view costs no walk and no
	 * set-up (a stat of /sbin, an access of /srv) */
	if (!(path && *path && shim_path_may_view(dirfd, path) && !shim_resolving &&
	      shim_sys_canon(dirfd, path, oflags, canon, len)))
		return false;
	shim_vlookup(canon, false, vp);
	return shim_vpath_sys(vp) || (troot_cpuinfo(vp) && shim_ready());
}

/* ---- contents ---- */

static int slurp(const char *path, char *buf, size_t cap, size_t *len)
{
	long n = cps_sys_read_file(path, buf, cap);
	if (n < 0)
		return (int)n;
	*len = (size_t)n;
	return 0;
}

/* has_cpu: the cpumaps of the nodes its real file lists, then the view. */
static int build_has_cpu(struct cps_vmake_in *mi, struct cps_buf *out)
{
	const char *real = mi->real;
	size_t len = mi->len;
	enum { MAXN = 1024 };
	static const size_t nw = CPS_WORDS_FOR(MAXN);
	uint64_t listed[CPS_WORDS_FOR(MAXN)];
	char *maps[MAXN] = { 0 }, list[256];
	size_t lens[MAXN] = { 0 };
	struct cps_parse_error err;
	int r = 0;

	if (len >= sizeof(list))
		return -EINVAL;
	memcpy(list, real, len);
	list[len] = 0;
	cps_mask_zero(listed, nw);
	/* an empty list: "\n", or nothing at all (a capture's) */
	if (len && strcmp(list, "\n") && cps_cpulist_parse(list, listed, nw, &err))
		return -EINVAL;
	for (int k = cps_mask_next(listed, nw, -1); !r && k >= 0; k = cps_mask_next(listed, nw, k)) {
		char p[96], rp[PATH_MAX];
		snprintf(p, sizeof(p), "/sys/devices/system/node/node%d/cpumap", k);
		maps[k] = malloc(4096);
		if (!maps[k] || !shim_rooted(p, rp, sizeof(rp)) || slurp(rp, maps[k], 4096, &lens[k])) {
			free(maps[k]);
			maps[k] = NULL;
		}
	}
	mi->maps = (const char *const *)maps;
	mi->lens = lens;
	mi->nmaps = MAXN;
	r = cps_vmake(CPS_VK_HAS_CPU, mi, out);
	for (unsigned k = 0; k < MAXN; k++)
		free(maps[k]);
	return r;
}

/* The nodes of the node directory's nodeP entries, as a list in on. */
static int node_dirs(char *on, size_t cap, size_t *ol)
{
	enum { NW = CPS_WORDS_FOR(4096) };
	uint64_t m[NW];
	char rp[PATH_MAX], d[4096];
	long n;
	int fd;

	if (!shim_rooted("/sys/devices/system/node", rp, sizeof(rp)) ||
	    (fd = shim_real.open(rp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -EINVAL;
	cps_mask_zero(m, NW);
	while ((n = cps_sys_getdents64(fd, d, sizeof(d))) > 0)
		for (long i = 0; i < n;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short rl;
			unsigned v;
			memcpy(&rl, d + i + 16, sizeof(rl));
			if (rl < 20 || i + rl > n)
				break;
			if (cps_vsys_node_name(d + i + 19, &v, NULL) && !strchr(d + i + 19, '/') &&
			    v < NW * 64)
				cps_mask_set(m, NW, v);
			i += rl;
		}
	close(fd);
	*ol = cps_cpulist_format(on, cap, m, NW);
	return *ol < cap ? 0 : -EINVAL;
}

/* nodeV/distance: its columns are the online nodes', in their order; a
 * machine whose online list does not count them (a capture without one)
 * is read by its node directories. */
static int build_distance(struct cps_vmake_in *mi, struct cps_buf *out)
{
	const char *buf = mi->real;
	size_t len = mi->len;
	enum { NW = CPS_WORDS_FOR(4096) };
	char on[1024], orp[PATH_MAX];
	size_t ol = 0, cols = 0;
	uint64_t m[NW];
	struct cps_parse_error err;

	for (size_t i = 0; i < len; i++)
		if (cps_is_digit(buf[i]) && (i == 0 || !cps_is_digit(buf[i - 1])))
			cols++;
	if (shim_rooted("/sys/devices/system/node/online", orp, sizeof(orp)) &&
	    !slurp(orp, on, sizeof(on) - 1, &ol)) {
		size_t e = ol;
		while (e && (on[e - 1] == '\n' || on[e - 1] == '\0'))
			e--;
		on[e] = '\0';
		cps_mask_zero(m, NW);
		if (!e || cps_cpulist_parse(on, m, NW, &err) || cps_mask_count(m, NW) != cols)
			ol = 0;
	}
	if (!ol && node_dirs(on, sizeof(on), &ol))
		return -EINVAL;
	mi->online = on;
	mi->olen = ol;
	return cps_vmake(CPS_VK_DISTANCE, mi, out);
}

/* The contents of view k (a content kind of src/vsys.h) whose real file
 * is rp. */
static int build(int k, const char *rp, const struct cps_view_input *in, struct cps_buf *out)
{
	char buf[8192];
	size_t len = 0;
	int r;
	struct cps_vmake_in mi = { .s = in };

	if (cps_vmake_reads(k)) {
		if ((r = slurp(rp, buf, sizeof(buf), &len)))
			return r;
		mi.real = buf;
		mi.len = len;
	}
	if (k == CPS_VK_HAS_CPU)
		return build_has_cpu(&mi, out);
	if (k == CPS_VK_DISTANCE)
		return build_distance(&mi, out);
	return cps_vmake(k, &mi, out);
}

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
	return h;
}

/* h with the test root's path (the first rl bytes of rp) and the
 * identity of the real file rp below it; 0 when it has none. */
static __attribute__((noinline)) uint64_t root_id(uint64_t h, const char *rp, size_t rl)
{
	struct stat sb;
	SHIM_KEEP_ERRNO;
	if (shim_real_fstatat(AT_FDCWD, rp, &sb, 0) < 0)
		return 0;
	uint64_t id[] = { (uint64_t)sb.st_dev,	       (uint64_t)sb.st_ino,
			  (uint64_t)sb.st_size,	       (uint64_t)sb.st_mtim.tv_sec,
			  (uint64_t)sb.st_mtim.tv_nsec, (uint64_t)sb.st_ctim.tv_sec,
			  (uint64_t)sb.st_ctim.tv_nsec };
	return fnv(fnv(fnv(h, rp, rl), "", 1), id, sizeof(id)) | 1;
}

/* The name a view of canon for the set in v is kept under: everything
 * the view is made of. The set's CPUs and nodes, the width masks are
 * printed in; under the test root its path and the identity of the real
 * file of phys (another machine may be put at the same path, and a view
 * of a file the machine lacks is no kept view). */
static bool kept_name(const char *canon, const struct shim_vpath *vp, const struct shim_cpus *v,
		      const struct cps_view_input *in, char *out, size_t len)
{
	const char *dir = shim_kept_dirname();
	uint64_t h = 1469598103934665603ull;

	if (!dir)
		return false;
	if (CPS_UNLIKELY(vp->rl != 0) && !(h = root_id(h, vp->phys, vp->rl)))
		return false;
	for (const char *s = canon; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	if (cps_view_wide_possible) /* masks printed w bits wide */
		h = (h ^ 'w') * 1099511628211ull;
	if (in->k) /* the set's nodes: views of them */
		h = (h ^ cps_kept_key(in->mems, in->mnw, in->k)) * 1099511628211ull;
	int n = snprintf(out, len, "%s/sys-%016llx-%016llx", dir,
			 (unsigned long long)cps_kept_key(v->cpus, v->nw, v->n),
			 (unsigned long long)h);
	return n > 0 && (size_t)n < len;
}

/* The physical file itself, by the caller's flags: its descriptor, -1
 * (the caller's own spelling names it: libc's open) or -2 (errno set). */
int shim_sys_physical(const struct shim_vpath *vp, int flags, int mode)
{
	const char *canon = vp->canon, *phys = shim_vpath_unrooted(vp);
	int k = vp->kind;
	if (k != CPS_VK_DIR && !vp->rl && !strcmp(phys, canon))
		return -1;
	int fd = !vp->rl ? shim_cpudir_open(phys, flags, mode)
			 : shim_real.openat(AT_FDCWD, vp->phys, flags, mode);
	if (fd < 0)
		return -2;
	if (k == CPS_VK_DIR)
		shim_dir_remember(fd, NULL, &vp->set.v, &vp->set.in);
	else if (k < CPS_VK_MASK && !vp->rl)
		shim_redirect_keep(canon, phys); /* the next open of it: redirect.c */
	return fd;
}

/* A content view (a mask, list or value file of kind k): kept, or made
 * now from the real file; its descriptor, -1 (libc's open) or -2. */
int shim_sys_content(const struct shim_vpath *vp, int flags, int mode)
{
	const char *canon = vp->canon;
	const struct shim_sys_set *set = &vp->set;
	int k = vp->kind;
	char name[SHIM_KEPT_NAME_MAX + 40];
	int saved = errno, fd = -1;
	bool have_name = kept_name(canon, vp, &set->v, &set->in, name, sizeof(name));
	if (have_name && (fd = shim_kept_open_recent(name, flags)) >= 0) {
		errno = saved;
		return fd;
	}
	struct cps_buf out = { 0 };
	int r = build(k, vp->phys, &set->in, &out);
	if (r == 0) {
		if (have_name)
			fd = shim_kept_store(CPS_VK_NONE, name, 0, out.p, out.len, flags);
		if (fd < 0)
			fd = shim_view_fd(out.p, out.len, flags);
	}
	cps_buf_free(&out);
	if (r < 0 && r != -EINVAL) {
		/* the real file's own failure (a missing cache level, a
		 * CPU without that file) is the answer */
		errno = -r;
		return -2;
	}
	errno = saved;
	if (fd < 0)
		shim_debug("view of %s failed; passing the real file through", canon);
	/* under the test root the real file is the captured one */
	if (fd < 0 && vp->rl)
		return (fd = shim_real.openat(AT_FDCWD, vp->phys, flags, mode)) >= 0 ? fd : -2;
	return fd >= 0 ? fd : -1;
}

static int real_faccessat(int dirfd, const char *path, int mode, int flags);
static int phys_of(const struct shim_vpath *vp, char *rp, size_t len);

bool shim_view_physical(const char *canon, char *phys, size_t len)
{
	struct shim_vpath vp;
	shim_vlookup(canon, false, &vp);
	return shim_vpath_physical(&vp, phys, len);
}

bool shim_vpath_physical(const struct shim_vpath *vp, char *phys, size_t len)
{
	char p[PATH_MAX];
	int r = phys_of(vp, p, sizeof(p));

	if (r < 0)
		return false; /* errno ENOENT: cpuN beyond the set */
	if (r == 0) {
		/* not a CPU of ours: the path itself (below the test root) */
		if (!shim_rooted(vp->canon, p, sizeof(p)))
			return false;
	}
	if (strlen(p) >= len) {
		errno = ENAMETOOLONG;
		return false;
	}
	strcpy(phys, p);
	return true;
}

/* ---- stat and access by virtual name ---- */

/* The physical (rooted) path of canon for stat and access: 1 and rp, 0 not
 * ours, -1 with errno ENOENT (cpuN with N >= n). */
static int phys_of(const struct shim_vpath *vp, char *rp, size_t len)
{
	if (troot_cpuinfo(vp))
		return shim_rooted(vp->canon, rp, len) ? 1 : 0;
	if (!shim_vpath_sys(vp) || vp->kind == CPS_VK_NONE)
		return 0;
	if (vp->kind == CPS_VK_ABSENT) {
		errno = ENOENT;
		return -1;
	}
	if ((!vp->rl && !strcmp(vp->phys, vp->canon)) || strlen(vp->phys) >= len)
		return 0;
	strcpy(rp, vp->phys);
	return 1;
}

int shim_view_stat_hook(const struct shim_vpath *vp, struct stat *st, int flags)
{
	char rp[PATH_MAX];
	int r = phys_of(vp, rp, sizeof(rp));

	if (r <= 0)
		return r < 0 ? -2 : -1;
	if (shim_real_fstatat(AT_FDCWD, rp, st, flags & AT_SYMLINK_NOFOLLOW) < 0)
		return -2;
	return 0;
}

static int access_flags(const struct shim_vpath *vp, int mode, int flags)
{
	char rp[PATH_MAX];
	int r = phys_of(vp, rp, sizeof(rp));

	if (r <= 0)
		return r < 0 ? -2 : -1;
	return real_faccessat(AT_FDCWD, rp, mode, flags) < 0 ? -2 : 0;
}

/* ---- access and faccessat ----
 * (hwloc tests cpuN/topology with faccessat before it reads a CPU: by
 * its virtual name, that is physical cpu<p(N)>'s, and cpuN for N >= n
 * does not exist.) */


static int real_faccessat(int dirfd, const char *path, int mode, int flags)
{
	if (!SHIM_HAVE_REAL(faccessat)) {
		errno = ENOSYS;
		return -1;
	}
	return shim_real.faccessat(dirfd, path, mode, flags);
}

/* The answer of a view for (dirfd, path), or -1: not one of ours. */
__attribute__((noinline)) static int access_view(int dirfd, const char *path, int mode, int flags)
{
	char canon[PATH_MAX];
	struct shim_vpath vp;

	if (!shim_sys_lookup(dirfd, path, flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, canon,
			     sizeof(canon), &vp))
		return -1;
	int saved = errno, r = access_flags(&vp, mode, flags);
	if (r == -1)
		errno = saved;
	return r;
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	if (NO_VIEW(path) && shim_real.faccessat)
		return shim_real.faccessat(dirfd, path, mode, flags);
	int r = access_view(dirfd, path, mode, flags);
	if (r != -1)
		return r == 0 ? 0 : -1;
	return real_faccessat(dirfd, path, mode, flags);
}


EXPORT int access(const char *path, int mode)
{
	if (NO_VIEW(path) && shim_real.access)
		return shim_real.access(path, mode);
	int r = access_view(AT_FDCWD, path, mode, 0);
	if (r != -1)
		return r == 0 ? 0 : -1;
	if (!SHIM_HAVE_REAL(access))
		return real_faccessat(AT_FDCWD, path, mode, 0);
	return shim_real.access(path, mode);
}

/* ---- readlink and readlinkat ----
 * The links named cpuN (/sys/bus/cpu/devices/cpuV, nodeK/cpuV) point at
 * their CPU's directory by its virtual name, as the kernel's point at the
 * physical one; cpuN beyond the set does not exist. */


static ssize_t real_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	if (!SHIM_HAVE_REAL(readlinkat)) {
		errno = ENOSYS;
		return -1;
	}
	return shim_real.readlinkat(dirfd, path, buf, len);
}

/* The answer for a link of ours, or -2: not one of ours. */
__attribute__((noinline)) static ssize_t readlink_view(int dirfd, const char *path, char *buf, size_t len)
{
	char canon[PATH_MAX], target[PATH_MAX];
	struct shim_vpath vp;

	if (!shim_sys_lookup(dirfd, path, O_NOFOLLOW, canon, sizeof(canon), &vp) ||
	    !shim_vpath_sys(&vp) || vp.kind == CPS_VK_NONE)
		return -2;
	if (vp.kind == CPS_VK_ABSENT) {
		errno = ENOENT;
		return -1;
	}
	const char *rp = vp.phys;
	/* the kernel's answer into the caller's buffer first: its size (0 is
	 * EINVAL) and the buffer (unwritable is EFAULT) are judged as libc's
	 * readlink judges them, and the virtual target is never longer */
	ssize_t n = real_readlinkat(AT_FDCWD, rp, buf, len);
	if (n < 0)
		return -1;
	n = real_readlinkat(AT_FDCWD, rp, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	/* a target ending in cpuP: the virtual name (never longer) */
	char *base = strrchr(target, '/'), out[NAME_MAX + 1];
	base = base ? base + 1 : target;
	if (cps_vsys_dirent(base, &vp.set.in, out) > 0) {
		strcpy(base, out);
		n = (ssize_t)strlen(target);
	}
	if ((size_t)n > len)
		n = (ssize_t)len;
	memcpy(buf, target, (size_t)n);
	return n;
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	int saved = errno;
	ssize_t r = readlink_view(dirfd, path, buf, len);
	if (r != -2)
		return r;
	errno = saved;
	return real_readlinkat(dirfd, path, buf, len);
}

EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	int saved = errno;
	ssize_t r = readlink_view(AT_FDCWD, path, buf, len);
	if (r != -2)
		return r;
	errno = saved;
	return real_readlinkat(AT_FDCWD, path, buf, len);
}
