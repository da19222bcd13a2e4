/* SPDX-License-Identifier: BSD-3-Clause */
/* The shim's virtual files, between its files: which kind a path is
 * (view_dispatch.c), how it is opened (view_open.c), kept
 * (kept_views.c) or made again from the start (rewind.c). */
#ifndef CPS_PRELOAD_VIEW_H
#define CPS_PRELOAD_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "preload/shim.h"
#include "src/vfiles.h"
#include "src/vmake.h"
#include "src/views.h"

#pragma GCC visibility push(hidden)

/* The kinds of views are the rows' (src/vmake.h); a cgroup's files are
 * two of them. */
static inline bool shim_vk_cgroup(enum cps_vkind k)
{
	return k == CPS_VK_CGROUP_CPUS || k == CPS_VK_CGROUP_MEMS;
}

/* $name is "0". */
static inline bool shim_env_off(const char *name)
{
	const char *s = shim_getenv(name);
	return s && s[0] == '0' && s[1] == 0;
}

/* ---- view_dispatch.c ---- */

/* Bytes of stack a view made at an open takes for its real file, and
 * again for what it makes of it, before it takes the heap: /proc/<pid>/stat
 * and, on machines of a few dozen CPUs, /proc/stat and status fit. */
#define SHIM_VIEW_STACK 2048

struct shim_vpath;
/* The one look-up of a canonical path (preload/path.c): its row, once,
 * then what it is for this caller, the set and, for the /sys families,
 * the physical path, all into *vp (struct shim_vpath below). ro: opened
 * only to read (the /proc views are read-only). */
void shim_vlookup(const char *canon, bool ro, struct shim_vpath *vp);
/* The contents of view k of the real file real, for the set in v; tid:
 * the thread of a thread's status (0: the caller). */
int shim_view_build(enum cps_vkind k, const char *real, pid_t tid, const struct shim_cpus *v,
		    struct cps_buf *out);

/* ---- view_open.c ---- */

/* How a view's descriptor holds it: a file made at its open (its contents
 * can be made again in place), a kept view (shared with other processes),
 * or the real file (the view is the real file for this set). */
enum { SHIM_VIEW_MADE, SHIM_VIEW_KEPT, SHIM_VIEW_REAL };
/* The file status flags a view's own open keeps from the caller's: what
 * fcntl(F_GETFL) shows of the real file opened with them (O_DIRECT, which
 * the real files refuse, is answered in shim_view_open). */
#define SHIM_VIEW_STATUS_FLAGS (O_APPEND | O_SYNC | O_DSYNC | O_ASYNC)
/* The longest canonical path a view of view_dispatch.c's kinds has. */
#define SHIM_VIEW_REAL_MAX 512
/* An fd on view k of the canonical path real (tid: of a thread's status,
 * 0 the caller) for the set v (NULL: the caller's now), opened with the caller's flags; *how says which of the
 * above it is, *id its file's identity when *have_id. -1 (errno
 * untouched): pass the real file through. */
int shim_view_open_kind(enum cps_vkind k, const char *real, pid_t tid, const struct shim_cpus *v,
			int flags, int *how, struct stat *id, bool *have_id);

/* A read-only fd on data (a sealed memfd reopened with the caller's
 * flags), or -1. */
int shim_view_fd(const char *data, size_t len, int flags);

/* ---- troot.c: the test root ---- */

/* The test root (CPUSETSHIM_TEST_ROOT), or NULL: without one, one load
 * once it is known. */
const char *shim_test_root_read(void);
static inline const char *shim_test_root(void)
{
	if (CPS_LIKELY(__atomic_load_n(&shim_troot_state, __ATOMIC_ACQUIRE) < 0))
		return NULL;
	return shim_test_root_read();
}
/* The prefix: where the real file of canonical path phys is, below the
 * test root (phys itself without one); false when out (len bytes) is too
 * small. */
bool shim_rooted(const char *phys, char *out, size_t len);
/* The prefix alone, put once per look-up (shim_vlookup: struct
 * shim_vpath's rl): the test root into out, its length; 0 without one
 * (out untouched). */
unsigned shim_root_put(char *out, size_t len);
static inline unsigned shim_rooted_prefix(char *out, size_t len)
{
	if (CPS_LIKELY(__atomic_load_n(&shim_troot_state, __ATOMIC_ACQUIRE) < 0))
		return 0;
	return shim_root_put(out, len);
}
/* The removal, the reverse of the prefix: p below the test root as the
 * same path below / (p itself without one, or not below it). For the
 * paths the kernel names (the working directory, a directory fd's link)
 * and the caller's. */
const char *shim_unrooted(const char *p);
/* Under a test root, what the captured machine's kernel answers to
 * sched_getaffinity (r the bytes this kernel's mask has, len and mask
 * the caller's): its mask size, whole longs of its CPU ids (its highest
 * possible CPU + 1), when more than r, the bytes past r zero; EINVAL for
 * a len in bits below its count of CPU ids, as the kernel checks its own.
 * So a machine of more CPUs than this kernel's masks hold reads as on
 * its own kernel. */
long shim_troot_mask_size(long r, size_t len, void *mask);
static inline long shim_troot_affinity(long r, size_t len, void *mask)
{
	if (CPS_UNLIKELY(r > 0 && __atomic_load_n(&shim_troot_state, __ATOMIC_RELAXED) > 0))
		return shim_troot_mask_size(r, len, mask);
	return r;
}
/* The captured machine's cpuinfo and cgroup files (vp looked up below
 * the test root, vp->rl, and not of the /sys families): an fd, -2, or -1
 * not one of them. */
int shim_troot_open(const struct shim_vpath *vp, int flags);
/* The set the /sys views show (the test's CPUSETSHIM_TEST_CPUS under a
 * test root, else the caller's). */
bool shim_sys_cpus(struct shim_cpus *v);

/* ---- view_sys.c: the /sys families ---- */
/* The canonical path of (dirfd, path), below the test root taken as
 * below /; false when it can be no view. */
bool shim_sys_canon(int dirfd, const char *path, int flags, char *out, size_t len);
/* The one prelude of the stat, access, readlink and directory views:
 * whether (dirfd, path) is a /sys view's (the quick test, the canonical
 * path into canon with open's O_NOFOLLOW or O_DIRECTORY in oflags, looked
 * up into *vp), the shim set up and not resolving. */
bool shim_sys_lookup(int dirfd, const char *path, int oflags, char *canon, size_t len,
		     struct shim_vpath *vp);
/* The delivery of a /sys family's view (vp->kind a /sys kind): the
 * physical file by the caller's flags, or a content view kept or made
 * now. An fd, -2 with errno, or -1: libc's open of the caller's path. */
int shim_sys_physical(const struct shim_vpath *vp, int flags, int mode);
int shim_sys_content(const struct shim_vpath *vp, int flags, int mode);
/* The real path the kernel must be given for vp (the physical
 * cpu<p(V)> for a virtual cpuV, below the test root if any); false with
 * errno ENOENT for cpuN beyond the set. shim_view_physical looks canon
 * up first. */
bool shim_vpath_physical(const struct shim_vpath *vp, char *phys, size_t len);
bool shim_view_physical(const char *canon, char *phys, size_t len);
/* stat of a looked-up path by its virtual name: 0, -2 with errno, or -1
 * not ours. */
int shim_view_stat_hook(const struct shim_vpath *vp, struct stat *st, int flags);

/* ---- dir.c ---- */

/* Remember fd (with its DIR, or NULL until fdopendir) as a listing whose
 * cpuN entries are the set's. */
void shim_dir_remember(int fd, DIR *d, const struct shim_cpus *v, const struct cps_view_input *in);
/* The set's memory nodes into in (m holds them; preload/view_sys.c): in
 * is left without nodes when the shim has none for the caller. */
void shim_sys_nodes(struct cps_view_input *in, struct shim_cpus *m);
/* The set as the CPU-directory and node views take it: its CPUs (v),
 * nodes (m) and the transforms' input over them (in points into v and
 * m: never copied). */
/* The caller's set (shim_cpus_now, shim_sys_cpus) as a transform's input. */
static inline struct cps_view_input shim_view_input(const struct shim_cpus *v)
{
	return cps_view_input_of(v->cpus, v->nw, v->n);
}

struct shim_sys_set {
	struct shim_cpus v, m;
	struct cps_view_input in;
};

/* A path as the views take it: filled once by shim_vlookup, then handed
 * to the one delivery step (view_open.c) or to stat, access, readlink
 * and the listings. */
struct shim_vpath {
	const char *canon;           /* the canonical path */
	size_t len;                  /* its length (when it has a row) */
	const struct cps_vfile *row; /* its row for the set (src/vfiles.h), or NULL */
	/* what it is for this caller: the row's kind; CPS_VK_NONE, none (the
	 * path as it is); CPS_VK_ABSENT, cpuN beyond the set (ENOENT) */
	int kind;
	/* the /sys families': canon, its numbers physical, below the test
	 * root (rl bytes of it first; 0 without one). rl is set for every
	 * path looked up, of a row or none: the test root is put there once
	 * (shim_vlookup), and what is below it (the captured machine's
	 * cpuinfo and cgroup files, the /sys families' physical files) is
	 * told by rl, not asked of the test root again */
	char phys[PATH_MAX];
	unsigned rl;
	struct shim_sys_set set;     /* the set the view shows (for every kind but NONE) */
};
/* vp's physical path without the test root. */
static inline const char *shim_vpath_unrooted(const struct shim_vpath *vp)
{
	return vp->phys + vp->rl;
}
/* Whether vp is of the /sys families (the CPU directory, the nodes). */
static inline bool shim_vpath_sys(const struct shim_vpath *vp)
{
	return vp->row && (vp->row->family == CPS_VF_CPUDIR || vp->row->family == CPS_VF_NODE);
}

/* All of data to fd; false on an error or a short write. */
bool shim_write_all(int fd, const char *data, size_t len);

/* ---- kept_views.c ---- */

#define SHIM_KEPT_DIR_MAX 320
#define SHIM_KEPT_NAME_MAX (SHIM_KEPT_DIR_MAX + 48)
/* The kept view of kind k for the set in v: an fd on it, or -1. Then
 * *name is its file and *store says whether the caller should make it
 * (missing, or a cpuinfo view past its time) and shim_kept_store() it. */
int shim_kept_open(enum cps_vkind k, const struct shim_cpus *v, int flags, char *name, size_t len,
		   uint64_t *keyp, bool *store);
/* The directory of kept views, or NULL when there is none usable. */
const char *shim_kept_dirname(void);
/* The real file of view fd, remembered when it was handed out (the kinds
 * the rewind table keeps); false if fd is no such view. */
bool shim_rewind_real(int fd, char *real, size_t len);
/* A view's own file reached again to write through a descriptor's link
 * (/proc/self/fd/N, or freopen(NULL, ...) of its stream, which opens
 * that): the file of the view's descriptor fd (-1: read it from path),
 * and whether it is a file of ours. Then *real is the real file, or ""
 * when not known (the caller answers EACCES, as sysfs does). */
bool shim_view_own_file(const char *path, int fd, char *real, size_t len);
/* Writes a view under name (a new file renamed over the old one, so
 * readers get one or the other whole), then opens it as shim_kept_open
 * does. */
int shim_kept_store(enum cps_vkind k, const char *name, uint64_t key, const char *data, size_t len,
		    int flags);
/* A kept view made from a real file (a /sys list or mask), opened if it
 * was made within the last second, so that a changed real file (a CPU
 * offline, SMT switched off) is read again within a second; -1 (errno
 * of its own) if it is missing or older: the caller makes it again.
 * Each process checks a name's time (one fstat) once in that second. */
int shim_kept_open_recent(const char *name, int flags);
/* A kept view named by what it holds (<tag>-<hash>-<length>): for a view
 * that is made fresh at each open but takes few different contents (a
 * cgroup's CPU list), so that delivering it is one open of a file that
 * never changes, shared by every process. An fd, or -1. */
int shim_kept_content(const char *tag, const char *data, size_t len, int flags);

/* ---- view_pool.c ---- */

struct stat;
/* A view made at each open (kind k of the real file real; tid: of a
 * thread's status) holding data, from the process's pool of files: an fd
 * opened with the caller's flags, its file's identity in *id; or -1 (no
 * pool, all held, too large, refused): make it another way. */
int shim_pool_deliver(enum cps_vkind k, const char *real, pid_t tid, const char *data, size_t len,
		      int flags, struct stat *id);
/* The file sb describes is read again from the start: if it is one of
 * the pool's, it is made again (0); -1: not one of them. */
int shim_pool_rewound(const struct stat *sb);
/* The real /proc/stat (CPS_VK_STAT), the process's status (CPS_VK_STATUS),
 * its own stat (CPS_VK_PIDSTAT: the caller makes sure it is /proc/<our
 * pid>/stat) or a CPU file of its cgroup (a cgroup kind: real), fresh, from a descriptor kept open: 0 and *out, which is sb
 * (sbcap bytes of the caller's) when it fits there, else malloc'd; or a
 * negative errno (-EAGAIN: not now, read it the usual way). */
int shim_real_read(enum cps_vkind k, const char *real, char *sb, size_t sbcap, char **out,
		   size_t *len);

/* The lowest descriptor one the shim keeps open takes (the real files
 * above, cpudir.c's directory): out of the way of a program that counts
 * on getting the lowest free numbers. */
#define SHIM_REAL_FD_MIN 900

/* ---- cpudir.c: /sys/devices/system/cpu kept open ---- */

/* open(phys, flags, mode) of a physical path; below (or at)
 * /sys/devices/system/cpu, relative to a descriptor of it kept open. */
int shim_cpudir_open(const char *phys, int flags, int mode);

/* ---- redirect.c: the redirects kept ---- */

/* Open of path (absolute, as the caller spelt it) through a kept redirect:
 * an fd of the physical file, -2 with errno if its open failed, -1 if no
 * redirect is kept for it or the set no longer maps it so (errno
 * untouched). */
int shim_redirect_open(const char *path, int flags);
/* Keep the redirect of canonical path canon (a virtual CPU's file that is
 * the physical CPU's own) to phys. */
void shim_redirect_keep(const char *canon, const char *phys);

/* ---- rewind.c ---- */

/* Remember fd as a view of kind k made at its open from the real file
 * real, to make it again when the program goes back to the start; id:
 * its file's identity if known (else fstat). */
void shim_rewind_remember(int fd, enum cps_vkind k, const char *real, const struct stat *id, int how);
/* What was remembered of fd, now of to: another description of the same
 * file (a stream opened again through fd's link, which fd's close ends). */
void shim_rewind_move(int fd, int to);

#pragma GCC visibility pop

#endif
