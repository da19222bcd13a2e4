/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — migration: every thread of every member moved onto its set's
 * CPUs through its wanted mask, descendants that are in no set of their
 * own with them (doc/membership.md, "Virtual CPUs and migration"). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/cgmirror.h"
#include "src/mask.h"
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

/* The processes one migration has moved (open addressing, pid 0 free). */
struct pidset {
	pid_t *v;
	size_t n, cap; /* cap: a power of two, or 0 */
};

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

struct migration {
	struct cps_ctx *c;
	uint32_t set;
	bool wrap;
	bool wait;      /* readers wait for a writer inside; else -EAGAIN */
	uint64_t cpus[CPS_MAX_WORDS]; /* the set's CPUs, read at the start */
	struct pidset done;
	/* the process a tree walk started from: its descendants follow it
	 * only if of its user and session */
	bool have_top;
	pid_t top_sid;
	uid_t top_uid;
	struct tidlist later; /* met a writer inside: moved at the end */
	uint64_t *pool; /* wanted masks of the threads of one process */
	uint64_t *pool_start; /* the start time each of those records holds */
	size_t pool_cap; /* in masks */
	/* a resize of the set's nodes: each process's pages on from (nodes
	 * the set left) moved onto to (its nodes now) */
	bool pages;
	uint64_t from[CPS_MAX_WORDS], to[CPS_MAX_WORDS];
};

static void note_unmoved(struct cps_ctx *c, pid_t pid, int err)
{
	if (c->unmoved < (int)CPS_ARRAY_SIZE(c->unmoved_pid))
		c->unmoved_pid[c->unmoved] = pid;
	if (!c->unmoved)
		c->unmoved_err = err;
	c->unmoved++;
}

/* The wanted masks of tids (of process pid, started at pstart, 0: not
 * known) into m->pool, one after the other for those with a record; idx[i]
 * is the pool index of tids[i], or -1 (asks for nothing). A record is a
 * thread's only if it names this process (a tid reused by another process
 * is not the thread that asked) and the thread's start time (nor is a tid
 * reused within the process: checked after the read, outside it). In lock-free reads of up to 64 threads,
 * each retried when a writer moved the table under it; a writer inside
 * (preempted, say) is waited for, up to two seconds, and must not pass for
 * "asks for nothing". */
static int lookup_wanted(struct migration *m, pid_t pid, uint64_t pstart,
			 const struct tidlist *tids, long *idx)
{
	struct cps_ctx *c = m->c;
	size_t mw = MW(c), used = 0;
	if (m->pool_cap < tids->n) {
		uint64_t *p = realloc(m->pool, tids->n * mw * 8);
		if (!p)
			return -ENOMEM;
		m->pool = p;
		if (!(p = realloc(m->pool_start, tids->n * sizeof(*p))))
			return -ENOMEM;
		m->pool_start = p;
		m->pool_cap = tids->n;
	}
	for (size_t from = 0; from < tids->n;) {
		size_t to = from + 64 < tids->n ? from + 64 : tids->n, u = used;
		uint64_t seq;
		int r = shm_read_begin(&c->t, &seq);
		for (int wait = 0; r < 0 && m->wait && c->patient && wait < 20000; wait++) {
			struct timespec ts = { 0, 100000 };
			nanosleep(&ts, NULL);
			r = shm_read_begin(&c->t, &seq);
		}
		if (r < 0)
			return r;
		for (size_t i = from; i < to; i++) {
			idx[i] = -1;
			long k = shm_thread_find(&c->t, tids->v[i]);
			if (k < 0)
				continue;
			const struct shm_thread *th = shm_thread_at(&c->t, (uint32_t)k);
			if (th->tid != tids->v[i] || th->pid != pid || (pstart && th->pstart != pstart))
				continue;
			memcpy(m->pool + u * mw, th->wanted, mw * 8);
			m->pool_start[u] = th->tstart;
			idx[i] = (long)u++;
		}
		if (shm_read_retry(&c->t, seq))
			continue;
		used = u;
		from = to;
	}
	/* a record of an earlier thread with this tid: this one asked for nothing */
	for (size_t i = 0; i < tids->n; i++)
		if (idx[i] >= 0 && m->pool_start[idx[i]] != cps_thread_start(pid, tids->v[i]))
			idx[i] = -1;
	return 0;
}

/* Root on another user's table moves that user's processes only: a
 * record there is that user's word, and may name anyone's process.
 * Whether pid is left alone (noted unmoved, unless gone). */
static bool foreign_skip(struct cps_ctx *c, pid_t pid)
{
	if (c->foreign_uid <= 0 || pid == c->self)
		return false;
	long ruid = cps_proc_real_uid(pid);
	if (ruid == -ESRCH)
		return true;
	if (ruid != c->foreign_uid) {
		note_unmoved(c, pid, EPERM);
		c->unmoved_foreign++;
		return true;
	}
	return false;
}

/* *idx (inl, of *cap entries, at first) made room for n entries. */
static int idx_reserve(long **idx, long *inl, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	long *v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (*idx != inl)
		free(*idx);
	*idx = v;
	*cap = n;
	return 0;
}

/* Each thread of tids onto its wanted CPUs of cpus (idx[i]: its mask's
 * index in m->pool, -1: asks for nothing, the whole set). Returns how many
 * moved; *refused: the first error other than ESRCH, or 0. */
static int set_threads_affinity(struct migration *m, const struct tidlist *tids,
				const long *idx, const uint64_t *cpus, int *refused)
{
	size_t mw = MW(m->c);
	uint64_t phys[CPS_MAX_WORDS];
	int moved = 0;
	*refused = 0;
	for (size_t i = 0; i < tids->n; i++) {
		if (idx[i] < 0 ||
		    cps_virt_to_phys(phys, cpus, mw, m->pool + (size_t)idx[i] * mw, mw,
				     m->wrap) == 0)
			cps_mask_copy(phys, cpus, mw); /* asked for nothing: the whole set */
		int e = cps_sys_setaffinity(tids->v[i], mw * 8, phys);
		uint64_t k[CPS_MAX_WORDS];
		/* refused (a setuid member, say) but already where it
		 * should be: nothing to move */
		if (e == -EPERM && cps_kernel_affinity(tids->v[i], k, mw) == 0 &&
		    cps_mask_equal(k, phys, mw))
			e = 0;
		if (e == 0)
			moved++;
		else if (e != -ESRCH && !*refused)
			*refused = -e;
	}
	return moved;
}

/* Every thread of pid onto the set's CPUs, until no new thread appears;
 * the last thread list read is left in tids (empty if none could be read)
 * for the caller to look for children. self_single: pid is the caller,
 * with one thread when it read its stat file (see list_threads). */
static int migrate_threads(struct migration *m, pid_t pid, uint64_t pstart, bool self_single,
			   struct tidlist *tids)
{
	struct cps_ctx *c = m->c;
	struct tidlist prev;
	struct cps_setinfo si;
	uint64_t last[CPS_MAX_WORDS];
	bool have_last = false, latest_in_prev = false;
	int moved = 0, r = 0, refused = 0;
	size_t mw = MW(c);
	long idx_inl[16], *idx = idx_inl;
	size_t idx_cap = CPS_ARRAY_SIZE(idx_inl);

	tidlist_init(&prev);
	tids->n = 0;
	if (foreign_skip(c, pid))
		return 0;
	/* into the set's cgroup first: a v1 cpuset's attach resets every
	 * thread's affinity to the cgroup's CPUs, the moves below set them */
	if ((r = cps_cgm_place(c, m->set, pid)) < 0) {
		note_unmoved(c, pid, -r);
		r = 0;
	}
	for (int pass = 0; pass < 100; pass++) {
		if (m->wait && (r = cps_set_get(c, m->set, &si)) < 0)
			break;
		if (!m->wait) /* read once for the whole migration */
			cps_mask_copy(si.cpus, m->cpus, mw);
		if ((r = list_threads(pid, self_single, tids)) < 0)
			break;
		latest_in_prev = false;
		if (have_last && cps_mask_equal(last, si.cpus, mw) && prev.n == tids->n &&
		    !memcmp(prev.v, tids->v, prev.n * sizeof(pid_t)))
			break;
		if ((r = idx_reserve(&idx, idx_inl, &idx_cap, tids->n)) < 0 ||
		    (r = lookup_wanted(m, pid, pstart, tids, idx)) < 0)
			break;
		moved += set_threads_affinity(m, tids, idx, si.cpus, &refused);
		cps_mask_copy(last, si.cpus, mw);
		have_last = true;
		tidlist_swap(&prev, tids);
		latest_in_prev = true;
	}
	if (latest_in_prev)
		tidlist_swap(&prev, tids);
	tidlist_free(&prev);
	if (idx != idx_inl)
		free(idx);
	if (refused)
		note_unmoved(c, pid, refused);
	if (r == -ESRCH)
		r = 0; /* gone meanwhile: nothing to move */
	return r < 0 ? r : moved;
}

static void migration_init(struct migration *m, struct cps_ctx *c, uint32_t set);
static void migration_free(struct migration *m);

/* The pages of pid on the nodes the set left onto its nodes now, with
 * migrate_pages(2) (only the pages it alone maps, unless the caller may
 * move all: the kernel's rule). A process the kernel refused, or whose
 * pages it could not all move, is noted unmoved. foreign_before: the
 * count of processes the owner rule refused before its threads' move
 * (such a process is not touched). */
static void migrate_process_pages(struct migration *m, pid_t pid, int foreign_before)
{
	struct cps_ctx *c = m->c;
	if (!m->pages || c->unmoved_foreign != foreign_before)
		return;
	long r = cps_sys4(SYS_migrate_pages, pid, (long)(MW(c) * 64 + 1), (long)m->from,
			  (long)m->to);
	if (r == 0 || r == -ESRCH)
		return;
	/* a positive count: pages the kernel could not move (in use, pinned) */
	note_unmoved(c, pid, r > 0 ? EBUSY : (int)-r);
	c->unmoved_pages++;
}

int cps_migrate_process(struct cps_ctx *c, pid_t pid, uint32_t set, bool self_single)
{
	struct migration m;
	struct tidlist tids;
	migration_init(&m, c, set);
	tidlist_init(&tids);
	int r = migrate_threads(&m, pid, 0, self_single && pid == c->self, &tids);
	tidlist_free(&tids);
	migration_free(&m);
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
		r = cps_proc_each_child(pid, tids->v[i], collect_tid, kids);
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
	tidlist_init(&tids);
	tidlist_init(&kids);
	int foreign = c->unmoved_foreign;
	int r = migrate_threads(m, pid, pstart, self && known && known->nthreads == 1, &tids);
	migrate_process_pages(m, pid, foreign);
	if (r == -EAGAIN && !m->wait) {
		/* a writer inside the table: this one at the end, children now */
		collect_tid(pid, &m->later);
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
	tidlist_free(&tids);
	tidlist_free(&kids);
	return total;
}

/* The process pid (just read: known) and its descendants onto set. */
static void migration_init(struct migration *m, struct cps_ctx *c, uint32_t set)
{
	memset(m, 0, sizeof(*m));
	m->c = c;
	m->set = set;
	m->wrap = cps_wrap_enabled();
	m->wait = true;
	tidlist_init(&m->later);
	c->unmoved = 0;
	c->unmoved_foreign = 0;
	c->unmoved_pages = 0;
}

static void migration_free(struct migration *m)
{
	free(m->done.v);
	free(m->pool);
	free(m->pool_start);
	tidlist_free(&m->later);
}

/* The processes put off because a writer was inside: now, waiting for it
 * (their descendants were moved already). */
static int migrate_later(struct migration *m)
{
	int total = 0;
	m->wait = true;
	for (size_t i = 0; i < m->later.n; i++) {
		struct tidlist tids;
		tidlist_init(&tids);
		int r = migrate_threads(m, m->later.v[i], 0, false, &tids);
		tidlist_free(&tids);
		if (r > 0)
			total += r;
	}
	m->later.n = 0;
	return total;
}

int cps_migrate_one(struct cps_ctx *c, pid_t pid, uint32_t set, const struct cps_procinfo *known)
{
	struct migration m;
	migration_init(&m, c, set);
	int r = migrate_tree(&m, pid, 0, 0, known);
	migration_free(&m);
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
	migration_init(&m, c, set);
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
	migration_free(&m);
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
	migration_init(&m, c, set);
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
		tidlist_init(&tids);
		int foreign = c->unmoved_foreign;
		r = migrate_threads(&m, pm.pid[i], 0, false, &tids);
		migrate_process_pages(&m, pm.pid[i], foreign);
		tidlist_free(&tids);
		if (r > 0)
			total += r;
	}
	r = total;
out:
	free(pm.pid);
	free(pm.ppid);
	free(pm.sid);
	free(pm.uid);
	migration_free(&m);
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
