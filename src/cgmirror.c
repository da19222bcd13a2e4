/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the cgroup mirror: each set as a cpuset cgroup whose
 * cpuset.mems are the set's nodes, so that the kernel confines its
 * members' memory as their affinity confines their CPUs
 * (doc/memory-nodes.md, "Memory nodes by the kernel: the cgroup
 * mirror").
 *
 * The mirror of table T is the directory T at the root of the cpuset
 * hierarchy (a v1 cgroup mount with the cpuset controller, else the
 * cgroup2 mount where the cpuset controller is available); it exists only
 * when `cpuset init --cgroup` made it, and everything here does nothing
 * when it does not (nor for a caller that is not root: it could not use
 * it, and looks for nothing: its effective uid, as the owner checks
 * take it). Set S is T/s<S's id>, made at the first process placed
 * in it; its CPUs are the mirror's own (the machine's: CPUs stay the
 * affinity masks' business), its nodes the set's. Every file is read and
 * written with raw system calls (the shim's interposers never see them).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/cgmirror.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/sets_internal.h"

static int cg_write(const char *dir, const char *file, const char *text)
{
	char path[CPS_CGM_PATH + 64];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	int fd = (int)cps_sys4(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	size_t len = strlen(text);
	long r;
	do
		r = cps_sys3(SYS_write, fd, (long)text, (long)len);
	while (r == -EINTR);
	cps_sys_close(fd);
	return r < 0 ? (int)r : 0;
}

static int cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[CPS_CGM_PATH + 64];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	int n = cps_sys_slurp(path, buf, len, false);
	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static bool cg_is_dir(const char *path)
{
	int fd = cps_sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	cps_sys_close(fd);
	return true;
}

/* Whether a comma-separated option list holds word. */
static bool has_option(const char *opts, const char *word)
{
	size_t wl = strlen(word);
	for (const char *q = opts; *q;) {
		size_t l = strcspn(q, ",");
		if (l == wl && !strncmp(q, word, wl))
			return true;
		q += l + (q[l] != 0);
	}
	return false;
}

/* Whether a mount line's fields name a cpuset hierarchy: v1 a cgroup
 * mount whose options hold the controller (not noprefix: its files lack
 * the cpuset. prefix the mirror writes), v2 a cgroup2 mount. */
static bool cpuset_mount(const char *fstype, const char *opts, bool v2)
{
	if (v2)
		return !strcmp(fstype, "cgroup2");
	return !strcmp(fstype, "cgroup") && has_option(opts, "cpuset") &&
	       !has_option(opts, "noprefix");
}

int cps_cgm_hierarchy(const char *mounts, bool v2, char *dir, size_t len)
{
	/* /proc/self/mounts: source mountpoint fstype options dump pass */
	for (const char *line = mounts; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t ll = end ? (size_t)(end - line) : strlen(line);
		char l[1024], *f[4];
		int k = 0;
		if (ll < sizeof(l)) {
			memcpy(l, line, ll);
			l[ll] = 0;
			for (char *p = l; k < 4 && p; k++) {
				f[k] = p;
				if ((p = strchr(p, ' ')))
					*p++ = 0;
			}
		}
		if (k == 4 && cpuset_mount(f[2], f[3], v2) && !strchr(f[1], '\\') &&
		    strlen(f[1]) < len) {
			strcpy(dir, f[1]);
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

/* The cpuset hierarchy's root directory: a v1 cpuset mount, else a
 * cgroup2 mount whose root offers the cpuset controller. */
static int hierarchy_root(char *dir, size_t len, bool *v2)
{
	enum { MOUNTS = 65536 };
	char ctl[512], *mounts = malloc(MOUNTS);
	if (!mounts)
		return -ENOMEM;
	int r = -ENOENT;
	if (cps_sys_slurp("/proc/self/mounts", mounts, MOUNTS, false) < 0)
		mounts[0] = 0;
	if (cps_cgm_hierarchy(mounts, false, dir, len) == 0) {
		*v2 = false;
		r = 0;
	} else if (cps_cgm_hierarchy(mounts, true, dir, len) == 0 &&
		   cg_read(dir, "cgroup.controllers", ctl, sizeof(ctl)) == 0 &&
		   cps_cgm_word(ctl, "cpuset")) {
		*v2 = true;
		r = 0;
	}
	free(mounts);
	return r;
}

bool cps_cgm_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *q = list; *q;) {
		q += strspn(q, " ");
		size_t l = strcspn(q, " ");
		if (l == wl && !strncmp(q, word, wl))
			return true;
		q += l;
	}
	return false;
}

/* c->cgm_dir: the mirror's directory, looked for once per handle. */
static bool mirror(struct cps_ctx *c)
{
	if (!c->cgm_state) {
		char root[CPS_CGM_PATH];
		bool v2 = false;
		c->cgm_state = 1;
		/* only root writes the hierarchy: others look for nothing */
		if (c->uid == 0 && hierarchy_root(root, sizeof(root) - SHM_TABLE_NAME_MAX - 1, &v2) == 0) {
			if ((size_t)snprintf(c->cgm_dir, sizeof(c->cgm_dir), "%s/%s", root,
					     c->t.name) < sizeof(c->cgm_dir) &&
			    cg_is_dir(c->cgm_dir)) {
				c->cgm_state = 2;
				c->cgm_v2 = v2;
			}
		}
	}
	return c->cgm_state == 2;
}

bool cps_cgm_on(struct cps_ctx *c, char *dir, size_t len)
{
	if (!mirror(c))
		return false;
	if (dir && len)
		snprintf(dir, len, "%s", c->cgm_dir);
	return true;
}

static int set_dir(const struct cps_ctx *c, uint32_t set, char *dir, size_t len)
{
	return (size_t)snprintf(dir, len, "%s/s%u", c->cgm_dir, set) >= len ? -ENAMETOOLONG : 0;
}

static int write_mems(const char *dir, const uint64_t *mems, size_t nw)
{
	char list[CPS_MAX_WORDS * 64 * 4 + 2];
	cps_cpulist_format(list, sizeof(list), mems, nw);
	return cg_write(dir, "cpuset.mems", list);
}

/* A v1 cgroup starts with no CPU and no node: copy its parent's CPUs, and
 * have the kernel move pages when the nodes change (v2 always does). */
static int v1_fill(const char *parent, const char *dir)
{
	char cpus[8192];
	int r = cg_read(parent, "cpuset.cpus", cpus, sizeof(cpus));
	if (r == 0)
		r = cg_write(dir, "cpuset.cpus", cpus[0] ? cpus : "\n");
	if (r == 0)
		r = cg_write(dir, "cpuset.memory_migrate", "1");
	return r;
}

int cps_cgm_make(struct cps_ctx *c, char *dir, size_t len)
{
	char root[CPS_CGM_PATH], mems[8192];
	bool v2 = false;
	int r = hierarchy_root(root, sizeof(root) - SHM_TABLE_NAME_MAX - 1, &v2);
	if (r < 0) {
		c->why = "no cpuset cgroup hierarchy is mounted";
		return r;
	}
	if ((size_t)snprintf(c->cgm_dir, sizeof(c->cgm_dir), "%s/%s", root, c->t.name) >=
	    sizeof(c->cgm_dir))
		return -ENAMETOOLONG;
	if (dir && len)
		snprintf(dir, len, "%s", c->cgm_dir);
	r = (int)cps_sys3(SYS_mkdirat, AT_FDCWD, (long)c->cgm_dir, 0755);
	if (r < 0 && r != -EEXIST) {
		c->why = "cannot make the mirror's cgroup directory";
		return r;
	}
	if (v2) {
		/* the controller in the root's children, then in the mirror's */
		if ((r = cg_write(root, "cgroup.subtree_control", "+cpuset")) == 0)
			r = cg_write(c->cgm_dir, "cgroup.subtree_control", "+cpuset");
	} else if ((r = v1_fill(root, c->cgm_dir)) == 0 &&
		   (r = cg_read(root, "cpuset.mems", mems, sizeof(mems))) == 0) {
		r = cg_write(c->cgm_dir, "cpuset.mems", mems[0] ? mems : "\n");
	}
	if (r < 0) {
		c->why = "cannot set up the mirror's cgroup";
		cps_sys3(SYS_unlinkat, AT_FDCWD, (long)c->cgm_dir, AT_REMOVEDIR);
		return r;
	}
	c->cgm_state = 2;
	c->cgm_v2 = v2;
	return 0;
}

/* A set's directory, made if missing, with the set's nodes. */
static int set_dir_made(struct cps_ctx *c, uint32_t set, const struct cps_setinfo *si,
			char *dir, size_t len)
{
	int r = set_dir(c, set, dir, len);
	if (r < 0)
		return r;
	r = (int)cps_sys3(SYS_mkdirat, AT_FDCWD, (long)dir, 0755);
	if (r < 0 && r != -EEXIST)
		return r;
	if (r == 0 && !c->cgm_v2 && (r = v1_fill(c->cgm_dir, dir)) < 0)
		return r;
	/* written even when the directory was there: a set gone without its
	 * cgroup removed (swept) may have left it, with another's nodes; the
	 * kernel does nothing for the same nodes */
	return write_mems(dir, si->mems, MW(c));
}

int cps_cgm_place(struct cps_ctx *c, uint32_t set, pid_t pid)
{
	if (!mirror(c))
		return 0;
	struct cps_setinfo si;
	char dir[CPS_CGM_PATH + 16], num[24];
	int r = cps_set_get(c, set, &si);
	if (r < 0 || (r = set_dir_made(c, set, &si, dir, sizeof(dir))) < 0)
		return r;
	snprintf(num, sizeof(num), "%d", (int)pid);
	r = cg_write(dir, "cgroup.procs", num);
	return r == -ESRCH ? 0 : r;
}

int cps_cgm_mems(struct cps_ctx *c, uint32_t set)
{
	if (!mirror(c))
		return 0;
	struct cps_setinfo si;
	char dir[CPS_CGM_PATH + 16];
	int r = cps_set_get(c, set, &si);
	if (r < 0 || (r = set_dir(c, set, dir, sizeof(dir))) < 0)
		return r;
	if (!cg_is_dir(dir))
		return 0; /* made, with the nodes, at its first member */
	return write_mems(dir, si.mems, MW(c));
}

/* Whether name is s<id> of no live set (ids: the n live sets; none: every
 * set directory is). */
static bool stale(const char *name, const uint32_t *ids, long n)
{
	if (name[0] != 's' || !name[1] || strspn(name + 1, "0123456789") != strlen(name + 1))
		return false;
	unsigned long id = strtoul(name + 1, NULL, 10);
	for (long i = 0; i < n; i++)
		if (ids[i] == id)
			return false;
	return true;
}

/* The processes of a set's cgroup moved to the hierarchy's root (the
 * mirror's parent), one by one: the kernel takes one pid per write. */
static void evacuate(const struct cps_ctx *c, const char *dir)
{
	char root[CPS_CGM_PATH], pids[4096];
	snprintf(root, sizeof(root), "%s", c->cgm_dir);
	char *slash = strrchr(root, '/');
	if (!slash)
		return;
	*slash = 0;
	for (int round = 0; round < 64; round++) {
		char path[CPS_CGM_PATH + 300];
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		if (cps_sys_slurp(path, pids, sizeof(pids), false) <= 0)
			return;
		for (char *p = pids, *e; *p; p = e) {
			e = p + strcspn(p, "\n");
			if (*e)
				*e++ = 0;
			if (*p)
				cg_write(root[0] ? root : "/", "cgroup.procs", p);
		}
	}
}

/* Every stale set directory of the mirror removed (ids NULL: every one,
 * its processes moved out first): how many could not be (a process still
 * in one), or a negative errno. */
static int remove_stale(struct cps_ctx *c, const uint32_t *ids, long n)
{
	int fd = cps_sys_open(c->cgm_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	char buf[4096], path[CPS_CGM_PATH + 280];
	long got;
	int busy = 0;
	while ((got = cps_sys_getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off + 19 < got;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			const char *name = buf + off + 19;
			if (stale(name, ids, n)) {
				snprintf(path, sizeof(path), "%s/%s", c->cgm_dir, name);
				if (!ids)
					evacuate(c, path);
				if (cps_sys3(SYS_unlinkat, AT_FDCWD, (long)path, AT_REMOVEDIR) < 0)
					busy++;
			}
			if (!reclen)
				break;
			off += reclen;
		}
	}
	cps_sys_close(fd);
	return busy;
}

int cps_cgm_prune(struct cps_ctx *c)
{
	if (!mirror(c))
		return 0;
	uint32_t *ids = NULL;
	long n = cps_set_ids(c, &ids);
	if (n < 0)
		return (int)n;
	int r = remove_stale(c, ids, n);
	free(ids);
	return r;
}

int cps_cgm_remove(struct cps_ctx *c)
{
	if (!mirror(c))
		return 0;
	int r = remove_stale(c, NULL, 0);
	if (r < 0)
		return r;
	long e = cps_sys3(SYS_unlinkat, AT_FDCWD, (long)c->cgm_dir, AT_REMOVEDIR);
	if (e == 0)
		c->cgm_state = 1;
	return (int)e;
}
