/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/ — the undo journal (every write saves the bytes it changes first,
 * rollback restores them) and the test-only fault points of its steps. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/rawsys.h"
#include "base/util.h"
#include "shm/table.h"
#include "shm/table_internal.h"

/* ---- fault points (test only) ---- */

#ifdef CPS_FAULT_INJECTION
static unsigned long fault_steps, fault_at;
static const char *fault_report;
static int fault_ready;

static void fault_report_steps(void)
{
	/* raw: in the shim, fopen would be its own interposer */
	char line[CPS_DEC_MAX + 1];
	size_t n = cps_fmt_dec(line, fault_steps);
	line[n++] = '\n';
	int fd = cps_sys_openat(AT_FDCWD, fault_report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0) {
		cps_sys3(SYS_write, fd, (long)line, (long)n);
		cps_sys_close(fd);
	}
}

void shm_fault_point(void)
{
	if (!fault_ready) {
		const char *s = cps_getenv("CPUSETSHIM_FAULT_STEP");
		fault_at = s ? strtoul(s, NULL, 10) : 0;
		fault_report = cps_getenv("CPUSETSHIM_FAULT_REPORT");
		if (fault_report)
			atexit(fault_report_steps);
		fault_ready = 1;
	}
	if (++fault_steps == fault_at)
		raise(SIGKILL);
}
unsigned long shm_fault_steps(void)
{
	return fault_steps;
}
#else
void shm_fault_point(void)
{
}
unsigned long shm_fault_steps(void)
{
	return 0;
}
#endif

/* ---- the undo journal ----
 *
 * The journal is untrusted input like every byte of the table: a writer
 * that was stopped or killed left it, or anyone who may write the table
 * forged it. Before anything is rolled back the whole journal is walked
 * and checked: each entry lies inside the journal's used bytes, points
 * back to the one before it, and restores bytes of the table's data only
 * (the header's counters, the slots), never the header's layout, the lock
 * or the journal itself. A journal that does not check out is refused,
 * and nothing is changed. */

static struct jentry *jent(struct shm_table *t, uint64_t off)
{
	return (struct jentry *)(t->journal + off);
}

/* The bytes an entry may restore, and shm_undo save: [lo, hi) in one of
 * the two data parts of the table. */
static bool restorable(const struct shm_table *t, uint64_t off, uint64_t len)
{
	uint64_t hlo = offsetof(struct shm_header, writes), hhi = offsetof(struct shm_header, lock);
	uint64_t dlo = (uint64_t)(t->sets - t->base), dhi = (uint64_t)(t->journal - t->base);
	if (off >= hlo && off <= hhi && len <= hhi - off)
		return true;
	return off >= dlo && off <= dhi && len <= dhi - off;
}

/* One entry's fields, read once (the bytes may change under us). */
struct jview {
	uint64_t off, len, prev, size;
};

static bool jread(const struct shm_table *t, uint64_t at, uint64_t used, struct jview *v)
{
	if (at > used || used - at < sizeof(struct jentry))
		return false;
	const struct jentry *e = (const struct jentry *)(t->journal + at);
	v->off = __atomic_load_n(&e->off, __ATOMIC_RELAXED);
	v->len = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
	v->prev = __atomic_load_n(&e->prev, __ATOMIC_RELAXED);
	v->size = ALIGN_UP(sizeof(struct jentry) + v->len, 8);
	return v->size <= used - at;
}

/* Walk the journal's jcount entries; the offset of the newest in *last. */
static int journal_walk(const struct shm_table *t, uint32_t n, uint64_t used, uint64_t *last,
			char *why, size_t len)
{
	uint64_t at = 0, prev = 0;
	struct jview v;
	*last = 0;
	if (n == 0)
		return 0;
	if (used > t->journal_size || used % 8) {
		snprintf(why, len, "its undo journal claims %llu bytes of %zu",
			 (unsigned long long)used, t->journal_size);
		return -EUCLEAN;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!jread(t, at, used, &v)) {
			snprintf(why, len, "undo entry %u of %u lies past the journal's end", i + 1, n);
			return -EUCLEAN;
		}
		if (v.prev != prev) {
			snprintf(why, len, "undo entry %u does not point back to entry %u", i + 1, i);
			return -EUCLEAN;
		}
		if (!restorable(t, v.off, v.len)) {
			snprintf(why, len, "undo entry %u would restore bytes outside the table's data",
				 i + 1);
			return -EUCLEAN;
		}
		prev = at;
		at += v.size;
	}
	*last = prev;
	return 0;
}

int shm_journal_check(const struct shm_table *t, char *why, size_t len)
{
	uint64_t last;
	return journal_walk(t, __atomic_load_n(&t->h->jcount, __ATOMIC_ACQUIRE),
			    __atomic_load_n(&t->h->jused, __ATOMIC_ACQUIRE), &last, why, len);
}

/* Restore every committed entry, newest first, then empty the journal.
 * Idempotent: a repairer killed here leaves the same work for the next.
 * -EUCLEAN (nothing restored) when the journal does not check out. Each
 * entry is checked again as it is applied: the bytes may change under us. */
int shm_rollback(struct shm_table *t, char *why, size_t len)
{
	struct shm_header *h = t->h;
	uint32_t n = __atomic_load_n(&h->jcount, __ATOMIC_ACQUIRE);
	uint64_t used = __atomic_load_n(&h->jused, __ATOMIC_ACQUIRE), at;
	int r = journal_walk(t, n, used, &at, why, len);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		struct jview v;
		if (!jread(t, at, used, &v) || !restorable(t, v.off, v.len))
			break;
		memcpy(t->base + v.off, t->journal + at + sizeof(struct jentry), v.len);
		if (i + 1 < n) {
			if (v.prev >= at)
				break;
			at = v.prev;
		}
	}
	__atomic_store_n(&h->jcount, 0, __ATOMIC_RELEASE);
	h->jused = 0;
	return 0;
}

int shm_read_committed(const struct shm_table *t, const void *p, size_t len, void *out)
{
	const struct shm_header *h = t->h;
	const unsigned char *b = p;
	if (b < t->base || b > t->base + t->size || len > (size_t)(t->base + t->size - b))
		return -EINVAL;
	uint64_t off = (uint64_t)(b - t->base);
	for (int tries = 0; tries < 8; tries++) {
		uint64_t s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		uint32_t n = __atomic_load_n(&h->jcount, __ATOMIC_ACQUIRE);
		uint64_t used = __atomic_load_n(&h->jused, __ATOMIC_ACQUIRE), at;
		memcpy(out, b, len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		char why[8];
		if (journal_walk(t, n, used, &at, why, sizeof(why)) < 0)
			return -EUCLEAN;
		/* newest first, so the oldest saved bytes (the committed ones)
		 * are laid last */
		for (uint32_t i = 0; i < n; i++) {
			struct jview v;
			if (!jread(t, at, used, &v))
				break;
			uint64_t lo = v.off > off ? v.off : off;
			uint64_t hi = v.off + v.len < off + len ? v.off + v.len : off + len;
			if (lo < hi)
				memcpy((unsigned char *)out + (lo - off),
				       t->journal + at + sizeof(struct jentry) + (lo - v.off), hi - lo);
			if (i + 1 < n) {
				if (v.prev >= at)
					break;
				at = v.prev;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->jcount, __ATOMIC_ACQUIRE) == n &&
		    __atomic_load_n(&h->jused, __ATOMIC_ACQUIRE) == used &&
		    __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == s1)
			return 0;
	}
	return -EAGAIN;
}

int shm_undo(struct shm_table *t, const void *p, size_t len)
{
	struct shm_header *h = t->h;
	const unsigned char *b = p;

	FAULT();
	if (!t->in_write || b < t->base || b > t->base + t->size ||
	    !restorable(t, (uint64_t)(b - t->base), len))
		return -EINVAL;
	if (h == NULL || !h->magic) /* populating a table nobody sees yet */
		return 0;
	uint64_t used = h->jused;
	uint64_t esz = ALIGN_UP(sizeof(struct jentry) + (uint64_t)len, 8);
	if (used > t->journal_size || esz > t->journal_size - used || len > UINT32_MAX)
		return -ENOSPC;
	struct jentry *e = jent(t, used);
	e->off = (uint64_t)(b - t->base);
	e->len = (uint32_t)len;
	e->prev = 0;
	if (h->jcount) {
		e->prev = h->jlast;
	}
	memcpy(e->data, b, len);
	h->jused = used + esz;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->jlast = (uint32_t)used;
	__atomic_store_n(&h->jcount, h->jcount + 1, __ATOMIC_RELEASE);
	/* the bytes saved are changed only after the entry counts: a reader
	 * of the committed state that sees a change sees its entry */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

int shm_write(struct shm_table *t, void *dst, const void *src, size_t len)
{
	int r = shm_undo(t, dst, len);
	if (r == 0)
		memmove(dst, src, len);
	return r;
}

int shm_write_u32(struct shm_table *t, uint32_t *dst, uint32_t v)
{
	return shm_write(t, dst, &v, sizeof(v));
}

