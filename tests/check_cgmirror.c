/* SPDX-License-Identifier: BSD-3-Clause */
/* The cgroup mirror's pure parts (src/cgmirror.c): the cpuset hierarchy
 * found in /proc/self/mounts, a word of cgroup.controllers. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/cgmirror.h"

static const char *hier(const char *mounts, bool v2)
{
	static char dir[256];
	strcpy(dir, "(untouched)");
	int r = cps_cgm_hierarchy(mounts, v2, dir, sizeof(dir));
	return r == 0 ? dir : r == -ENOENT ? "ENOENT" : "other error";
}

START_TEST(test_v1)
{
	const char *m = "sysfs /sys sysfs rw,nosuid 0 0\n"
			"tmpfs /sys/fs/cgroup tmpfs rw,mode=755 0 0\n"
			"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
			"cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0\n"
			"cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n"
			"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
	ck_assert_str_eq(hier(m, false), "/sys/fs/cgroup/cpuset");
	ck_assert_str_eq(hier(m, true), "/sys/fs/cgroup/unified");
	/* cpuset among other controllers, and with the v2 mode option */
	ck_assert_str_eq(hier("cgroup /c cgroup rw,cpu,cpuset,memory 0 0\n", false), "/c");
	ck_assert_str_eq(hier("cgroup /c cgroup rw,cpuset,cpuset_v2_mode 0 0", false), "/c");
	/* names that only hold the word are other controllers or options */
	ck_assert_str_eq(hier("cgroup /c cgroup rw,cpuset_v2_mode,cpusetx 0 0\n", false), "ENOENT");
	ck_assert_str_eq(hier("cgroup /c cgroup rw,name=cpuset 0 0\n", false), "ENOENT");
	/* noprefix: its files lack the prefix the mirror writes */
	ck_assert_str_eq(hier("cgroup /dev/cpuset cgroup rw,cpuset,noprefix 0 0\n"
			      "cgroup /c cgroup rw,cpuset 0 0\n", false), "/c");
	/* the legacy cpuset filesystem is not a cgroup mount */
	ck_assert_str_eq(hier("none /dev/cpuset cpuset rw 0 0\n", false), "ENOENT");
}
END_TEST

START_TEST(test_v2)
{
	const char *m = "proc /proc proc rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n";
	ck_assert_str_eq(hier(m, false), "ENOENT");
	ck_assert_str_eq(hier(m, true), "/sys/fs/cgroup");
	/* the first of two */
	ck_assert_str_eq(hier("cgroup2 /a cgroup2 rw 0 0\ncgroup2 /b cgroup2 rw 0 0\n", true), "/a");
}
END_TEST

START_TEST(test_odd)
{
	ck_assert_str_eq(hier("", true), "ENOENT");
	ck_assert_str_eq(hier("\n\n", true), "ENOENT");
	/* a line of too few fields, a line cut short */
	ck_assert_str_eq(hier("cgroup2 /a cgroup2\n", true), "ENOENT");
	ck_assert_str_eq(hier("cgroup2", true), "ENOENT");
	/* a mount point with an escaped space is passed over */
	ck_assert_str_eq(hier("cgroup2 /a\\040b cgroup2 rw 0 0\ncgroup2 /c cgroup2 rw 0 0\n", true),
			 "/c");
	/* a mount point longer than the buffer is passed over */
	char big[600];
	memset(big, 'x', sizeof(big));
	memcpy(big, "cgroup2 /", 9);
	strcpy(big + 300, " cgroup2 rw 0 0\ncgroup2 /short cgroup2 rw 0 0\n");
	ck_assert_str_eq(hier(big, true), "/short");
	/* a line longer than the parser's line buffer */
	char *huge = malloc(5000);
	ck_assert_ptr_nonnull(huge);
	memset(huge, 'y', 4000);
	strcpy(huge + 4000, "\ncgroup2 /ok cgroup2 rw 0 0\n");
	ck_assert_str_eq(hier(huge, true), "/ok");
	free(huge);
}
END_TEST

START_TEST(test_word)
{
	ck_assert(cps_cgm_word("cpuset cpu io memory pids", "cpuset"));
	ck_assert(cps_cgm_word("cpu io memory pids cpuset", "cpuset"));
	ck_assert(cps_cgm_word("cpuset", "cpuset"));
	ck_assert(!cps_cgm_word("cpu io memory", "cpuset"));
	ck_assert(!cps_cgm_word("cpusets cpu", "cpuset"));
	ck_assert(!cps_cgm_word("xcpuset", "cpuset"));
	ck_assert(!cps_cgm_word("", "cpuset"));
	ck_assert(cps_cgm_word("  cpu   cpuset ", "cpuset"));
}
END_TEST

static Suite *cgmirror_suite(void)
{
	Suite *s = suite_create("cgmirror");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_v1);
	tcase_add_test(tc, test_v2);
	tcase_add_test(tc, test_odd);
	tcase_add_test(tc, test_word);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cgmirror_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
