/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — membership: which set a process is in (its record, else its
 * nearest registered ancestor's, else the root), the registry walk that
 * sweeps dead members, registration and attach. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/sets_internal.h"

/* Registered set of pid if its record has this start time, else 0. */
uint32_t cps_registered_set(const struct shm_table *t, pid_t pid, uint64_t start)
{
	long i = shm_proc_find(t, pid);
	if (i < 0)
		return 0;
	struct shm_proc *p = shm_proc_at(t, (uint32_t)i);
	if (p->pid != pid || (start && p->start != start))
		return 0;
	return shm_set_by_id(t, p->set) ? p->set : 0;
}

/* The uid on pid's record (0 if none). */
static uint32_t record_uid(const struct shm_table *t, pid_t pid)
{
	long i = shm_proc_find(t, pid);
	return i >= 0 ? shm_proc_at(t, (uint32_t)i)->uid : 0;
}

/* Set of pid by registry, then ancestry: its nearest registered
 * ancestor's, when every process on the way is in pid's session and the
 * ancestor's record is of pid's user; else the root. A process of another
 * user or session (a daemon, a login, a service started by init) never
 * takes the set of whatever it descends from. Caller holds the lock or
 * tolerates a torn answer. */
uint32_t cps_which_locked(struct cps_ctx *c, pid_t pid)
{
	struct cps_procinfo self, pi;
	if (pid <= 0 || cps_proc_info(pid, &self) < 0)
		return c->t.root_id;
	uint32_t s = cps_registered_set(&c->t, pid, self.start);
	if (s)
		return s;
	pid = self.ppid;
	for (int depth = 0; pid > 0 && depth < 4096; depth++) {
		if (cps_proc_stat(pid, &pi) < 0 || pi.session != self.session)
			break;
		s = cps_registered_set(&c->t, pid, pi.start);
		if (s)
			return record_uid(&c->t, pid) == (uint32_t)self.uid ? s : c->t.root_id;
		pid = pi.ppid;
	}
	return c->t.root_id;
}

static long which_body(struct cps_ctx *c, void *arg)
{
	return cps_which_locked(c, *(pid_t *)arg);
}

int cps_which(struct cps_ctx *c, pid_t pid, uint32_t *id)
{
	if (pid == 0)
		pid = c->self;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	long s = read_section(c, 100, which_body, &pid, NULL);
	if (s < 0)
		return (int)s;
	*id = (uint32_t)s;
	return 0;
}

uint32_t cps_current(struct cps_ctx *c)
{
	uint32_t id = c->t.root_id;
	cps_which(c, 0, &id);
	return id;
}

struct members_arg {
	uint32_t set;
	struct cps_member *out;
	size_t max;
};

static long members_body(struct cps_ctx *c, void *arg)
{
	const struct members_arg *a = arg;
	size_t n = 0;
	uint32_t slots = c->t.proc_slots;
	for (uint32_t i = shm_occ_walk(c->t.pocc, 0, 0, slots); i < slots;
	     i = shm_occ_walk(c->t.pocc, 0, i + 1, slots)) {
		const struct shm_proc *p = shm_proc_at(&c->t, i);
		if (p->pid <= 0 || (a->set && p->set != a->set))
			continue;
		if (n < a->max)
			a->out[n] = (struct cps_member){ p->pid, p->ppid, p->set, p->uid, p->start };
		n++;
	}
	return (long)n;
}

long cps_members(struct cps_ctx *c, uint32_t set, struct cps_member *out, size_t max)
{
	struct members_arg a = { set, out, max };
	return read_section(c, 1000, members_body, &a, NULL);
}

long cps_members_alloc(struct cps_ctx *c, uint32_t set, struct cps_member **out)
{
	size_t cap = 64;
	for (int tries = 0;; tries++) {
		struct cps_member *v = malloc(cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		long n = cps_members(c, set, v, cap);
		if (n < 0 || (size_t)n <= cap || tries == 8) {
			if (n < 0)
				free(v);
			else
				*out = v;
			return n < 0 ? n : (long)((size_t)n < cap ? (size_t)n : cap);
		}
		free(v);
		cap = (size_t)n + (size_t)n / 2;
	}
}

int cps_member_leaves(struct cps_ctx *c, uint32_t set)
{
	struct shm_set *s = set_get(c, set);
	if (!s)
		return 0;
	int e = shm_write_u32(&c->t, &s->nmembers, s->nmembers ? s->nmembers - 1 : 0);
	if (e == 0 && autoclean_due(s))
		e = cps_remove_set(c, s);
	return e;
}

/* ---- the sweep ----
 *
 * Dead members are looked for without the writers' lock, then removed
 * inside the transaction when their record is still the one looked at
 * (the same pid and start time). The lock, and with it the odd sequence
 * counter that keeps every reader waiting, is held for the removals only,
 * never for a /proc read per member: under churn every cpuset-run writes,
 * and a sweep that read /proc for every member inside the lock made each
 * write cost O(members) while all readers waited, and a stream of them
 * O(members^2) (tests/churn.sh launches such a stream).
 *
 * A quick look (every write of the tools) asks kill(pid, 0) of each member
 * (a dead pid is gone at once) and reads the start time of a few, a
 * different few at each write, for pids reused by a process that is no
 * member; a full look (cpuset sweep, a full registry) reads every start
 * time.
 *
 * The walk stops once it has met as many live members as the registry
 * counts: the member slots are 128 pages at the default capacity, and each
 * page a process first touches costs it a page fault. The walk starts after
 * a free slot, which no probe run crosses. Without the lock a concurrent
 * writer may move records under the walk: a member missed is found by a
 * later sweep, and nothing is removed that is not checked again under the
 * lock. */
#define SWEEP_SAMPLE 4    /* start times read per quick look */
#define SWEEP_MAX 4096    /* removals per transaction: the journal holds them */

static void dead_add(struct cps_dead_list *d, pid_t pid, uint64_t start)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct cps_dead_member *v = realloc(d->v, cap * sizeof(*v));
		if (!v)
			return; /* the next sweep finds it */
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = (struct cps_dead_member){ pid, start };
}

static int cmp_dead(const void *a, const void *b)
{
	const struct cps_dead_member *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void cps_dead_list_free(struct cps_dead_list *d)
{
	free(d->v);
	free(d->t);
}

/* The thread records of the members in d (sorted by pid), without the
 * lock: memory reads only, walked as the members are. */
static void find_dead_threads(struct cps_ctx *c, struct cps_dead_list *d)
{
	const struct shm_table *t = &c->t;
	uint32_t slots = t->thread_slots, from = 0, seen = 0;
	uint32_t live = __atomic_load_n(&t->h->nthreads, __ATOMIC_RELAXED);
	d->tn = 0;
	if (!d->n || !live || !slots)
		return;
	while (from < slots && __atomic_load_n(&shm_thread_at(t, from)->tid, __ATOMIC_RELAXED) != 0)
		from++;
	bool exact = from < slots;
	for (uint32_t n = shm_occ_walk(t->tocc, from, 0, slots); n < slots && (!exact || seen < live);
	     n = shm_occ_walk(t->tocc, from, n + 1, slots)) {
		const struct shm_thread *th = shm_thread_at(t, (from + n) & (slots - 1));
		pid_t tid = __atomic_load_n(&th->tid, __ATOMIC_RELAXED);
		if (tid <= 0)
			continue;
		seen++;
		struct cps_dead_member key = { __atomic_load_n(&th->pid, __ATOMIC_RELAXED), 0 };
		const struct cps_dead_member *dm = bsearch(&key, d->v, d->n, sizeof(*d->v), cmp_dead);
		uint64_t pstart = __atomic_load_n(&th->pstart, __ATOMIC_RELAXED);
		if (!dm || dm->start != pstart)
			continue;
		if (d->tn == d->tcap) {
			size_t cap = d->tcap ? d->tcap * 2 : 64;
			struct cps_dead_thread *v = realloc(d->t, cap * sizeof(*v));
			if (!v)
				return;
			d->t = v;
			d->tcap = cap;
		}
		d->t[d->tn++] = (struct cps_dead_thread){ tid, key.pid, pstart };
	}
}

/* full: every member's start time; else a quick look: SWEEP_WINDOW
 * members in turn from a random place asked with kill(2), SWEEP_SAMPLE of
 * them also for their start time, and every member of set (not 0: the set
 * a destroy or an alloc is about) for its start time. */
#define SWEEP_WINDOW 64
void cps_find_dead(struct cps_ctx *c, bool full, uint32_t set, struct cps_dead_list *d)
{
	const struct shm_table *t = &c->t;
	uint32_t slots = t->proc_slots, from = 0, seen = 0;
	uint32_t live = __atomic_load_n(&t->h->nprocs, __ATOMIC_RELAXED);
	d->n = d->tn = 0;
	if (live == 0 || slots == 0)
		return;
	while (from < slots && __atomic_load_n(&shm_proc_at(t, from)->pid, __ATOMIC_RELAXED) != 0)
		from++;
	bool exact = from < slots; /* no free slot: a corrupt registry, walk it all */
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint32_t first = (uint32_t)((unsigned long)now.tv_nsec ^ (unsigned long)c->self) % live;
	uint32_t window = full || live <= SWEEP_WINDOW ? live : SWEEP_WINDOW;
	uint32_t stride = full || window <= SWEEP_SAMPLE ? 1 : window / SWEEP_SAMPLE;
	for (uint32_t n = shm_occ_walk(t->pocc, from, 0, slots);
	     n < slots && (!exact || seen < live) && d->n < SWEEP_MAX;
	     n = shm_occ_walk(t->pocc, from, n + 1, slots)) {
		const struct shm_proc *p = shm_proc_at(t, (from + n) & (slots - 1));
		pid_t pid = __atomic_load_n(&p->pid, __ATOMIC_RELAXED);
		if (pid <= 0)
			continue;
		/* the place of this member in the window, if it is in it */
		uint32_t at = (seen++ + live - first) % live;
		bool ours = set && __atomic_load_n(&p->set, __ATOMIC_RELAXED) == set;
		if (at >= window && !ours)
			continue;
		uint64_t start = __atomic_load_n(&p->start, __ATOMIC_RELAXED);
		bool alive;
		if (ours || at % stride == 0)
			alive = cps_proc_alive(pid, start);
		else
			alive = cps_sys3(SYS_kill, pid, 0, 0) != -ESRCH;
		if (!alive)
			dead_add(d, pid, start);
	}
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), cmp_dead);
	find_dead_threads(c, d);
}

/* The members of d whose records are unchanged leave their sets; d keeps
 * only those, sorted. Returns how many went. */
static int sweep_members(struct cps_ctx *c, struct cps_dead_list *d)
{
	struct shm_table *t = &c->t;
	int removed = 0, e;
	size_t kept = 0;
	for (size_t k = 0; k < d->n; k++) {
		long i = shm_proc_find(t, d->v[k].pid);
		struct shm_proc *p = i >= 0 ? shm_proc_at(t, (uint32_t)i) : NULL;
		if (!p || p->pid != d->v[k].pid || p->start != d->v[k].start)
			continue;
		uint32_t set = p->set;
		if ((e = shm_proc_remove(t, (uint32_t)i)) < 0 || (e = cps_member_leaves(c, set)) < 0)
			return e;
		d->v[kept++] = d->v[k];
		removed++;
	}
	d->n = kept;
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), cmp_dead);
	return removed;
}

/* The thread records found with the dead members, if still theirs, go. */
static int sweep_found_threads(struct cps_ctx *c, const struct cps_dead_list *d)
{
	struct shm_table *t = &c->t;
	int e;
	for (size_t k = 0; k < d->tn; k++) {
		long i = shm_thread_find(t, d->t[k].tid);
		struct shm_thread *th = i >= 0 ? shm_thread_at(t, (uint32_t)i) : NULL;
		if (th && th->pid == d->t[k].pid && th->pstart == d->t[k].pstart &&
		    (e = shm_thread_remove(t, (uint32_t)i)) < 0)
			return e;
	}
	return 0;
}

/* Whether thread record th is stale: its process no longer on record,
 * or (full) the thread ended. */
static bool thread_record_gone(struct shm_table *t, const struct shm_thread *th, bool full)
{
	long pi = shm_proc_find(t, th->pid);
	return pi < 0 ||
	       shm_proc_at(t, (uint32_t)pi)->start != th->pstart ||
	       (full && cps_thread_start(th->pid, th->tid) != th->tstart);
}

/* A full sweep, or a full thread registry: every thread record,
 * walked as the members are (from a free slot, up to the count),
 * those of processes no longer on record and of ended threads out
 * (a thread whose start time differs from its record's ended: its tid
 * went to another). */
static int sweep_thread_records(struct cps_ctx *c, bool full)
{
	struct shm_table *t = &c->t;
	int e;
	uint32_t slots = t->thread_slots, from = 0;
	bool look = t->h->nthreads > 0 && (full || t->h->nthreads >= t->h->caps.max_threads);
	while (look && from < slots && shm_thread_at(t, from)->tid != 0)
		from++;
	bool exact = from < slots;
	uint32_t seen = 0;
	for (uint32_t n = 0; look && (n = shm_occ_walk(t->tocc, from, n, slots)) < slots &&
			     (!exact || seen < t->h->nthreads);) {
		uint32_t i = (from + n) & (slots - 1);
		struct shm_thread *th = shm_thread_at(t, i);
		if (th->tid <= 0) {
			n++;
			continue;
		}
		if (!thread_record_gone(t, th, full)) {
			seen++;
			n++;
			continue;
		}
		/* the slot is refilled by the shift: look at it again */
		if ((e = shm_thread_remove(t, i)) < 0)
			return e;
	}
	return 0;
}

/* Inside the transaction: the members of d whose records are unchanged go,
 * the thread records of the processes that went with them (and of any
 * process no longer on record); full: also records of threads that ended.
 * Then AUTOCLEAN sets never attached and older than the grace period.
 * Returns how many members went. */
int cps_sweep_apply(struct cps_ctx *c, struct cps_dead_list *d, bool full)
{
	int removed = sweep_members(c, d), e;
	if (removed < 0)
		return removed;
	if ((e = sweep_found_threads(c, d)) < 0 || (e = sweep_thread_records(c, full)) < 0 ||
	    (e = cps_reap_unattached(c)) < 0)
		return e;
	return removed;
}

/* The sweep inside a transaction already begun (a full registry): every
 * start time read with the lock held, rare by construction. */
int cps_sweep_locked(struct cps_ctx *c)
{
	struct cps_dead_list d = { 0 };
	cps_find_dead(c, true, 0, &d);
	int r = cps_sweep_apply(c, &d, true);
	cps_dead_list_free(&d);
	return r;
}

int cps_sweep(struct cps_ctx *c)
{
	struct cps_dead_list d = { 0 };
	if (c->t.base && c->t.writable)
		cps_find_dead(c, true, 0, &d);
	int r = cps_txn_begin(c, false);
	if (r >= 0)
		r = cps_txn_end(c, cps_sweep_apply(c, &d, true));
	cps_dead_list_free(&d);
	return r;
}

/* known: pid's /proc facts if the caller has just read them, else NULL. */
static int register_txn(struct cps_ctx *c, pid_t pid, uint32_t set, bool sweep,
			const struct cps_procinfo *known)
{
	struct cps_procinfo pi;
	int r;
	if (pid == 0)
		pid = c->self;
	if (known)
		pi = *known;
	else if ((r = cps_proc_info(pid, &pi)) < 0)
		return r;
	uint32_t cur = cps_registered_set(&c->t, pid, pi.start);
	if (cur && (set == 0 || cur == set))
		return 0; /* already recorded: no write */
	if ((r = cps_txn_begin(c, sweep)) < 0)
		return r;
	return cps_txn_end(c, cps_register_locked(c, pid, set, &pi));
}

int cps_register_locked(struct cps_ctx *c, pid_t pid, uint32_t set,
			const struct cps_procinfo *pip)
{
	struct cps_procinfo pi = *pip;
	int r;
	long i = shm_proc_find(&c->t, pid);
	struct shm_proc *p = i >= 0 ? shm_proc_at(&c->t, (uint32_t)i) : NULL;
	uint32_t old = 0;
	if (p && p->start == pi.start)
		old = p->set;
	if (!set)
		set = old ? old : cps_which_locked(c, pi.ppid);
	if (p && p->start != pi.start) {
		/* a dead member with our pid: it leaves its set */
		uint32_t dead = p->set;
		if ((r = shm_proc_remove(&c->t, (uint32_t)i)) < 0 || (r = cps_member_leaves(c, dead)) < 0)
			return r;
		p = NULL;
	}
	struct shm_set *s = set_get(c, set);
	if (!s || set == c->t.root_id || cps_mask_empty(shm_set_mask(&c->t, s, SHM_MASK_CPUS), MW(c)))
		return 0; /* the root needs no members on record */
	if (old == set)
		return 0;
	if (!p) {
		i = shm_proc_insert(&c->t, pid);
		if (i == -ENOSPC && (r = cps_sweep_locked(c)) >= 0)
			i = shm_proc_insert(&c->t, pid);
		if (i < 0) {
			c->why = "the member registry is full";
			return (int)i;
		}
		p = shm_proc_at(&c->t, (uint32_t)i);
	}
	struct shm_proc np = { .pid = pid, .set = set, .start = pi.start, .ppid = pi.ppid,
			       .uid = (uint32_t)pi.uid };
	if ((r = shm_write(&c->t, p, &np, sizeof(np))) < 0)
		return r;
	/* the table truncated under us: its mapping reads zeros now */
	if (!(s = set_get(c, set)))
		return -ESTALE;
	if ((r = shm_write_u32(&c->t, &s->nmembers, s->nmembers + 1)) < 0 ||
	    (!s->attached && (r = shm_write_u32(&c->t, &s->attached, 1)) < 0))
		return r;
	if (old && (r = cps_member_leaves(c, old)) < 0)
		return r;
	return 0;
}

int cps_register(struct cps_ctx *c, pid_t pid, uint32_t set)
{
	return register_txn(c, pid, set, false, NULL);
}

static int leave(struct cps_ctx *c, pid_t pid)
{
	int r = cps_txn_begin(c, true);
	if (r < 0)
		return r;
	long i = shm_proc_find(&c->t, pid);
	if (i >= 0) {
		uint32_t old = shm_proc_at(&c->t, (uint32_t)i)->set;
		if ((r = shm_proc_remove(&c->t, (uint32_t)i)) < 0 ||
		    (r = cps_member_leaves(c, old)) < 0)
			return cps_txn_end(c, r);
	}
	return cps_txn_end(c, 0);
}

int cps_leave(struct cps_ctx *c)
{
	c->why = NULL;
	return leave(c, c->self);
}

/* Attach's checks of the set: it exists, the caller owns it, it has CPUs;
 * its description in si. */
static int attach_check_set(struct cps_ctx *c, uint32_t id, struct cps_setinfo *si)
{
	int r = cps_set_get(c, id, si);
	if (r < 0) {
		/* a busy table is not a missing set */
		c->why = r == -EAGAIN ? "the table stayed busy (a writer inside)" : "no such set";
		return r == -EAGAIN ? r : -EINVAL;
	}
	if (c->uid != 0 && c->uid != si->uid) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	if (cps_mask_empty(si->cpus, MW(c))) {
		c->why = "the set has no CPUs";
		return -EINVAL;
	}
	return 0;
}

/* Attach's checks of the process: it exists, is a process, the caller may
 * move it, it is no pid namespace's first unless forced; its facts in pi. */
static int attach_check_process(struct cps_ctx *c, pid_t pid, unsigned flags,
				struct cps_procinfo *pi)
{
	if (pid < 0 || cps_proc_info(pid, pi) < 0) {
		c->why = "no such process";
		return -ESRCH;
	}
	/* /proc/TID answers for a thread too: a thread id is no process to
	 * register (its process is what attach would have to move) */
	if (!cps_proc_is_process(pid)) {
		c->why = "a thread id, not a process id";
		return -EINVAL;
	}
	if (c->uid != 0 && pi->uid != c->uid) {
		c->why = "not allowed to move that process";
		return -EPERM;
	}
	/* pid 1's descendants are every process on the machine (a pid
	 * namespace's first process's, every one of that namespace): one
	 * attach of it once moved them all. A process moving itself (cpuset-run
	 * as a container's first process) is not refused. */
	if (!(flags & CPS_ATTACH_FORCE) && pid != c->self && cps_proc_is_ns_init(pid)) {
		c->why = pid == 1 ? "pid 1 (init) is not moved unless forced (--force)"
				  : "the first process of a pid namespace is not moved unless forced "
				    "(--force)";
		return -EPERM;
	}
	return 0;
}

/* Attach's kernel move: the process, all its threads; its running
 * descendants that are in no set of their own only when asked (new ones
 * inherit at fork). */
static int attach_move_threads(struct cps_ctx *c, uint32_t id, pid_t pid, unsigned flags,
			       const struct cps_procinfo *pi)
{
	if (flags & CPS_ATTACH_DESCENDANTS)
		return cps_attach_move(c, pid, id, pi,
				       "registered in the set, but the kernel refused to move the "
				       "process");
	/* cpuset-run moving itself: one thread, its own (pi was read just now) */
	int r = cps_migrate_process(c, pid, id, pid == c->self && pi->nthreads == 1);
	if (r >= 0 && c->unmoved) {
		c->why = "registered in the set, but the kernel refused to move the process";
		return -c->unmoved_err;
	}
	if (r < 0 && r != -ESRCH) {
		c->why = "the process is in the set, but moving its threads failed";
		return r;
	}
	return 0;
}

int cps_attach_flags(struct cps_ctx *c, uint32_t id, pid_t pid, unsigned flags)
{
	struct cps_setinfo si;
	struct cps_procinfo pi;
	int r;
	if (pid == 0)
		pid = c->self;
	if ((r = attach_check_set(c, id, &si)) < 0 ||
	    (r = attach_check_process(c, pid, flags, &pi)) < 0)
		return r;
	if ((r = cps_foreign_check(c, pid)) < 0)
		return r;
	/* The kernel's allowance: a process is never moved onto CPUs the
	 * caller cannot run on (the root's too) */
	if ((r = cps_allowance_check(si.cpus, MW(c), &c->why)) < 0)
		return r;
	if (id == c->t.root_id) {
		/* back to the root: forget the registration */
		if ((r = leave(c, pid)) < 0)
			return r;
	} else {
		/* one transaction: the sweep and the move */
		if ((r = register_txn(c, pid, id, true, &pi)) < 0)
			return r;
	}
	return attach_move_threads(c, id, pid, flags, &pi);
}

int cps_attach(struct cps_ctx *c, uint32_t id, pid_t pid)
{
	return cps_attach_flags(c, id, pid, 0);
}

int cps_attach_move(struct cps_ctx *c, pid_t pid, uint32_t id, const struct cps_procinfo *pi,
		    const char *unmoved_why)
{
	int r = cps_migrate_one(c, pid, id, pi);
	if (r == -ENOENT)
		r = cps_migrate_set(c, id);
	if (r >= 0 && c->unmoved) {
		/* the table holds the registration; never in silence */
		c->why = unmoved_why;
		return -c->unmoved_err;
	}
	if (r < 0 && r != -ESRCH) {
		c->why = "the process is in the set, but moving its threads failed";
		return r;
	}
	return 0;
}

