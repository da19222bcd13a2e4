/* slurm/membind.c: SLURM_MEM_BIND's forms as slurmstepd writes them
 * (flags, then map_mem, mask_mem, rank, local or none), each task's entry
 * by its local id (modulo the list, repetitions "X*N"), and the values
 * refused with their reasons. */
#include <errno.h>

#include "slurm/membind.h"
#include "src/cpulist.h"
#include "tests/testlib.h"

#define NW 2

static char why[256];

/* The task's nodes as a list, or the kind's name ("unsaid", "local"), or
 * "EINVAL". */
static const char *nodes_of(const char *v, unsigned local)
{
	static char out[256];
	uint64_t m[NW];
	why[0] = 0;
	int r = cps_membind_parse(v, local, m, NW, why, sizeof(why));
	if (r == -EINVAL) {
		ck_assert_msg(why[0], "no reason for '%s'", v ? v : "(null)");
		return "EINVAL";
	}
	ck_assert_int_ge(r, 0);
	if (r == CPS_MEMBIND_UNSAID)
		return "unsaid";
	if (r == CPS_MEMBIND_LOCAL)
		return "local";
	ck_assert_int_eq(r, CPS_MEMBIND_NODES);
	cps_cpulist_format(out, sizeof(out), m, NW);
	return out;
}

START_TEST(unsaid_and_local)
{
	ck_assert_str_eq(nodes_of(NULL, 0), "unsaid");
	ck_assert_str_eq(nodes_of("", 0), "unsaid");
	ck_assert_str_eq(nodes_of("quiet,none", 0), "unsaid");
	ck_assert_str_eq(nodes_of("verbose,", 0), "unsaid");
	ck_assert_str_eq(nodes_of("quiet,local", 1), "local");
	ck_assert_str_eq(nodes_of("verbose,prefer,local", 1), "local");
}
END_TEST

START_TEST(map_mem)
{
	/* entry local modulo the list's length */
	ck_assert_str_eq(nodes_of("quiet,map_mem:1,0", 0), "1");
	ck_assert_str_eq(nodes_of("quiet,map_mem:1,0", 1), "0");
	ck_assert_str_eq(nodes_of("quiet,map_mem:1,0", 2), "1");
	ck_assert_str_eq(nodes_of("quiet,map_mem:1,0", 5), "0");
	ck_assert_str_eq(nodes_of("verbose,prefer,map_mem:3", 7), "3");
	ck_assert_str_eq(nodes_of("quiet,map_mem:0x2,0xa", 1), "10");
	/* repetitions: 0*2,1*3 is 0,0,1,1,1 */
	const char *rep[] = { "0", "0", "1", "1", "1", "0" };
	for (unsigned t = 0; t < 6; t++)
		ck_assert_str_eq(nodes_of("quiet,map_mem:0*2,1*3", t), rep[t]);
	/* a node as wide as the masks go, and one beyond */
	ck_assert_str_eq(nodes_of("quiet,map_mem:127", 0), "127");
	ck_assert_str_eq(nodes_of("quiet,map_mem:128", 0), "EINVAL");
	ck_assert_msg(strstr(why, "width"), "why: %s", why);
}
END_TEST

START_TEST(mask_mem)
{
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x1,0x6", 0), "0");
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x1,0x6", 1), "1-2");
	ck_assert_str_eq(nodes_of("verbose,mask_mem:f", 3), "0-3");
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x10000000000000001", 0), "0,64");
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x3*2,0xC", 2), "2-3");
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x3*2,0xC", 1), "0-1");
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x0", 0), "EINVAL");
	ck_assert_msg(strstr(why, "mask"), "why: %s", why);
	ck_assert_str_eq(nodes_of("quiet,mask_mem:0x1" "00000000" "00000000" "00000000" "00000000", 0),
			 "EINVAL");
}
END_TEST

START_TEST(rank)
{
	/* node local, as Slurm binds it */
	ck_assert_str_eq(nodes_of("quiet,rank", 0), "0");
	ck_assert_str_eq(nodes_of("quiet,rank", 1), "1");
	ck_assert_str_eq(nodes_of("verbose,rank", 5), "5");
	ck_assert_str_eq(nodes_of("quiet,rank", 128), "EINVAL");
}
END_TEST

START_TEST(refused)
{
	const char *bad[] = { "quiet,map_mem:", "quiet,map_mem:a", "quiet,map_mem:1,,2",
			      "quiet,map_mem:-1", "quiet,map_mem:1*0", "quiet,map_mem:1*",
			      "quiet,map_mem:0x", "quiet,mask_mem:", "quiet,mask_mem:0xg",
			      "quiet,bogus", "nonesuch", "quiet,map_mem:1 " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(!strcmp(nodes_of(bad[i], 0), "EINVAL"), "'%s' taken", bad[i]);
		ck_assert_msg(strstr(why, bad[i]), "the reason names the value: %s", why);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("membind");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, unsaid_and_local);
	tcase_add_test(tc, map_mem);
	tcase_add_test(tc, mask_mem);
	tcase_add_test(tc, rank);
	tcase_add_test(tc, refused);
	suite_add_tcase(s, tc);
	return tl_run(s);
}
