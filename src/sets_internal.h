/* SPDX-License-Identifier: BSD-3-Clause */
/* Between the files of src/ that keep the set rules (sets.c, rules.c,
 * txn.c, membership.c, placement.c, migrate.c, migrate_threads.c); not
 * for the tools or the shim. */
#ifndef CPS_SETS_INTERNAL_H
#define CPS_SETS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/procfs.h"
#include "src/sets.h"

#define MW(c) ((size_t)(c)->t.mask_words)

/* A writer died inside the table: repair it (a writer of the table may,
 * and it never waits: the lock is the dead writer's), then read; else
 * say what to do. -EOWNERDEAD with c->why and c->t.why set then. */
int cps_read_dead_writer(struct cps_ctx *c, uint64_t *seq);

/* A live writer stayed inside the table beyond the reader's wait: say
 * which (c->why, c->t.why); returns -EAGAIN. */
int cps_read_busy(struct cps_ctx *c);

/* The tools wait for a writer up to 5 s, or as long as they would wait
 * for the lock if less ($CPUSETSHIM_LOCK_TIMEOUT). */
static inline int read_begin(struct cps_ctx *c, uint64_t *seq)
{
	unsigned wait = c->t.lock_wait_ms < 5000 ? c->t.lock_wait_ms : 5000;
	int r = c->patient ? shm_read_wait(&c->t, seq, wait) : shm_read_begin(&c->t, seq);
	if (CPS_LIKELY(r == 0))
		return 0;
	if (r == -EOWNERDEAD)
		return cps_read_dead_writer(c, seq);
	return c->patient ? cps_read_busy(c) : r;
}

/* body(c, arg) in a lock-free read of the table, again until no writer
 * moved the table under it, at most tries times: body's value; read_begin's
 * error when that failed (*begin_failed set, if given: the caller may read
 * the committed table instead); -EAGAIN when writers kept moving it. Every
 * lock-free read of src/ goes through here. */
static inline long read_section(struct cps_ctx *c, int tries,
				long (*body)(struct cps_ctx *c, void *arg), void *arg,
				bool *begin_failed)
{
	for (int i = 0; i < tries; i++) {
		uint64_t seq;
		int rb = read_begin(c, &seq);
		if (rb < 0) {
			if (begin_failed)
				*begin_failed = true;
			return rb;
		}
		long v = body(c, arg);
		if (!shm_read_retry(&c->t, seq))
			return v;
	}
	return -EAGAIN;
}

static inline struct shm_set *set_get(struct cps_ctx *c, uint32_t id)
{
	return shm_set_by_id(&c->t, id);
}

static inline struct shm_set *root_of(struct cps_ctx *c)
{
	return set_get(c, c->t.root_id);
}

static inline bool autoclean_due(const struct shm_set *s)
{
	return (s->flags & CPS_AUTOCLEAN) && s->attached && s->nmembers == 0 &&
	       s->nchildren == 0 && s->parent != 0;
}


/* ---- sets.c ---- */

/* Begin a write transaction (sweep: remove dead members first); end it,
 * committing if r >= 0, else rolling back. cps_txn_end returns r. */
int cps_txn_begin(struct cps_ctx *c, bool sweep);
/* The same, the sweep looking at every member of set in full. */
int cps_txn_begin_for(struct cps_ctx *c, bool sweep, uint32_t set);
/* Seconds on the clock of the AUTOCLEAN grace period (CLOCK_BOOTTIME):
 * a set's creation time and the reaper's now. */
uint32_t cps_autoclean_clock(void);
/* AUTOCLEAN sets never attached and older than the grace period go
 * (inside a transaction). */
int cps_reap_unattached(struct cps_ctx *c);
int cps_txn_end(struct cps_ctx *c, int r);
/* The id of the set named name (0: none), in a read or write section. */
uint32_t cps_find_name(struct cps_ctx *c, const char *name);

/* ---- rules.c ---- */

/* Remove s and every ancestor its removal leaves due for autoclean. */
int cps_remove_set(struct cps_ctx *c, struct shm_set *s);

/* ---- membership.c ---- */

/* Registered set of pid if its record has this start time, else 0. */
uint32_t cps_registered_set(const struct shm_table *t, pid_t pid, uint64_t start);
/* Set of pid by registry, then ancestry. Caller holds the lock or
 * tolerates a torn answer. */
uint32_t cps_which_locked(struct cps_ctx *c, pid_t pid);
/* A member of set left it: its count, and autoclean. */
int cps_member_leaves(struct cps_ctx *c, uint32_t set);
/* The sweep, in two halves: dead members (and their thread records)
 * looked for without the lock, then removed inside the transaction if
 * their records are unchanged. full: every member's start time read;
 * else a quick look at a window of members, and every member of set (not
 * 0) in full. */
struct cps_dead_member {
	pid_t pid;
	uint64_t start;
};
struct cps_dead_list {
	struct cps_dead_member *v; /* sorted by pid */
	size_t n, cap;
	struct cps_dead_thread {
		pid_t tid, pid;
		uint64_t pstart;
	} *t; /* thread records of those members */
	size_t tn, tcap;
};
void cps_find_dead(struct cps_ctx *c, bool full, uint32_t set, struct cps_dead_list *d);
/* Inside a transaction: returns how many members went. */
int cps_sweep_apply(struct cps_ctx *c, struct cps_dead_list *d, bool full);
void cps_dead_list_free(struct cps_dead_list *d);
/* Both halves inside a transaction (a full registry). */
int cps_sweep_locked(struct cps_ctx *c);
/* Record pid (its /proc facts in pi) as a member of set, inside a
 * transaction (register_txn's body). */
int cps_register_locked(struct cps_ctx *c, pid_t pid, uint32_t set,
			const struct cps_procinfo *pi);
/* Move pid (just registered in id) and its descendants; unmoved_why is
 * the reason given when the kernel refused some of it. */
int cps_attach_move(struct cps_ctx *c, pid_t pid, uint32_t id, const struct cps_procinfo *pi,
		    const char *unmoved_why);

/* ---- migrate.c ---- */

/* pid and every descendant that is not registered in a set of its own,
 * each once. Returns threads moved, or -ENOENT without children files;
 * what the kernel refused to move is in c->unmoved. known: pid's /proc
 * facts if the caller has just read them, else NULL. */
int cps_migrate_one(struct cps_ctx *c, pid_t pid, uint32_t set, const struct cps_procinfo *known);

#endif
