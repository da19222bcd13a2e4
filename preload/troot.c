/* SPDX-License-Identifier: BSD-3-Clause */
/* The test-only root override, and the set the /sys views show.
 *
 * CPUSETSHIM_TEST_ROOT=R (for the tests only; never in a set-user-id
 * program: shim_secure_getenv): the shim takes a captured machine under
 * R for the real /sys and /proc of the /sys families (preload/view_sys.c).
 * A path below R is taken as the same path below /, and the real files of
 * the views are read below R; with CPUSETSHIM_TEST_CPUS (a CPU list of
 * the captured machine) as the set of these views instead of the
 * process's own, and CPUSETSHIM_TEST_MEMS (a node list of it) as its
 * nodes, for these views and for the memory-policy calls
 * (preload/mempolicy.c). It changes nothing but what this process reads
 * of these files, all of them files the user can read anyway.
 *
 * Everything of it is here: the root put before a canonical path where
 * it turns physical (shim_rooted, and shim_rooted_prefix once per
 * look-up: struct shim_vpath's rl bytes), taken off a path the kernel or
 * the caller gives (shim_unrooted, the reverse), the captured machine's
 * cpuinfo and cgroup files, and its kernel's affinity mask size. Outside
 * this file the shim asks about it in a handful of places (the cheap
 * tests turned off, preload/path.c and preload/shim.h; the stubs' copies,
 * preload/real.c; the online count, preload/counts.c; the deliveries
 * below, preload/view_open.c; the mask size, preload/syscall.c);
 * tests/troot_sites.sh holds them to that. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/rawsys.h"
#include "src/vcgroup.h"
#include "src/vfiles.h"
#include "src/vmake.h"
#include "src/vpath.h"

/* 0 not read yet, 1 set, -1 not set (preload/shim.h) */
int shim_troot_state;

static struct {
	char root[PATH_MAX];
	bool has_cpus, has_mems;
	struct shim_cpus cpus, mems;
} troot;

const char *shim_test_root_read(void)
{
	int st = __atomic_load_n(&shim_troot_state, __ATOMIC_ACQUIRE);

	if (CPS_LIKELY(st))
		return st > 0 ? troot.root : NULL;
	if (!shim_libc_up())
		return NULL; /* no environment yet: asked again later */
	/* racing first callers read the same environment into the same
	 * bytes; the state is published last */
	const char *r = shim_secure_getenv("CPUSETSHIM_TEST_ROOT");
	const char *c = shim_secure_getenv("CPUSETSHIM_TEST_CPUS");
	const char *m = shim_secure_getenv("CPUSETSHIM_TEST_MEMS");
	size_t len = r ? strlen(r) : 0;
	st = -1;
	while (len > 1 && r[len - 1] == '/')
		len--;
	if (r && r[0] == '/' && len > 1 && len < sizeof(troot.root)) {
		memcpy(troot.root, r, len);
		troot.root[len] = 0;
		st = 1;
		struct cps_parse_error err;
		if (c && cps_cpulist_parse(c, troot.cpus.cpus, CPS_MAX_WORDS, &err) == 0 &&
		    (troot.cpus.n = cps_mask_count(troot.cpus.cpus, CPS_MAX_WORDS)) > 0) {
			troot.cpus.nw = CPS_MAX_WORDS;
			troot.has_cpus = true;
		}
		if (m && cps_cpulist_parse(m, troot.mems.cpus, CPS_MAX_WORDS, &err) == 0 &&
		    (troot.mems.n = cps_mask_count(troot.mems.cpus, CPS_MAX_WORDS)) > 0) {
			troot.mems.nw = CPS_MAX_WORDS;
			troot.has_mems = true;
		}
		/* a working directory learnt before (before libc was up) was
		 * kept as the kernel names it: learnt again, without the root */
		shim_cwd_forget();
	}
	__atomic_store_n(&shim_troot_state, st, __ATOMIC_RELEASE);
	return st > 0 ? troot.root : NULL;
}

/* Read once, racing first callers computing the same value: 0 not read,
 * else the count + 1 (1: none, the file unreadable). */
static unsigned troot_nr_cpu_ids;

/* The captured machine's kernel's count of CPU ids (its highest possible
 * CPU + 1), or 0 with no test root or none read. */
static unsigned nr_cpu_ids(void)
{
	const char *r = shim_test_root();
	if (CPS_LIKELY(!r))
		return 0;
	unsigned n = __atomic_load_n(&troot_nr_cpu_ids, __ATOMIC_RELAXED);
	if (n)
		return n - 1;
	char path[PATH_MAX], buf[4096];
	uint64_t m[CPS_MAX_WORDS];
	struct cps_parse_error err;
	int pn = snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/possible", r);
	long len = pn > 0 && (size_t)pn < sizeof(path) ? cps_sys_read_file(path, buf, sizeof(buf) - 1) : -1;
	n = 0;
	if (len > 0) {
		buf[len] = 0;
		buf[strcspn(buf, "\n")] = 0;
		int last = cps_cpulist_parse(buf, m, CPS_MAX_WORDS, &err) == 0 ? cps_mask_last(m, CPS_MAX_WORDS) : -1;
		n = last >= 0 ? (unsigned)last + 1 : 0;
	}
	__atomic_store_n(&troot_nr_cpu_ids, n + 1, __ATOMIC_RELAXED);
	return n;
}

long shim_troot_mask_size(long r, size_t len, void *mask)
{
	unsigned ids = nr_cpu_ids();
	size_t want = ((size_t)ids + 63) / 64 * 8;
	if (want <= (size_t)r)
		return r;
	if (len < ((size_t)ids + 7) / 8) { /* len * 8 < ids, without the wrap */
		errno = EINVAL;
		return -1;
	}
	want = want < len ? want : len;
	memset((char *)mask + r, 0, want - (size_t)r);
	return (long)want;
}

/* The set these views show: the test's, else the process's. */
bool shim_sys_cpus(struct shim_cpus *v)
{
	if (CPS_UNLIKELY(shim_test_root() != NULL) && troot.has_cpus) {
		v->n = troot.cpus.n;
		v->nw = troot.cpus.nw;
		memcpy(v->cpus, troot.cpus.cpus, sizeof(v->cpus));
		return true;
	}
	return shim_cpus_now(v);
}

/* The nodes these views and the memory-policy calls show: the test's
 * (CPUSETSHIM_TEST_MEMS, a node list of the captured machine), else the
 * process's set's. */
bool shim_sys_mems(struct shim_cpus *v)
{
	if (CPS_UNLIKELY(shim_test_root() != NULL) && troot.has_mems) {
		v->n = troot.mems.n;
		v->nw = troot.mems.nw;
		memcpy(v->cpus, troot.mems.cpus, sizeof(v->cpus));
		return true;
	}
	return shim_nodes_of(0, v);
}

/* The set's nodes into in (m holds them): none when the shim has none,
 * and then the nodes keep their numbers. */
void shim_sys_nodes(struct cps_view_input *in, struct shim_cpus *m)
{
	/* a captured machine without CPUSETSHIM_TEST_MEMS: its own nodes */
	if (CPS_UNLIKELY(shim_test_root() != NULL) && !troot.has_mems)
		return;
	if (shim_sys_mems(m) && m->n > 0) {
		in->mems = m->cpus;
		in->mnw = m->nw;
		in->k = m->n;
	}
}

bool shim_rooted(const char *phys, char *out, size_t len)
{
	const char *root = shim_test_root();
	size_t rl = root ? strlen(root) : 0, pl = strlen(phys);

	if (rl + pl + 1 > len)
		return false;
	if (rl)
		memcpy(out, root, rl);
	memcpy(out + rl, phys, pl + 1);
	return true;
}

unsigned shim_root_put(char *out, size_t len)
{
	const char *root = shim_test_root();
	size_t rl = root ? strlen(root) : 0;

	if (!rl || rl >= len)
		return 0;
	memcpy(out, root, rl + 1);
	return (unsigned)rl;
}

const char *shim_unrooted(const char *p)
{
	const char *root = shim_test_root(), *b;

	if (CPS_LIKELY(!root) || !(b = cps_vpath_below(p, root)))
		return p;
	return b;
}

/* ---- the captured machine's cpuinfo and cgroup files ---- */

static int slurp(const char *path, char *buf, size_t cap, size_t *len)
{
	long n = cps_sys_read_file(path, buf, cap);
	if (n < 0)
		return (int)n;
	*len = (size_t)n;
	return 0;
}

static int test_cpuinfo(int flags)
{
	char rp[PATH_MAX];
	struct shim_cpus v;
	struct cps_buf out = { 0 };
	char *buf = malloc(1 << 20);
	size_t len = 0;
	int fd = -2;

	if (!buf || !shim_rooted("/proc/cpuinfo", rp, sizeof(rp)) || !shim_sys_cpus(&v)) {
		free(buf);
		return -1;
	}
	struct cps_view_input in = shim_view_input(&v);
	int r = slurp(rp, buf, 1 << 20, &len);
	struct cps_vmake_in mi = { .real = buf, .len = len, .s = &in };
	if (!r)
		r = cps_vmake(CPS_VK_CPUINFO, &mi, &out);
	if (!r)
		fd = shim_view_fd(out.p, out.len, flags);
	cps_buf_free(&out);
	free(buf);
	/* a cpuinfo whose format the view cannot read: the captured file as
	 * it is, as the shim passes /proc/cpuinfo through (view_open.c) */
	if (r)
		fd = shim_real.open(rp, flags);
	return fd >= 0 ? fd : -2;
}

/* Whether the directory of canon (its first dl bytes) is the captured
 * process's cpuset cgroup of hierarchy v1 (f1) or v2 (f2), by the
 * captured /proc/self/cgroup and mountinfo or, where the capture has
 * none, /proc/self/cpuset and /proc/mounts. a and b: scratch of cap
 * bytes; v1 and v2: of PATH_MAX. */
static bool captured_cpuset_dir(const char *canon, size_t dl, bool f1, bool f2, char *a, char *b,
				size_t cap, char *v1, char *v2)
{
	char rp[PATH_MAX];
	size_t al = 0, bl = 0;
	int found = 0;

	if (shim_rooted("/proc/self/cgroup", rp, sizeof(rp)) && !slurp(rp, a, cap, &al) &&
	    shim_rooted("/proc/self/mountinfo", rp, sizeof(rp)) && !slurp(rp, b, cap, &bl))
		found = cps_cgroup_cpuset_dirs(a, al, b, bl, v1, PATH_MAX, v2, PATH_MAX);
	else if (shim_rooted("/proc/self/cpuset", rp, sizeof(rp)) && !slurp(rp, a, cap, &al) &&
		 shim_rooted("/proc/mounts", rp, sizeof(rp)) && !slurp(rp, b, cap, &bl))
		found = cps_cgroup_cpuset_dirs_mounts(a, al, b, bl, v1, PATH_MAX, v2, PATH_MAX);
	return ((found & 1) && f1 && strlen(v1) == dl && !memcmp(v1, canon, dl)) ||
	       ((found & 2) && f2 && strlen(v2) == dl && !memcmp(v2, canon, dl));
}

/* Under the test root, a CPU file of the captured process's cpuset
 * cgroup (wherever its hierarchy is mounted): the captured
 * /proc/self/cgroup and mountinfo say which, or, where the capture has
 * none, /proc/self/cpuset and /proc/mounts. -1: not one. */
static int test_cgroup(const char *canon, int flags)
{
	const char *leaf = strrchr(canon, '/');
	bool f1, f2;

	if (!leaf || (flags & O_ACCMODE) != O_RDONLY || (flags & (O_DIRECTORY | O_PATH)))
		return -1;
	bool mems = cps_cgroup_mems_file(leaf + 1, false) || cps_cgroup_mems_file(leaf + 1, true);
	f1 = cps_cgroup_cpu_file(leaf + 1, false) || cps_cgroup_mems_file(leaf + 1, false);
	f2 = cps_cgroup_cpu_file(leaf + 1, true) || cps_cgroup_mems_file(leaf + 1, true);
	if (!f1 && !f2)
		return -1;
	enum { CAP = 1 << 16 };
	char *a = malloc(CAP), *b = malloc(CAP), *v1 = malloc(PATH_MAX), *v2 = malloc(PATH_MAX);
	char rp[PATH_MAX];
	size_t al = 0, dl = (size_t)(leaf - canon);
	int fd = -1;
	struct shim_cpus v;

	if (!a || !b || !v1 || !v2 || !shim_sys_cpus(&v))
		goto out;
	if (!captured_cpuset_dir(canon, dl, f1, f2, a, b, CAP, v1, v2))
		goto out;
	fd = -2;
	if (!shim_rooted(canon, rp, sizeof(rp)) || slurp(rp, a, CAP, &al)) {
		fd = -1; /* the real file's own failure: it, as it is */
		goto out;
	}
	struct cps_view_input in = shim_view_input(&v);
	struct cps_buf out = { 0 };
	struct shim_cpus m;
	if (mems)
		shim_sys_nodes(&in, &m);
	struct cps_vmake_in mi = { .real = a, .len = al, .s = &in };
	if (cps_vmake(mems ? CPS_VK_CGROUP_MEMS : CPS_VK_CGROUP_CPUS, &mi, &out) == 0)
		fd = shim_view_fd(out.p, out.len, flags);
	else
		fd = -1;
	cps_buf_free(&out);
out:
	free(a);
	free(b);
	free(v1);
	free(v2);
	return fd >= 0 ? fd : -1;
}

int shim_troot_open(const struct shim_vpath *vp, int flags)
{
	if (vp->row && vp->row->family == CPS_VF_CPUINFO && (flags & O_ACCMODE) == O_RDONLY) {
		int fd = test_cpuinfo(flags);
		if (fd != -1)
			return fd;
	}
	return test_cgroup(vp->canon, flags);
}
