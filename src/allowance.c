/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's allowance of the calling process (src/allowance.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"

int cps_kernel_affinity(pid_t tid, uint64_t *m, size_t nw)
{
	cps_mask_zero(m, nw);
	/* the kernel's, not the shim's (it interposes syscall() too) */
	long r = cps_sys_getaffinity(tid, nw * 8, m);
	return r < 0 ? (int)r : 0;
}

/* The mount point and mount root of the cgroup hierarchy: v2 (cgroup2), or
 * the v1 one whose super options name the cpuset controller. */
static int cgroup_mount(bool v2, char *mnt, size_t mlen, char *root, size_t rlen)
{
	static char buf[65536];
	int n = cps_sys_slurp("/proc/self/mountinfo", buf, sizeof(buf), false);
	if (n < 0)
		return n;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		/* id parent major:minor root mountpoint opts [optional...] - fstype source superopts */
		char *f[5], *p = line;
		int k = 0;
		for (; k < 5 && p; k++) {
			f[k] = p;
			p = strchr(p, ' ');
			if (p)
				*p++ = 0;
		}
		char *dash = p ? strstr(p, " - ") : NULL;
		if (k < 5 || !dash)
			continue;
		char *fstype = dash + 3, *src = strchr(fstype, ' ');
		if (!src)
			continue;
		*src++ = 0;
		char *opts = strchr(src, ' ');
		opts = opts ? opts + 1 : src + strlen(src);
		bool match = v2 ? !strcmp(fstype, "cgroup2")
				: !strcmp(fstype, "cgroup") &&
					  (strstr(opts, ",cpuset") || !strncmp(opts, "cpuset", 6));
		if (match && strlen(f[4]) < mlen && strlen(f[3]) < rlen) {
			strcpy(mnt, f[4]);
			strcpy(root, f[3]);
			return 0;
		}
	}
	return -ENOENT;
}

/* The caller's cpuset cgroup from the text of /proc/self/cgroup (buf,
 * cut in place): its path into cg, and whether it is v2's ("0::PATH").
 * A v1 line whose controllers hold cpuset wins over the v2 one. */
static bool cgroup_own(char *buf, char *cg, size_t cglen, bool *v2)
{
	bool have = false;
	/* hier:controllers:path */
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strlen(c2 + 1) >= cglen)
			continue;
		*c2 = 0;
		const char *ctl = c1 + 1;
		bool cpuset = false;
		for (const char *q = ctl; *q;) {
			size_t l = strcspn(q, ",");
			if (l == 6 && !strncmp(q, "cpuset", 6))
				cpuset = true;
			q += l + (q[l] != 0);
		}
		if (cpuset) {
			strcpy(cg, c2 + 1);
			*v2 = false;
			return true;
		}
		if (!strcmp(line, "0") && !*ctl) {
			strcpy(cg, c2 + 1);
			*v2 = true;
			have = true;
		}
	}
	return have;
}

/* The nearest list file up the tree from dir (the cgroup's directory, cut
 * in place; mlen: its mount point's length, the top): v2name in v2 (every
 * cgroup has it where the controller is enabled; the root whenever the
 * controller is bound to v2), v1name else v1old in v1. file gets its
 * path. */
static int cgroup_nearest(char *dir, size_t mlen, bool v2, uint64_t *m, size_t nw,
			  const char *v2name, const char *v1name, const char *v1old,
			  char *file, size_t flen)
{
	for (;;) {
		snprintf(file, flen, "%s/%s", dir, v2 ? v2name : v1name);
		int r = cps_list_file(file, m, nw);
		if (r == -ENOENT && !v2) {
			snprintf(file, flen, "%s/%s", dir, v1old);
			r = cps_list_file(file, m, nw);
		}
		if (r != -ENOENT)
			return r;
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < mlen)
			return -ENOENT;
		*slash = 0;
	}
}

/* A list file of the caller's cpuset cgroup: v2name in a v2 hierarchy
 * (its cgroup's, or the nearest ancestor's that has it), v1name in a v1
 * one, else v1old there. */
static int cgroup_list(uint64_t *m, size_t nw, char *path, size_t plen, const char *v2name,
		       const char *v1name, const char *v1old)
{
	char buf[8192], cg[4096] = "", mnt[1024], root[1024], file[6144];
	bool v2 = false;
	int r = cps_sys_slurp("/proc/self/cgroup", buf, sizeof(buf), false);
	if (r < 0)
		return r;
	if (!cgroup_own(buf, cg, sizeof(cg), &v2) ||
	    cgroup_mount(v2, mnt, sizeof(mnt), root, sizeof(root)) < 0)
		return -ENOENT;
	/* the cgroup's path below the mount's root */
	const char *rel = cg;
	size_t rl = strlen(root);
	if (strcmp(root, "/") && !strncmp(cg, root, rl) && (cg[rl] == '/' || !cg[rl]))
		rel = cg + rl;
	char dir[5120];
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(rel, "/") ? rel : "");
	r = cgroup_nearest(dir, strlen(mnt), v2, m, nw, v2name, v1name, v1old, file,
			   sizeof(file));
	if (r == 0 && path && plen)
		snprintf(path, plen, "%s", file);
	return r;
}

int cps_cgroup_cpus(uint64_t *m, size_t nw, char *path, size_t plen)
{
	return cgroup_list(m, nw, path, plen, "cpuset.cpus.effective", "cpuset.effective_cpus",
			   "cpuset.cpus");
}

int cps_cgroup_mems(uint64_t *m, size_t nw, char *path, size_t plen)
{
	return cgroup_list(m, nw, path, plen, "cpuset.mems.effective", "cpuset.effective_mems",
			   "cpuset.mems");
}

static __thread char why_buf[1024];
static bool override_on;
/* A test's stand-in for the kernel's answers (cps_allowance_fake*): the
 * caller's own allowance, and its cgroup's if it has one. */
struct fake {
	bool on, cg_on;
	uint64_t own[CPS_MAX_WORDS], cg[CPS_MAX_WORDS];
};
static struct fake fake_cpus, fake_nodes;

static void fake_set(struct fake *f, const uint64_t *own, const uint64_t *cgroup, size_t nw)
{
	f->on = own != NULL;
	f->cg_on = own && cgroup;
	cps_mask_zero(f->own, CPS_MAX_WORDS);
	cps_mask_zero(f->cg, CPS_MAX_WORDS);
	if (nw > CPS_MAX_WORDS)
		nw = CPS_MAX_WORDS;
	if (own)
		cps_mask_copy(f->own, own, nw);
	if (cgroup)
		cps_mask_copy(f->cg, cgroup, nw);
}

void cps_allowance_fake(const uint64_t *affinity, const uint64_t *cgroup, size_t nw)
{
	fake_set(&fake_cpus, affinity, cgroup, nw);
}

int cps_allowance_override(bool on)
{
	if (on && geteuid() != 0)
		return -EPERM;
	__atomic_store_n(&override_on, on, __ATOMIC_RELAXED);
	return 0;
}

/* What the two checks below differ in: the noun of the message, the
 * caller's own allowance (its name, how it is read, or the test's), the
 * cgroup's list. */
struct allowance_kind {
	const char *noun, *own_name;
	int (*own)(uint64_t *m, size_t nw);
	int (*cgroup)(uint64_t *m, size_t nw, char *path, size_t plen);
	const struct fake *fake;
	bool online_only; /* the kernel keeps offline CPUs out of affinities */
};

static int own_affinity(uint64_t *m, size_t nw)
{
	return cps_kernel_affinity(0, m, nw);
}

/* "CPU 3 is" or "CPUs 3-4 are", and the rest, into why_buf. */
static const char *outside(const struct allowance_kind *k, const uint64_t *out, size_t nw,
			   const char *whose, const char *path, const uint64_t *list)
{
	char l1[160], l2[160];
	bool many = cps_mask_count(out, nw) > 1;
	cps_cpulist_format(l1, sizeof(l1), out, nw);
	cps_cpulist_format(l2, sizeof(l2), list, nw);
	if (path)
		snprintf(why_buf, sizeof(why_buf), "%s%s %s %s outside the caller's %s (%s: %s)",
			 k->noun, many ? "s" : "", l1, many ? "are" : "is", whose, path,
			 l2[0] ? l2 : "none");
	else
		snprintf(why_buf, sizeof(why_buf), "%s%s %s %s outside the caller's %s (%s)",
			 k->noun, many ? "s" : "", l1, many ? "are" : "is", whose, l2);
	return why_buf;
}

/* The caller's own allowance first: one system call, and all a caller
 * needs when it passes, since the kernel keeps it inside the cgroup's.
 * The cgroup is read only to give the better reason. */
static int allowance_check(const struct allowance_kind *k, const uint64_t *want, size_t nw,
			   const char **why)
{
	uint64_t own[CPS_MAX_WORDS], cg[CPS_MAX_WORDS], out[CPS_MAX_WORDS];
	char path[256];
	if (nw > CPS_MAX_WORDS)
		return -EINVAL;
	if (__atomic_load_n(&override_on, __ATOMIC_RELAXED) && geteuid() == 0)
		return 0;
	int r = 0;
	if (k->fake->on)
		cps_mask_copy(own, k->fake->own, nw);
	else
		r = k->own(own, nw);
	if (r < 0)
		return r;
	cps_mask_andnot(out, want, own, nw);
	if (cps_mask_empty(out, nw))
		return 0;
	/* The kernel takes an offline CPU out of every affinity: a set
	 * holding one (taken offline under its members) is not beyond the
	 * caller for that. Only online CPUs are judged. */
	uint64_t on[CPS_MAX_WORDS];
	if (k->online_only && !k->fake->on && cps_online_cpus(on, nw) == 0) {
		cps_mask_and(out, out, on, nw);
		if (cps_mask_empty(out, nw))
			return 0;
	}
	if (k->fake->on) {
		r = k->fake->cg_on ? 0 : -ENOENT;
		cps_mask_copy(cg, k->fake->cg, nw);
		snprintf(path, sizeof(path), "(test)");
	} else {
		r = k->cgroup(cg, nw, path, sizeof(path));
	}
	uint64_t beyond[CPS_MAX_WORDS];
	if (r == 0) {
		cps_mask_andnot(beyond, want, cg, nw);
		if (!cps_mask_empty(beyond, nw)) {
			*why = outside(k, beyond, nw, "cgroup cpuset", path, cg);
			return -EACCES;
		}
	}
	/* named in full: offline ones too */
	cps_mask_andnot(beyond, want, own, nw);
	*why = outside(k, beyond, nw, k->own_name, NULL, own);
	return -EACCES;
}

int cps_allowance_check(const uint64_t *want, size_t nw, const char **why)
{
	const struct allowance_kind k = { "CPU", "affinity", own_affinity, cps_cgroup_cpus,
					  &fake_cpus, true };
	return allowance_check(&k, want, nw, why);
}

/* ---- memory nodes ---- */

void cps_allowance_fake_mems(const uint64_t *allowed, const uint64_t *cgroup, size_t nw)
{
	fake_set(&fake_nodes, allowed, cgroup, nw);
}

int cps_kernel_mems_allowed(uint64_t *m, size_t nw)
{
	cps_mask_zero(m, nw);
	/* get_mempolicy(NULL, m, bits, 0, MPOL_F_MEMS_ALLOWED), the kernel's
	 * (the shim translates the libc and syscall(3) ones) */
	long r = cps_sys5(SYS_get_mempolicy, 0, (long)m, (long)(nw * 64 + 1), 0, 4 /* MPOL_F_MEMS_ALLOWED */);
	if (r == -ENOSYS && nw > 0) {
		/* a kernel without NUMA (CONFIG_NUMA off; QEMU's user mode too)
		 * has no memory-policy calls: all its memory is node 0's */
		m[0] = 1;
		return 0;
	}
	return r < 0 ? (int)r : 0;
}

int cps_mems_allowed(uint64_t *m, size_t nw)
{
	if (nw > CPS_MAX_WORDS)
		return -EINVAL;
	if (__atomic_load_n(&override_on, __ATOMIC_RELAXED) && geteuid() == 0) {
		cps_mask_fill(m, nw, (unsigned)(nw * 64));
		return 0;
	}
	if (fake_nodes.on) {
		cps_mask_copy(m, fake_nodes.own, nw);
		return 0;
	}
	return cps_kernel_mems_allowed(m, nw);
}

int cps_mems_allowance_check(const uint64_t *want, size_t nw, const char **why)
{
	const struct allowance_kind k = { "node", "Mems_allowed", cps_kernel_mems_allowed,
					  cps_cgroup_mems, &fake_nodes, false };
	return allowance_check(&k, want, nw, why);
}

bool cps_affinity_holds(uint32_t set, const uint64_t *cpus, const uint64_t *k, size_t nw,
			char *msg, size_t len)
{
	uint64_t want[CPS_MAX_WORDS], on[CPS_MAX_WORDS], present[CPS_MAX_WORDS];
	char wl[256], got[256], onl[200];

	if (nw > CPS_MAX_WORDS)
		nw = CPS_MAX_WORDS;
	if (cps_mask_equal(k, cpus, nw))
		return true;
	/* the set's CPUs less those present but offline: not asked for */
	memcpy(want, cpus, nw * sizeof(*want));
	if (cps_online_cpus(on, nw) == 0 && cps_present_cpus(present, nw) == 0) {
		for (size_t i = 0; i < nw; i++)
			want[i] &= ~(present[i] & ~on[i]);
		if (!cps_mask_empty(want, nw) && cps_mask_equal(k, want, nw))
			return true;
	}
	uint64_t both[CPS_MAX_WORDS];
	cps_mask_and(both, k, cpus, nw);
	cps_cpulist_format(wl, sizeof(wl), cpus, nw);
	cps_cpulist_format(got, sizeof(got), k, nw);
	onl[0] = 0;
	if (!cps_mask_equal(want, cpus, nw)) {
		char w[180];
		cps_cpulist_format(w, sizeof(w), want, nw);
		snprintf(onl, sizeof(onl), " (online: %s)", w);
	}
	snprintf(msg, len,
		 "set %u: the kernel %s the affinity: the set's CPUs are %s%s, the kernel lets this "
		 "process run on %s; not running the program",
		 set, cps_mask_empty(both, nw) ? "refused" : "narrowed", wl, onl, got[0] ? got : "none");
	return false;
}
