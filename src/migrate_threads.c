/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — one process of a migration moved (src/migrate_internal.h): its
 * thread list read, the wanted masks of its threads looked up in the
 * table, each thread set onto its wanted CPUs of the set until neither
 * the CPUs nor the list changed, and with a resize of the set's nodes its
 * pages moved. Which processes a migration moves is src/migrate.c's. */
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
#include "src/migrate_internal.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/sets_internal.h"

void cps_tidlist_init(struct tidlist *l)
{
	l->v = l->inl;
	l->n = 0;
	l->cap = CPS_ARRAY_SIZE(l->inl);
}

void cps_tidlist_free(struct tidlist *l)
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

int cps_tidlist_add(pid_t tid, void *arg)
{
	struct tidlist *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		pid_t *v = malloc(cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, l->v, l->n * sizeof(*v));
		cps_tidlist_free(l);
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
		return cps_tidlist_add(cps_sys_gettid(), l);
	int r = cps_proc_each_thread(pid, cps_tidlist_add, l);
	if (r >= 0)
		qsort(l->v, l->n, sizeof(pid_t), cmp_pid);
	return r;
}

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

int cps_migrate_threads(struct migration *m, pid_t pid, uint64_t pstart, bool self_single,
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

	cps_tidlist_init(&prev);
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
	cps_tidlist_free(&prev);
	if (idx != idx_inl)
		free(idx);
	if (refused)
		note_unmoved(c, pid, refused);
	if (r == -ESRCH)
		r = 0; /* gone meanwhile: nothing to move */
	return r < 0 ? r : moved;
}

void cps_migrate_pages_of(struct migration *m, pid_t pid, int foreign_before)
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

void cps_migration_init(struct migration *m, struct cps_ctx *c, uint32_t set)
{
	memset(m, 0, sizeof(*m));
	m->c = c;
	m->set = set;
	m->wrap = cps_wrap_enabled();
	m->wait = true;
	cps_tidlist_init(&m->later);
	c->unmoved = 0;
	c->unmoved_foreign = 0;
	c->unmoved_pages = 0;
}

void cps_migration_free(struct migration *m)
{
	free(m->done.v);
	free(m->pool);
	free(m->pool_start);
	cps_tidlist_free(&m->later);
}
