/* SPDX-License-Identifier: BSD-3-Clause */
/* CPUs chosen by topology (src/topo.c): locations and counts on made-up
 * machines whose answers are worked out by hand below. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/topo.h"

#define NW CPS_MAX_WORDS

/* Two packages of two cores of two PUs, numbered as Intel does: package 0
 * holds CPUs 0,1,4,5 (cores {0,4} and {1,5}), package 1 CPUs 2,3,6,7;
 * one node and one L3 per package, an L2 and L1 per core. */
static struct cps_topo *intel8(void)
{
	struct cps_topo *t = calloc(1, sizeof(*t));
	ck_assert_ptr_nonnull(t);
	t->n = 8;
	t->nnodes = 2;
	t->where = "this machine";
	for (unsigned c = 0; c < 8; c++) {
		int pkg = (c % 4) / 2, core = (int)(c % 4);
		t->obj[CPS_TOPO_PACKAGE][c] = pkg;
		t->obj[CPS_TOPO_DIE][c] = -1;
		t->obj[CPS_TOPO_CLUSTER][c] = -1;
		t->obj[CPS_TOPO_L3][c] = 100 + pkg;
		t->obj[CPS_TOPO_L2][c] = 200 + core;
		t->obj[CPS_TOPO_L1][c] = 300 + core;
		t->obj[CPS_TOPO_CORE][c] = core;
		t->obj[CPS_TOPO_PU][c] = (int)c;
		t->obj[CPS_TOPO_NODE][c] = pkg;
	}
	ck_assert_int_eq(cps_topo_finish(t), 0);
	return t;
}

static const char *list(const uint64_t *m)
{
	static char buf[256];
	cps_cpulist_format(buf, sizeof(buf), m, NW);
	return buf;
}

static const struct {
	const char *loc, *want;
} good[] = {
	{ "all", "0-7" },
	{ "package:1", "2-3,6-7" },
	{ "socket:0", "0-1,4-5" },
	{ "core:1", "1,5" },
	{ "pu:1", "4" }, /* the walk: core 0's PUs 0 and 4 first */
	{ "package:1.core:0", "2,6" },
	{ "core:0-1.pu:0", "0-1" }, /* each core's first PU */
	{ "core:0-1.pu:1", "4-5" },
	{ "numa:1", "2-3,6-7" },
	{ "node:1.core:1", "3,7" },
	{ "numanode:0", "0-1,4-5" },
	{ "core:1:3", "1-3,5-7" },
	{ "core:3:2", "0,3-4,7" }, /* wraps around the end */
	{ "core:2:3", "0,2-4,6-7" },
	{ "core:2-", "2-3,6-7" },
	{ "package:odd", "2-3,6-7" },
	{ "core:even", "0,2,4,6" },
	{ "core:0-3 ~core:1", "0,2-4,6-7" },
	{ "package:0 xcore:0-2", "0-1,4-5" },
	{ "^core:0 core:1", "0-1,4-5" },
	{ "0-2 core:3", "0-3,7" },
	{ "l3cache:1", "2-3,6-7" },
	{ "l2:2", "2,6" },
	{ "package:1.l1cache:1.pu:1", "7" },
	{ "machine:0", "0-7" },
};

START_TEST(test_resolve)
{
	struct cps_topo *t = intel8();
	struct cps_topo_err e = { "" };
	uint64_t m[NW];
	int r = cps_topo_resolve(t, good[_i].loc, m, NW, &e);
	ck_assert_msg(r == 0, "%s: %d %s", good[_i].loc, r, e.msg);
	ck_assert_str_eq(list(m), good[_i].want);
	free(t);
}
END_TEST

static const struct {
	const char *loc;
	int err;
	const char *says;
} bad[] = {
	{ "package:2", -ENOENT, "package:2: this machine has packages 0-1" },
	{ "package:0.core:2", -ENOENT, "package:0.core:2: package:0 of this machine has cores 0-1" },
	{ "die:0", -ENOENT, "this machine has dies none" },
	{ "core:0:5", -ENOENT, "has cores 0-3" }, /* 5 of 4 */
	{ "8", -ENOENT, "CPU 8: this machine has CPUs 0-7" },
	{ "core:", -EINVAL, "bad index" },
	{ "core:1:0", -EINVAL, "bad index" },
	{ "core:3-1", -EINVAL, "bad index" },
	{ "core", -EINVAL, "is not TYPE:INDEX" },
	{ "board:1", -EINVAL, "unknown type 'board'" },
	{ "core:1.package:0", -EINVAL, "package is not inside core" },
	{ "core:1.core:0", -EINVAL, "core is not inside core" },
	{ "pu:1.", -EINVAL, "ends in '.'" },
	{ " ", -EINVAL, "an empty location" },
	{ "0-3,", -EINVAL, "bad CPU list" },
	{ "core:1 ~core:1", -ENOENT, "names no CPU" },
};

START_TEST(test_resolve_errors)
{
	struct cps_topo *t = intel8();
	struct cps_topo_err e = { "" };
	uint64_t m[NW];
	int r = cps_topo_resolve(t, bad[_i].loc, m, NW, &e);
	ck_assert_msg(r == bad[_i].err, "%s: %d (%s)", bad[_i].loc, r, e.msg);
	ck_assert_msg(strstr(e.msg, bad[_i].says), "%s: '%s' lacks '%s'", bad[_i].loc, e.msg,
		      bad[_i].says);
	free(t);
}
END_TEST

START_TEST(test_is_location)
{
	ck_assert(!cps_topo_is_location("0-3"));
	ck_assert(!cps_topo_is_location("0x3"));
	ck_assert(!cps_topo_is_location("0-31:2"));
	ck_assert(!cps_topo_is_location(""));
	ck_assert(cps_topo_is_location("core:1"));
	ck_assert(cps_topo_is_location("~core:1"));
	ck_assert(cps_topo_is_location("0 core:1"));
	ck_assert_int_eq(cps_topo_kind_of("socket", 6), CPS_TOPO_PACKAGE);
	ck_assert_int_eq(cps_topo_kind_of("node", 4), CPS_TOPO_NODE);
	ck_assert_int_eq(cps_topo_kind_of("cores", 5), -1);
}
END_TEST

/* A count on intel8 with the CPUs of unavail taken: what it picks. */
static const struct {
	struct cps_topo_count want;
	const char *unavail, *got; /* got NULL: does not fit */
} picks[] = {
	{ { 0, 2, 0 }, "", "0-1,4-5" },         /* one package holds both */
	{ { 0, 2, 0 }, "0", "2-3,6-7" },        /* package 1 has two whole */
	{ { 0, 1, 0 }, "0", "1,5" },            /* the tightest fit: package 0 */
	{ { 0, 3, 0 }, "", "0-2,4-6" },         /* across packages, in order */
	{ { 0, 4, 0 }, "4", "0-3,5-7" },        /* whole cores, then core 0's part */
	{ { 0, 5, 0 }, "", NULL },              /* 4 cores */
	{ { 0, 4, 0 }, "4,6", "0-3,5,7" },      /* whole ones first, then parts */
	{ { 1, 0, 0 }, "0", "2-3,6-7" },        /* a whole package */
	{ { 2, 0, 0 }, "0", NULL },             /* package 0 is not whole */
	{ { 2, 1, 0 }, "", "0,2,4,6" },         /* a core in each */
	{ { 2, 2, 0 }, "7", NULL },             /* package 1 has one whole core */
	{ { 0, 0, 3 }, "", "0-1,4" },           /* PUs in walk order, one package */
	{ { 0, 0, 5 }, "", "0-2,4-5" },         /* beyond one package */
	{ { 2, 0, 1 }, "0", "2,4" },            /* each package's first free PU */
};

START_TEST(test_pick)
{
	struct cps_topo *t = intel8();
	struct cps_topo_err e = { "" };
	uint64_t m[NW], avail[NW], un[NW];
	struct cps_parse_error pe;
	cps_mask_fill(avail, NW, 8);
	if (picks[_i].unavail[0]) {
		ck_assert_int_eq(cps_cpulist_parse(picks[_i].unavail, un, NW, &pe), 0);
		cps_mask_andnot(avail, avail, un, NW);
	}
	int r = cps_topo_pick(t, &picks[_i].want, avail, m, NW, &e);
	if (picks[_i].got) {
		ck_assert_msg(r == 0, "pick %d: %d %s", _i, r, e.msg);
		ck_assert_str_eq(list(m), picks[_i].got);
	} else {
		ck_assert_msg(r == -ENOSPC, "pick %d: %d, %s", _i, r, list(m));
		ck_assert_msg(strstr(e.msg, "this machine has"), "%s", e.msg);
	}
	free(t);
}
END_TEST

START_TEST(test_pick_messages)
{
	struct cps_topo *t = intel8();
	struct cps_topo_err e = { "" };
	uint64_t m[NW];
	struct cps_topo_count c = { 0, 5, 0 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), -ENOSPC);
	ck_assert_str_eq(e.msg, "5 cores: this machine has 4 cores");
	c = (struct cps_topo_count){ 3, 0, 0 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), -ENOSPC);
	ck_assert_msg(strstr(e.msg, "3 packages: this machine has 2 packages"), "%s", e.msg);
	c = (struct cps_topo_count){ 0, 1, 1 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), -EINVAL);
	c = (struct cps_topo_count){ 0, 0, 0 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), -EINVAL);
	free(t);
}
END_TEST

/* A machine without package, core or cache files, and a hole in its
 * numbers (CPU 1 offline): every CPU its own core, the machine one
 * package. */
START_TEST(test_bare)
{
	struct cps_topo *t = calloc(1, sizeof(*t));
	struct cps_topo_err e = { "" };
	uint64_t m[NW];
	ck_assert_ptr_nonnull(t);
	t->n = 4;
	t->where = "this machine";
	for (unsigned c = 0; c < 4; c++) {
		for (int k = 0; k < CPS_TOPO_NKINDS; k++)
			t->obj[k][c] = -1;
		t->obj[CPS_TOPO_PU][c] = c == 1 ? -1 : (int)c;
	}
	ck_assert_int_eq(cps_topo_finish(t), 0);
	ck_assert_int_eq(cps_topo_resolve(t, "all", m, NW, &e), 0);
	ck_assert_str_eq(list(m), "0,2-3");
	ck_assert_int_eq(cps_topo_resolve(t, "core:1", m, NW, &e), 0);
	ck_assert_str_eq(list(m), "2");
	ck_assert_int_eq(cps_topo_resolve(t, "1", m, NW, &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "has CPUs 0,2-3"), "%s", e.msg);
	ck_assert_int_eq(cps_topo_resolve(t, "package:0", m, NW, &e), -ENOENT);
	ck_assert_int_eq(cps_topo_resolve(t, "numa:0", m, NW, &e), -ENOENT);
	struct cps_topo_count c = { 0, 2, 0 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), 0);
	ck_assert_str_eq(list(m), "0,2");
	c = (struct cps_topo_count){ 1, 0, 0 };
	ck_assert_int_eq(cps_topo_pick(t, &c, NULL, m, NW, &e), 0);
	ck_assert_str_eq(list(m), "0,2-3");
	free(t);
}
END_TEST

static Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("resolve");
	tcase_add_loop_test(tc, test_resolve, 0, (int)(sizeof(good) / sizeof(good[0])));
	tcase_add_loop_test(tc, test_resolve_errors, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_is_location);
	tcase_add_test(tc, test_bare);
	suite_add_tcase(s, tc);
	tc = tcase_create("pick");
	tcase_add_loop_test(tc, test_pick, 0, (int)(sizeof(picks) / sizeof(picks[0])));
	tcase_add_test(tc, test_pick_messages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(topo_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
