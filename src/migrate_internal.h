/* SPDX-License-Identifier: BSD-3-Clause */
/* What src/migrate.c (which processes a migration moves: members, their
 * descendants, the scan of every process) and src/migrate_threads.c (one
 * process moved: its threads, its pages) share; nothing else includes
 * this. */
#ifndef CPS_SRC_MIGRATE_INTERNAL_H
#define CPS_SRC_MIGRATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/sets.h"

/* A list of tids or pids. Most processes have a few threads and few
 * children: those fit in the list itself, with no malloc. */
struct tidlist {
	pid_t *v;
	size_t n, cap;
	pid_t inl[16];
};

void cps_tidlist_init(struct tidlist *l);
void cps_tidlist_free(struct tidlist *l);
/* tid added to the list arg (a struct tidlist *), as a callback of the
 * /proc walks: 0, or -ENOMEM. */
int cps_tidlist_add(pid_t tid, void *arg);

/* The processes one migration has moved (open addressing, pid 0 free). */
struct pidset {
	pid_t *v;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* One migration: what it moves the processes onto, what it moved, and the
 * room its reads of the table reuse from process to process. */
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

/* A migration onto set, nothing moved yet (c's counts of unmoved
 * processes cleared); cps_migration_free frees what it grew. */
void cps_migration_init(struct migration *m, struct cps_ctx *c, uint32_t set);
void cps_migration_free(struct migration *m);
/* Every thread of pid onto the set's CPUs, until no new thread appears;
 * the last thread list read is left in tids (empty if none could be read)
 * for the caller to look for children. self_single: pid is the caller,
 * with one thread when it read its stat file (see list_threads). */
int cps_migrate_threads(struct migration *m, pid_t pid, uint64_t pstart, bool self_single,
			struct tidlist *tids);
/* The pages of pid on the nodes the set left onto its nodes now, with
 * migrate_pages(2) (only the pages it alone maps, unless the caller may
 * move all: the kernel's rule). A process the kernel refused, or whose
 * pages it could not all move, is noted unmoved. foreign_before: the
 * count of processes the owner rule refused before its threads' move
 * (such a process is not touched). */
void cps_migrate_pages_of(struct migration *m, pid_t pid, int foreign_before);

#endif
