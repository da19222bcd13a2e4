/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the transaction every write of src/ runs in (the sweep of the
 * dead before it, commit or roll-back after), the reaping of AUTOCLEAN
 * sets that never had a member, and what readers say of a writer that
 * stays inside or died there. The rules that run inside a transaction
 * are sets.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/sets.h"
#include "src/sets_internal.h"

int cps_txn_begin_for(struct cps_ctx *c, bool sweep, uint32_t set)
{
	c->why = NULL; /* a reason is this transaction's or none */
	if (!c->t.base)
		return -EINVAL;
	if (!c->t.writable) {
		c->why = "the table is not writable by this user";
		return -EACCES;
	}
	/* the dead are looked for before the lock: the lock (and the odd
	 * sequence counter every reader waits on) is held for their removal
	 * only (membership.c, "the sweep") */
	struct cps_dead_list d = { 0 };
	if (sweep)
		cps_find_dead(c, false, set, &d);
	int r = shm_write_begin(&c->t);
	if (r < 0) {
		if (c->t.why[0]) /* the lock's holder, the damage */
			c->why = c->t.why;
		cps_dead_list_free(&d);
		return r;
	}
	if (sweep && (r = cps_sweep_apply(c, &d, false)) < 0)
		shm_write_abort(&c->t);
	cps_dead_list_free(&d);
	return r < 0 ? r : 0;
}

int cps_txn_begin(struct cps_ctx *c, bool sweep)
{
	return cps_txn_begin_for(c, sweep, 0);
}

/* AUTOCLEAN sets are destroyed when their last member leaves; one that
 * never had a member (made, then its maker killed before it attached
 * anything, or never used) goes once it is older than the grace period
 * ($CPUSETSHIM_AUTOCLEAN_GRACE seconds, default 60). */
static uint32_t autoclean_grace(void)
{
	const char *g = cps_getenv("CPUSETSHIM_AUTOCLEAN_GRACE");
	char *end;
	if (g && *g >= '0' && *g <= '9') {
		unsigned long v = strtoul(g, &end, 10);
		if (!*end && v < UINT32_MAX)
			return (uint32_t)v;
	}
	return 60;
}

int cps_reap_unattached(struct cps_ctx *c)
{
	struct shm_table *t = &c->t;
	uint32_t nsets = t->h->nsets, seen = 0, grace = 0, now = 0;
	bool timed = false;
	for (uint32_t i = 0; i < t->set_slots && seen < nsets; i++) {
		struct shm_set *s = shm_set_at(t, i);
		if (!s->id || s->id % t->set_slots != i)
			continue;
		seen++;
		if (!(s->flags & CPS_AUTOCLEAN) || s->attached || s->nmembers || s->nchildren ||
		    !s->parent || s->id == t->root_id)
			continue;
		if (!timed) {
			grace = autoclean_grace();
			now = cps_autoclean_clock();
			timed = true;
		}
		if ((uint32_t)(now - s->created) <= grace)
			continue;
		int e = cps_remove_set(c, s);
		if (e < 0)
			return e;
	}
	return 0;
}

int cps_txn_end(struct cps_ctx *c, int r)
{
	if (r < 0)
		shm_write_abort(&c->t);
	else
		shm_write_commit(&c->t);
	return r;
}

int cps_repair(struct cps_ctx *c)
{
	if (!c->t.writable)
		return -EACCES;
	int r = shm_write_begin(&c->t);
	if (r < 0) {
		if (c->t.why[0])
			c->why = c->t.why;
		return r;
	}
	shm_write_commit(&c->t);
	return r;
}

int cps_read_busy(struct cps_ctx *c)
{
	pid_t tid;
	if (shm_lock_state(&c->t, &tid) == SHM_LOCK_HELD)
		snprintf(c->t.why, sizeof(c->t.why),
			 "a writer (pid %d) stays inside the table: it is stopped or stuck, or the "
			 "table's counters are forged",
			 (int)tid);
	else
		snprintf(c->t.why, sizeof(c->t.why), "the table stays busy");
	c->why = c->t.why;
	return -EAGAIN;
}

int cps_read_dead_writer(struct cps_ctx *c, uint64_t *seq)
{
	int r = c->t.writable ? cps_repair(c) : -EACCES;
	if (r >= 0) {
		r = shm_read_begin(&c->t, seq);
		if (r != -EOWNERDEAD)
			return r;
	}
	/* a journal that fails its check: damage, said as such (not "busy") */
	if (r == -EUCLEAN) {
		c->why = c->t.why[0] ? c->t.why : "the table is damaged";
		return r;
	}
	if (!c->t.why[0] || !c->t.writable)
		snprintf(c->t.why, sizeof(c->t.why),
			 "a writer died inside the table and left it half written: run 'cpuset "
			 "repair' (as a user who may write the table)");
	c->why = c->t.why;
	return -EOWNERDEAD;
}
