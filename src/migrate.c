/* src/ — migration: every thread of every member moved onto its set's
 * CPUs through its wanted mask, descendants that are in no set of their
 * own with them (DESIGN.md "Virtual CPUs and migration"). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/sets_internal.h"


/* A list of tids or pids. Most processes have a few threads and few
 * children: those fit in the list itself, with no malloc. */
struct tidlist {
	pid_t *v;
	size_t n, cap;
	pid_t inl[16];
};

static void tidlist_init(struct tidlist *l)
{
	l->v = l->inl;
	l->n = 0;
	l->cap = CPS_ARRAY_SIZE(l->inl);
}

static void tidlist_free(struct tidlist *l)
{
	if (l->v != l->inl)
		free(l->v);
}

static void tidlist_swap(struct tidlist *a, struct tidlist *b)
{
	struct tidlist x = *a;
	*a = *b;
	*b = x;
	/* a list held in its own storage: that storage moved with the copy */
	if (a->v == b->inl)
		a->v = a->inl;
	if (b->v == a->inl)
		b->v = b->inl;
}

static int collect_tid(pid_t tid, void *arg)
{
	struct tidlist *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		pid_t *v = malloc(cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, l->v, l->n * sizeof(*v));
		tidlist_free(l);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = tid;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The threads of pid, sorted. self_single: pid is the calling process and
 * had one thread when the caller read its /proc/PID/stat. That thread is
 * the caller, and none can have appeared since (only a thread of the
 * process could make one), so there is no need to read /proc. */
static int list_threads(pid_t pid, bool self_single, struct tidlist *l)
{
	l->n = 0;
	if (self_single)
		return collect_tid(cps_sys_gettid(), l);
	int r = cps_proc_each_thread(pid, collect_tid, l);
	if (r >= 0)
		qsort(l->v, l->n, sizeof(pid_t), cmp_pid);
	return r;
}

/* One thread onto cpus through its wanted mask. */
static int move_thread(struct cps_ctx *c, pid_t tid, const uint64_t *cpus, bool wrap)
{
	size_t mw = MW(c);
	uint64_t wanted[CPS_MAX_WORDS], phys[CPS_MAX_WORDS];
	/* a writer of another process inside the table (preempted, say)
	 * must not pass for "asks for nothing": the tools may wait */
	struct timespec ts = { 0, 1000000 };
	int w;
	for (int i = 0; (w = cps_thread_lookup(&c->t, tid, wanted, mw)) == -EAGAIN && c->patient &&
			i < 2000;
	     i++)
		nanosleep(&ts, NULL);
	if (w != 1 ||
	    cps_virt_to_phys(phys, cpus, mw, wanted, mw, wrap) == 0)
		cps_mask_copy(phys, cpus, mw); /* asked for nothing: the whole set */
	int e = cps_sys_setaffinity(tid, mw * 8, phys);
	if (e < 0)
		return e == -ESRCH ? 0 : e;
	return 1;
}

/* cps_migrate_process; the last thread list read is left in tids (empty
 * if none could be read), for the caller to look for children.
 * self_single: pid is the caller, with one thread when it read its stat
 * file (see list_threads). */
static int migrate_threads(struct cps_ctx *c, pid_t pid, uint32_t set, bool self_single,
			   struct tidlist *tids)
{
	struct tidlist prev;
	struct cps_setinfo si;
	uint64_t last[CPS_MAX_WORDS];
	bool wrap = cps_wrap_enabled(), have_last = false, latest_in_prev = false;
	int moved = 0, r = 0;
	size_t mw = MW(c);

	tidlist_init(&prev);
	tids->n = 0;
	/* As the 2003 CPUSETS proposal's __cpuset_setaffinity: apply, then
	 * look again until neither the set's CPUs nor the thread list changed
	 * under us. */
	for (int pass = 0; pass < 100; pass++) {
		if ((r = cps_set_get(c, set, &si)) < 0)
			break;
		if ((r = list_threads(pid, self_single, tids)) < 0)
			break;
		latest_in_prev = false;
		if (have_last && cps_mask_equal(last, si.cpus, mw) && prev.n == tids->n &&
		    !memcmp(prev.v, tids->v, prev.n * sizeof(pid_t)))
			break;
		for (size_t i = 0; i < tids->n; i++) {
			int m = move_thread(c, tids->v[i], si.cpus, wrap);
			if (m < 0) {
				r = m;
				goto out;
			}
			moved += m;
		}
		cps_mask_copy(last, si.cpus, mw);
		have_last = true;
		tidlist_swap(&prev, tids);
		latest_in_prev = true;
	}
out:
	if (latest_in_prev)
		tidlist_swap(&prev, tids);
	tidlist_free(&prev);
	return r < 0 ? r : moved;
}

int cps_migrate_process(struct cps_ctx *c, pid_t pid, uint32_t set)
{
	struct tidlist tids;
	tidlist_init(&tids);
	int r = migrate_threads(c, pid, set, false, &tids);
	tidlist_free(&tids);
	return r;
}

/* Children of pid, from /proc/PID/task/TID/children for each of its
 * threads (every thread may have forked). -ENOENT if the kernel lacks
 * that file. */
static int children_of(pid_t pid, const struct tidlist *tids, struct tidlist *kids)
{
	int r = 0;
	kids->n = 0;
	for (size_t i = 0; r >= 0 && i < tids->n; i++) {
		r = cps_proc_each_child(pid, tids->v[i], collect_tid, kids);
		if (r == -ENOMEM)
			break;
		if (r < 0) /* the first thread's file missing: the kernel has none */
			r = r == -ENOENT && i == 0 ? -ENOENT : 0;
	}
	return r;
}

/* pid and every descendant that is not registered in a set of its own,
 * depth first. Returns threads moved, or -ENOENT without children files.
 * known: pid's /proc facts if the caller has just read them, else NULL. */
int cps_migrate_tree(struct cps_ctx *c, pid_t pid, uint32_t set, int depth,
		     const struct cps_procinfo *known)
{
	struct tidlist tids, kids;
	int total = 0;
	/* a process moving itself (cpuset-run, just before its exec) knows
	 * more about itself than /proc would tell */
	bool self = depth == 0 && pid == getpid();
	tidlist_init(&tids);
	tidlist_init(&kids);
	int r = migrate_threads(c, pid, set, self && known && known->nthreads == 1, &tids);
	if (r > 0)
		total += r;
	if (depth > 64 || (self && !cps_self_has_children()))
		goto out;
	if (children_of(pid, &tids, &kids) == -ENOENT) {
		total = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < kids.n; i++) {
		long k = shm_proc_find(&c->t, kids.v[i]);
		if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->set != set)
			continue; /* a member of another set, with its subtree */
		r = cps_migrate_tree(c, kids.v[i], set, depth + 1, NULL);
		if (r == -ENOENT) {
			total = -ENOENT;
			break;
		}
		total += r;
	}
out:
	tidlist_free(&tids);
	tidlist_free(&kids);
	return total;
}

struct pmap {
	pid_t *pid, *ppid;
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
		m->cap = cap;
	}
	m->pid[m->n] = pid;
	m->ppid[m->n] = pi.ppid;
	m->n++;
	return 0;
}

static pid_t ppid_of(const struct pmap *m, pid_t pid)
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
	return lo < m->n && m->pid[lo] == pid ? m->ppid[lo] : 0;
}

static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set);

int cps_migrate_set(struct cps_ctx *c, uint32_t set)
{
	long n = cps_members(c, set, NULL, 0);
	if (n < 0)
		return (int)n;
	struct cps_member *m = calloc((size_t)n + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	n = cps_members(c, set, m, (size_t)n + 1);
	int total = 0;
	for (long i = 0; n > 0 && i < n; i++) {
		int r = cps_migrate_tree(c, m[i].pid, set, 0, NULL);
		if (r == -ENOENT) {
			free(m);
			return migrate_set_by_scan(c, set);
		}
		total += r;
	}
	free(m);
	return total;
}

/* Without /proc/.../children: every process, by its nearest registered
 * ancestor. */
static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set)
{
	struct pmap m = { 0 };
	int total = 0, r;
	if ((r = cps_proc_each(collect_proc, &m)) < 0)
		goto out;
	for (size_t i = 0; i < m.n; i++) {
		/* nearest registered ancestor (or itself) decides */
		pid_t p = m.pid[i];
		uint32_t s = 0;
		for (int depth = 0; p > 1 && depth < 4096 && !s; depth++) {
			long k = shm_proc_find(&c->t, p);
			if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->pid == p)
				s = shm_proc_at(&c->t, (uint32_t)k)->set;
			else
				p = ppid_of(&m, p);
		}
		if (s != set)
			continue;
		r = cps_migrate_process(c, m.pid[i], set);
		if (r > 0)
			total += r;
	}
	r = total;
out:
	free(m.pid);
	free(m.ppid);
	return r;
}
