/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU masks of any width, and the virtual<->physical map of a set. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "base/util.h"
#include "src/mask.h"

/* Bits set in w. Without the POPCNT instruction (the x86-64 baseline) the
 * compiler's builtin is a call into libgcc; this is a few inline
 * operations. */
static inline unsigned pop64(uint64_t w)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(w);
#else
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((w * 0x0101010101010101ULL) >> 56);
#endif
}

#include <limits.h>
#include <string.h>

#define LONG_BITS (CHAR_BIT * sizeof(unsigned long))

/* A long must sit inside one 64-bit word for the cpu_set_t conversions. */
_Static_assert(64 % (CHAR_BIT * sizeof(unsigned long)) == 0, "unsigned long must divide 64 bits");

void cps_mask_set(uint64_t *m, size_t nw, unsigned cpu)
{
	if ((size_t)cpu / CPS_WORD_BITS < nw)
		m[cpu / CPS_WORD_BITS] |= (uint64_t)1 << (cpu % CPS_WORD_BITS);
}

void cps_mask_clear(uint64_t *m, size_t nw, unsigned cpu)
{
	if ((size_t)cpu / CPS_WORD_BITS < nw)
		m[cpu / CPS_WORD_BITS] &= ~((uint64_t)1 << (cpu % CPS_WORD_BITS));
}

void cps_mask_zero(uint64_t *m, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		m[i] = 0;
}

void cps_mask_fill(uint64_t *m, size_t nw, unsigned ncpus)
{
	size_t full = ncpus / CPS_WORD_BITS;
	for (size_t i = 0; i < nw; i++) {
		if (i < full)
			m[i] = ~(uint64_t)0;
		else if (i == full)
			m[i] = cps_low_bits(ncpus % CPS_WORD_BITS);
		else
			m[i] = 0;
	}
}

void cps_mask_copy(uint64_t *dst, const uint64_t *src, size_t nw)
{
	if (dst != src)
		memmove(dst, src, nw * sizeof(*dst));
}

unsigned cps_mask_count(const uint64_t *m, size_t nw)
{
	unsigned n = 0;
	for (size_t i = 0; i < nw; i++)
		n += pop64(m[i]);
	return n;
}

bool cps_mask_empty(const uint64_t *m, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (m[i])
			return false;
	return true;
}

bool cps_mask_equal(const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

bool cps_mask_subset(const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

bool cps_mask_intersects(const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (a[i] & b[i])
			return true;
	return false;
}

void cps_mask_and(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		dst[i] = a[i] & b[i];
}

void cps_mask_or(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		dst[i] = a[i] | b[i];
}

void cps_mask_andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		dst[i] = a[i] & ~b[i];
}

int cps_mask_next(const uint64_t *m, size_t nw, int prev)
{
	/* size_t arithmetic: prev + 1 must not overflow at INT_MAX */
	size_t from = prev < 0 ? 0 : (size_t)prev + 1;
	size_t i = from / CPS_WORD_BITS;
	if (i >= nw)
		return -1;
	uint64_t w = m[i] & ~cps_low_bits((unsigned)(from % CPS_WORD_BITS));
	for (;;) {
		if (w)
			return (int)(i * CPS_WORD_BITS + (unsigned)__builtin_ctzll(w));
		if (++i >= nw)
			return -1;
		w = m[i];
	}
}

int cps_mask_last(const uint64_t *m, size_t nw)
{
	for (size_t i = nw; i-- > 0;)
		if (m[i])
			return (int)(i * CPS_WORD_BITS + 63u - (unsigned)__builtin_clzll(m[i]));
	return -1;
}

/* Position of the k-th set bit of w, k < popcount(w). */
static unsigned word_nth(uint64_t w, unsigned k)
{
	/* halve the search while the low half holds too few bits */
	unsigned base = 0;
	for (unsigned half = 32; half; half /= 2) {
		unsigned c = pop64(w & cps_low_bits(half));
		if (k >= c) {
			k -= c;
			w >>= half;
			base += half;
		}
	}
	return base;
}

int cps_mask_nth(const uint64_t *m, size_t nw, unsigned k)
{
	for (size_t i = 0; i < nw; i++) {
		unsigned c = pop64(m[i]);
		if (k < c)
			return (int)(i * CPS_WORD_BITS + word_nth(m[i], k));
		k -= c;
	}
	return -1;
}

unsigned cps_mask_rank(const uint64_t *m, size_t nw, unsigned cpu)
{
	size_t top = cpu / CPS_WORD_BITS;
	unsigned n = 0;
	for (size_t i = 0; i < nw && i < top; i++)
		n += pop64(m[i]);
	if (top < nw)
		n += pop64(m[top] & cps_low_bits(cpu % CPS_WORD_BITS));
	return n;
}

/*
 * cpu_set_t is an array of unsigned long, and the kernel copies setsize bytes
 * of it. Going through memcpy into an unsigned long keeps the memory order of
 * the bytes right on either endianness, for a trailing partial long too, and
 * does not care about the alignment of the caller's buffer.
 */
bool cps_mask_from_cpuset(uint64_t *m, size_t nw, const void *set, size_t setsize)
{
	const unsigned char *p = set;
	bool dropped = false;

	cps_mask_zero(m, nw);
	for (size_t off = 0, j = 0; off < setsize; off += sizeof(unsigned long), j++) {
		unsigned long w = 0;
		size_t n = setsize - off < sizeof(w) ? setsize - off : sizeof(w);
		memcpy(&w, p + off, n);
		if (!w)
			continue;
		size_t base = j * LONG_BITS;
		if (base / CPS_WORD_BITS < nw)
			m[base / CPS_WORD_BITS] |= (uint64_t)w << (base % CPS_WORD_BITS);
		else
			dropped = true;
	}
	return dropped;
}

bool cps_mask_to_cpuset(void *set, size_t setsize, const uint64_t *m, size_t nw)
{
	unsigned char *p = set;
	unsigned stored = 0;

	for (size_t off = 0, j = 0; off < setsize; off += sizeof(unsigned long), j++) {
		unsigned long w = 0, keep = 0;
		size_t n = setsize - off < sizeof(w) ? setsize - off : sizeof(w);
		size_t base = j * LONG_BITS;
		if (base / CPS_WORD_BITS < nw)
			w = (unsigned long)(m[base / CPS_WORD_BITS] >> (base % CPS_WORD_BITS));
		/* which bits of the long the n bytes hold, whatever the byte order */
		memset(&keep, 0xff, n);
		w &= keep;
		stored += pop64(w);
		memcpy(p + off, &w, n);
	}
	/* each CPU has at most one place in the buffer: fewer stored, some lost */
	return stored != cps_mask_count(m, nw);
}

/*
 * Rank space -> position space in place. r holds, as bits 0..n-1, the ranks
 * wanted in set; on return it holds their CPUs. The r-th CPU of a set is at
 * position >= r, so walking the set downwards writes each CPU above every
 * rank still to be read.
 */
static void ranks_to_cpus(uint64_t *r, const uint64_t *set, size_t nw, unsigned n)
{
	unsigned rank = n;
	for (size_t i = nw; i-- > 0 && rank;) {
		uint64_t w = set[i];
		while (w) {
			unsigned b = 63u - (unsigned)__builtin_clzll(w);
			w &= ~((uint64_t)1 << b);
			rank--;
			uint64_t rbit = (uint64_t)1 << (rank % CPS_WORD_BITS);
			bool want = r[rank / CPS_WORD_BITS] & rbit;
			r[rank / CPS_WORD_BITS] &= ~rbit;
			if (want)
				r[i] |= (uint64_t)1 << b;
		}
	}
}

/* True if m holds every bit of 0..n-1 (m has mw words). */
static bool has_prefix(const uint64_t *m, size_t mw, unsigned n)
{
	size_t full = n / CPS_WORD_BITS;
	if (CPS_WORDS_FOR(n) > mw)
		return false;
	for (size_t i = 0; i < full; i++)
		if (~m[i])
			return false;
	uint64_t tail = cps_low_bits(n % CPS_WORD_BITS);
	return full == mw || (m[full] & tail) == tail;
}

unsigned cps_virt_to_phys(uint64_t *phys, const uint64_t *set, size_t nw,
			  const uint64_t *virt, size_t vnw, bool wrap)
{
	return cps_virt_to_phys_w(phys, set, nw, virt, vnw, wrap, NULL);
}

unsigned cps_virt_to_phys_w(uint64_t *phys, const uint64_t *set, size_t nw,
			    const uint64_t *virt, size_t vnw, bool wrap, long *wrapped)
{
	unsigned n = cps_mask_count(set, nw);
	unsigned got = 0;
	long first_wrap = -1;
	if (wrapped)
		*wrapped = -1;

	if (n == 0) {
		cps_mask_zero(phys, nw);
		return 0;
	}
	if (has_prefix(virt, vnw, n)) {
		cps_mask_copy(phys, set, nw);
		return n;
	}
	/* fold the virtual CPUs onto ranks 0..n-1 first: phys is big enough */
	cps_mask_zero(phys, nw);
	for (size_t i = 0; i < vnw; i++) {
		uint64_t w = virt[i];
		while (w) {
			size_t v = i * CPS_WORD_BITS + (unsigned)__builtin_ctzll(w);
			w &= w - 1;
			size_t asked = v;
			if (v >= n) {
				if (!wrap)
					goto expand; /* bits only grow from here */
				v %= n;
			}
			uint64_t bit = (uint64_t)1 << (v % CPS_WORD_BITS);
			if (phys[v / CPS_WORD_BITS] & bit)
				continue;
			phys[v / CPS_WORD_BITS] |= bit;
			/* bits come in order: those below n are all in, so this
			 * CPU is one the kernel's rule would not have given */
			if (asked != v && first_wrap < 0)
				first_wrap = (long)asked;
			if (++got == n)
				break;
		}
		if (got == n)
			break;
	}
expand:
	if (wrapped)
		*wrapped = first_wrap;
	if (got == n) {
		cps_mask_copy(phys, set, nw);
		return n;
	}
	if (got)
		ranks_to_cpus(phys, set, nw, n);
	return got;
}

unsigned cps_phys_to_virt(uint64_t *virt, size_t vnw, const uint64_t *set, size_t nw,
			  const uint64_t *phys)
{
	size_t vbits = vnw * CPS_WORD_BITS;
	size_t base = 0;
	unsigned got = 0;

	cps_mask_zero(virt, vnw);
	for (size_t i = 0; i < nw && base < vbits; i++) {
		uint64_t w = set[i] & phys[i];
		while (w) {
			unsigned b = (unsigned)__builtin_ctzll(w);
			w &= w - 1;
			size_t v = base + pop64(set[i] & cps_low_bits(b));
			if (v >= vbits)
				return got; /* ranks only grow from here */
			virt[v / CPS_WORD_BITS] |= (uint64_t)1 << (v % CPS_WORD_BITS);
			got++;
		}
		base += pop64(set[i]);
	}
	return got;
}
