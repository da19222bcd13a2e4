/* SPDX-License-Identifier: BSD-3-Clause */
/* slurm/membind.c: SLURM_MEM_BIND's forms as slurmstepd writes them
 * (flags, then map_mem, mask_mem, rank, local or none), each task's entry
 * by its local id (modulo the list, repetitions "X*N"), and the values
 * refused with their reasons; then the choice between the binding, a
 * Slurm cgroup's nodes and the nodes of the task's CPUs. */
#include <errno.h>

#include "slurm/membind.h"
#include "src/cpulist.h"
#include "src/sets.h"
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

/* The choice for SLURM_MEM_BIND v, a cgroup file path (or NULL) of
 * nodes cg, on a machine whose nodes with memory are machine: "auto",
 * "list L", or "EINVAL". */
static const char *choice(const char *v, const char *path, const char *cg, const char *machine)
{
	static char out[300];
	uint64_t b[NW], c[NW], m[NW], o[NW];
	const char *from = NULL;
	cps_mask_zero(b, NW);
	cps_mask_zero(c, NW);
	cps_mask_zero(m, NW);
	cps_mask_zero(o, NW);
	if (*cg)
		tl_mask(c, NW, cg);
	tl_mask(m, NW, machine);
	int r = cps_membind_parse(v, 1, b, NW, why, sizeof(why));
	ck_assert_int_ge(r, 0);
	r = cps_membind_choose(r, b, path, c, m, NW, o, &from, why, sizeof(why));
	if (r == -EINVAL)
		return "EINVAL";
	ck_assert_msg(from && *from, "no source said");
	if (r == CPS_MEMS_AUTO)
		return "auto";
	ck_assert_int_eq(r, CPS_MEMS_LIST);
	char l[256];
	cps_cpulist_format(l, sizeof(l), o, NW);
	snprintf(out, sizeof(out), "list %s", l);
	return out;
}

START_TEST(choose)
{
	const char *slurm_cg = "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user/task_1/"
			       "cpuset.mems.effective";
	const char *other_cg = "/sys/fs/cgroup/user.slice/cpuset.mems.effective";
	/* nothing said: the nodes of its CPUs, or its Slurm cgroup's */
	ck_assert_str_eq(choice(NULL, NULL, "", "0-3"), "auto");
	ck_assert_str_eq(choice(NULL, slurm_cg, "1-2", "0-3"), "list 1-2");
	ck_assert_str_eq(choice("quiet,none", slurm_cg, "1-2", "0-3"), "list 1-2");
	/* a cgroup that is not Slurm's says nothing of the job */
	ck_assert_str_eq(choice(NULL, other_cg, "1-2", "0-3"), "auto");
	/* the cgroup's nodes without memory are left out; none left: auto */
	ck_assert_str_eq(choice(NULL, slurm_cg, "1-5", "0-3"), "list 1-3");
	ck_assert_str_eq(choice(NULL, slurm_cg, "4-5", "0-3"), "auto");
	/* local: the nodes of its CPUs, whatever the cgroup */
	ck_assert_str_eq(choice("quiet,local", slurm_cg, "1-2", "0-3"), "auto");
	/* a binding wins over the cgroup (task 1's entry) */
	ck_assert_str_eq(choice("quiet,map_mem:0,3", slurm_cg, "1-2", "0-3"), "list 3");
	ck_assert_str_eq(choice("quiet,mask_mem:0x1,0x6", NULL, "", "0-3"), "list 1-2");
	ck_assert_str_eq(choice("quiet,rank", NULL, "", "0-3"), "list 1");
	/* a node without memory: refused, named */
	ck_assert_str_eq(choice("quiet,map_mem:0,5", NULL, "", "0-3"), "EINVAL");
	ck_assert_msg(strstr(why, "5") && strstr(why, "0-3"), "why: %s", why);
	ck_assert_str_eq(choice("quiet,mask_mem:0x1,0x3", NULL, "", "0,2"), "EINVAL");
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
	tcase_add_test(tc, choose);
	suite_add_tcase(s, tc);
	return tl_run(s);
}
