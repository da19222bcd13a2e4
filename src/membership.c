/* src/ — membership: which set a process is in (its record, else its
 * nearest registered ancestor's, else the root), the registry walk that
 * sweeps dead members, registration and attach. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/mask.h"
#include "src/procfs.h"
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

/* Set of pid by registry, then ancestry. Caller holds the lock or
 * tolerates a torn answer. */
uint32_t cps_which_locked(struct cps_ctx *c, pid_t pid)
{
	for (int depth = 0; pid > 0 && depth < 4096; depth++) {
		struct cps_procinfo pi;
		if (cps_proc_info(pid, &pi) < 0)
			break;
		uint32_t s = cps_registered_set(&c->t, pid, pi.start);
		if (s)
			return s;
		pid = pi.ppid;
	}
	return c->t.root_id;
}

int cps_which(struct cps_ctx *c, pid_t pid, uint32_t *id)
{
	if (pid == 0)
		pid = c->self;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		uint32_t s = cps_which_locked(c, pid);
		if (!shm_read_retry(&c->t, seq)) {
			*id = s;
			return 0;
		}
	}
	return -EAGAIN;
}

uint32_t cps_current(struct cps_ctx *c)
{
	uint32_t id = c->t.root_id;
	cps_which(c, 0, &id);
	return id;
}

long cps_members(struct cps_ctx *c, uint32_t set, struct cps_member *out, size_t max)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		size_t n = 0;
		for (uint32_t i = 0; i < c->t.proc_slots; i++) {
			const struct shm_proc *p = shm_proc_at(&c->t, i);
			if (p->pid <= 0 || (set && p->set != set))
				continue;
			if (n < max)
				out[n] = (struct cps_member){ p->pid, p->ppid, p->set, p->uid,
							      p->start };
			n++;
		}
		if (!shm_read_retry(&c->t, seq))
			return (long)n;
	}
	return -EAGAIN;
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

/* Dead members out, their threads' records with them.
 *
 * The walk stops once it has met as many live members as the registry
 * counts: the member slots are 128 pages at the default capacity, and
 * each page a process first touches costs it a page fault: the whole walk
 * costs more than the /proc reads of a few members. For the count to be exact
 * every record must be met once: the walk starts after a free slot, which
 * no probe run crosses, so backward-shift deletion only moves records into
 * the slot being looked at or later ones, never back past the walk. */
int cps_sweep_locked(struct cps_ctx *c)
{
	struct shm_table *t = &c->t;
	uint32_t slots = t->proc_slots, from = 0, kept = 0;
	int removed = 0, e;
	while (from < slots && shm_proc_at(t, from)->pid != 0)
		from++;
	/* no free slot: a corrupt registry, walk it all */
	bool exact = from < slots;
	for (uint32_t n = 0; n < slots && (!exact || kept < t->h->nprocs);) {
		uint32_t i = (from + n) & (slots - 1);
		struct shm_proc *p = shm_proc_at(t, i);
		if (p->pid <= 0 || cps_proc_alive(p->pid, p->start)) {
			kept += p->pid != 0;
			n++;
			continue;
		}
		uint32_t set = p->set;
		/* the slot is refilled by the shift: look at it again */
		if ((e = shm_proc_remove(t, i)) < 0 || (e = cps_member_leaves(c, set)) < 0)
			return e;
		removed++;
	}
	/* (no thread on record: nothing to look at in the thread slots, which
	 * are 16 bytes plus a mask each, megabytes at the default capacities) */
	if (t->h->nthreads > 0 && (removed || t->h->nthreads >= t->h->caps.max_threads)) {
		for (uint32_t i = 0; i < t->thread_slots;) {
			struct shm_thread *th = shm_thread_at(t, i);
			if (th->tid <= 0) {
				i++;
				continue;
			}
			long pi = shm_proc_find(t, th->pid);
			bool live = pi >= 0 && shm_proc_at(t, (uint32_t)pi)->start == th->pstart &&
				    cps_thread_alive(th->pid, th->tid);
			if (live) {
				i++;
				continue;
			}
			if ((e = shm_thread_remove(t, i)) < 0)
				return e;
		}
	}
	return removed;
}

int cps_sweep(struct cps_ctx *c)
{
	int r = cps_txn_begin(c, false);
	if (r < 0)
		return r;
	return cps_txn_end(c, cps_sweep_locked(c));
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
			return cps_txn_end(c, r);
		p = NULL;
	}
	struct shm_set *s = set_get(c, set);
	if (!s || set == c->t.root_id || cps_mask_empty(shm_set_mask(&c->t, s, SHM_MASK_CPUS), MW(c)))
		return cps_txn_end(c, 0); /* the root needs no members on record */
	if (old == set)
		return cps_txn_end(c, 0);
	if (!p) {
		i = shm_proc_insert(&c->t, pid);
		if (i == -ENOSPC && (r = cps_sweep_locked(c)) >= 0)
			i = shm_proc_insert(&c->t, pid);
		if (i < 0) {
			c->why = "the member registry is full";
			return cps_txn_end(c, (int)i);
		}
		p = shm_proc_at(&c->t, (uint32_t)i);
	}
	struct shm_proc np = { .pid = pid, .set = set, .start = pi.start, .ppid = pi.ppid,
			       .uid = (uint32_t)pi.uid };
	if ((r = shm_write(&c->t, p, &np, sizeof(np))) < 0)
		return cps_txn_end(c, r);
	s = set_get(c, set);
	if ((r = shm_write_u32(&c->t, &s->nmembers, s->nmembers + 1)) < 0 ||
	    (!s->attached && (r = shm_write_u32(&c->t, &s->attached, 1)) < 0))
		return cps_txn_end(c, r);
	if (old && (r = cps_member_leaves(c, old)) < 0)
		return cps_txn_end(c, r);
	return cps_txn_end(c, 0);
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

int cps_attach(struct cps_ctx *c, uint32_t id, pid_t pid)
{
	struct cps_setinfo si;
	struct cps_procinfo pi;
	if (pid == 0)
		pid = c->self;
	int r = cps_set_get(c, id, &si);
	if (r < 0) {
		/* a busy table is not a missing set */
		c->why = r == -EAGAIN ? "the table stayed busy (a writer inside)" : "no such set";
		return r == -EAGAIN ? r : -EINVAL;
	}
	if (c->uid != 0 && c->uid != si.uid) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	if (cps_mask_empty(si.cpus, MW(c))) {
		c->why = "the set has no CPUs";
		return -EINVAL;
	}
	if (pid < 0 || cps_proc_info(pid, &pi) < 0) {
		c->why = "no such process";
		return -ESRCH;
	}
	if (c->uid != 0 && pi.uid != c->uid) {
		c->why = "not allowed to move that process";
		return -EPERM;
	}
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
	/* the process and its descendants that are in no set of their own */
	r = cps_migrate_tree(c, pid, id, 0, &pi);
	if (r == -ENOENT)
		r = cps_migrate_set(c, id);
	if (r < 0 && r != -ESRCH) {
		c->why = "the process is in the set, but moving its threads failed";
		return r;
	}
	return 0;
}

