/* SPDX-License-Identifier: BSD-3-Clause */
/* The LD_PRELOAD value that loads the shim (src/ldpreload.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/ldpreload.h"

#define SHIM "/usr/lib/cpusetshim/libcpusetshim.so"
#define ASAN "/usr/lib/x86_64-linux-gnu/libasan.so.8"

/* Builds from old into a buffer of exactly the size the header promises is
 * enough, and checks the result and its length. */
static void check_build(const char *old, const char *shim, const char *want)
{
	size_t len = strlen(shim) + (old ? strlen(old) : 0) + 2;
	char *buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	ssize_t n = cps_preload_build(buf, len, old, shim);
	ck_assert_msg(n >= 0, "'%s': refused", old ? old : "(unset)");
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq((size_t)n, strlen(want));
	free(buf);
}

START_TEST(test_empty)
{
	check_build(NULL, SHIM, SHIM);
	check_build("", SHIM, SHIM);
	check_build(":", SHIM, SHIM);
	check_build("  ", SHIM, SHIM);
}
END_TEST

START_TEST(test_kept)
{
	check_build("/a/liba.so", SHIM, SHIM ":/a/liba.so");
	check_build("/a/liba.so:/b/libb.so", SHIM, SHIM ":/a/liba.so:/b/libb.so");
}
END_TEST

START_TEST(test_present)
{
	check_build(SHIM, SHIM, SHIM);
	check_build(SHIM ":/a/liba.so:/b/libb.so", SHIM, SHIM ":/a/liba.so:/b/libb.so");
	check_build("/a/liba.so:" SHIM ":/b/libb.so", SHIM, SHIM ":/a/liba.so:/b/libb.so");
	check_build("/a/liba.so:/b/libb.so:" SHIM, SHIM, SHIM ":/a/liba.so:/b/libb.so");
	/* another copy of the shim, by file name, and twice */
	check_build("/opt/libcpusetshim.so:/a/liba.so:libcpusetshim.so", SHIM, SHIM ":/a/liba.so");
	/* the shim given by a path of another name is still found */
	check_build("/a/liba.so:/x/myshim.so", "/x/myshim.so", "/x/myshim.so:/a/liba.so");
	/* a name that only contains the shim's is another library */
	check_build("/a/libcpusetshim.so.1:/b/libcpusetshim.sox", SHIM,
		    SHIM ":/a/libcpusetshim.so.1:/b/libcpusetshim.sox");
}
END_TEST

START_TEST(test_separators)
{
	check_build("/a/liba.so /b/libb.so", SHIM, SHIM ":/a/liba.so:/b/libb.so");
	check_build(" /a/liba.so: :" SHIM " /b/libb.so: ", SHIM, SHIM ":/a/liba.so:/b/libb.so");
	check_build("::/a/liba.so::", SHIM, SHIM ":/a/liba.so");
}
END_TEST

START_TEST(test_sanitizer)
{
	check_build(ASAN, SHIM, ASAN ":" SHIM);
	check_build(ASAN ":/a/liba.so", SHIM, ASAN ":" SHIM ":/a/liba.so");
	check_build(ASAN " " SHIM " /a/liba.so", SHIM, ASAN ":" SHIM ":/a/liba.so");
	check_build("/x/libtsan.so.2:/a/liba.so", SHIM, "/x/libtsan.so.2:" SHIM ":/a/liba.so");
	/* only a runtime that comes first is kept first */
	check_build("/a/liba.so:" ASAN, SHIM, SHIM ":/a/liba.so:" ASAN);
}
END_TEST

START_TEST(test_too_long)
{
	char buf[64];
	const char *old = "/a/liba.so:/b/libb.so";
	size_t need = strlen(SHIM ":/a/liba.so:/b/libb.so") + 1;
	ck_assert_uint_lt(need, sizeof(buf));
	errno = 0;
	ck_assert_int_eq(cps_preload_build(buf, need - 1, old, SHIM), -1);
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(cps_preload_build(buf, need, old, SHIM), (ssize_t)need - 1);
	ck_assert_str_eq(buf, SHIM ":/a/liba.so:/b/libb.so");
	/* too small for the shim itself, and for a sanitizer before it */
	ck_assert_int_eq(cps_preload_build(buf, strlen(SHIM), NULL, SHIM), -1);
	ck_assert_int_eq(cps_preload_build(buf, strlen(ASAN) + 2, ASAN, SHIM), -1);
	ck_assert_int_eq(cps_preload_build(buf, 0, NULL, SHIM), -1);

	/* a long value keeps every entry in order */
	size_t n = 200, el = 13;
	char *big = malloc(n * el + 1), *want = malloc(sizeof(SHIM) + n * el + 1);
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_nonnull(want);
	strcpy(want, SHIM);
	for (size_t i = 0; i < n; i++) {
		snprintf(big + i * el, el + 1, "/l/lib%03zu.so%c", i, i + 1 < n ? ':' : 0);
		snprintf(want + strlen(want), el + 2, ":/l/lib%03zu.so", i);
	}
	check_build(big, SHIM, want);
	free(big);
	free(want);
}
END_TEST

START_TEST(test_is_shim)
{
	ck_assert(cps_preload_is_shim("libcpusetshim.so", 16, NULL));
	ck_assert(cps_preload_is_shim("/p/libcpusetshim.so:x", 19, NULL));
	ck_assert(!cps_preload_is_shim("/p/libcpusetshim.so:x", 18, NULL));
	ck_assert(!cps_preload_is_shim("", 0, NULL));
	ck_assert(!cps_preload_is_shim("", 0, ""));
	ck_assert(cps_preload_is_shim("/x/s.so", 7, "/x/s.so"));
	ck_assert(!cps_preload_is_shim("/x/s.so", 6, "/x/s.so"));
}
END_TEST

/* Drops from old into a buffer of exactly strlen(old) + 1 bytes. */
static void check_without(const char *old, const char *want)
{
	size_t len = (old ? strlen(old) : 0) + 1;
	char *buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	ssize_t n = cps_preload_without(buf, len, old, SHIM);
	ck_assert_msg(n >= 0, "'%s': refused", old ? old : "(unset)");
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq((size_t)n, strlen(want));
	free(buf);
}

START_TEST(test_without)
{
	check_without(NULL, "");
	check_without("", "");
	check_without(SHIM, "");
	check_without("/elsewhere/libcpusetshim.so", "");
	check_without(SHIM ":" SHIM, "");
	check_without("a.so:" SHIM " b.so", "a.so:b.so");
	check_without(ASAN ":" SHIM, ASAN);
	check_without("x.so  y.so::", "x.so:y.so");
	char small[4];
	ck_assert_int_eq(cps_preload_without(small, sizeof(small), "abcd.so", SHIM), -1);
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_str_eq(small, "");
}
END_TEST

static Suite *ldpreload_suite(void)
{
	Suite *s = suite_create("ldpreload");
	TCase *tc = tcase_create("build");
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_kept);
	tcase_add_test(tc, test_present);
	tcase_add_test(tc, test_separators);
	tcase_add_test(tc, test_sanitizer);
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_is_shim);
	tcase_add_test(tc, test_without);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ldpreload_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
