/* SPDX-License-Identifier: BSD-3-Clause */
/* src/vnodes.c: virtual memory nodes, both ways, on masks of several
 * widths (the maxnode - 1 bits the kernel reads), sets of sparse nodes,
 * nodes outside the set, folding of relative nodes. */
#include "src/vnodes.h"
#include "tests/testlib.h"

#define NW 2
#define UW (256 / CPS_ULONG_BITS) /* user masks up to 256 bits */

static int k;

static uint64_t *set_of(const char *list)
{
	static uint64_t m[64][CPS_MAX_WORDS];
	ck_assert_int_lt(k, 64); /* never reused within a case */
	uint64_t *r = m[k++];
	cps_mask_zero(r, CPS_MAX_WORDS);
	tl_mask(r, NW, list);
	return r;
}

static void umask_of(unsigned long *u, const char *list)
{
	uint64_t m[CPS_MAX_WORDS] = { 0 };
	memset(u, 0, UW * sizeof(unsigned long));
	if (*list)
		tl_mask(m, 4, list);
	for (int b = cps_mask_next(m, 4, -1); b >= 0; b = cps_mask_next(m, 4, b))
		u[(unsigned)b / CPS_ULONG_BITS] |= 1ul << ((unsigned)b % CPS_ULONG_BITS);
}

static void reset(void)
{
	k = 0; /* each case starts with all the buffers */
}

START_TEST(scalars)
{
	/* a set of nodes 1,3,4 on a machine of 8: virtual 0,1,2 */
	uint64_t *s = set_of("1,3-4");
	ck_assert_int_eq(cps_vnode_phys(s, NW, 3, 0), 1);
	ck_assert_int_eq(cps_vnode_phys(s, NW, 3, 1), 3);
	ck_assert_int_eq(cps_vnode_phys(s, NW, 3, 2), 4);
	ck_assert_int_eq(cps_vnode_phys(s, NW, 3, 3), -1);  /* no such node */
	ck_assert_int_eq(cps_vnode_phys(s, NW, 3, -1), -1);
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, 1), 0);
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, 4), 2);
	/* outside the set: n + p, never one of its nodes */
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, 0), 3);
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, 7), 10);
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, 200), 203); /* beyond the width */
	/* negative statuses (move_pages' errors) are kept */
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, -14), -14);
	ck_assert_int_eq(cps_pnode_virt(s, NW, 3, -2), -2);
}
END_TEST

START_TEST(masks_in)
{
	uint64_t *s = set_of("1,3-4,100");
	unsigned long u[UW];
	uint64_t p[CPS_MAX_WORDS];
	bool dropped;
	/* virtual 0 and 3 -> 1 and 100, at each width that holds them */
	static const unsigned long widths[] = { 5, 63, 64, 65, 128, 129, 200, 257 };
	uint64_t *w0 = set_of("1,100");
	for (unsigned i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		umask_of(u, "0,3");
		ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, widths[i], false, &dropped), 2);
		ck_assert(!dropped);
		ck_assert(cps_mask_equal(p, w0, NW));
	}
	/* maxnode - 1 bits are read: node 3 needs maxnode 5 */
	umask_of(u, "0,3");
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 4, false, &dropped), 1);
	ck_assert(cps_mask_equal(p, set_of("1"), NW));
	/* maxnode 0 and 1: no bit */
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 1, false, &dropped), 0);
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 0, false, &dropped), 0);
	ck_assert(!dropped);
	/* nodes the set does not have are dropped, and said so */
	umask_of(u, "1,4,70,200");
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 256, false, &dropped), 1);
	ck_assert(dropped);
	ck_assert(cps_mask_equal(p, set_of("3"), NW));
	umask_of(u, "9");
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 64, false, &dropped), 0);
	ck_assert(dropped);
	/* relative: folded modulo the set's nodes, 5 -> 1 -> 3, 6 -> 2 -> 4 */
	umask_of(u, "5-6");
	ck_assert_uint_eq(cps_vnodes_in(p, s, NW, 4, u, 64, true, &dropped), 2);
	ck_assert(cps_mask_equal(p, set_of("3-4"), NW));
}
END_TEST

START_TEST(masks_out)
{
	uint64_t *s = set_of("1,3-4,100");
	unsigned long u[UW], want[UW];
	/* physical 0 (outside), 3, 100 -> virtual 1, 3 */
	uint64_t *p = set_of("0,3,100");
	static const unsigned long widths[] = { 5, 64, 65, 129, 257 };
	for (unsigned i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		memset(u, 0xff, sizeof(u));
		cps_vnodes_out(u, widths[i], s, NW, p);
		umask_of(want, "1,3");
		size_t w = cps_vnodes_words(widths[i]);
		ck_assert_msg(!memcmp(u, want, w * sizeof(unsigned long)), "maxnode %lu",
			      widths[i]);
		/* no more than the kernel writes */
		if (w < UW)
			ck_assert_uint_eq(u[w], ~0ul);
	}
	/* a mask too narrow holds only what fits: maxnode 3 is 2 bits */
	memset(u, 0xff, sizeof(u));
	cps_vnodes_out(u, 3, s, NW, p);
	ck_assert_uint_eq(u[0], 2ul);
	/* both ways: every virtual mask of the set comes back */
	for (unsigned long bits = 0; bits < 16; bits++) {
		unsigned long in[UW] = { bits }, back[UW];
		uint64_t ph[CPS_MAX_WORDS];
		bool dropped;
		cps_vnodes_in(ph, s, NW, 4, in, 65, false, &dropped);
		cps_vnodes_out(back, 65, s, NW, ph);
		ck_assert_uint_eq(back[0], bits);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vnodes");
	TCase *tc = tcase_create("translate");
	tcase_add_checked_fixture(tc, reset, NULL);
	tcase_add_test(tc, scalars);
	tcase_add_test(tc, masks_in);
	tcase_add_test(tc, masks_out);
	suite_add_tcase(s, tc);
	return tl_run(s);
}
