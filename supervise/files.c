/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor's files mode: an open of a virtual file is answered with
 * a descriptor of the view the shim would deliver, injected into the
 * caller (SECCOMP_IOCTL_NOTIF_ADDFD, SECCOMP_ADDFD_FLAG_SEND); every other
 * open continues to the kernel.
 *
 * The path is read from the caller's memory while the calling thread
 * waits; another thread may change it afterwards. Only a view is decided
 * by what we read: a path that continues is read again by the kernel, so
 * a race can at most turn a view into the real file, which the program
 * could open anyway (doc/supervisor.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "src/path.h"
#include "src/rawsys.h"
#include "src/vcpuinfo.h"
#include "src/vfd.h"
#include "src/vfiles.h"
#include "src/views.h"
#include "src/vmake.h"
#include "src/vpath.h"
#include "src/vproc_pidstat.h"
#include "src/vsys.h"
#include "supervise/sv.h"

/* A directory the kernel names is physical: cpuP of the set is virtual
 * cpu<rank> (as preload/path.c reads it); false for a cpuP outside it. */
static bool kernel_dir_virtual(char *p, size_t len, const struct cps_placement *pl)
{
	static const char cpudir[] = "/sys/devices/system/cpu/cpu";
	const size_t cl = sizeof(cpudir) - 1;
	if (strncmp(p, cpudir, cl) != 0)
		return true;
	char *e = p + cl;
	unsigned long cpu = 0;
	while (*e >= '0' && *e <= '9' && cpu < 1000000)
		cpu = cpu * 10 + (unsigned long)(*e++ - '0');
	if (e == p + cl || (*e && *e != '/'))
		return true;
	if (cpu >= CPS_MAX_CPUS || !cps_mask_test(pl->cpus, pl->nw, (unsigned)cpu))
		return false;
	char num[16];
	int nl = snprintf(num, sizeof(num), "%u", cps_mask_rank(pl->cpus, pl->nw, (unsigned)cpu));
	size_t old = (size_t)(e - (p + cl)), rest = strlen(e);
	if ((size_t)nl > old || cl + (size_t)nl + rest + 1 > len)
		return false;
	memcpy(p + cl, num, (size_t)nl);
	memmove(p + cl + nl, e, rest + 1);
	return true;
}


/* Send fd (ours) as the caller's open's result: 1, or 0 with a->error. */
static int send_fd(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a,
		   int fd, int flags)
{
	struct seccomp_notif_addfd ad = { .id = q->id, .flags = SECCOMP_ADDFD_FLAG_SEND,
					  .srcfd = (uint32_t)fd,
					  .newfd_flags = (uint32_t)(flags & O_CLOEXEC) };
	int r = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &ad);
	int e = errno;
	close(fd);
	if (r >= 0)
		return 1;
	if (e == ENOENT) /* the caller is gone, or was interrupted */
		return 1;
	a->error = -e;
	return 0;
}

/* The supervisor's view files: sealed memfds (src/vfd.h), never an
 * O_TMPFILE: its own filter is not the program's, and a kept one is
 * shared by every caller. */
static int sealed_fd(const char *data, size_t len)
{
	return cps_vfd_write(data, len, CPS_VFD_SEAL, NULL, 0);
}

/* A new read-only open file of sealed memfd m (an offset of its own). */
static int reopen_ro(int m)
{
	return cps_vfd_reopen(m, O_RDONLY | O_CLOEXEC);
}

/* ---- kept views ------------------------------------------------------- */

/* A view whose bytes depend only on its path and the caller's CPUs (the
 * CPU ranges, the /sys CPU and node files, cpuinfo) is made once into a
 * sealed memfd and opened again read-only for each caller (an offset of
 * its own), as the shim keeps its views (preload/kept_views.c): while the
 * caller's CPUs are the ones it was made for (a resize, a set of other
 * CPUs, or a table made again and its sets with it, make it again) and
 * for at most KEEP_NS, after which it is made again from the real file
 * (cpuinfo's "cpu MHz", a CPU taken offline). /proc/stat and the status
 * files are made at each open. The supervisor is one thread: no lock. */
#define KEPT_MAX 32
#define KEEP_NS 1000000000ull

struct kept {
	int fd; /* the sealed memfd; -1: an empty slot */
	uint64_t made;
	char *path;
	uint32_t n, nw;
	uint64_t cpus[CPS_MAX_WORDS];
};
static struct kept kept[KEPT_MAX];
static unsigned kept_next;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool kept_is(const struct kept *k, const char *canon, const struct cps_placement *pl)
{
	return k->path && k->fd >= 0 && k->n == pl->n && k->nw == pl->nw &&
	       !strcmp(k->path, canon) && !memcmp(k->cpus, pl->cpus, pl->nw * sizeof(uint64_t));
}

/* The kept view of canon for the CPUs of pl, still fresh: its memfd, or
 * -1 (a stale one is dropped). */
static int kept_find(const char *canon, const struct cps_placement *pl)
{
	for (unsigned i = 0; i < KEPT_MAX; i++) {
		struct kept *k = &kept[i];
		if (!kept_is(k, canon, pl))
			continue;
		if (mono_ns() - k->made < KEEP_NS)
			return k->fd;
		close(k->fd);
		k->fd = -1;
		return -1;
	}
	return -1;
}

/* Keep memfd m as canon's view for pl's CPUs (taken: closed when it is
 * replaced), in the next slot round the ring. */
static void kept_store(const char *canon, const struct cps_placement *pl, int m)
{
	char *path = strdup(canon);
	if (!path) {
		close(m);
		return;
	}
	struct kept *k = &kept[kept_next++ % KEPT_MAX];
	if (k->path && k->fd >= 0)
		close(k->fd);
	free(k->path);
	*k = (struct kept){ .fd = m, .made = mono_ns(), .path = path, .n = pl->n, .nw = pl->nw };
	memcpy(k->cpus, pl->cpus, pl->nw * sizeof(uint64_t));
}

/* Digits of s up to '/' or the end, as a pid; 0 if none. */
static pid_t num(const char *s, const char **end)
{
	long v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9' && v < 1 << 30)
		v = v * 10 + (*p++ - '0');
	*end = p;
	return p > s && (!*p || *p == '/') ? (pid_t)v : 0;
}

enum { VIEW_CAP = 1 << 20 };

/* make_view's answers */
enum { VIEW_NONE = 0, VIEW_MADE = 1, VIEW_PHYSICAL = 2 };

/* The view's text for canonical path canon, of row row, into out: VIEW_MADE, VIEW_NONE (not a view: continue), a negative errno
 * (the open's answer), or, for a file that is the physical one, its path
 * in phys and VIEW_PHYSICAL. The bytes are cps_vmake's, as the shim's. */
static int make_view(const char *canon, const struct cps_vfile *row, pid_t tgid,
		     const struct cps_placement *pl, struct cps_buf *out, char *phys, size_t plen)
{
	struct cps_view_input in = cps_view_input_of(pl->cpus, pl->nw, pl->n);
	int k = row->kind;
	if (row->family == CPS_VF_CPUDIR || row->family == CPS_VF_NODE) {
		/* the physical path: cpuV made cpu<p(V)> */
		k = cps_vsys_resolve(canon, &in, phys, plen);
	} else if (strlen(canon) < plen) {
		strcpy(phys, canon); /* /proc: the file itself */
	} else {
		return VIEW_NONE;
	}
	if (k == CPS_VK_ABSENT)
		return -ENOENT;
	if (k <= CPS_VK_NONE)
		return VIEW_NONE;
	if (k == CPS_VK_SAME || k == CPS_VK_DIR)
		return VIEW_PHYSICAL;
	if (k == CPS_VK_STATUS || k == CPS_VK_STATUS_TASK) {
		/* the caller's own process, its threads' too */
		const char *e;
		if (num(canon + 6, &e) != tgid)
			return VIEW_NONE;
		/* a set with nodes of its own: its status's Mems lines read
		 * 0..k-1, as the shim's do */
		if (pl->nmems) {
			in.mems = pl->mems;
			in.mnw = pl->nw;
			in.k = pl->nmems;
		}
	}
	struct cps_vmake_in mi = { .s = &in };
	char *real = NULL;
	if (cps_vmake_reads(k)) {
		real = malloc(VIEW_CAP);
		if (!real)
			return VIEW_NONE;
		long len = cps_sys_read_file(phys, real, VIEW_CAP);
		if (len < 0) {
			free(real);
			return (int)len;
		}
		mi.real = real;
		mi.len = (size_t)len;
	}
	int r = cps_vmake(k, &mi, out);
	free(real);
	return r < 0 ? VIEW_NONE : VIEW_MADE;
}

/* The directory a relative path of tid's open starts from (its cwd, or
 * dirfd's), into base, if it is one the views may lie below: true. */
static bool start_dir(pid_t tid, int dirfd, const struct cps_placement *pl, char *base,
		      size_t len)
{
	char link[64];
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, dirfd);
	ssize_t n = readlink(link, base, len - 1);
	if (n <= 0 || base[0] != '/')
		return false;
	base[n] = 0;
	return kernel_dir_virtual(base, len, pl);
}

/* The descriptor a made view answers with: its physical file
 * (VIEW_PHYSICAL) by the caller's reading flags, else a file of its bytes,
 * kept when keep says so; or -errno. */
static int view_fd(int r, const char *phys, const struct cps_buf *out, int flags, bool keep,
		   const char *canon, const struct cps_placement *pl)
{
	if (r == VIEW_PHYSICAL) {
		int fd = open(phys, O_RDONLY | O_CLOEXEC |
					    (flags & (O_NOFOLLOW | O_DIRECTORY | O_NONBLOCK | O_NOCTTY)));
		return fd >= 0 ? fd : -errno;
	}
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (!keep)
		return cps_vfd(out->p, out->len, CPS_VFD_SEAL, NULL, 0, O_RDONLY | O_CLOEXEC);
	int m = sealed_fd(out->p, out->len);
	if (m < 0)
		return m;
	int fd = reopen_ro(m);
	if (fd >= 0)
		kept_store(canon, pl, m);
	else
		close(m);
	return fd;
}

/* Answer with the kept view of canon for pl's CPUs, if there is one: -1
 * when none is kept, else sv_files_open's answer. */
static int send_kept(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a,
		     const char *canon, const struct cps_placement *pl, int flags)
{
	int m = kept_find(canon, pl);
	if (m < 0)
		return -1;
	a->flags = 0;
	int fd = (flags & O_DIRECTORY) ? -ENOTDIR : reopen_ro(m);
	if (fd < 0) {
		a->error = fd;
		return 0;
	}
	return send_fd(s, q, a, fd, flags);
}

/* The canonical path an open of tid asks for, if it may be a view: true,
 * with canon, the caller's process and set. */
static bool open_canon(struct sv *s, const struct seccomp_notif *q, bool at, int flags,
		       char *canon, size_t clen, pid_t *tgid, struct cps_placement *pl)
{
	const int dirfd = at ? (int)q->data.args[0] : AT_FDCWD;
	const uint64_t paddr = at ? q->data.args[1] : q->data.args[0];
	const pid_t tid = (pid_t)q->pid;
	char path[PATH_MAX], base[PATH_MAX];

	if (sv_peek_str(tid, paddr, path, sizeof(path)) < 0 || !path[0])
		return false; /* the kernel says what is wrong with it */
	if (path[0] == '/') {
		if (!cps_vpath_root2(path[1]))
			return false;
		base[0] = 0;
	} else if (!cps_path_rel_may_view(path)) {
		return false;
	}
	if (sv_caller_set(s, tid, tgid, pl) < 0)
		return false;
	if (path[0] != '/' && !start_dir(tid, dirfd, pl, base, sizeof(base)))
		return false;
	size_t consumed = 0;
	enum cps_canon c = cps_path_canon(canon, clen, path[0] == '/' ? NULL : base, path, *tgid,
					  tid, (flags & O_NOFOLLOW) ? CPS_CANON_NOFOLLOW : 0,
					  &consumed);
	return c == CPS_CANON_OK || c == CPS_CANON_DIR;
}

int sv_files_open(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a)
{
	const bool at = (int)sv_call_nr(q) == cps_arch_host()->nr.openat;
	const int flags = (int)(at ? q->data.args[2] : q->data.args[1]);
	char canon[PATH_MAX], phys[PATH_MAX];
	struct cps_placement pl;
	pid_t tgid = 0;

	a->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* written to, made, or not a file's contents: the real file */
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_PATH | O_TMPFILE)))
		return 0;
	if (!open_canon(s, q, at, flags, canon, sizeof(canon), &tgid, &pl))
		return 0;
	/* the memory read belongs to the request still waiting */
	if (!sv_id_valid(s, q->id))
		return 1;
	/* its row, looked up without the set's nodes: the node files
	 * stay the kernel's here, as the listings do, and a row of the shim's
	 * alone is the real file (doc/limits.md) */
	const struct cps_vfile *row = cps_vfile_find(canon, false, NULL);
	if (!row || (row->flags & CPS_VFILE_SHIM))
		return 0;
	/* a view made at each open in the shim's pool is made at each open
	 * here; the others are kept */
	const bool keep = row->delivery != CPS_VD_POOL;
	int k = keep ? send_kept(s, q, a, canon, &pl, flags) : -1;
	if (k >= 0)
		return k;
	char sb[4096];
	struct cps_buf out = cps_buf_on(sb, sizeof(sb));
	int r = make_view(canon, row, tgid, &pl, &out, phys, sizeof(phys));
	if (r == VIEW_NONE) {
		cps_buf_free(&out);
		return 0;
	}
	a->flags = 0;
	if (r < 0) {
		cps_buf_free(&out);
		a->error = r;
		return 0;
	}
	int fd = view_fd(r, phys, &out, flags, keep, canon, &pl);
	cps_buf_free(&out);
	if (fd < 0) {
		a->error = fd;
		return 0;
	}
	return send_fd(s, q, a, fd, flags);
}
