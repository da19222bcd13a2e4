/* SPDX-License-Identifier: BSD-3-Clause */
/* The one look-up of a canonical path (shim_vlookup): its row in the
 * list of virtual files (src/vfiles.h), matched once, what it is for the
 * caller, the set and the physical path, into one value that the open's
 * delivery step takes (view_open.c); and how each kind is made from the
 * real file and a copy of the set. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "base/util.h"
#include "src/path.h"
#include "src/vcgroup.h"
#include "src/vproc_pidstat.h"
#include "src/vcpuinfo.h"
#include "src/vfiles.h"
#include "src/views.h"

/* Our own pid without a system call once set-up has it. */
static pid_t own_pid(void)
{
	return shim_self_pid ? shim_self_pid : getpid();
}

static bool is_id(const char *s, size_t len, pid_t id)
{
	char buf[CPS_DEC_MAX];
	size_t n = id > 0 ? cps_fmt_dec(buf, (uint64_t)id) : 0;
	return n == len && !memcmp(buf, s, len);
}

/* The views switched off by CPUSETSHIM_VIEW_*=0: read once per process
 * (the environment at the first classification), not at every open. */
enum {
	OFF_CPUINFO = 1, OFF_STAT = 2, OFF_PIDSTAT = 4, OFF_CGROUP = 8, OFF_NUMA_MAPS = 16,
	OFF_KNOWN = 32
};
static int view_off_bits;

static bool view_off(int bit)
{
	int b = __atomic_load_n(&view_off_bits, __ATOMIC_RELAXED);
	if (CPS_UNLIKELY(!b)) {
		b = OFF_KNOWN | (shim_env_off("CPUSETSHIM_VIEW_CPUINFO") ? OFF_CPUINFO : 0) |
		    (shim_env_off("CPUSETSHIM_VIEW_STAT") ? OFF_STAT : 0) |
		    (shim_env_off("CPUSETSHIM_VIEW_PIDSTAT") ? OFF_PIDSTAT : 0) |
		    (shim_env_off("CPUSETSHIM_VIEW_CGROUP") ? OFF_CGROUP : 0) |
		    (shim_env_off("CPUSETSHIM_VIEW_NUMA_MAPS") ? OFF_NUMA_MAPS : 0);
		__atomic_store_n(&view_off_bits, b, __ATOMIC_RELAXED);
	}
	return b & bit;
}

/* canon's capture what (src/vfiles.h) is id. */
static bool cap_is(const char *canon, const struct cps_vmatch *m, char what, pid_t id)
{
	for (unsigned i = 0; i < m->ncap; i++)
		if (m->cap[i].what == what)
			return is_id(canon + m->cap[i].at, m->cap[i].len, id);
	return false;
}

static bool cap_digits(const char *canon, const struct cps_vmatch *m, char what)
{
	for (unsigned i = 0; i < m->ncap; i++)
		if (m->cap[i].what == what)
			return canon[m->cap[i].at] >= '0' && canon[m->cap[i].at] <= '9';
	return false;
}

/* The whole of a file into a malloc'd buffer (not NUL-terminated). */
static int slurp(const char *path, char **out, size_t *len);

/* The directories of the caller's cpuset cgroup (v1, v2), found through
 * /proc/self/cgroup and the mount table; kept, and looked for again when
 * a CPU file below /sys/fs/cgroup is not in them (the process may have
 * been moved since, or the mounts changed). What this keeps wrong: a
 * file of the cgroup the process was moved out of still reads as its
 * own (translated) until a file outside it is read (doc/limits.md). */
struct cgdirs {
	int found; /* bit 0: v1, bit 1: v2 */
	pid_t pid; /* of the process that looked (a child looks again); 0: none did */
	char v1[PATH_MAX], v2[PATH_MAX];
};
/* All zero (not looked for: no pid is 0), so in .bss: 8 KB of initialised
 * data would push the start of .bss, which the constructor writes, a page
 * past the relocated .got.plt (one more page fault at every start) */
static struct cgdirs cg;
static pthread_mutex_t cg_lock = PTHREAD_MUTEX_INITIALIZER;

static void cg_look(struct cgdirs *d)
{
	char *c = NULL, *mi = NULL;
	size_t cl, mil;
	d->found = 0;
	d->pid = own_pid();
	if (slurp("/proc/self/cgroup", &c, &cl) == 0 &&
	    slurp("/proc/self/mountinfo", &mi, &mil) == 0)
		d->found = cps_cgroup_cpuset_dirs(c, cl, mi, mil, d->v1, sizeof(d->v1), d->v2,
						  sizeof(d->v2));
	free(c);
	free(mi);
}

static bool cg_match(const struct cgdirs *d, const char *c, size_t dl, bool f1, bool f2)
{
	return ((d->found & 1) && f1 && strlen(d->v1) == dl && !memcmp(d->v1, c, dl)) ||
	       ((d->found & 2) && f2 && strlen(d->v2) == dl && !memcmp(d->v2, c, dl));
}

/* c: a canonical path below /sys. Whether it is a CPU file of the
 * caller's own cpuset cgroup. */
static bool classify_cgroup(const char *c, bool rooted)
{
	const char *leaf = strrchr(c, '/');
	bool f1 = cps_cgroup_cpu_file(leaf + 1, false) || cps_cgroup_mems_file(leaf + 1, false);
	bool f2 = cps_cgroup_cpu_file(leaf + 1, true) || cps_cgroup_mems_file(leaf + 1, true);
	/* below a test root (rooted) its cgroup files are the captured
	 * machine's (troot.c): the rest is the captured file, never this
	 * machine's cgroup */
	if ((!f1 && !f2) || view_off(OFF_CGROUP) || rooted)
		return false;
	size_t dl = (size_t)(leaf - c);
	bool mine;
	if (pthread_mutex_trylock(&cg_lock) != 0) {
		/* another thread at it (or this one, interrupted by a signal
		 * handler that opens such a file): looked for now, not kept */
		struct cgdirs *d = malloc(sizeof(*d));
		if (!d)
			return false;
		cg_look(d);
		mine = cg_match(d, c, dl, f1, f2);
		free(d);
		return mine;
	}
	bool looked = false;
	if (cg.pid != own_pid()) {
		cg_look(&cg);
		looked = true;
	}
	mine = cg_match(&cg, c, dl, f1, f2);
	if (!mine && !looked) {
		cg_look(&cg);
		mine = cg_match(&cg, c, dl, f1, f2);
	}
	pthread_mutex_unlock(&cg_lock);
	return mine;
}

/* The kind of the /proc or cgroup view a canonical path of row is for
 * this caller (its pid, its cgroup, the views switched off; rooted: below
 * the test root), or CPS_VK_NONE. */
static enum cps_vkind classify(const char *c, const struct cps_vfile *row,
			       const struct cps_vmatch *m, bool rooted)
{
	enum cps_vkind k = row->kind;
	bool ok;

	switch (k) {
	case CPS_VK_CPUINFO: ok = !view_off(OFF_CPUINFO); break;
	case CPS_VK_STAT: ok = !view_off(OFF_STAT); break;
	case CPS_VK_PIDSTAT:
		/* every process's stat: field 39 by the rule of src/vproc_pidstat.h */
		ok = !view_off(OFF_PIDSTAT) && cap_digits(c, m, 'p');
		break;
	case CPS_VK_STATUS: ok = cap_is(c, m, 'p', own_pid()); break;
	case CPS_VK_STATUS_TASK:
		ok = cap_is(c, m, 'p', own_pid()) && cap_is(c, m, 't', shim_gettid());
		break;
	case CPS_VK_CGROUP_CPUS:
	case CPS_VK_CGROUP_MEMS: ok = classify_cgroup(c, rooted); break;
	case CPS_VK_NUMA_MAPS:
		/* any process's, by the caller's nodes, as its stat by its CPUs */
		ok = !view_off(OFF_NUMA_MAPS) && cap_digits(c, m, 'p');
		break;
	default: ok = false;
	}
	return ok ? k : CPS_VK_NONE;
}

/* A /sys family's path: the set the views show (the test's under the
 * test root), its nodes, the row for them and the physical path (after
 * the test root's vp->rl bytes). */
static void lookup_sys(const char *c, const struct cps_vfile *plain, struct cps_vmatch *m,
		       struct shim_vpath *vp)
{
	struct shim_sys_set *set = &vp->set;
	if (!shim_ready() || !shim_sys_cpus(&set->v))
		return;
	set->in = shim_view_input(&set->v);
	shim_sys_nodes(&set->in, &set->m);
	unsigned rl = vp->rl;
	if (!set->in.k && plain != vp->row) {
		/* a row of the sets with nodes: the next that matches */
		vp->row = plain;
		if (plain)
			cps_vfile_captures(plain, c, m);
	}
	int k = cps_vsys_phys(vp->row, m, c, &set->in, vp->phys + rl, sizeof(vp->phys) - rl);
	vp->kind = k > CPS_VK_NONE ? k : CPS_VK_NONE;
}

void shim_vlookup(const char *c, bool ro, struct shim_vpath *vp)
{
	const struct cps_vfile *plain;
	struct cps_vmatch m;

	vp->canon = c;
	vp->kind = CPS_VK_NONE;
	/* the test root put before the physical path: here, once */
	vp->rl = shim_rooted_prefix(vp->phys, sizeof(vp->phys));
	vp->row = cps_vfile_lookup(c, &plain, &m, &vp->len);
	if (!vp->row)
		return;
	if (shim_vpath_sys(vp)) {
		lookup_sys(c, plain, &m, vp);
		return;
	}
	/* the /proc views and the cgroup's files: read-only, the caller's set */
	if (ro && (vp->kind = classify(c, vp->row, &m, vp->rl != 0)) != CPS_VK_NONE &&
	    !shim_cpus_now(&vp->set.v))
		vp->kind = CPS_VK_NONE;
}

static int slurp(const char *path, char **out, size_t *len)
{
	int fd = shim_real.open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 16384, n = 0;
	char *b = malloc(cap);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = b;
	*len = n;
	return 0;
}


/* real is "/proc/<our pid>/stat" */
static bool own_pidstat(const char *real)
{
	pid_t self = shim_self_pid;
	if (self <= 0 || strncmp(real, "/proc/", 6) != 0)
		return false;
	const char *p = real + 6;
	long n = 0;
	while (*p >= '0' && *p <= '9' && n <= INT_MAX / 10)
		n = n * 10 + (*p++ - '0');
	return n == self && strcmp(p, "/stat") == 0;
}

/* The set's nodes into s where kind k takes them (m holds them): a
 * status's Mems lines by the caller's set's nodes, numa_maps and a
 * cgroup's node list by the views' (shim_sys_nodes). */
static void view_nodes(enum cps_vkind k, struct cps_view_input *s, struct shim_cpus *m)
{
	if (k == CPS_VK_STATUS || k == CPS_VK_STATUS_TASK) {
		if (shim_sys_mems(m) && m->n > 0) {
			s->mems = m->cpus;
			s->mnw = m->nw;
			s->k = m->n;
		}
	} else if (k == CPS_VK_NUMA_MAPS || k == CPS_VK_CGROUP_MEMS) {
		shim_sys_nodes(s, m);
	}
}

int shim_view_build(enum cps_vkind k, const char *real, pid_t tid, const struct shim_cpus *v,
		    struct cps_buf *out)
{
	/* no vallowed: a status view takes the task's mask from the file */
	struct cps_view_input s = shim_view_input(v);
	struct shim_cpus m;
	char *in = NULL, sb[SHIM_VIEW_STACK];
	size_t inlen = 0;
	int r = 0;
	/* /proc/stat, our status and our stat: from the descriptor kept open
	 * if it can be had (into sb when it fits: no malloc) */
	bool kept = k == CPS_VK_STAT || k == CPS_VK_STATUS || shim_vk_cgroup(k) ||
		    (k == CPS_VK_PIDSTAT && own_pidstat(real));
	if (cps_vmake_reads(k) &&
	    (kept ? shim_real_read(k, real, sb, sizeof(sb), &in, &inlen) : -1) < 0 &&
	    (r = slurp(real, &in, &inlen)) < 0)
		return r;
	view_nodes(k, &s, &m);
	struct cps_vmake_in mi = { .real = in, .len = inlen, .s = &s };
	r = cps_vmake(k, &mi, out);
	if (in != sb)
		free(in);
	return r;
}
