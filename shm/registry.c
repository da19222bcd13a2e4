/* SPDX-License-Identifier: BSD-3-Clause */
/* Registry slots: open-addressed hash tables keyed by pid and tid. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "shm/registry.h"

/* One generic table: records of rsz bytes whose first field is an int32
 * key, slots a power of two. */
struct htab {
	unsigned char *recs;
	uint32_t slots;
	size_t rsz;
	uint32_t *count; /* header counter */
	uint32_t cap;
	uint64_t *occ; /* its occupancy summary */
};

static inline uint32_t hash32(uint32_t k, uint32_t slots)
{
	/* Fibonacci hashing spreads consecutive pids over the table. */
	return (uint32_t)((k * 2654435769u) >> 7) & (slots - 1);
}

static inline int32_t key_at(const struct htab *h, uint32_t i)
{
	return __atomic_load_n((const int32_t *)(h->recs + (size_t)i * h->rsz), __ATOMIC_RELAXED);
}

static long ht_find(const struct htab *h, int32_t key)
{
	if (key <= 0 || h->slots == 0)
		return -1;
	uint32_t i = hash32((uint32_t)key, h->slots);
	for (uint32_t n = 0; n < h->slots; n++) {
		int32_t k = key_at(h, i);
		if (k == key)
			return i;
		if (k == 0)
			return -1;
		i = (i + 1) & (h->slots - 1);
	}
	return -1;
}

/* Slot i holds a record now: its group's bit set (journaled). */
static int occ_mark(struct shm_table *t, const struct htab *h, uint32_t i)
{
	uint32_t g = i / SHM_GROUP;
	uint64_t *w = &h->occ[g / 64], bit = 1ull << (g % 64);
	if (*w & bit)
		return 0;
	uint64_t v = *w | bit;
	return shm_write(t, w, &v, sizeof(v));
}

/* Slot i was emptied: its group's bit cleared if no record is left in
 * the group (journaled). */
static int occ_unmark(struct shm_table *t, const struct htab *h, uint32_t i)
{
	uint32_t g = i / SHM_GROUP, lo = g * SHM_GROUP;
	uint32_t hi = lo + SHM_GROUP < h->slots ? lo + SHM_GROUP : h->slots;
	for (uint32_t j = lo; j < hi; j++)
		if (key_at(h, j) != 0)
			return 0;
	uint64_t *w = &h->occ[g / 64], bit = 1ull << (g % 64);
	if (!(*w & bit))
		return 0;
	uint64_t v = *w & ~bit;
	return shm_write(t, w, &v, sizeof(v));
}

static long ht_insert(struct shm_table *t, struct htab *h, int32_t key)
{
	if (key <= 0)
		return -EINVAL;
	if (ht_find(h, key) >= 0)
		return -EEXIST;
	if (*h->count >= h->cap)
		return -ENOSPC;
	uint32_t i = hash32((uint32_t)key, h->slots);
	for (uint32_t n = 0; n < h->slots; n++) {
		if (key_at(h, i) == 0) {
			unsigned char *r = h->recs + (size_t)i * h->rsz;
			int e = shm_undo(t, r, h->rsz);
			if (e < 0)
				return e;
			memset(r, 0, h->rsz);
			memcpy(r, &key, sizeof(key));
			if ((e = occ_mark(t, h, i)) < 0)
				return e;
			e = shm_write_u32(t, h->count, *h->count + 1);
			return e < 0 ? e : (long)i;
		}
		i = (i + 1) & (h->slots - 1);
	}
	return -ENOSPC;
}

/* Backward-shift deletion (Knuth 6.4, algorithm R): no tombstones, so every
 * lookup stops at the first free slot. Each moved record is journaled. A
 * record moves only into a slot that held one, so only the slot emptied
 * last can leave its group empty. */
static int ht_remove(struct shm_table *t, struct htab *h, uint32_t i)
{
	uint32_t mask = h->slots - 1;
	if (i >= h->slots || key_at(h, i) == 0)
		return -EINVAL;
	int e = shm_write_u32(t, h->count, *h->count ? *h->count - 1 : 0);
	if (e < 0)
		return e;
	uint32_t j = i;
	for (;;) {
		unsigned char *ri = h->recs + (size_t)i * h->rsz;
		int32_t kj;
		for (;;) {
			j = (j + 1) & mask;
			kj = key_at(h, j);
			if (kj == 0)
				break;
			uint32_t home = hash32((uint32_t)kj, h->slots);
			/* Can the record at j move back to i? Only if its home
			 * is not cyclically within (i, j]. */
			bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
			if (!stays)
				break;
		}
		if (kj == 0) {
			e = shm_undo(t, ri, h->rsz);
			if (e < 0)
				return e;
			memset(ri, 0, h->rsz);
			return occ_unmark(t, h, i);
		}
		e = shm_write(t, ri, h->recs + (size_t)j * h->rsz, h->rsz);
		if (e < 0)
			return e;
		i = j;
	}
}

static struct htab procs(const struct shm_table *t)
{
	return (struct htab){ t->procs, t->proc_slots, t->proc_rsz, &t->h->nprocs,
			      t->h->caps.max_procs, t->pocc };
}

static struct htab threads(const struct shm_table *t)
{
	return (struct htab){ t->threads, t->thread_slots, t->thread_rsz, &t->h->nthreads,
			      t->h->caps.max_threads, t->tocc };
}

long shm_proc_find_committed(const struct shm_table *t, pid_t pid)
{
	struct htab h = procs(t);
	if (pid <= 0 || h.slots == 0)
		return -1;
	uint32_t i = hash32((uint32_t)pid, h.slots);
	for (uint32_t n = 0; n < h.slots; n++) {
		int32_t k;
		if (shm_read_committed(t, h.recs + (size_t)i * h.rsz, sizeof(k), &k) < 0)
			return -1;
		if (k == pid)
			return i;
		if (k == 0)
			return -1;
		i = (i + 1) & (h.slots - 1);
	}
	return -1;
}

long shm_proc_find(const struct shm_table *t, pid_t pid)
{
	struct htab h = procs(t);
	return ht_find(&h, pid);
}

long shm_thread_find(const struct shm_table *t, pid_t tid)
{
	struct htab h = threads(t);
	return ht_find(&h, tid);
}

long shm_proc_insert(struct shm_table *t, pid_t pid)
{
	struct htab h = procs(t);
	return ht_insert(t, &h, pid);
}

long shm_thread_insert(struct shm_table *t, pid_t tid)
{
	struct htab h = threads(t);
	return ht_insert(t, &h, tid);
}

int shm_proc_remove(struct shm_table *t, uint32_t i)
{
	struct htab h = procs(t);
	return ht_remove(t, &h, i);
}

int shm_thread_remove(struct shm_table *t, uint32_t i)
{
	struct htab h = threads(t);
	return ht_remove(t, &h, i);
}

static long occ_rebuild_one(struct shm_table *t, const struct htab *h)
{
	long changed = 0;
	for (uint32_t w = 0; w < shm_occ_words(h->slots); w++) {
		uint64_t v = 0;
		for (uint32_t b = 0; b < 64; b++) {
			uint32_t lo = (w * 64 + b) * SHM_GROUP;
			for (uint32_t j = lo; j < lo + SHM_GROUP && j < h->slots; j++)
				if (key_at(h, j) != 0) {
					v |= 1ull << b;
					break;
				}
		}
		if (v == h->occ[w])
			continue;
		changed += __builtin_popcountll(v ^ h->occ[w]);
		int e = shm_write(t, &h->occ[w], &v, sizeof(v));
		if (e < 0)
			return e;
	}
	return changed;
}

long shm_occ_rebuild(struct shm_table *t)
{
	struct htab p = procs(t), th = threads(t);
	long a = occ_rebuild_one(t, &p), b = a < 0 ? 0 : occ_rebuild_one(t, &th);
	return a < 0 ? a : b < 0 ? b : a + b;
}
