/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/oci_translate.c: the container's own cpuset (config.json's
 * linux.resources.cpu.cpus and .mems) in the virtual CPUs or memory
 * nodes of its set made the machine's: virtual v is the set's v-th (no
 * wrap), a member the set does not have refused, a text that is no list
 * refused with the parser's reason; the same for CPUs and nodes, on
 * sets whose members are renumbered. */
#include <errno.h>
#include <string.h>

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

/* {set's members, the container's list, what it is made} */
struct oci_row {
	const char *frame, *list, *want;
};

static void run_rows(const struct oci_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = through(r[i].frame, r[i].list);
		ck_assert_msg(!strcmp(got, r[i].want), "set {%s}, list '%s': %s, not %s",
			      r[i].frame, r[i].list, got, r[i].want);
	}
}

START_TEST(nodes_renumbered)
{
	static const struct oci_row rows[] = {
		/* a set of nodes {1,3}: its node 0 is the machine's 1, its 1 the 3 */
		{ "1,3", "0", "1" },
		{ "1,3", "1", "3" },
		{ "1,3", "0-1", "1,3" },
		{ "1,3", "1,0", "1,3" },
		/* it has no node 2 (no wrap: a cpuset is a hard list) */
		{ "1,3", "2", "ERANGE" },
		{ "1,3", "0,2", "ERANGE" },
		{ "1,3", "0-3", "ERANGE" },
		/* one node, not the machine's first */
		{ "2", "0", "2" },
		{ "2", "1", "ERANGE" },
		/* the machine's node 0 alone (a host of one node) */
		{ "0", "0", "0" },
		{ "0", "1", "ERANGE" },
	};
	run_rows(rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(cpus_renumbered)
{
	static const struct oci_row rows[] = {
		/* set {4,6}: --cpuset-cpus=1 is CPU 6 */
		{ "4,6", "1", "6" },
		{ "4,6", "0", "4" },
		{ "4,6", "2", "ERANGE" },
		/* across the words of the mask */
		{ "62-65", "1-2", "63-64" },
		{ "62-65", "3", "65" },
		{ "62-65", "4", "ERANGE" },
		/* the set is the machine's first CPUs: the numbers are the same */
		{ "0-7", "2-5", "2-5" },
		/* a set of none refuses every member */
		{ "", "0", "ERANGE" },
	};
	run_rows(rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(not_lists)
{
	static const struct oci_row rows[] = {
		{ "1,3", "", "EINVAL" },
		{ "1,3", "a", "EINVAL" },
		{ "1,3", "1-0", "EINVAL" },
		{ "1,3", "0,", "EINVAL" },
		/* beyond the masks' width: not a list of the table's */
		{ "1,3", "128", "EINVAL" },
	};
	run_rows(rows, sizeof(rows) / sizeof(rows[0]));
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
