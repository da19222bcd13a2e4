/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU list and hex mask parsing and printing. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"

#define NW CPS_MAX_WORDS

/* Deterministic across libcs, unlike rand(). */
static uint64_t lcg_state;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 11;
}

static void mask_list(uint64_t *m, size_t nw, const unsigned *cpus, size_t n)
{
	cps_mask_zero(m, nw);
	for (size_t i = 0; i < n; i++)
		cps_mask_set(m, nw, cpus[i]);
}

#define MASK_OF(m, nw, ...)                                                            \
	mask_list(m, nw, (const unsigned[]){ __VA_ARGS__ },                            \
		  sizeof((const unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned))

/* Parse into a heap mask of exactly nw words, checking it was cleared first. */
static uint64_t *parse_ok(const char *s, size_t nw, bool hex)
{
	struct cps_parse_error e = { 0, NULL };
	uint64_t *m = malloc(nw * sizeof(*m));
	ck_assert_ptr_nonnull(m);
	memset(m, 0xa5, nw * sizeof(*m));
	int r = hex ? cps_hexmask_parse(s, m, nw, &e) : cps_cpulist_parse(s, m, nw, &e);
	ck_assert_msg(r == 0, "'%s': %s at %zu", s, e.msg ? e.msg : "?", e.pos);
	return m;
}

static void check_list(const char *s, size_t nw, const unsigned *cpus, size_t n)
{
	uint64_t *m = parse_ok(s, nw, false);
	ck_assert_msg(cps_mask_count(m, nw) == n, "'%s': %u CPUs", s, cps_mask_count(m, nw));
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(cps_mask_test(m, nw, cpus[i]), "'%s': no CPU %u", s, cpus[i]);
	free(m);
}

#define LIST(s, nw, ...)                                                               \
	check_list(s, nw, (const unsigned[]){ __VA_ARGS__ },                           \
		   sizeof((const unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned))

START_TEST(test_parse_valid)
{
	LIST("0", 1, 0);
	LIST("0-3,8", 1, 0, 1, 2, 3, 8);
	LIST("7\n", 1, 7);
	LIST("63", 1, 63);
	LIST("1-1", 1, 1);
	LIST("0-1", 1, 0, 1);
	LIST("007", 1, 7);
	LIST("0-7:3", 1, 0, 3, 6);
	LIST("5-5:9", 1, 5);
	LIST("62-66", 2, 62, 63, 64, 65, 66);
	LIST("3,1,3", 1, 1, 3);
	LIST("127,0-1:1", 2, 0, 1, 127);
	LIST("8191", NW, 8191);
	LIST("0-8191:8191", NW, 0, 8191);

	uint64_t *m = parse_ok("0-31:2", 1, false);
	ck_assert_uint_eq(m[0], 0x55555555u);
	free(m);
	m = parse_ok("0-8191", NW, false);
	ck_assert_uint_eq(cps_mask_count(m, NW), 8192);
	free(m);
	m = parse_ok("64-8191:64", NW, false);
	ck_assert_uint_eq(cps_mask_count(m, NW), 127);
	ck_assert(!cps_mask_test(m, NW, 0));
	free(m);
}
END_TEST

START_TEST(test_parse_hex_valid)
{
	uint64_t *m = parse_ok("0x3", 1, false);
	ck_assert_uint_eq(m[0], 3);
	free(m);
	m = parse_ok("0xFf\n", 1, false);
	ck_assert_uint_eq(m[0], 0xff);
	free(m);
	m = parse_ok("0xff00000000000000ff", 2, false);
	ck_assert_uint_eq(m[0], 0xff);
	ck_assert_uint_eq(m[1], 0xff);
	free(m);
	m = parse_ok("0x3,00000001", 2, false);
	ck_assert_uint_eq(m[0], 0x300000001ull);
	ck_assert_uint_eq(m[1], 0);
	free(m);
	/* leading zeros above the width are what a bigger kernel prints */
	m = parse_ok("0x00000000000000000000000000000000000000000000000001", 1, false);
	ck_assert_uint_eq(m[0], 1);
	free(m);

	m = parse_ok("ff,ffffffff", 1, true);
	ck_assert_uint_eq(m[0], 0xffffffffffull);
	free(m);
	m = parse_ok("00000000,00000000,00000000,80000000,00000001\n", 2, true);
	ck_assert_uint_eq(m[0], 0x8000000000000001ull);
	ck_assert_uint_eq(m[1], 0);
	free(m);
	/* short groups count as 32 bits each */
	m = parse_ok("1,1", 1, true);
	ck_assert_uint_eq(m[0], 0x100000001ull);
	free(m);
	m = parse_ok("0", 1, true);
	ck_assert_uint_eq(m[0], 0);
	free(m);
	m = parse_ok("80000000,00000000,00000000,00000000,00000000,00000000,00000000,"
		     "00000000",
		     4, true);
	ck_assert(cps_mask_test(m, 4, 255));
	ck_assert_uint_eq(cps_mask_count(m, 4), 1);
	free(m);
}
END_TEST

struct bad {
	const char *s;
	size_t nw;
	bool hex; /* through cps_hexmask_parse */
	const char *msg;
	size_t pos;
};

static const struct bad bad[] = {
	{ "", 1, false, "empty CPU list", 0 },
	{ "\n", 1, false, "empty CPU list", 0 },
	{ "3-1", 1, false, "reversed range", 0 },
	{ "0,10-9", 1, false, "reversed range", 2 },
	{ "99999999999999999999", 1, false, "number too large", 0 },
	{ "1-99999999999999999999", 1, false, "number too large", 2 },
	{ "0-3:99999999999999999999", 1, false, "number too large", 4 },
	{ "18446744073709551615", 1, false, "CPU beyond the width", 0 },
	{ "1a", 1, false, "trailing characters", 1 },
	{ "1-3x", 1, false, "trailing characters", 3 },
	{ "1:2", 1, false, "trailing characters", 1 },
	{ "0-7:2:1", 1, false, "trailing characters", 5 },
	{ "1 ", 1, false, "trailing characters", 1 },
	{ "1\n\n", 1, false, "trailing characters", 1 },
	{ "1\r\n", 1, false, "trailing characters", 1 },
	{ "1,0x3", 1, false, "trailing characters", 3 },
	{ "1-", 1, false, "expected a CPU number", 2 },
	{ "-1", 1, false, "expected a CPU number", 0 },
	{ "+1", 1, false, "expected a CPU number", 0 },
	{ " 1", 1, false, "expected a CPU number", 0 },
	{ "0-3:", 1, false, "expected a CPU number", 4 },
	{ "0-3:-1", 1, false, "expected a CPU number", 4 },
	{ "x", 1, false, "expected a CPU number", 0 },
	{ "0-7:0", 1, false, "stride must be at least 1", 4 },
	{ "0-7:000", 1, false, "stride must be at least 1", 4 },
	{ "64", 1, false, "CPU beyond the width", 0 },
	{ "0-64", 1, false, "CPU beyond the width", 2 },
	{ "70-60", 1, false, "CPU beyond the width", 0 },
	{ "8192", NW, false, "CPU beyond the width", 0 },
	{ "1,,2", 1, false, "empty item", 2 },
	{ "1,", 1, false, "empty item", 2 },
	{ "1,\n", 1, false, "empty item", 2 },
	{ ",1", 1, false, "empty item", 0 },
	{ ",", 1, false, "empty item", 0 },
	{ "0xg", 1, false, "bad hex digit", 2 },
	{ "0x3 ", 1, false, "bad hex digit", 3 },
	{ "0x-1", 1, false, "bad hex digit", 2 },
	{ "0x", 1, false, "empty item", 2 },
	{ "0x1,,2", 1, false, "empty item", 4 },
	{ "0x1,", 1, false, "empty item", 4 },
	{ "0x1,123456789", 1, false, "hex group longer than 8 digits", 12 },
	{ "0x10000000000000000", 1, false, "hex mask wider than the width", 2 },
	{ "0x1,00000000,00000000", 1, false, "hex mask wider than the width", 2 },
	{ "0x1,00000000,00000000,00000000,00000000", 2, false, "hex mask wider than the width", 2 },
	{ "0x3,00000000,00000000,00000000,0000000g", 2, false, "bad hex digit", 38 },
	{ "", 1, true, "empty CPU list", 0 },
	{ "\n", 1, true, "empty CPU list", 0 },
	{ "0x3", 1, true, "bad hex digit", 1 },
	{ "ff,,1", 1, true, "empty item", 3 },
	{ "ff,", 1, true, "empty item", 3 },
	{ ",ff", 1, true, "empty item", 0 },
	{ "fg", 1, true, "bad hex digit", 1 },
	{ "ff ", 1, true, "bad hex digit", 2 },
	{ "123456789", 1, true, "hex group longer than 8 digits", 8 },
	{ "1,ffffffff,ffffffff", 1, true, "hex mask wider than the width", 0 },
	{ "00000000,00000010,ffffffff,ffffffff", 1, true, "hex mask wider than the width", 15 },
};

START_TEST(test_parse_errors)
{
	const struct bad *b = &bad[_i];
	struct cps_parse_error e = { 12345, NULL };
	uint64_t *m = malloc(b->nw * sizeof(*m));
	ck_assert_ptr_nonnull(m);
	int r = b->hex ? cps_hexmask_parse(b->s, m, b->nw, &e)
		       : cps_cpulist_parse(b->s, m, b->nw, &e);
	ck_assert_msg(r == -1, "'%s' accepted", b->s);
	ck_assert_ptr_nonnull(e.msg);
	ck_assert_msg(strcmp(e.msg, b->msg) == 0, "'%s': got '%s', want '%s'", b->s, e.msg,
		      b->msg);
	ck_assert_msg(e.pos == b->pos, "'%s': %s at %zu, want %zu", b->s, e.msg, e.pos, b->pos);
	free(m);
}
END_TEST

START_TEST(test_parse_null)
{
	uint64_t m[1] = { 5 };
	struct cps_parse_error e;
	ck_assert_int_eq(cps_cpulist_parse(NULL, m, 1, &e), -1);
	ck_assert_str_eq(e.msg, "empty CPU list");
	ck_assert_uint_eq(m[0], 0);
	/* no error record wanted */
	ck_assert_int_eq(cps_cpulist_parse("3-1", m, 1, NULL), -1);
	ck_assert_int_eq(cps_hexmask_parse("g", m, 1, NULL), -1);
}
END_TEST

/* ---- printing ---- */

static void check_format(const uint64_t *m, size_t nw, const char *want)
{
	char buf[256];
	memset(buf, 'x', sizeof(buf));
	size_t n = cps_cpulist_format(buf, sizeof(buf), m, nw);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(n, strlen(want));
}

START_TEST(test_format)
{
	uint64_t m[NW];

	cps_mask_zero(m, NW);
	check_format(m, NW, "");
	MASK_OF(m, 1, 5);
	check_format(m, 1, "5");
	MASK_OF(m, 1, 0, 1);
	check_format(m, 1, "0-1");
	MASK_OF(m, 1, 0, 1, 2, 3, 8, 10, 11);
	check_format(m, 1, "0-3,8,10-11");
	MASK_OF(m, 1, 0, 2, 4, 6, 8);
	check_format(m, 1, "0,2,4,6,8");
	MASK_OF(m, 2, 63, 64);
	check_format(m, 2, "63-64");
	MASK_OF(m, 2, 0, 63, 127);
	check_format(m, 2, "0,63,127");
	cps_mask_fill(m, 2, 128);
	check_format(m, 2, "0-127");
	cps_mask_fill(m, 1, 64);
	check_format(m, 1, "0-63");
	cps_mask_fill(m, NW, 8192);
	check_format(m, NW, "0-8191");
	cps_mask_zero(m, NW);
	cps_mask_set(m, NW, 8191);
	check_format(m, NW, "8191");
	cps_mask_set(m, NW, 8190);
	cps_mask_set(m, NW, 4096);
	check_format(m, NW, "4096,8190-8191");
}
END_TEST

START_TEST(test_format_truncated)
{
	uint64_t m[1];
	char buf[16];

	MASK_OF(m, 1, 0, 1, 2, 3, 8); /* "0-3,8" */
	ck_assert_uint_eq(cps_cpulist_format(NULL, 0, m, 1), 5);
	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(cps_cpulist_format(buf, 1, m, 1), 5);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(cps_cpulist_format(buf, 3, m, 1), 5);
	ck_assert_str_eq(buf, "0-");
	ck_assert_uint_eq(cps_cpulist_format(buf, 5, m, 1), 5);
	ck_assert_str_eq(buf, "0-3,");
	ck_assert_uint_eq(cps_cpulist_format(buf, 6, m, 1), 5);
	ck_assert_str_eq(buf, "0-3,8");
	ck_assert_int_eq(buf[6], 'x');

	/* the empty mask still terminates */
	cps_mask_zero(m, 1);
	buf[0] = 'x';
	ck_assert_uint_eq(cps_cpulist_format(buf, 1, m, 1), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

static void check_hexfmt(const uint64_t *m, size_t nw, unsigned ngroups, const char *want)
{
	char buf[2400];
	size_t n = cps_hexmask_format(buf, sizeof(buf), m, nw, ngroups);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(n, strlen(want));
}

START_TEST(test_hexmask_format)
{
	uint64_t m[NW];
	char buf[32];

	MASK_OF(m, 1, 0, 1);
	check_hexfmt(m, 1, 2, "00000000,00000003");
	check_hexfmt(m, 1, 0, "00000003");
	check_hexfmt(m, 1, 1, "00000003");
	cps_mask_zero(m, 1);
	check_hexfmt(m, 1, 0, "00000000");
	check_hexfmt(m, 1, 3, "00000000,00000000,00000000");
	MASK_OF(m, 1, 32);
	check_hexfmt(m, 1, 0, "00000001,00000000");
	MASK_OF(m, 1, 0, 63);
	check_hexfmt(m, 1, 4, "00000000,00000000,80000000,00000001");
	/* fewer groups than the mask: exactly as asked */
	check_hexfmt(m, 1, 1, "00000001");
	MASK_OF(m, 2, 4, 5, 6, 7, 64, 127);
	check_hexfmt(m, 2, 0, "80000000,00000001,00000000,000000f0");
	cps_mask_fill(m, NW, 8192);
	ck_assert_uint_eq(cps_hexmask_format(NULL, 0, m, NW, 0), 256 * 9 - 1);

	MASK_OF(m, 1, 0, 1);
	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(cps_hexmask_format(buf, 10, m, 1, 2), 17);
	ck_assert_str_eq(buf, "00000000,");
	ck_assert_uint_eq(cps_hexmask_format(buf, 17, m, 1, 2), 17);
	ck_assert_str_eq(buf, "00000000,0000000");
	ck_assert_uint_eq(cps_hexmask_format(buf, 18, m, 1, 2), 17);
	ck_assert_str_eq(buf, "00000000,00000003");
}
END_TEST

static void random_mask(uint64_t *m, size_t nw, unsigned density)
{
	for (size_t i = 0; i < nw; i++) {
		uint64_t w = lcg() | (lcg() << 53);
		for (unsigned d = 0; d < density; d++)
			w &= lcg() | (lcg() << 53);
		/* runs as well as scattered bits */
		if (density > 3 && lcg() % 4 == 0)
			w = lcg() % 2 ? ~(uint64_t)0 : 0;
		m[i] = w;
	}
}

START_TEST(test_roundtrip)
{
	static char buf[CPS_MAX_CPUS * 6], hex[CPS_MAX_CPUS / 4 + 300];
	uint64_t m[NW], r[NW];
	struct cps_parse_error e;

	lcg_state = 2024;
	for (int t = 0; t < 300; t++) {
		random_mask(m, NW, (unsigned)(lcg() % 8));
		size_t n = cps_cpulist_format(NULL, 0, m, NW);
		ck_assert_uint_lt(n, sizeof(buf));
		ck_assert_uint_eq(cps_cpulist_format(buf, n + 1, m, NW), n);
		ck_assert_uint_eq(strlen(buf), n);
		if (cps_mask_empty(m, NW)) {
			ck_assert_str_eq(buf, "");
		} else {
			ck_assert_msg(cps_cpulist_parse(buf, r, NW, &e) == 0, "%s at %zu", e.msg,
				      e.pos);
			ck_assert(cps_mask_equal(m, r, NW));
		}

		unsigned groups = t % 2 ? 256 : 0;
		n = cps_hexmask_format(hex + 2, sizeof(hex) - 2, m, NW, groups);
		ck_assert_uint_lt(n, sizeof(hex) - 2);
		ck_assert_int_eq(cps_hexmask_parse(hex + 2, r, NW, &e), 0);
		ck_assert(cps_mask_equal(m, r, NW));
		memcpy(hex, "0x", 2);
		ck_assert_int_eq(cps_cpulist_parse(hex, r, NW, &e), 0);
		ck_assert(cps_mask_equal(m, r, NW));
	}
}
END_TEST

static Suite *cpulist_suite(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_valid);
	tcase_add_test(tc, test_parse_hex_valid);
	tcase_add_loop_test(tc, test_parse_errors, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_parse_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_format_truncated);
	tcase_add_test(tc, test_hexmask_format);
	tcase_add_test(tc, test_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cpulist_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
