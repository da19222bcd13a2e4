/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU masks of any width, and the virtual<->physical map of a set.
 *
 * A mask is an array of 64-bit words: CPU i is bit (i % 64) of word (i / 64).
 * Functions take the word count explicitly; sizes in bytes (cpu_set_t) are
 * kept apart from counts of words. Nothing here allocates.
 */
#ifndef CPS_MASK_H
#define CPS_MASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPS_WORD_BITS 64u
#define CPS_WORDS_FOR(bits) (((size_t)(bits) + CPS_WORD_BITS - 1) / CPS_WORD_BITS)
/* The widest mask the project supports (the kernel's NR_CPUS maximum). */
#define CPS_MAX_CPUS 8192u
#define CPS_MAX_WORDS CPS_WORDS_FOR(CPS_MAX_CPUS)

static inline bool cps_mask_test(const uint64_t *m, size_t nw, unsigned cpu)
{
	return (size_t)cpu / CPS_WORD_BITS < nw &&
	       ((m[cpu / CPS_WORD_BITS] >> (cpu % CPS_WORD_BITS)) & 1u);
}
/* set/clear ignore a CPU beyond the width */
void cps_mask_set(uint64_t *m, size_t nw, unsigned cpu);
void cps_mask_clear(uint64_t *m, size_t nw, unsigned cpu);
void cps_mask_zero(uint64_t *m, size_t nw);
void cps_mask_fill(uint64_t *m, size_t nw, unsigned ncpus); /* CPUs 0..ncpus-1 */
void cps_mask_copy(uint64_t *dst, const uint64_t *src, size_t nw);
unsigned cps_mask_count(const uint64_t *m, size_t nw);
bool cps_mask_empty(const uint64_t *m, size_t nw);
bool cps_mask_equal(const uint64_t *a, const uint64_t *b, size_t nw);
bool cps_mask_subset(const uint64_t *a, const uint64_t *b, size_t nw); /* a within b */
bool cps_mask_intersects(const uint64_t *a, const uint64_t *b, size_t nw);
void cps_mask_and(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw);
void cps_mask_or(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw);
void cps_mask_andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw); /* a & ~b */
/* Next set bit after prev (prev = -1 to start); -1 when none. */
int cps_mask_next(const uint64_t *m, size_t nw, int prev);
/* Highest set bit, -1 when empty. */
int cps_mask_last(const uint64_t *m, size_t nw);
/* The k-th (0-based) set bit, -1 if the mask has k or fewer bits. */
int cps_mask_nth(const uint64_t *m, size_t nw, unsigned k);
/* Number of set bits below cpu (the virtual number of a physical CPU). */
unsigned cps_mask_rank(const uint64_t *m, size_t nw, unsigned cpu);

/* cpu_set_t-style byte buffers (array of unsigned long, any setsize).
 * from: bits beyond nw*64 are dropped; returns true if any was dropped.
 * to: writes all setsize bytes, bits beyond the buffer are dropped;
 * returns true if any was dropped. */
bool cps_mask_from_cpuset(uint64_t *m, size_t nw, const void *set, size_t setsize);
bool cps_mask_to_cpuset(void *set, size_t setsize, const uint64_t *m, size_t nw);

/* Virtual CPU numbers (doc/membership.md, "Virtual CPUs and migration").
 * A set with physical CPUs p0<p1<...<p(n-1) maps virtual v to p(v mod n)
 * when wrap is true; without wrap, virtual CPUs >= n are ignored.
 * virt_to_phys: returns the number of CPUs in phys (0 when none mapped:
 * an empty set or, without wrap, no virtual CPU below n).
 * virt is vnw words wide. phys must not overlap set or virt (it is used
 * as scratch). */
unsigned cps_virt_to_phys(uint64_t *phys, const uint64_t *set, size_t nw,
			  const uint64_t *virt, size_t vnw, bool wrap);
/* The same; *wrapped (when not NULL) the first virtual CPU whose wrap
 * gave the mask a CPU the kernel's rule (bits beyond the set ignored)
 * would not have, or -1 if none did. */
unsigned cps_virt_to_phys_w(uint64_t *phys, const uint64_t *set, size_t nw,
			    const uint64_t *virt, size_t vnw, bool wrap, long *wrapped);
/* phys_to_virt: the virtual image of a physical mask: each CPU of phys that
 * is in set becomes its rank in set; CPUs outside the set are ignored.
 * virt has vnw words; returns the number of bits set in virt. */
unsigned cps_phys_to_virt(uint64_t *virt, size_t vnw, const uint64_t *set, size_t nw,
			  const uint64_t *phys);

#endif
