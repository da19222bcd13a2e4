/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — migration: every thread of every member moved onto its set's
 * CPUs through its wanted mask, descendants that are in no set of their
 * own with them (doc/membership.md, "Virtual CPUs and migration"). Here
 * which processes a migration moves, each once; one process's move is
 * src/migrate_threads.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/migrate_internal.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/sets_internal.h"

/* ---- migration ----
 *
 * One migration moves a set's members and their descendants that are in
 * no set of their own, each process once (a member is also a descendant
 * of its registered ancestors in the same set). For each process it reads
 * the set's CPUs and the thread list, then the recorded wanted masks of
 * all its threads in one lock-free read of the table, moves every
 * thread, and looks again until neither the CPUs nor the thread list
 * changed (the 2003 proposal's loop). A thread the kernel refuses to move
 * (another user's process, a setuid one) does not stop the others: the
 * process is noted in c->unmoved, and the caller reports it. */

static bool pidset_add(struct pidset *s, pid_t pid)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		pid_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return true; /* no memory: move it again rather than never */
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t j = ((uint32_t)s->v[i] * 2654435769u) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = s->v[i];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	size_t j = ((uint32_t)pid * 2654435769u) & (s->cap - 1);
	while (s->v[j]) {
		if (s->v[j] == pid)
			return false;
		j = (j + 1) & (s->cap - 1);
	}
	s->v[j] = pid;
	s->n++;
	return true;
}

int cps_migrate_process(struct cps_ctx *c, pid_t pid, uint32_t set, bool self_single)
{
	struct migration m;
	struct tidlist tids;
	cps_migration_init(&m, c, set);
	cps_tidlist_init(&tids);
	int r = cps_migrate_threads(&m, pid, 0, self_single && pid == c->self, &tids);
	cps_tidlist_free(&tids);
	cps_migration_free(&m);
	return r;
}

static int migrate_tree(struct migration *m, pid_t pid, uint64_t pstart, int depth,
			const struct cps_procinfo *known);

/* Children of pid, from /proc/PID/task/TID/children for each of its
 * threads (every thread may have forked). -ENOENT if the kernel lacks
 * that file. */
static int children_of(pid_t pid, const struct tidlist *tids, struct tidlist *kids)
{
	int r = 0;
	kids->n = 0;
	for (size_t i = 0; r >= 0 && i < tids->n; i++) {
		r = cps_proc_each_child(pid, tids->v[i], cps_tidlist_add, kids);
		if (r == -ENOMEM)
			break;
		if (r < 0) /* the first thread's file missing: the kernel has none */
			r = r == -ENOENT && i == 0 ? -ENOENT : 0;
	}
	return r;
}

/* The children kids of pid that follow it into the set (not members of
 * another set, of the walk's top user and session), each with its
 * subtree. Returns threads moved, or -ENOENT without children files. */
static int migrate_children(struct migration *m, pid_t pid, const struct tidlist *kids,
			    int depth)
{
	struct cps_ctx *c = m->c;
	int total = 0, r;
	if (kids->n && !m->have_top) {
		struct cps_procinfo ti;
		if (cps_proc_info(pid, &ti) < 0)
			return 0;
		m->have_top = true;
		m->top_sid = ti.session;
		m->top_uid = ti.uid;
	}
	for (size_t i = 0; i < kids->n; i++) {
		long k = shm_proc_find(&c->t, kids->v[i]);
		if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->set != m->set)
			continue; /* a member of another set, with its subtree */
		struct cps_procinfo ki;
		if (cps_proc_info(kids->v[i], &ki) < 0)
			continue; /* gone */
		/* another user's, or a session of its own (a daemon, a login):
		 * not in the set by ancestry (cps_which_locked), not moved */
		if (ki.session != m->top_sid || ki.uid != m->top_uid)
			continue;
		r = migrate_tree(m, kids->v[i], ki.start, depth + 1, &ki);
		if (r == -ENOENT)
			return -ENOENT;
		if (r > 0)
			total += r;
	}
	return total;
}

/* pid and every descendant that is not registered in a set of its own,
 * depth first, each once. Returns threads moved, or -ENOENT without
 * children files. known: pid's /proc facts if the caller has just read
 * them, else NULL; pstart: its start time (0: not known). */
static int migrate_tree(struct migration *m, pid_t pid, uint64_t pstart, int depth,
			const struct cps_procinfo *known)
{
	struct cps_ctx *c = m->c;
	struct tidlist tids, kids;
	int total = 0;
	if (!pidset_add(&m->done, pid))
		return 0; /* moved already, as a member or another's descendant */
	/* a process moving itself (cpuset-run, just before its exec) knows
	 * more about itself than /proc would tell */
	bool self = depth == 0 && pid == c->self;
	if (known)
		pstart = known->start;
	if (depth == 0) {
		m->have_top = known != NULL;
		if (known) {
			m->top_sid = known->session;
			m->top_uid = known->uid;
		}
	}
	cps_tidlist_init(&tids);
	cps_tidlist_init(&kids);
	int foreign = c->unmoved_foreign;
	int r = cps_migrate_threads(m, pid, pstart, self && known && known->nthreads == 1, &tids);
	cps_migrate_pages_of(m, pid, foreign);
	if (r == -EAGAIN && !m->wait) {
		/* a writer inside the table: this one at the end, children now */
		cps_tidlist_add(pid, &m->later);
		r = 0;
	}
	if (r > 0)
		total += r;
	if (depth > 64 || (self && !cps_self_has_children()))
		goto out;
	if (children_of(pid, &tids, &kids) == -ENOENT) {
		total = -ENOENT;
		goto out;
	}
	r = migrate_children(m, pid, &kids, depth);
	total = r == -ENOENT ? -ENOENT : total + r;
out:
	cps_tidlist_free(&tids);
	cps_tidlist_free(&kids);
	return total;
}

/* The processes put off because a writer was inside: now, waiting for it
 * (their descendants were moved already). */
static int migrate_later(struct migration *m)
{
	int total = 0;
	m->wait = true;
	for (size_t i = 0; i < m->later.n; i++) {
		struct tidlist tids;
		cps_tidlist_init(&tids);
		int r = cps_migrate_threads(m, m->later.v[i], 0, false, &tids);
		cps_tidlist_free(&tids);
		if (r > 0)
			total += r;
	}
	m->later.n = 0;
	return total;
}

int cps_migrate_one(struct cps_ctx *c, pid_t pid, uint32_t set, const struct cps_procinfo *known)
{
	struct migration m;
	cps_migration_init(&m, c, set);
	int r = migrate_tree(&m, pid, 0, 0, known);
	cps_migration_free(&m);
	return r;
}

struct pmap {
	pid_t *pid, *ppid, *sid;
	uid_t *uid;
	size_t n, cap;
};

static int collect_proc(pid_t pid, void *arg)
{
	struct pmap *m = arg;
	struct cps_procinfo pi;
	if (cps_proc_info(pid, &pi) < 0)
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		pid_t *a = realloc(m->pid, cap * sizeof(pid_t));
		if (!a)
			return -ENOMEM;
		m->pid = a;
		pid_t *b = realloc(m->ppid, cap * sizeof(pid_t));
		if (!b)
			return -ENOMEM;
		m->ppid = b;
		pid_t *d = realloc(m->sid, cap * sizeof(pid_t));
		if (!d)
			return -ENOMEM;
		m->sid = d;
		uid_t *u = realloc(m->uid, cap * sizeof(uid_t));
		if (!u)
			return -ENOMEM;
		m->uid = u;
		m->cap = cap;
	}
	m->pid[m->n] = pid;
	m->ppid[m->n] = pi.ppid;
	m->sid[m->n] = pi.session;
	m->uid[m->n] = pi.uid;
	m->n++;
	return 0;
}

/* The index of pid in m, or -1. */
static long pmap_at(const struct pmap *m, pid_t pid)
{
	/* /proc lists pids in increasing order */
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->pid[lo] == pid ? (long)lo : -1;
}

static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set, const struct migration *pages);

int cps_migrate_set(struct cps_ctx *c, uint32_t set)
{
	return cps_migrate_set_mems(c, set, NULL, NULL);
}

int cps_migrate_set_mems(struct cps_ctx *c, uint32_t set, const uint64_t *from,
			 const uint64_t *to)
{
	struct cps_member *mem = NULL;
	long n = cps_members_alloc(c, set, &mem);
	if (n < 0)
		return (int)n;
	struct migration m;
	struct cps_setinfo si;
	int total = 0, r = 0;
	cps_migration_init(&m, c, set);
	if (from && to && !cps_mask_empty(from, MW(c))) {
		m.pages = true;
		cps_mask_copy(m.from, from, MW(c));
		cps_mask_copy(m.to, to, MW(c));
	}
	/* Members in turn without waiting for writers: one that meets a
	 * writer inside the table is moved at the end, when that writer is
	 * long gone, and the others meanwhile. Under churn writers come all
	 * the time, and on a loaded machine one preempted inside holds every
	 * reader for a time slice of every other runnable process. */
	for (int round = 0; round < 10; round++) {
		if ((r = cps_set_get(c, set, &si)) < 0)
			break;
		cps_mask_copy(m.cpus, si.cpus, MW(c));
		m.wait = false;
		m.done.n = 0;
		if (m.done.v)
			memset(m.done.v, 0, m.done.cap * sizeof(pid_t));
		for (long i = 0; i < n; i++) {
			r = migrate_tree(&m, mem[i].pid, mem[i].start, 0, NULL);
			if (r == -ENOENT)
				break;
			if (r > 0)
				total += r;
		}
		if (r == -ENOENT)
			break;
		total += migrate_later(&m);
		/* another alloc of this set meanwhile: again, with its CPUs */
		if ((r = cps_set_get(c, set, &si)) < 0 || cps_mask_equal(si.cpus, m.cpus, MW(c)))
			break;
	}
	free(mem);
	cps_migration_free(&m);
	if (r == -ENOENT)
		return migrate_set_by_scan(c, set, from && to ? &m : NULL);
	return r < 0 ? r : total;
}

/* Without /proc/.../children: every process, by its nearest registered
 * ancestor. */
static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set, const struct migration *pages)
{
	struct pmap pm = { 0 };
	struct migration m;
	int total = 0, r;
	cps_migration_init(&m, c, set);
	if (pages && pages->pages) {
		m.pages = true;
		cps_mask_copy(m.from, pages->from, MW(c));
		cps_mask_copy(m.to, pages->to, MW(c));
	}
	if ((r = cps_proc_each(collect_proc, &pm)) < 0)
		goto out;
	for (size_t i = 0; i < pm.n; i++) {
		/* nearest registered ancestor (or itself) decides, through
		 * processes of its session, if that ancestor is of its user
		 * (cps_which_locked) */
		pid_t p = pm.pid[i];
		uint32_t s = 0;
		for (int depth = 0; p > 1 && depth < 4096 && !s; depth++) {
			long at = depth ? pmap_at(&pm, p) : (long)i;
			if (at < 0 || pm.sid[at] != pm.sid[i])
				break;
			long k = shm_proc_find(&c->t, p);
			if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->pid == p) {
				s = shm_proc_at(&c->t, (uint32_t)k)->set;
				if (depth && shm_proc_at(&c->t, (uint32_t)k)->uid != pm.uid[i])
					s = 0;
				break;
			}
			p = pm.ppid[at];
		}
		if (s != set)
			continue;
		struct tidlist tids;
		cps_tidlist_init(&tids);
		int foreign = c->unmoved_foreign;
		r = cps_migrate_threads(&m, pm.pid[i], 0, false, &tids);
		cps_migrate_pages_of(&m, pm.pid[i], foreign);
		cps_tidlist_free(&tids);
		if (r > 0)
			total += r;
	}
	r = total;
out:
	free(pm.pid);
	free(pm.ppid);
	free(pm.sid);
	free(pm.uid);
	cps_migration_free(&m);
	return r;
}

/* The calling thread bound (MPOL_BIND) to set's nodes before it runs a
 * program there (cpuset-run), when they are not all the root set's and
 * it has no policy of its own: the program inherits the binding through
 * exec, from its first allocation, shim or not (doc/memory-nodes.md,
 * "Memory nodes in the shim"). 1 if bound, 0 if nothing to do, or
 * -errno. Raw calls: the caller may be under the shim. The nodes bound
 * in bound (its width). */
int cps_bind_self_mems(struct cps_ctx *c, uint32_t set, uint64_t *bound)
{
	struct cps_setinfo si, root;
	size_t mw = MW(c);
	int r;
	if ((r = cps_set_get(c, set, &si)) < 0 || (r = cps_set_get(c, c->t.root_id, &root)) < 0)
		return r;
	if (cps_mask_equal(si.mems, root.mems, mw) || cps_mask_empty(si.mems, mw))
		return 0;
	int mode = -1;
	uint64_t m[CPS_MAX_WORDS];
	long k = cps_sys6(SYS_get_mempolicy, (long)&mode, (long)m, (long)(CPS_MAX_WORDS * 64), 0, 0,
			  0);
	if (k < 0)
		return (int)k;
	if (mode != 0) /* MPOL_DEFAULT: anything else is the caller's own */
		return 0;
	k = cps_sys3(SYS_set_mempolicy, 2 /* MPOL_BIND */, (long)si.mems, (long)(mw * 64 + 1));
	if (k < 0)
		return (int)k;
	cps_mask_copy(bound, si.mems, mw);
	return 1;
}
