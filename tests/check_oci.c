/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/oci_translate.c: the container's own cpuset (config.json's
 * linux.resources.cpu.cpus and .mems) in the virtual CPUs or memory
 * nodes of its set made the machine's: virtual v is the set's v-th (no
 * wrap), a member the set does not have refused, a text that is no list
 * refused with the parser's reason; the same for CPUs and nodes, on
 * sets whose members are renumbered. */
#include <errno.h>

#include "src/cpulist.h"
#include "tools/oci_hook.h"
#include "tests/testlib.h"

#define NW 2

/* list through the set's members frame: the physical list, or "ERANGE"
 * or "EINVAL" (with the parser's reason said). */
static const char *through(const char *frame, const char *list)
{
	static char out[256];
	uint64_t f[NW] = { 0 }, p[NW];
	struct cps_parse_error pe = { 0, NULL };
	if (frame[0])
		tl_mask(f, NW, frame);
	memset(p, 0xa5, sizeof(p)); /* nothing of it kept */
	int r = oh_translate(list, f, NW, p, &pe);
	if (r == -EINVAL) {
		ck_assert_msg(pe.msg && pe.msg[0], "no reason for '%s'", list);
		ck_assert_msg(p[0] == 0 && p[1] == 0, "'%s' refused, but phys not empty", list);
		return "EINVAL";
	}
	if (r == -ERANGE) {
		ck_assert_msg(p[0] == 0 && p[1] == 0, "'%s' refused, but phys not empty", list);
		return "ERANGE";
	}
	ck_assert_int_eq(r, 0);
	cps_cpulist_format(out, sizeof(out), p, NW);
	return out;
}

START_TEST(nodes_renumbered)
{
	/* a set of nodes {1,3}: its node 0 is the machine's 1, its 1 the 3 */
	ck_assert_str_eq(through("1,3", "0"), "1");
	ck_assert_str_eq(through("1,3", "1"), "3");
	ck_assert_str_eq(through("1,3", "0-1"), "1,3");
	ck_assert_str_eq(through("1,3", "1,0"), "1,3");
	/* it has no node 2 (no wrap: a cpuset is a hard list) */
	ck_assert_str_eq(through("1,3", "2"), "ERANGE");
	ck_assert_str_eq(through("1,3", "0,2"), "ERANGE");
	ck_assert_str_eq(through("1,3", "0-3"), "ERANGE");
	/* one node, not the machine's first */
	ck_assert_str_eq(through("2", "0"), "2");
	ck_assert_str_eq(through("2", "1"), "ERANGE");
	/* the machine's node 0 alone (a host of one node) */
	ck_assert_str_eq(through("0", "0"), "0");
	ck_assert_str_eq(through("0", "1"), "ERANGE");
}
END_TEST

START_TEST(cpus_renumbered)
{
	/* set {4,6}: --cpuset-cpus=1 is CPU 6 */
	ck_assert_str_eq(through("4,6", "1"), "6");
	ck_assert_str_eq(through("4,6", "0"), "4");
	ck_assert_str_eq(through("4,6", "2"), "ERANGE");
	/* across the words of the mask */
	ck_assert_str_eq(through("62-65", "1-2"), "63-64");
	ck_assert_str_eq(through("62-65", "3"), "65");
	ck_assert_str_eq(through("62-65", "4"), "ERANGE");
	/* the set is the machine's first CPUs: the numbers are the same */
	ck_assert_str_eq(through("0-7", "2-5"), "2-5");
	/* a set of none refuses every member */
	ck_assert_str_eq(through("", "0"), "ERANGE");
}
END_TEST

START_TEST(not_lists)
{
	ck_assert_str_eq(through("1,3", ""), "EINVAL");
	ck_assert_str_eq(through("1,3", "a"), "EINVAL");
	ck_assert_str_eq(through("1,3", "1-0"), "EINVAL");
	ck_assert_str_eq(through("1,3", "0,"), "EINVAL");
	/* beyond the masks' width: not a list of the table's */
	ck_assert_str_eq(through("1,3", "128"), "EINVAL");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oci");
	TCase *tc = tcase_create("translate");
	tcase_add_test(tc, nodes_renumbered);
	tcase_add_test(tc, cpus_renumbered);
	tcase_add_test(tc, not_lists);
	suite_add_tcase(s, tc);
	return tl_run(s);
}
