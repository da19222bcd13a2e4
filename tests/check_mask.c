/* SPDX-License-Identifier: BSD-3-Clause */
/* Masks of any width, cpu_set_t conversions, the virtual<->physical map. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "src/mask.h"

static const unsigned widths[] = { 1, 64, 65, 1024, 8192 };
#define NWIDTHS (sizeof(widths) / sizeof(widths[0]))

/* Exactly nw words on the heap, so that a read past the end is caught. */
static uint64_t *mk(size_t nw)
{
	uint64_t *m = malloc((nw ? nw : 1) * sizeof(*m));
	ck_assert_ptr_nonnull(m);
	memset(m, 0xa5, (nw ? nw : 1) * sizeof(*m));
	return m;
}

/* Deterministic across libcs, unlike rand(). */
static uint64_t lcg_state;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 11;
}

static uint64_t *mask_of(size_t nw, const unsigned *cpus, size_t n)
{
	uint64_t *m = mk(nw);
	cps_mask_zero(m, nw);
	for (size_t i = 0; i < n; i++)
		cps_mask_set(m, nw, cpus[i]);
	return m;
}

#define MASK(nw, ...)                                                                  \
	mask_of(nw, (const unsigned[]){ __VA_ARGS__ },                                 \
		sizeof((const unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned))

/* The bits of interest at a width: 0, 63, 64, width-1 when they exist. */
static size_t edge_bits(unsigned width, unsigned *out)
{
	const unsigned cand[] = { 0, 63, 64, width - 1 };
	size_t n = 0;
	for (size_t i = 0; i < 4; i++) {
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup |= out[j] == cand[i];
		if (cand[i] < width && !dup)
			out[n++] = cand[i];
	}
	return n;
}

START_TEST(test_single_bits)
{
	unsigned width = widths[_i];
	size_t nw = CPS_WORDS_FOR(width);
	unsigned bits[4];
	size_t nb = edge_bits(width, bits);
	uint64_t *m = mk(nw);

	cps_mask_zero(m, nw);
	ck_assert(cps_mask_empty(m, nw));
	ck_assert_uint_eq(cps_mask_count(m, nw), 0);
	ck_assert_int_eq(cps_mask_next(m, nw, -1), -1);
	ck_assert_int_eq(cps_mask_last(m, nw), -1);
	ck_assert_int_eq(cps_mask_nth(m, nw, 0), -1);
	for (size_t k = 0; k < nb; k++) {
		unsigned b = bits[k];
		cps_mask_zero(m, nw);
		cps_mask_set(m, nw, b);
		ck_assert(cps_mask_test(m, nw, b));
		ck_assert(!cps_mask_empty(m, nw));
		ck_assert_uint_eq(cps_mask_count(m, nw), 1);
		ck_assert_int_eq(cps_mask_next(m, nw, -1), (int)b);
		ck_assert_int_eq(cps_mask_next(m, nw, (int)b), -1);
		if (b > 0) {
			ck_assert(!cps_mask_test(m, nw, b - 1));
			ck_assert_int_eq(cps_mask_next(m, nw, (int)b - 1), (int)b);
		}
		ck_assert(!cps_mask_test(m, nw, b + 1));
		ck_assert_int_eq(cps_mask_last(m, nw), (int)b);
		ck_assert_int_eq(cps_mask_nth(m, nw, 0), (int)b);
		ck_assert_int_eq(cps_mask_nth(m, nw, 1), -1);
		ck_assert_uint_eq(cps_mask_rank(m, nw, b), 0);
		ck_assert_uint_eq(cps_mask_rank(m, nw, b + 1), 1);
		ck_assert_uint_eq(cps_mask_rank(m, nw, 100000), 1);
		cps_mask_clear(m, nw, b);
		ck_assert(cps_mask_empty(m, nw));
	}

	/* all edge bits at once */
	cps_mask_zero(m, nw);
	for (size_t k = 0; k < nb; k++)
		cps_mask_set(m, nw, bits[k]);
	ck_assert_uint_eq(cps_mask_count(m, nw), nb);
	int prev = -1;
	for (size_t k = 0; k < nb; k++) {
		prev = cps_mask_next(m, nw, prev);
		ck_assert_int_eq(prev, (int)bits[k]);
		ck_assert_int_eq(cps_mask_nth(m, nw, (unsigned)k), (int)bits[k]);
		ck_assert_uint_eq(cps_mask_rank(m, nw, bits[k]), k);
	}
	ck_assert_int_eq(cps_mask_next(m, nw, prev), -1);
	ck_assert_int_eq(cps_mask_last(m, nw), (int)bits[nb - 1]);
	ck_assert_int_eq(cps_mask_nth(m, nw, (unsigned)nb), -1);
	free(m);
}
END_TEST

START_TEST(test_beyond_width)
{
	unsigned width = widths[_i];
	size_t nw = CPS_WORDS_FOR(width);
	uint64_t *m = mk(nw);

	cps_mask_zero(m, nw);
	/* ASan catches any write or read past the nw words */
	cps_mask_set(m, nw, (unsigned)(nw * 64));
	cps_mask_set(m, nw, 1u << 30);
	cps_mask_clear(m, nw, (unsigned)(nw * 64));
	ck_assert(cps_mask_empty(m, nw));
	ck_assert(!cps_mask_test(m, nw, (unsigned)(nw * 64)));
	ck_assert(!cps_mask_test(m, nw, ~0u));
	cps_mask_set(m, nw, (unsigned)(nw * 64 - 1));
	ck_assert_int_eq(cps_mask_next(m, nw, (int)(nw * 64 - 1)), -1);
	ck_assert_int_eq(cps_mask_next(m, nw, (int)(nw * 64 + 100)), -1);
	ck_assert_int_eq(cps_mask_next(m, nw, 0x7fffffff), -1);
	ck_assert_int_eq(cps_mask_next(m, nw, -5), (int)(nw * 64 - 1));
	ck_assert_uint_eq(cps_mask_rank(m, nw, (unsigned)(nw * 64)), 1);
	ck_assert_uint_eq(cps_mask_rank(m, nw, ~0u), 1);
	free(m);
}
END_TEST

START_TEST(test_set_ops)
{
	unsigned width = widths[_i];
	size_t nw = CPS_WORDS_FOR(width);
	unsigned bits[4];
	size_t nb = edge_bits(width, bits);
	uint64_t *a = mk(nw), *b = mk(nw), *d = mk(nw);

	for (size_t k = 0; k < nb; k++) {
		unsigned x = bits[k];
		cps_mask_zero(a, nw);
		cps_mask_zero(b, nw);
		cps_mask_set(a, nw, x);
		ck_assert(!cps_mask_subset(a, b, nw));
		ck_assert(cps_mask_subset(b, a, nw));
		ck_assert(!cps_mask_intersects(a, b, nw));
		ck_assert(!cps_mask_equal(a, b, nw));
		cps_mask_or(d, a, b, nw);
		ck_assert(cps_mask_equal(d, a, nw));
		cps_mask_and(d, a, b, nw);
		ck_assert(cps_mask_empty(d, nw));
		cps_mask_andnot(d, a, b, nw);
		ck_assert(cps_mask_equal(d, a, nw));

		cps_mask_fill(b, nw, width);
		ck_assert(cps_mask_subset(a, b, nw));
		ck_assert(cps_mask_intersects(a, b, nw));
		cps_mask_and(d, a, b, nw);
		ck_assert(cps_mask_equal(d, a, nw));
		cps_mask_andnot(d, b, a, nw);
		ck_assert_uint_eq(cps_mask_count(d, nw), width - 1);
		ck_assert(!cps_mask_test(d, nw, x));
		cps_mask_andnot(d, a, b, nw);
		ck_assert(cps_mask_empty(d, nw));
		cps_mask_or(d, d, a, nw); /* in place */
		ck_assert(cps_mask_equal(d, a, nw));
		cps_mask_copy(d, b, nw);
		ck_assert(cps_mask_equal(d, b, nw));
		cps_mask_and(d, d, a, nw);
		ck_assert(cps_mask_equal(d, a, nw));
	}
	free(a);
	free(b);
	free(d);
}
END_TEST

START_TEST(test_fill)
{
	unsigned width = widths[_i];
	size_t nw = CPS_WORDS_FOR(width);
	uint64_t *m = mk(nw);
	const unsigned counts[] = { 0, 1, 63, 64, 65, width - 1, width };

	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		unsigned n = counts[k];
		memset(m, 0xff, nw * 8);
		cps_mask_fill(m, nw, n);
		unsigned want = n < nw * 64 ? n : (unsigned)(nw * 64);
		ck_assert_uint_eq(cps_mask_count(m, nw), want);
		ck_assert_int_eq(cps_mask_last(m, nw), (int)want - 1);
	}
	/* more than the mask holds: all of it */
	cps_mask_fill(m, nw, (unsigned)(nw * 64 + 7));
	ck_assert_uint_eq(cps_mask_count(m, nw), nw * 64);
	free(m);
}
END_TEST

START_TEST(test_every_7th)
{
	size_t nw = CPS_WORDS_FOR(8192);
	uint64_t *m = mk(nw);
	unsigned n = 0;

	cps_mask_zero(m, nw);
	for (unsigned c = 0; c < 8192; c += 7, n++)
		cps_mask_set(m, nw, c);
	ck_assert_uint_eq(n, 1171);
	ck_assert_uint_eq(cps_mask_count(m, nw), n);
	ck_assert_int_eq(cps_mask_last(m, nw), 8190);
	unsigned k = 0;
	for (int c = cps_mask_next(m, nw, -1); c >= 0; c = cps_mask_next(m, nw, c), k++) {
		ck_assert_int_eq(c, (int)(7 * k));
		ck_assert_int_eq(cps_mask_nth(m, nw, k), c);
		ck_assert_uint_eq(cps_mask_rank(m, nw, (unsigned)c), k);
		ck_assert_uint_eq(cps_mask_rank(m, nw, (unsigned)c + 1), k + 1);
	}
	ck_assert_uint_eq(k, n);
	ck_assert_int_eq(cps_mask_nth(m, nw, n), -1);
	ck_assert_uint_eq(cps_mask_rank(m, nw, 8192), n);
	free(m);
}
END_TEST

/* ---- cpu_set_t ---- */

START_TEST(test_cpuset_alloc_roundtrip)
{
	unsigned ncpus = widths[_i];
	size_t size = CPU_ALLOC_SIZE(ncpus);
	size_t nw = CPS_WORDS_FOR(ncpus);
	cpu_set_t *cs = CPU_ALLOC(ncpus), *back = CPU_ALLOC(ncpus);
	unsigned bits[4];
	size_t nb = edge_bits(ncpus, bits);
	uint64_t *m = mk(nw);

	ck_assert_ptr_nonnull(cs);
	ck_assert_ptr_nonnull(back);
	CPU_ZERO_S(size, cs);
	for (size_t k = 0; k < nb; k++)
		CPU_SET_S(bits[k], size, cs);
	ck_assert(!cps_mask_from_cpuset(m, nw, cs, size));
	ck_assert_uint_eq(cps_mask_count(m, nw), nb);
	for (size_t k = 0; k < nb; k++)
		ck_assert(cps_mask_test(m, nw, bits[k]));
	memset(back, 0x5a, size);
	ck_assert(!cps_mask_to_cpuset(back, size, m, nw));
	ck_assert(CPU_EQUAL_S(size, cs, back));
	ck_assert_int_eq(CPU_COUNT_S(size, back), (int)nb);

	/* every CPU the buffer holds */
	for (unsigned c = 0; c < size * 8; c++)
		CPU_SET_S(c, size, cs);
	bool lost = cps_mask_from_cpuset(m, nw, cs, size);
	ck_assert(lost == (size * 8 > nw * 64));
	ck_assert_uint_eq(cps_mask_count(m, nw), size * 8 < nw * 64 ? size * 8 : nw * 64);
	CPU_FREE(cs);
	CPU_FREE(back);
	free(m);
}
END_TEST

/* Byte buffers of any size: CPU c lives in byte c / 8 on little endian. */
START_TEST(test_cpuset_odd_sizes)
{
	const size_t sizes[] = { 1, 3, 8, 9, 12, 1024 };
	size_t nw = CPS_MAX_WORDS;
	uint64_t *m = mk(nw), *r = mk(nw);

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t size = sizes[k];
		unsigned char *buf = malloc(size), *buf2 = malloc(size);
		ck_assert_ptr_nonnull(buf);
		ck_assert_ptr_nonnull(buf2);

		/* every byte written, even for an empty mask */
		cps_mask_zero(m, nw);
		memset(buf, 0xa5, size);
		ck_assert(!cps_mask_to_cpuset(buf, size, m, nw));
		for (size_t i = 0; i < size; i++)
			ck_assert_uint_eq(buf[i], 0);

		cps_mask_fill(m, nw, 8192);
		bool lost = cps_mask_to_cpuset(buf, size, m, nw);
		ck_assert(lost == (size < 1024));
		ck_assert(!cps_mask_from_cpuset(r, nw, buf, size));
		ck_assert_uint_eq(cps_mask_count(r, nw), size * 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		for (size_t i = 0; i < size; i++)
			ck_assert_uint_eq(buf[i], 0xff);
		ck_assert_int_eq(cps_mask_last(r, nw), (int)(size * 8 - 1));
#endif
		/* a second trip changes nothing */
		ck_assert(!cps_mask_to_cpuset(buf2, size, r, nw));
		ck_assert_int_eq(memcmp(buf, buf2, size), 0);

		/* random masks go through unchanged when they fit */
		lcg_state = 42 + size;
		for (int t = 0; t < 20; t++) {
			for (size_t i = 0; i < size; i++)
				buf[i] = (unsigned char)lcg();
			ck_assert(!cps_mask_from_cpuset(r, nw, buf, size));
			ck_assert(!cps_mask_to_cpuset(buf2, size, r, nw));
			ck_assert_int_eq(memcmp(buf, buf2, size), 0);
		}
		free(buf);
		free(buf2);
	}
	free(m);
	free(r);
}
END_TEST

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
START_TEST(test_cpuset_bytes_le)
{
	unsigned char buf[9];
	uint64_t m[2];

	memset(buf, 0, sizeof(buf));
	buf[0] = 0x01; /* CPU 0 */
	buf[8] = 0x82; /* CPUs 65 and 71 */
	ck_assert(!cps_mask_from_cpuset(m, 2, buf, 9));
	ck_assert_uint_eq(m[0], 1);
	ck_assert_uint_eq(m[1], 0x82);
	/* one word: the last byte falls off */
	ck_assert(cps_mask_from_cpuset(m, 1, buf, 9));
	ck_assert_uint_eq(m[0], 1);

	m[0] = 0;
	m[1] = (1ull << 7) | (1ull << 8); /* CPUs 71 and 72 */
	memset(buf, 0xff, sizeof(buf));
	ck_assert(cps_mask_to_cpuset(buf, 9, m, 2)); /* 72 does not fit */
	ck_assert_uint_eq(buf[8], 0x80);
	m[1] = 1ull << 7;
	ck_assert(!cps_mask_to_cpuset(buf, 9, m, 2));
}
END_TEST
#endif

START_TEST(test_cpuset_dropped)
{
	size_t size = CPU_ALLOC_SIZE(8192);
	cpu_set_t *cs = CPU_ALLOC(8192);
	uint64_t m[CPS_MAX_WORDS];

	CPU_ZERO_S(size, cs);
	CPU_SET_S(8191, size, cs);
	ck_assert(cps_mask_from_cpuset(m, 1, cs, size));
	ck_assert(cps_mask_empty(m, 1));
	ck_assert(!cps_mask_from_cpuset(m, CPS_MAX_WORDS, cs, size));
	ck_assert(cps_mask_test(m, CPS_MAX_WORDS, 8191));
	CPU_SET_S(63, size, cs);
	ck_assert(cps_mask_from_cpuset(m, 1, cs, size));
	ck_assert_uint_eq(m[0], 1ull << 63);
	CPU_CLR_S(8191, size, cs);
	ck_assert(!cps_mask_from_cpuset(m, 1, cs, size));
	CPU_SET_S(64, size, cs);
	ck_assert(cps_mask_from_cpuset(m, 1, cs, size));

	/* and the other way: the buffer is the narrower one */
	cps_mask_zero(m, CPS_MAX_WORDS);
	cps_mask_set(m, CPS_MAX_WORDS, 64);
	ck_assert(cps_mask_to_cpuset(cs, 8, m, CPS_MAX_WORDS));
	ck_assert(!cps_mask_to_cpuset(cs, 16, m, CPS_MAX_WORDS));
	ck_assert(CPU_ISSET_S(64, 16, cs));
	cps_mask_set(m, CPS_MAX_WORDS, 8191);
	ck_assert(cps_mask_to_cpuset(cs, 16, m, CPS_MAX_WORDS));
	ck_assert(!cps_mask_to_cpuset(cs, size, m, CPS_MAX_WORDS));
	ck_assert(cps_mask_to_cpuset(cs, 0, m, CPS_MAX_WORDS));
	cps_mask_zero(m, CPS_MAX_WORDS);
	ck_assert(!cps_mask_to_cpuset(cs, 0, m, CPS_MAX_WORDS));
	CPU_FREE(cs);
}
END_TEST

START_TEST(test_cpuset_unaligned)
{
	unsigned char raw[17 + sizeof(unsigned long)];
	cpu_set_t *cs = CPU_ALLOC(128);
	size_t size = CPU_ALLOC_SIZE(128);
	uint64_t m[2], r[2];

	CPU_ZERO_S(size, cs);
	CPU_SET_S(3, size, cs);
	CPU_SET_S(100, size, cs);
	memcpy(raw + 1, cs, size);
	ck_assert(!cps_mask_from_cpuset(m, 2, raw + 1, size));
	ck_assert(cps_mask_test(m, 2, 3));
	ck_assert(cps_mask_test(m, 2, 100));
	ck_assert_uint_eq(cps_mask_count(m, 2), 2);
	ck_assert(!cps_mask_to_cpuset(raw + 3, size, m, 2));
	ck_assert(!cps_mask_from_cpuset(r, 2, raw + 3, size));
	ck_assert(cps_mask_equal(m, r, 2));
	CPU_FREE(cs);
}
END_TEST

/* ---- virtual <-> physical ---- */

static void check_v2p(const uint64_t *set, size_t nw, unsigned v, bool wrap, int want,
		      size_t vnw)
{
	uint64_t *virt = mk(vnw), *phys = mk(nw);
	cps_mask_zero(virt, vnw);
	cps_mask_set(virt, vnw, v);
	unsigned got = cps_virt_to_phys(phys, set, nw, virt, vnw, wrap);
	if (want < 0) {
		ck_assert_uint_eq(got, 0);
		ck_assert(cps_mask_empty(phys, nw));
	} else {
		ck_assert_uint_eq(got, 1);
		ck_assert_int_eq(cps_mask_next(phys, nw, -1), want);
		ck_assert_uint_eq(cps_mask_count(phys, nw), 1);
	}
	free(virt);
	free(phys);
}

START_TEST(test_v2p_wrap_small)
{
	uint64_t *one = MASK(1, 1);
	check_v2p(one, 1, 0, true, 1, 1);
	check_v2p(one, 1, 1, true, 1, 1);
	check_v2p(one, 1, 1, false, -1, 1);

	uint64_t *virt = MASK(1, 0, 1), phys[1];
	ck_assert_uint_eq(cps_virt_to_phys(phys, one, 1, virt, 1, true), 1);
	ck_assert_uint_eq(phys[0], 2);
	ck_assert_uint_eq(cps_virt_to_phys(phys, one, 1, virt, 1, false), 1);
	ck_assert_uint_eq(phys[0], 2);

	uint64_t *set = MASK(1, 2, 5, 9);
	const int want[] = { 2, 5, 9, 2, 5, 9 };
	for (unsigned v = 0; v < 6; v++) {
		check_v2p(set, 1, v, true, want[v], 1);
		check_v2p(set, 1, v, false, v < 3 ? want[v] : -1, 1);
	}
	free(virt);
	virt = MASK(1, 0, 1, 2, 3, 4, 5);
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 1, virt, 1, true), 3);
	ck_assert(cps_mask_equal(phys, set, 1));
	free(virt);
	virt = MASK(1, 1, 3); /* 5 and 2 */
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 1, virt, 1, true), 2);
	ck_assert_uint_eq(phys[0], (1u << 2) | (1u << 5));
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 1, virt, 1, false), 1);
	ck_assert_uint_eq(phys[0], 1u << 5);
	free(virt);
	free(one);
	free(set);
}
END_TEST

START_TEST(test_v2p_wide_virt)
{
	/* an 8-CPU set, numbered from 64 up in a two-word virtual mask */
	uint64_t *set = MASK(1, 8, 9, 10, 11, 12, 13, 14, 15);
	check_v2p(set, 1, 64, true, 8, 2);
	check_v2p(set, 1, 67, true, 11, 2);
	check_v2p(set, 1, 127, true, 15, 2);
	check_v2p(set, 1, 64, false, -1, 2);
	check_v2p(set, 1, 7, false, 15, 2);
	/* a virtual mask narrower than the set */
	uint64_t *wide = MASK(4, 3, 100, 200);
	check_v2p(wide, 4, 0, true, 3, 1);
	check_v2p(wide, 4, 2, true, 200, 1);
	check_v2p(wide, 4, 63, true, 3, 1);
	free(set);
	free(wide);
}
END_TEST

START_TEST(test_v2p_empty)
{
	uint64_t set[2] = { 0, 0 }, virt[2] = { ~0ull, ~0ull }, phys[2] = { 7, 7 };
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 2, virt, 2, true), 0);
	ck_assert(cps_mask_empty(phys, 2));
	phys[1] = 3;
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 2, virt, 2, false), 0);
	ck_assert(cps_mask_empty(phys, 2));

	/* nothing asked */
	set[0] = 0xf0;
	virt[0] = virt[1] = 0;
	phys[0] = 1;
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 2, virt, 2, true), 0);
	ck_assert(cps_mask_empty(phys, 2));
	/* nothing below n without wrap */
	virt[1] = 1;
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 2, virt, 2, false), 0);
	ck_assert(cps_mask_empty(phys, 2));
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, 2, virt, 2, true), 1);
	ck_assert_uint_eq(phys[0], 0x10);
}
END_TEST

/* The definition, one bit at a time, through the list of the set's CPUs. */
static unsigned ref_v2p(uint64_t *phys, const uint64_t *set, size_t nw, const uint64_t *virt,
			size_t vnw, bool wrap)
{
	static unsigned cpus[CPS_MAX_CPUS];
	unsigned n = 0;
	for (int c = cps_mask_next(set, nw, -1); c >= 0; c = cps_mask_next(set, nw, c))
		cpus[n++] = (unsigned)c;
	cps_mask_zero(phys, nw);
	if (!n)
		return 0;
	for (int v = cps_mask_next(virt, vnw, -1); v >= 0; v = cps_mask_next(virt, vnw, v)) {
		if (!wrap && (unsigned)v >= n)
			break;
		cps_mask_set(phys, nw, cpus[(unsigned)v % n]);
	}
	return cps_mask_count(phys, nw);
}

static void random_mask(uint64_t *m, size_t nw, unsigned density)
{
	/* density: about one bit in 2^density */
	for (size_t i = 0; i < nw; i++) {
		uint64_t w = lcg() | (lcg() << 53);
		for (unsigned d = 0; d < density; d++)
			w &= lcg() | (lcg() << 53);
		m[i] = w;
	}
}

START_TEST(test_v2p_random)
{
	size_t nw = CPS_MAX_WORDS;
	uint64_t *set = mk(nw), *virt = mk(nw), *phys = mk(nw), *want = mk(nw), *back = mk(nw);

	lcg_state = 7;
	for (int t = 0; t < 100; t++) {
		size_t snw = 1 + lcg() % nw, vnw = 1 + lcg() % nw;
		random_mask(set, snw, (unsigned)(lcg() % 7));
		random_mask(virt, vnw, (unsigned)(lcg() % 9));
		if (t % 10 == 0) /* a prefix of virtual CPUs */
			cps_mask_fill(virt, vnw, (unsigned)(lcg() % (vnw * 64)));
		for (int wrap = 0; wrap < 2; wrap++) {
			unsigned r = ref_v2p(want, set, snw, virt, vnw, wrap);
			unsigned g = cps_virt_to_phys(phys, set, snw, virt, vnw, wrap);
			ck_assert_uint_eq(g, r);
			ck_assert(cps_mask_equal(phys, want, snw));
			ck_assert(cps_mask_subset(phys, set, snw));
		}
		/* without wrap the map is one to one on 0..n-1 */
		unsigned n = cps_mask_count(set, snw);
		unsigned g = cps_virt_to_phys(phys, set, snw, virt, vnw, false);
		unsigned k = cps_phys_to_virt(back, vnw, set, snw, phys);
		ck_assert_uint_eq(k, g);
		cps_mask_fill(want, vnw, n);
		cps_mask_and(want, want, virt, vnw);
		ck_assert(cps_mask_equal(back, want, vnw));
	}
	free(set);
	free(virt);
	free(phys);
	free(want);
	free(back);
}
END_TEST

START_TEST(test_every_7th_map)
{
	size_t nw = CPS_WORDS_FOR(8192);
	uint64_t *set = mk(nw), *virt = mk(nw), *phys = mk(nw), *back = mk(nw);
	unsigned n = 1171;

	cps_mask_zero(set, nw);
	for (unsigned c = 0; c < 8192; c += 7)
		cps_mask_set(set, nw, c);
	/* the whole virtual range: the whole set */
	cps_mask_fill(virt, nw, n);
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, false), n);
	ck_assert(cps_mask_equal(phys, set, nw));
	cps_mask_fill(virt, nw, 8192);
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, true), n);
	ck_assert(cps_mask_equal(phys, set, nw));
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, false), n);
	ck_assert(cps_mask_equal(phys, set, nw));
	/* each virtual CPU on its own, wrapping past n */
	for (unsigned v = 0; v < 8192; v += 37)
		check_v2p(set, nw, v, true, (int)(7 * (v % n)), nw);
	check_v2p(set, nw, n, true, 0, nw);
	check_v2p(set, nw, n, false, -1, nw);
	check_v2p(set, nw, n - 1, false, 8190, nw);
	/* all but one */
	cps_mask_fill(virt, nw, n);
	cps_mask_clear(virt, nw, 500);
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, false), n - 1);
	ck_assert(!cps_mask_test(phys, nw, 3500));
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, true), n - 1);
	cps_mask_set(virt, nw, 500 + n);
	ck_assert_uint_eq(cps_virt_to_phys(phys, set, nw, virt, nw, true), n);
	ck_assert(cps_mask_equal(phys, set, nw));

	/* physical back to virtual */
	cps_mask_fill(phys, nw, 8192);
	ck_assert_uint_eq(cps_phys_to_virt(back, nw, set, nw, phys), n);
	cps_mask_fill(virt, nw, n);
	ck_assert(cps_mask_equal(back, virt, nw));
	ck_assert_uint_eq(cps_phys_to_virt(back, 2, set, nw, phys), 128);
	free(set);
	free(virt);
	free(phys);
	free(back);
}
END_TEST

START_TEST(test_p2v)
{
	uint64_t *set = MASK(2, 2, 5, 9, 70);
	uint64_t *phys = MASK(2, 0, 2, 3, 9, 64, 70, 127);
	uint64_t virt[2];

	ck_assert_uint_eq(cps_phys_to_virt(virt, 2, set, 2, phys), 3);
	ck_assert_uint_eq(virt[0], (1u << 0) | (1u << 2) | (1u << 3));
	ck_assert_uint_eq(virt[1], 0);
	/* outside the set only */
	uint64_t *out = MASK(2, 0, 1, 3, 64, 127);
	virt[1] = 5;
	ck_assert_uint_eq(cps_phys_to_virt(virt, 2, set, 2, out), 0);
	ck_assert(cps_mask_empty(virt, 2));
	/* empty set */
	uint64_t none[2] = { 0, 0 };
	virt[0] = 1;
	ck_assert_uint_eq(cps_phys_to_virt(virt, 2, none, 2, phys), 0);
	ck_assert(cps_mask_empty(virt, 2));
	/* ranks past the virtual width are dropped */
	uint64_t full[3] = { ~0ull, ~0ull, 1 };
	uint64_t *v1 = mk(1);
	ck_assert_uint_eq(cps_phys_to_virt(v1, 1, full, 3, full), 64);
	ck_assert_uint_eq(v1[0], ~0ull);
	uint64_t hi[3] = { 0, 0, 1 };
	ck_assert_uint_eq(cps_phys_to_virt(v1, 1, full, 3, hi), 0);
	ck_assert_uint_eq(v1[0], 0);
	free(v1);
	free(set);
	free(phys);
	free(out);
}
END_TEST

/* cps_virt_to_phys_w names the first virtual CPU whose wrap gave a CPU the
 * kernel's rule (bits past the set ignored) would not have, and only
 * such a one. */
START_TEST(test_v2p_wrapped_said)
{
	uint64_t *set = MASK(1, 2, 5, 9), phys[1];
	static const struct {
		int bits[4];
		bool wrap;
		long want;
	} cases[] = {
		{ { 1, -1 }, true, -1 },       /* inside the set */
		{ { 4, -1 }, true, 4 },        /* 4 -> 1: new */
		{ { 1, 4, -1 }, true, -1 },    /* 4 -> 1: already there */
		{ { 0, 4, 6, -1 }, true, 4 },  /* the first new one: 4 -> 1 */
		{ { 0, 1, 2, 7 }, true, -1 },  /* the whole set and more */
		{ { 0, 3, -1 }, true, -1 },    /* 3 -> 0: already there */
		{ { 5, -1 }, false, -1 },      /* no wrap: ignored, not wrapped */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t virt[1] = { 0 };
		for (int k = 0; k < 4 && cases[i].bits[k] >= 0; k++)
			virt[0] |= (uint64_t)1 << cases[i].bits[k];
		long w = 99;
		cps_virt_to_phys_w(phys, set, 1, virt, 1, cases[i].wrap, &w);
		ck_assert_msg(w == cases[i].want, "case %zu: wrapped %ld, want %ld", i, w,
			      cases[i].want);
	}
	free(set);
}
END_TEST

static Suite *mask_suite(void)
{
	Suite *s = suite_create("mask");
	TCase *tc = tcase_create("bits");
	tcase_add_loop_test(tc, test_single_bits, 0, NWIDTHS);
	tcase_add_loop_test(tc, test_beyond_width, 0, NWIDTHS);
	tcase_add_loop_test(tc, test_set_ops, 0, NWIDTHS);
	tcase_add_loop_test(tc, test_fill, 0, NWIDTHS);
	tcase_add_test(tc, test_every_7th);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpuset");
	tcase_add_loop_test(tc, test_cpuset_alloc_roundtrip, 0, NWIDTHS);
	tcase_add_test(tc, test_cpuset_odd_sizes);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	tcase_add_test(tc, test_cpuset_bytes_le);
#endif
	tcase_add_test(tc, test_cpuset_dropped);
	tcase_add_test(tc, test_cpuset_unaligned);
	suite_add_tcase(s, tc);

	tc = tcase_create("virtual");
	tcase_add_test(tc, test_v2p_wrap_small);
	tcase_add_test(tc, test_v2p_wrapped_said);
	tcase_add_test(tc, test_v2p_wide_virt);
	tcase_add_test(tc, test_v2p_empty);
	tcase_add_test(tc, test_v2p_random);
	tcase_add_test(tc, test_every_7th_map);
	tcase_add_test(tc, test_p2v);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mask_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
