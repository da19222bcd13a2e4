/* SPDX-License-Identifier: BSD-3-Clause */
/* The public C API: the set rules of src/ (sets.h) on the process's chosen
 * table, with the system-call convention (-1 and errno). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "include/cpusetctl.h"
#include "base/compiler.h"
#include "src/allowance.h"
#include "src/procfs.h"
#include "src/mask.h"
#include "src/sets.h"

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static char table_name[SHM_TABLE_NAME_MAX];
static bool table_chosen;

static int fail(int e)
{
	errno = e;
	return -1;
}

/* Each call opens the table afresh: cheap (one mmap), and a table
 * replaced by `cpuset init --force` is picked up. The default table is
 * made on first use. 0 or a negative errno (a read-only file system is
 * a table not writable: EACCES). */
static int api_begin(struct cps_ctx *c)
{
	pthread_mutex_lock(&api_lock);
	char name[SHM_TABLE_NAME_MAX];
	memcpy(name, table_name, sizeof(name));
	bool chosen = table_chosen;
	pthread_mutex_unlock(&api_lock);
	int r = cps_open(c, chosen ? name : NULL, CPS_OPEN_CREATE);
	return r == -EROFS ? -EACCES : r;
}

/* The end of every wrapper: close the table (opened by api_begin when
 * open is true) and answer with the system-call convention, r < 0 being
 * a negative errno. */
static int api_end(struct cps_ctx *c, bool open, long r)
{
	if (open)
		cps_close(c);
	return r < 0 ? fail((int)-r) : (int)r;
}

CPS_PUBLIC int cpusetctl_use_table(const char *name)
{
	char n[SHM_TABLE_NAME_MAX];
	if (name && shm_table_name(n, sizeof(n), name) < 0)
		return fail(EINVAL);
	pthread_mutex_lock(&api_lock);
	table_chosen = name != NULL;
	if (name)
		memcpy(table_name, n, sizeof(n));
	pthread_mutex_unlock(&api_lock);
	return 0;
}

static int to_mask(uint64_t *m, size_t mw, size_t setsize, const cpu_set_t *set)
{
	if (!set)
		return -EFAULT;
	/* a CPU beyond the table's width cannot be present */
	return cps_mask_from_cpuset(m, mw, set, setsize) ? -EINVAL : 0;
}

CPS_PUBLIC int cpusetctl_create_in(cpusetctl_id_t parent, int flags, const char *name, size_t setsize,
				const cpu_set_t *mask, cpusetctl_id_t *id)
{
	struct cps_ctx c;
	uint64_t m[CPS_MAX_WORDS];
	uint32_t nid = 0;
	if (!id)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	if (!mask || (r = to_mask(m, c.t.mask_words, setsize, mask)) == 0)
		r = cps_create(&c, parent, (unsigned)flags, name, mask ? m : NULL, &nid);
	if (r == 0)
		*id = nid;
	return api_end(&c, true, r);
}

CPS_PUBLIC int cpusetctl_create(cpusetctl_id_t *id, int flags)
{
	return cpusetctl_create_in(0, flags, NULL, 0, NULL, id);
}

CPS_PUBLIC int cpusetctl_destroy(cpusetctl_id_t id)
{
	struct cps_ctx c;
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_destroy(&c, id);
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_alloc(cpusetctl_id_t id, size_t setsize, const cpu_set_t *mask)
{
	struct cps_ctx c;
	uint64_t m[CPS_MAX_WORDS];
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	if ((r = to_mask(m, c.t.mask_words, setsize, mask)) == 0)
		r = cps_alloc(&c, id, m);
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_attach(cpusetctl_id_t id, pid_t pid)
{
	struct cps_ctx c;
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_attach(&c, id, pid);
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_getfreecpus(int flags, size_t setsize, cpu_set_t *mask)
{
	struct cps_ctx c;
	uint64_t m[CPS_MAX_WORDS];
	if (!mask)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_getfreecpus(&c, 0, (unsigned)flags, m);
	if (r == 0 && (size_t)cps_mask_last(m, c.t.mask_words) >= setsize * 8 &&
	    cps_mask_last(m, c.t.mask_words) >= 0)
		r = -EINVAL; /* too small to hold the answer, as sched_getaffinity */
	if (r == 0)
		cps_mask_to_cpuset(mask, setsize, m, c.t.mask_words);
	return api_end(&c, true, r < 0 ? r : (long)setsize);
}

CPS_PUBLIC int cpusetctl_mask_bits(void)
{
	struct cps_ctx c;
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	return api_end(&c, true, (long)c.t.mask_words * 64);
}

CPS_PUBLIC int cpusetctl_find(const char *what, cpusetctl_id_t *id)
{
	struct cps_ctx c;
	uint32_t v;
	if (!what || !id)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_find(&c, what, &v);
	if (r == 0)
		*id = v;
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_which(pid_t pid, cpusetctl_id_t *id)
{
	struct cps_ctx c;
	uint32_t v;
	if (!id)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_which(&c, pid, &v);
	if (r == 0)
		*id = v;
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_list(cpusetctl_id_t *ids, size_t max)
{
	struct cps_ctx c;
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	return api_end(&c, true, cps_set_list(&c, ids, ids ? max : 0));
}

CPS_PUBLIC int cpusetctl_get(cpusetctl_id_t id, struct cpusetctl_info *info, size_t setsize, cpu_set_t *cpus)
{
	struct cps_ctx c;
	struct cps_setinfo si;
	if (!info)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	r = cps_set_get(&c, id, &si);
	if (r == 0) {
		memset(info, 0, sizeof(*info));
		info->id = si.id;
		info->parent = si.parent;
		info->flags = (int)si.flags;
		info->owner = si.uid;
		info->nchildren = si.nchildren;
		info->nmembers = si.nmembers;
		memcpy(info->name, si.name, sizeof(info->name));
		if (cpus)
			cps_mask_to_cpuset(cpus, setsize, si.cpus, c.t.mask_words);
	}
	return api_end(&c, true, r < 0 ? r : 0);
}

/* A node mask of maxnode bits in unsigned longs (as set_mempolicy(2)
 * takes it) to the table's width: EINVAL for a node beyond it. */
static int nodes_in(uint64_t *m, size_t mw, const unsigned long *nodes, unsigned long maxnode)
{
	const unsigned lb = 8 * sizeof(unsigned long);
	cps_mask_zero(m, mw);
	for (unsigned long k = 0; k < maxnode; k++) {
		if (!(nodes[k / lb] >> (k % lb) & 1))
			continue;
		if (k >= mw * 64)
			return -EINVAL;
		cps_mask_set(m, mw, (unsigned)k);
	}
	return 0;
}

CPS_PUBLIC int cpusetctl_set_mems(cpusetctl_id_t id, const unsigned long *nodemask,
				  unsigned long maxnode)
{
	struct cps_ctx c;
	uint64_t m[CPS_MAX_WORDS];
	struct cps_mems how = { nodemask ? CPS_MEMS_LIST : CPS_MEMS_AUTO, m };
	if (maxnode > (1ul << 20))
		return fail(EINVAL);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	if (!nodemask || (r = nodes_in(m, c.t.mask_words, nodemask, maxnode)) == 0)
		r = cps_alloc_mems(&c, id, NULL, &how);
	return api_end(&c, true, r < 0 ? r : 0);
}

CPS_PUBLIC int cpusetctl_get_mems(cpusetctl_id_t id, unsigned long *nodemask, unsigned long maxnode)
{
	struct cps_ctx c;
	struct cps_setinfo si;
	const unsigned lb = 8 * sizeof(unsigned long);
	if (!nodemask)
		return fail(EFAULT);
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	if ((r = cps_set_get(&c, id, &si)) == 0) {
		size_t mw = c.t.mask_words;
		int last = cps_mask_last(si.mems, mw);
		if (last >= 0 && (unsigned long)last >= maxnode) {
			r = -EINVAL;
		} else {
			memset(nodemask, 0, (maxnode + lb - 1) / lb * sizeof(unsigned long));
			for (int k = cps_mask_next(si.mems, mw, -1); k >= 0; k = cps_mask_next(si.mems, mw, k))
				nodemask[(unsigned)k / lb] |= 1ul << ((unsigned)k % lb);
			r = (int)cps_mask_count(si.mems, mw);
		}
	}
	return api_end(&c, true, r);
}

CPS_PUBLIC int cpusetctl_override(int on)
{
	int r = cps_allowance_override(on != 0);
	return r < 0 ? fail(-r) : 0;
}

CPS_PUBLIC int cpusetctl_init_table(const char *name, size_t setsize, const cpu_set_t *cpus,
				    mode_t mode, gid_t gid, int flags)
{
	struct cps_ctx c;
	struct cps_init_opts o;
	uint64_t m[CPS_MAX_WORDS];
	char n[SHM_TABLE_NAME_MAX];
	if ((flags & ~CPUSETCTL_REPLACE) || (mode & ~07777u) ||
	    (name && shm_table_name(n, sizeof(n), name) < 0))
		return fail(EINVAL);
	cps_init_opts_default(&o);
	if (mode)
		o.mode = mode;
	o.gid = gid;
	o.force = (flags & CPUSETCTL_REPLACE) != 0;
	size_t mw = o.caps.mask_bits / 64;
	cps_mask_zero(m, CPS_MAX_WORDS);
	int r = cpus ? to_mask(m, mw, setsize, cpus) : cps_online_cpus(m, mw);
	if (r == 0 && cps_mask_empty(m, mw))
		r = -EINVAL;
	if (r < 0)
		return fail(-r);
	o.cpus = m;
	r = cps_init(&c, name, &o);
	return api_end(&c, r == 0, r);
}

CPS_PUBLIC int cpusetctl_sweep(void)
{
	struct cps_ctx c;
	int r = api_begin(&c);
	if (r < 0)
		return api_end(&c, false, r);
	return api_end(&c, true, cps_sweep(&c));
}
