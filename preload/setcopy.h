/* SPDX-License-Identifier: BSD-3-Clause */
/* The set copy (preload/setcopy.c) and its hot readers, inline so that
 * the calls that must stay lean (sysconf, sched_getcpu, the affinity
 * reads) read it without a call. */
#ifndef CPS_PRELOAD_SETCOPY_H
#define CPS_PRELOAD_SETCOPY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "preload/shim.h"
#include "src/views.h"

#pragma GCC visibility push(hidden)

/* The set copy every answer comes from, behind a process-local sequence
 * counter so readers never lock; refreshed when the table's changes. */
struct shim_setcopy {
	uint32_t lseq;
	int valid;
	const uint64_t *tseq; /* &shim_ctx.t.h->seq, beside what setcopy_fresh() compares it with */
	struct cps_placement s;
	/* Derived from s.cpus when it is taken, so that the hot calls neither
	 * copy the set nor count bits: words of s.cpus up to the last
	 * non-zero one, the virtual number of the first CPU of each word,
	 * what virt_cpu() answers for each physical CPU, and the physical
	 * CPU of each virtual one (0..n-1). */
	uint32_t top;
	uint32_t base[CPS_MAX_WORDS];
	/* A set within CPUs 0-63 (top 1): its word, and the word of its
	 * virtual image, CPUs 0..n-1; one_phys 0 otherwise (no set is
	 * empty). What a thread's own mask holds unless it asked for less:
	 * the affinity reads' fast case (preload/affinity.c). */
	uint64_t one_phys, one_virt;
	/* cap entries each, mapped at the first refresh (the table's mask
	 * width, fixed): 32 KiB of bss for CPS_MAX_CPUS would cost every
	 * process that loads the shim a mapping and page faults. */
	uint32_t cap;
	uint16_t *vcpu, *pcpu;
};
extern struct shim_setcopy shim_setcopy;
extern pthread_mutex_t shim_refresh_lock;

/* A new set copy if the table can be read now; else the old one stays
 * (patient: at set-up, where there is no old one, wait for a writer). */
bool shim_refresh(bool patient);

static inline bool setcopy_fresh(void)
{
	return shim_setcopy.valid &&
	       __atomic_load_n(shim_setcopy.tseq, __ATOMIC_ACQUIRE) == shim_setcopy.s.seq;
}

/* The one read section of the set copy (a process-local sequence lock):
 * setcopy_read(read, arg) runs read(arg), which copies what it needs
 * from shim_setcopy into arg (the copy may be torn: it bounds every
 * index), until one run saw no refresh; true then, false to pass
 * through (no copy to read, or a refresh that never ends).
 *
 * setcopy_read_begin refreshes a stale copy first: -1 when there is no
 * copy to read, 0 while a refresh is in progress, else 1. Both are
 * always inlined, read too (each is a static inline function of its
 * caller's), so each caller compiles to the loop it wrote by hand
 * before, the count off the path of a first read that succeeds. */
static inline int setcopy_read_begin(uint32_t *ls)
{
	if (!setcopy_fresh() && !shim_refresh(false))
		return -1;
	*ls = __atomic_load_n(&shim_setcopy.lseq, __ATOMIC_ACQUIRE);
	return !(*ls & 1);
}

/* True if the set copy did not change since setcopy_read_begin gave ls. */
static inline bool setcopy_read_valid(uint32_t ls)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&shim_setcopy.lseq, __ATOMIC_RELAXED) == ls;
}

static inline __attribute__((always_inline)) bool setcopy_read(void (*read)(void *), void *arg)
{
	uint32_t ls;
	for (int i = 0; i < 1000; i++) {
		int rb = setcopy_read_begin(&ls);
		if (rb < 0)
			return false;
		if (rb == 0)
			continue;
		read(arg);
		if (setcopy_read_valid(ls))
			return true;
	}
	return false;
}

static inline __attribute__((always_inline)) void read_count(void *n)
{
	*(unsigned *)n = shim_setcopy.s.n;
}

/* The count alone: the sysconf path. */
static inline bool shim_count(unsigned *n)
{
	unsigned v;
	if (!shim_ready() || !setcopy_read(read_count, &v))
		return false;
	*n = v;
	return v > 0;
}

/* The possible CPUs' count: n, or with CPUSETSHIM_WIDE_POSSIBLE=1 the
 * highest physical CPU of the set plus one if that is more
 * (cps_view_width): the CONF path. */
static inline __attribute__((always_inline)) void read_count_possible(void *w)
{
	unsigned n = shim_setcopy.s.n, nw = shim_setcopy.s.nw, v = n;
	for (unsigned k = nw < CPS_MAX_WORDS ? nw : CPS_MAX_WORDS; cps_view_wide_possible && k-- > 0;) {
		uint64_t word = shim_setcopy.s.cpus[k];
		if (word) {
			unsigned last = k * 64 + 63 - (unsigned)__builtin_clzll(word);
			if (last >= n)
				v = last + 1;
			break;
		}
	}
	*(unsigned *)w = v;
}

static inline bool shim_count_possible(unsigned *w)
{
	unsigned v;
	if (!shim_ready() || !setcopy_read(read_count_possible, &v))
		return false;
	*w = v;
	return v > 0;
}

/* ---- hot paths: straight from the set copy ----
 *
 * Each gives exactly what its counterpart on a copy of the CPUs gives (shim_cpus_now
 * then virt_cpu, shim_to_virtual, shim_to_physical), reading the set copy between two
 * reads of its sequence instead of copying it, and using the derived
 * tables instead of counting bits. Everything read may be torn by a
 * concurrent refresh until the sequence is checked: every index is bounded
 * first. False (or -1): the caller passes through, as for !shim_cpus_now(). */

/* a CPU number in, its virtual number and the set's size out */
struct setcopy_cpu {
	unsigned cpu, v;
	uint32_t n;
};

static inline __attribute__((always_inline)) void read_vcpu(void *arg)
{
	struct setcopy_cpu *c = arg;
	uint32_t n = shim_setcopy.s.n, nw = shim_setcopy.s.nw;
	c->v = 0;
	if (c->cpu < nw * 64 && c->cpu < shim_setcopy.cap)
		c->v = shim_setcopy.vcpu[c->cpu];
	else if (n)
		c->v = c->cpu % n;
	c->n = n;
}

/* virt_cpu(cpu, cpus), once shim_ready() said yes */
static inline bool setcopy_vcpu(unsigned cpu, unsigned *out)
{
	struct setcopy_cpu c = { .cpu = cpu };
	if (!setcopy_read(read_vcpu, &c) || c.n == 0)
		return false;
	*out = c.v;
	return true;
}

/* The physical CPU of virtual CPU v (v < n), once shim_ready() said yes:
 * the inverse of setcopy_vcpu */
static inline __attribute__((always_inline)) void read_pcpu(void *arg)
{
	struct setcopy_cpu *c = arg; /* v in, cpu out; n: found */
	c->n = c->v < shim_setcopy.s.n && c->v < shim_setcopy.cap && shim_setcopy.pcpu;
	c->cpu = c->n ? shim_setcopy.pcpu[c->v] : 0;
}

static inline bool setcopy_pcpu(unsigned v, unsigned *out)
{
	struct setcopy_cpu c = { .v = v };
	if (!setcopy_read(read_pcpu, &c))
		return false;
	*out = c.cpu;
	return c.n;
}

/* Word loops the compiler must not turn into string instructions: with
 * a bounded length it emits rep stos/movs, whose start-up alone costs more
 * than these calls' whole budget. */
#define NOT_A_STRING_OP(i) __asm__("" : "+r"(i))

static inline uint64_t get_word(const unsigned char *b, size_t j)
{
	uint64_t x;
	memcpy(&x, b + j * 8, 8);
	return x;
}

static inline void put_word(unsigned char *b, size_t j, uint64_t x)
{
	memcpy(b + j * 8, &x, 8);
}

/* Word j of a mask holding CPUs 0..n-1 (cps_mask_fill). */
static inline uint64_t fill_word(size_t j, unsigned n)
{
	if (j < n / 64)
		return ~(uint64_t)0;
	if (j == n / 64 && n % 64)
		return ((uint64_t)1 << (n % 64)) - 1;
	return 0;
}

/* A physical mask (b, bw words, valid bytes the kernel wrote) ranked
 * among the set's CPUs: the virtual words virt[0..filled), got CPUs of
 * the set's n (vw words) */
struct setcopy_rank {
	const unsigned char *b;
	size_t bw, valid;
	uint64_t *virt;
	uint32_t n;
	size_t vw, filled;
	unsigned got;
};

static inline __attribute__((always_inline)) void read_ranks(void *arg)
{
	struct setcopy_rank *c = arg;
	uint32_t n = shim_setcopy.s.n, top = shim_setcopy.top;
	if (n > CPS_MAX_CPUS)
		n = CPS_MAX_CPUS;
	if (top > CPS_MAX_WORDS)
		top = CPS_MAX_WORDS;
	size_t vw = CPS_WORDS_FOR(n), m = c->bw < top ? c->bw : top;
	size_t filled = 0; /* virt[0..filled) are set: ranks only grow */
	unsigned got = 0;
	for (size_t j = 0; j < m; j++) {
		uint64_t set = shim_setcopy.s.cpus[j];
		uint64_t w = j < c->valid / 8 ? get_word(c->b, j) & set : 0;
		unsigned r = shim_setcopy.base[j];
		/* the CPUs of w, ranked among the set's */
		while (w && r < vw * 64) {
			uint64_t low = set & -set;
			if (w & low) {
				while (filled <= r / 64) {
					c->virt[filled++] = 0;
					NOT_A_STRING_OP(filled);
				}
				c->virt[r / 64] |= (uint64_t)1 << (r % 64);
				w &= ~low;
				got++;
			}
			set &= set - 1;
			r++;
		}
	}
	c->n = n;
	c->vw = vw;
	c->filled = filled;
	c->got = got;
}

/* shim_to_virtual(buf, size, cpus): the caller's physical mask becomes its
 * virtual image, in place. */
static inline __attribute__((always_inline)) bool setcopy_to_virtual(void *buf, size_t size,
								 size_t valid)
{
	if (sizeof(unsigned long) != 8 || size % 8) {
		struct shim_cpus v;
		if (!shim_cpus_now(&v))
			return false;
		shim_to_virtual(buf, size, &v);
		return true;
	}
	if (CPS_UNLIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) != ST_READY) && !shim_ready())
		return false;
	unsigned char *b = buf;
	size_t bw = size / 8;
	uint64_t virt[CPS_MAX_WORDS];
	struct setcopy_rank r = { b, bw, valid, virt, 0, 0, 0, 0 };
	if (!setcopy_read(read_ranks, &r))
		return false;
	uint32_t n = r.n;
	size_t vw = r.vw, filled = r.filled;
	unsigned got = r.got;
	if (n == 0)
		return false;
	if (got == 0) { /* runs outside its set (never confined): show the set */
		for (filled = 0; filled < vw && filled < bw; filled++)
			virt[filled] = fill_word(filled, n);
	}
	for (size_t j = 0; j < filled && j < bw; j++)
		put_word(b, j, virt[j]);
	/* the rest is zero: within the kernel's mask it mostly is
	 * already (physical CPUs beyond the set's last word are rare),
	 * and reading costs less there; beyond it (libc's memset) in
	 * 16-byte stores */
	size_t kw = valid / 8 < bw ? valid / 8 : bw, j = filled;
	for (; j < kw; j++)
		if (get_word(b, j))
			put_word(b, j, 0);
	typedef uint64_t zero2 __attribute__((vector_size(16), aligned(1), may_alias));
	for (; j + 2 <= bw; j += 2)
		*(zero2 *)(void *)(b + j * 8) = (zero2){ 0, 0 };
	if (j < bw)
		put_word(b, j, 0);
	return true;
}

long setcopy_to_physical(uint64_t *phys, const void *buf, size_t size, uint64_t *virt,
			 size_t *vw, uint32_t *nwp, uint64_t *sseq);

#pragma GCC visibility pop

#endif
