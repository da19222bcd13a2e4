/* SPDX-License-Identifier: BSD-3-Clause */
/* Registry slots: member processes and threads, found in O(1).
 *
 * Two open-addressed hash tables (linear probing, power-of-two slot count,
 * load kept under one half by the capacities), keyed by pid and by tid; a
 * key of 0 is a free slot. Removal shifts the following cluster back, so
 * there are no tombstones and a lookup ends at the first free slot. Lookups
 * are safe for lock-free readers (bounded probes; the result may be torn
 * and must be checked under the sequence counter). Writers call these
 * inside a transaction: every change is journaled.
 */
#ifndef CPS_SHM_REGISTRY_H
#define CPS_SHM_REGISTRY_H

#include "shm/table.h"

static inline struct shm_proc *shm_proc_at(const struct shm_table *t, uint32_t i)
{
	return (struct shm_proc *)(t->procs + (size_t)i * t->proc_rsz);
}
static inline struct shm_thread *shm_thread_at(const struct shm_table *t, uint32_t i)
{
	return (struct shm_thread *)(t->threads + (size_t)i * t->thread_rsz);
}

/* Slot index of the key, or -1. */
long shm_proc_find(const struct shm_table *t, pid_t pid);
long shm_thread_find(const struct shm_table *t, pid_t tid);
/* shm_proc_find on the table as it was committed (shm_read_committed):
 * through a writer inside, dead or stopped. */
long shm_proc_find_committed(const struct shm_table *t, pid_t pid);

/* Insert a record for a new key (writer). Returns the slot index, or
 * -EEXIST (already there: index not given, use find), -ENOSPC (at
 * capacity), -ENOSPC from the journal. The record is zeroed but for its key;
 * fill it with shm_write. */
long shm_proc_insert(struct shm_table *t, pid_t pid);
long shm_thread_insert(struct shm_table *t, pid_t tid);
/* Remove the record at slot i (writer). */
int shm_proc_remove(struct shm_table *t, uint32_t i);
int shm_thread_remove(struct shm_table *t, uint32_t i);

/* The occupancy summaries made again from the records (a raw write left a
 * record in a group marked empty, or a group marked that holds none),
 * inside a transaction: each word that differs is written (journaled).
 * Returns how many groups changed, or a negative errno. */
long shm_occ_rebuild(struct shm_table *t);

#endif
