/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the shim's side of the table: the lock-free read of a
 * process's placement (its set and that set's CPUs) and of a thread's
 * wanted mask, and the write that records one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "src/sets_internal.h"


int cps_placement_read(const struct shm_table *t, pid_t pid, uint64_t start, uint32_t fallback,
		 struct cps_placement *s)
{
	size_t nw = t->mask_words < CPS_MAX_WORDS ? t->mask_words : CPS_MAX_WORDS;
	for (int tries = 0; tries < 64; tries++) {
		uint64_t seq;
		int r = shm_read_begin(t, &seq);
		if (r == -EAGAIN) /* a live writer inside: what it has not committed */
			return cps_placement_read_committed(t, pid, start, fallback, s);
		if (r < 0)
			return r; /* -EOWNERDEAD: the writer inside is dead */
		uint32_t set = 0;
		long i = shm_proc_find(t, pid);
		if (i >= 0) {
			const struct shm_proc *p = shm_proc_at(t, (uint32_t)i);
			if (p->pid == pid && (!start || p->start == start))
				set = p->set;
		}
		struct shm_set *ss = set ? shm_set_by_id(t, set) : NULL;
		if (!ss && fallback)
			ss = shm_set_by_id(t, set = fallback);
		if (!ss)
			ss = shm_set_by_id(t, set = t->root_id);
		if (!ss) {
			if (shm_read_retry(t, seq))
				continue;
			return -EUCLEAN;
		}
		memcpy(s->cpus, shm_set_mask(t, ss, SHM_MASK_CPUS), nw * 8);
		memcpy(s->mems, shm_set_mask(t, ss, SHM_MASK_MEMS), nw * 8);
		if (shm_read_retry(t, seq))
			continue;
		s->nmems = cps_mask_count(s->mems, nw);
		s->seq = seq;
		s->set = set;
		s->nw = (uint32_t)nw;
		s->n = cps_mask_count(s->cpus, nw);
		if (s->n == 0) /* a set with no CPUs yet: nothing sensible to show */
			return -ENXIO;
		return 0;
	}
	return -EAGAIN;
}

int cps_placement_read_committed(const struct shm_table *t, pid_t pid, uint64_t start,
				 uint32_t fallback, struct cps_placement *s)
{
	size_t nw = t->mask_words < CPS_MAX_WORDS ? t->mask_words : CPS_MAX_WORDS;
	uint64_t seq = shm_seq(t);
	uint32_t set = 0;
	long i = shm_proc_find_committed(t, pid);
	if (i >= 0) {
		struct shm_proc p;
		if (shm_read_committed(t, shm_proc_at(t, (uint32_t)i), sizeof(p), &p) == 0 &&
		    p.pid == pid && (!start || p.start == start))
			set = p.set;
	}
	uint32_t want[3] = { set, fallback, t->root_id };
	for (int k = 0; k < 3; k++) {
		uint32_t id = want[k], got;
		if (!id || !t->set_slots)
			continue;
		struct shm_set *ss = shm_set_at(t, id % t->set_slots);
		int r = shm_read_committed(t, &ss->id, sizeof(got), &got);
		if (r < 0)
			return r;
		if (got != id)
			continue;
		if ((r = shm_read_committed(t, shm_set_mask(t, ss, SHM_MASK_CPUS), nw * 8, s->cpus)) < 0 ||
		    (r = shm_read_committed(t, shm_set_mask(t, ss, SHM_MASK_MEMS), nw * 8, s->mems)) < 0)
			return r;
		s->nmems = cps_mask_count(s->mems, nw);
		s->seq = seq;
		s->set = id;
		s->nw = (uint32_t)nw;
		s->n = cps_mask_count(s->cpus, nw);
		return s->n ? 0 : -ENXIO;
	}
	return -EUCLEAN;
}

static int lookup_record(const struct shm_table *t, pid_t tid, uint64_t *wanted, size_t vnw,
			 uint64_t *tstart)
{
	size_t mw = t->mask_words < vnw ? t->mask_words : vnw;
	for (int tries = 0; tries < 64; tries++) {
		uint64_t seq;
		if (shm_read_begin(t, &seq) < 0)
			return -EAGAIN;
		long i = shm_thread_find(t, tid);
		if (i < 0) {
			if (shm_read_retry(t, seq))
				continue;
			return 0;
		}
		const struct shm_thread *th = shm_thread_at(t, (uint32_t)i);
		cps_mask_zero(wanted, vnw);
		memcpy(wanted, th->wanted, mw * 8);
		if (tstart)
			*tstart = th->tstart;
		if (!shm_read_retry(t, seq))
			return th->tid == tid ? 1 : 0;
	}
	return -EAGAIN;
}

int cps_thread_lookup(const struct shm_table *t, pid_t tid, uint64_t *wanted, size_t vnw)
{
	return lookup_record(t, tid, wanted, vnw, NULL);
}

int cps_thread_record(struct cps_ctx *c, pid_t pid, pid_t tid, uint64_t tstart,
		      const uint64_t *wanted, size_t vnw)
{
	size_t mw = MW(c);
	uint64_t cur[CPS_MAX_WORDS], w[CPS_MAX_WORDS], held_start = 0;
	cps_mask_zero(w, mw);
	memcpy(w, wanted, (vnw < mw ? vnw : mw) * 8);
	if (!tstart && !(tstart = cps_thread_start(pid, tid)))
		return -ESRCH;
	if (lookup_record(&c->t, tid, cur, mw, &held_start) == 1 && held_start == tstart &&
	    cps_mask_equal(cur, w, mw))
		return 0; /* already on record, this thread's: no write */
	struct cps_procinfo pi;
	int r = cps_proc_info(pid, &pi);
	if (r < 0)
		return r;
	if ((r = cps_txn_begin(c, false)) < 0)
		return r;
	long i = shm_thread_find(&c->t, tid);
	if (i < 0) {
		i = shm_thread_insert(&c->t, tid);
		if (i == -ENOSPC && cps_sweep_locked(c) >= 0)
			i = shm_thread_insert(&c->t, tid);
		if (i == -ENOSPC) {
			/* full: the thread's wish is lost at the next resize; never
			 * in silence (cpuset-inspect --check counts these) */
			c->why = "the thread registry is full";
			if ((r = shm_write_u32(&c->t, &c->t.h->unrecorded, c->t.h->unrecorded + 1)) < 0)
				return cps_txn_end(c, r);
			cps_txn_end(c, 0);
			return -ENOSPC;
		}
		if (i < 0)
			return cps_txn_end(c, (int)i);
	}
	struct shm_thread *th = shm_thread_at(&c->t, (uint32_t)i);
	int32_t p32 = pid;
	if ((r = shm_write(&c->t, &th->pid, &p32, sizeof(p32))) < 0 ||
	    (r = shm_write(&c->t, &th->pstart, &pi.start, sizeof(pi.start))) < 0 ||
	    (r = shm_write(&c->t, &th->tstart, &tstart, sizeof(tstart))) < 0 ||
	    (r = shm_write(&c->t, th->wanted, w, mw * 8)) < 0)
		return cps_txn_end(c, r);
	return cps_txn_end(c, 0);
}


int cps_thread_forget(struct cps_ctx *c, pid_t pid, pid_t tid)
{
	long i = shm_thread_find(&c->t, tid);
	if (i < 0)
		return 0; /* nothing on record: no write */
	int r = cps_txn_begin(c, false);
	if (r < 0)
		return r;
	i = shm_thread_find(&c->t, tid);
	const struct shm_thread *th = i >= 0 ? shm_thread_at(&c->t, (uint32_t)i) : NULL;
	if (th && th->tid == tid && th->pid == pid)
		r = shm_thread_remove(&c->t, (uint32_t)i);
	return cps_txn_end(c, r);
}
