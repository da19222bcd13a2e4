/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/path.h"

/* Every spelling the kernel accepts comes out as the one canonical path;
 * what needs the kernel says so and how much of the path it must resolve. */

#define PID 4242
#define TID 4250

static enum cps_canon canon(char *out, size_t len, const char *base, const char *path, int flags,
			    size_t *consumed)
{
	return cps_path_canon(out, len, base, path, PID, TID, flags, consumed);
}

static void expect_ok(const char *base, const char *path, const char *want)
{
	char out[4096];
	size_t consumed = 99999;
	enum cps_canon r = canon(out, sizeof(out), base, path, 0, &consumed);

	ck_assert_msg(r == CPS_CANON_OK, "%s + %s: result %d, want OK (%s)", base ? base : "-",
		      path, (int)r, r == CPS_CANON_KERNEL ? "kernel" : out);
	ck_assert_msg(strcmp(out, want) == 0, "%s + %s: got %s, want %s", base ? base : "-", path,
		      out, want);
}

static void expect_r(const char *base, const char *path, enum cps_canon want)
{
	char out[4096];
	size_t consumed = 0;
	enum cps_canon r = canon(out, sizeof(out), base, path, 0, &consumed);

	ck_assert_msg(r == want, "%s + %s: result %d, want %d", base ? base : "-", path, (int)r,
		      (int)want);
}

START_TEST(spellings_of_proc_cpuinfo)
{
	static const char *const abs[] = {
		"/proc/cpuinfo", "//proc/cpuinfo", "///proc///cpuinfo", "/proc/./cpuinfo",
		"/./proc/cpuinfo", "/proc/self/../cpuinfo", "/proc/thread-self/../../../cpuinfo",
		"/../proc/cpuinfo", "/../../proc/./././cpuinfo", "/proc/4242/../cpuinfo",
		"/proc/4242/task/4250/../../../cpuinfo", "/sys/../proc/cpuinfo",
		"/sys/devices/system/cpu/cpu1/../../../../../proc/cpuinfo",
	};
	for (size_t i = 0; i < sizeof(abs) / sizeof(abs[0]); i++)
		expect_ok(NULL, abs[i], "/proc/cpuinfo");
	expect_ok("/proc", "cpuinfo", "/proc/cpuinfo");
	expect_ok("/proc", "./cpuinfo", "/proc/cpuinfo");
	expect_ok("/proc/", "cpuinfo", "/proc/cpuinfo");
	expect_ok("/", "proc/cpuinfo", "/proc/cpuinfo");
	expect_ok("/tmp", "../proc/cpuinfo", "/proc/cpuinfo");
	expect_ok("/home/user/work", "../../../proc//cpuinfo", "/proc/cpuinfo");
	expect_ok("/proc/4242", "../cpuinfo", "/proc/cpuinfo");
	expect_ok("/sys/devices/system/cpu", "../../../../proc/cpuinfo", "/proc/cpuinfo");
	/* a base is absolute and canonical: its components are trusted */
	expect_ok("/proc/4242/task/4250", "../../../cpuinfo", "/proc/cpuinfo");
}
END_TEST

START_TEST(self_and_thread_self)
{
	expect_ok(NULL, "/proc/self/stat", "/proc/4242/stat");
	expect_ok(NULL, "/proc/self/status", "/proc/4242/status");
	expect_ok(NULL, "/proc/thread-self/stat", "/proc/4242/task/4250/stat");
	expect_ok(NULL, "/proc/self/task/4251/stat", "/proc/4242/task/4251/stat");
	expect_ok(NULL, "/proc/self/task/4251/../4252/stat", "/proc/4242/task/4252/stat");
	expect_ok(NULL, "/proc/1/stat", "/proc/1/stat");
	expect_ok(NULL, "/proc/1//task/1/./stat", "/proc/1/task/1/stat");
	expect_ok("/proc", "self/stat", "/proc/4242/stat");
	expect_ok("/proc", "self", "/proc/4242");
	expect_ok("/proc/self", "stat", "/proc/self/stat"); /* a base is taken as it is */
	/* the link itself */
	char out[256];
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/self", CPS_CANON_NOFOLLOW, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/proc/self");
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/self/", CPS_CANON_NOFOLLOW, NULL),
			 CPS_CANON_DIR);
	ck_assert_str_eq(out, "/proc/4242");
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/self/stat", CPS_CANON_NOFOLLOW, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/proc/4242/stat");
	/* without ids the links cannot be expanded on text */
	ck_assert_int_eq(cps_path_canon(out, sizeof(out), NULL, "/proc/self/../cpuinfo", 0, 0, 0,
					NULL),
			 CPS_CANON_KERNEL);
	ck_assert_int_eq(cps_path_canon(out, sizeof(out), NULL, "/proc/thread-self/stat", PID, 0,
					0, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/proc/thread-self/stat");
}
END_TEST

START_TEST(sys_cpu_spellings)
{
	expect_ok(NULL, "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/online");
	expect_ok(NULL, "//sys//devices/system/cpu/./online", "/sys/devices/system/cpu/online");
	expect_ok("/sys/devices/system/cpu", "online", "/sys/devices/system/cpu/online");
	expect_ok("/sys/devices/system/cpu/cpu1", "../online", "/sys/devices/system/cpu/online");
	expect_ok("/sys/devices/system", "cpu/cpu0/topology/core_cpus_list",
		  "/sys/devices/system/cpu/cpu0/topology/core_cpus_list");
	/* the bus links, expanded by name: the names stay virtual */
	expect_ok(NULL, "/sys/bus/cpu/devices/cpu1/topology/thread_siblings_list",
		  "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list");
	expect_ok(NULL, "/sys/bus/cpu/devices/cpu1", "/sys/devices/system/cpu/cpu1");
	expect_ok(NULL, "/sys/bus/cpu/devices/cpu1/../online", "/sys/devices/system/cpu/online");
	expect_ok(NULL, "/sys/bus/cpu/devices/cpu1/../cpu0/cache/index2/shared_cpu_list",
		  "/sys/devices/system/cpu/cpu0/cache/index2/shared_cpu_list");
	expect_ok(NULL, "/sys/bus/cpu/devices", "/sys/bus/cpu/devices");
	expect_ok(NULL, "/sys/bus/cpu/devices/../../cpu/devices", "/sys/bus/cpu/devices");
	expect_ok(NULL, "/sys/devices/system/cpu/cpu3/node1/cpulist",
		  "/sys/devices/system/node/node1/cpulist");
	expect_ok(NULL, "/sys/devices/system/node/node1/cpu3/online",
		  "/sys/devices/system/cpu/cpu3/online");
	expect_ok(NULL, "/sys/bus/node/devices/node0/cpumap", "/sys/devices/system/node/node0/cpumap");
	expect_ok(NULL, "/sys/devices/system/cpu/cpu2/subsystem/devices/cpu0",
		  "/sys/devices/system/cpu/cpu0");
	expect_ok(NULL, "/sys/devices/system/cpu/cpu2/cache/index0/../../topology/core_id",
		  "/sys/devices/system/cpu/cpu2/topology/core_id");
	char out[256];
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/bus/cpu/devices/cpu1",
			       CPS_CANON_NOFOLLOW, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/sys/bus/cpu/devices/cpu1");
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/devices/system/cpu/", 0, NULL),
			 CPS_CANON_DIR);
	ck_assert_str_eq(out, "/sys/devices/system/cpu");
	ck_assert_int_eq(canon(out, sizeof(out), "/sys/devices/system/cpu", ".", 0, NULL),
			 CPS_CANON_DIR);
	ck_assert_str_eq(out, "/sys/devices/system/cpu");
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/cpuinfo/", 0, NULL), CPS_CANON_DIR);
}
END_TEST

START_TEST(unknown_links_need_the_kernel)
{
	char out[256];
	size_t c = 0;

	/* cwd, root, fd/N lead anywhere */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/self/cwd/../stat", 0, &c),
			 CPS_CANON_KERNEL);
	ck_assert_uint_eq(c, strlen("/proc/self/cwd/"));
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/self/root/proc/../proc/cpuinfo", 0,
			       &c),
			 CPS_CANON_KERNEL);
	ck_assert_uint_eq(c, strlen("/proc/self/root/proc/"));
	/* cpuN/cpufreq is a link to ../cpufreq/policyN on many machines */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/devices/system/cpu/cpu0/cpufreq/../online",
			       0, &c),
			 CPS_CANON_KERNEL);
	/* /proc/net is a link to self/net */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/net/../cpuinfo", 0, &c),
			 CPS_CANON_KERNEL);
	ck_assert_uint_eq(c, strlen("/proc/net/"));
	/* a file followed by "..": the kernel says ENOTDIR */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/cpuinfo/../stat", 0, &c),
			 CPS_CANON_KERNEL);
	/* relative: consumed counts in the relative path */
	ck_assert_int_eq(canon(out, sizeof(out), "/proc/4242", "cwd/../stat", 0, &c),
			 CPS_CANON_KERNEL);
	ck_assert_uint_eq(c, 4);
	/* the unknown name itself is fine without ".." after it */
	expect_ok(NULL, "/proc/self/fd/3", "/proc/4242/fd/3");
	expect_ok(NULL, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
		  "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	/* a cgroup hierarchy's root may be a link (cpu -> cpu,cpuacct) */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/fs/cgroup/cpu/../cpuset/cpuset.cpus", 0,
			       &c),
			 CPS_CANON_KERNEL);
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/fs/cgroup/cpuset/a/b/../cpuset.cpus",
			       0, &c),
			 CPS_CANON_KERNEL);
	ck_assert_uint_eq(c, strlen("/sys/fs/cgroup/cpuset/a/b/"));
	expect_ok(NULL, "/sys/fs/cgroup//cpuset/./cpuset.effective_cpus",
		  "/sys/fs/cgroup/cpuset/cpuset.effective_cpus");
}
END_TEST

START_TEST(outside_is_viewless)
{
	expect_r(NULL, "/etc/passwd", CPS_CANON_VIEWLESS);
	expect_r(NULL, "/", CPS_CANON_VIEWLESS);
	expect_r(NULL, "", CPS_CANON_VIEWLESS);
	expect_r(NULL, "cpuinfo", CPS_CANON_VIEWLESS); /* relative without a base */
	expect_r("relative", "cpuinfo", CPS_CANON_VIEWLESS);
	expect_r("/tmp", "cpuinfo", CPS_CANON_VIEWLESS);
	expect_r("/proc", "../etc/passwd", CPS_CANON_VIEWLESS);
	expect_r(NULL, "/procfs/cpuinfo", CPS_CANON_VIEWLESS);
	expect_r(NULL, "/system/cpu", CPS_CANON_VIEWLESS);
	expect_r(NULL, "/proc/..", CPS_CANON_VIEWLESS);
	/* in /proc or /sys, the classifier decides */
	expect_r(NULL, "/proc", CPS_CANON_OK);
	expect_r(NULL, "/sys/class/net/lo/mtu", CPS_CANON_OK);
	/* too long for out: the kernel would refuse it anyway */
	char big[8192], out[64];
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	memcpy(big, "/proc/", 6);
	big[sizeof(big) - 1] = 0;
	ck_assert_int_eq(canon(out, sizeof(out), NULL, big, 0, NULL), CPS_CANON_VIEWLESS);
	ck_assert_int_eq(canon(out, sizeof(out), "/sys/devices/system/cpu/cpu1/topology/x/y/z/w",
			       "../../../../../../../../../../proc/cpuinfo", 0, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/proc/cpuinfo");
	ck_assert_int_eq(canon(out, 14, NULL, "/proc/cpuinfo", 0, NULL), CPS_CANON_OK);
	ck_assert_int_eq(canon(out, 13, NULL, "/proc/cpuinfo", 0, NULL), CPS_CANON_VIEWLESS);
	ck_assert_int_eq(canon(out, 16, NULL, "/sys/bus/cpu/devices/cpu1", 0, NULL),
			 CPS_CANON_VIEWLESS);
}
END_TEST

START_TEST(leading_zeros_are_not_pids)
{
	char out[256];

	/* procfs refuses "0042" as a pid, so it is a name like any other */
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/proc/0042/../cpuinfo", 0, NULL),
			 CPS_CANON_KERNEL);
	ck_assert_int_eq(canon(out, sizeof(out), NULL, "/sys/bus/cpu/devices/cpu01/online", 0, NULL),
			 CPS_CANON_OK);
	ck_assert_str_eq(out, "/sys/bus/cpu/devices/cpu01/online");
}
END_TEST

START_TEST(relative_fast_reject)
{
	static const char *const maybe[] = {
		"cpuinfo", "stat", "./status", "online", "cpu1", "cpu12/online",
		"topology/core_cpus_list", "cache/index0/shared_cpu_map", "node0/cpulist", "..",
		"../cpuinfo", "a/../b", "proc/cpuinfo", "sys/devices", "cpuset.cpus",
		"cpuset.cpus.effective", "cpuset.effective_cpus", "thread_siblings",
		"core_siblings_list", "die_cpus", "package_cpus_list", "task/12/stat",
		"cpu", "node", "devices", ".", "online/", "has_cpu", "proc/x", "procs/cpuinfo",
		"self/status", "meminfo", "distance", "has_memory", "enabled", "nohz_full",
	};
	static const char *const never[] = {
		"", "foo.c", "src/main.c", "cpux", "cpu01", "...", "..a", "a..",
		"stats", "procs", "x/proc/y", "online.txt", "onlinex",
		".git/HEAD", "node01x", "self", "topology", "cache", "index0", "numastat", "proc", "sys",
	};
	for (size_t i = 0; i < sizeof(maybe) / sizeof(maybe[0]); i++)
		ck_assert_msg(cps_path_rel_may_view(maybe[i]), "%s may be a view", maybe[i]);
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		ck_assert_msg(!cps_path_rel_may_view(never[i]), "%s is no view", never[i]);
	ck_assert(cps_path_has_dotdot(".."));
	ck_assert(cps_path_has_dotdot("a/../b"));
	ck_assert(cps_path_has_dotdot("a/.."));
	ck_assert(!cps_path_has_dotdot("a..b/c"));
	ck_assert(!cps_path_has_dotdot("..."));
	ck_assert(!cps_path_has_dotdot("a/...b"));
	ck_assert(!cps_path_has_dotdot(""));
}
END_TEST

/* The one-pass test for a path already canonical agrees with the general
 * walk on every path made of the names that matter to either: 200,000
 * random absolute spellings (fixed seed; a failure prints the path). */
START_TEST(fast_path_agrees_with_walk)
{
	static const char *const names[] = {
		"proc", "sys", "self", "thread-self", "4242", "4250", "task", "stat", "status",
		"cpuinfo", "devices", "system", "cpu", "cpu0", "cpu12", "cpu01", "node", "node1",
		"topology", "core_id", "cache", "index0", "subsystem", "bus", "fs", "cgroup", "x",
		".", "..", "", "cpufreq", "online", "selfish", "busy", "n", "s", "c", ".hidden",
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	unsigned seed = 12345;

	for (int it = 0; it < 200000; it++) {
		char path[512], a[4096], b[4096];
		size_t len = 0, ca = 777, cb = 777;
		unsigned depth = 1 + (unsigned)(rand_r(&seed) % 8);

		/* mostly below /proc or /sys, as the views are */
		if (rand_r(&seed) % 4) {
			const char *top = rand_r(&seed) % 2 ? "/proc" : "/sys/devices/system";
			len = (size_t)snprintf(path, sizeof(path), "%s", top);
		}
		for (unsigned d = 0; d < depth; d++)
			len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s",
						names[rand_r(&seed) % nn]);
		if (rand_r(&seed) % 8 == 0)
			len += (size_t)snprintf(path + len, sizeof(path) - len, "/");
		int fl = rand_r(&seed) % 2 ? CPS_CANON_NOFOLLOW : 0;
		size_t outlen = rand_r(&seed) % 16 == 0 ? 1 + (size_t)(rand_r(&seed) % 40) : sizeof(a);
		/* now and then no pid or no tid known: the walk keeps the link */
		pid_t pid = rand_r(&seed) % 16 ? PID : 0, tid = rand_r(&seed) % 16 ? TID : 0;
		enum cps_canon ra = cps_path_canon(a, outlen, NULL, path, pid, tid, fl, &ca);
		enum cps_canon rb = cps_path_canon_walk(b, outlen, NULL, path, pid, tid, fl, &cb);

		ck_assert_msg(ra == rb, "%s (outlen %zu): %d, the walk says %d", path, outlen, (int)ra,
			      (int)rb);
		if (ra == CPS_CANON_OK || ra == CPS_CANON_DIR)
			ck_assert_msg(strcmp(a, b) == 0, "%s: %s, the walk says %s", path, a, b);
		if (ra == CPS_CANON_KERNEL)
			ck_assert_msg(ca == cb, "%s: consumed %zu, the walk says %zu", path, ca, cb);
	}
}
END_TEST

/* The quick first test never passes a name the full test takes: every
 * name of a view, and 500,000 random names of bytes that matter (letters
 * of those names, digits, '_', '-', '@', DEL, bytes >= 128). And it does
 * pass ordinary names. */
START_TEST(quick_pass_is_safe)
{
	static const char *const views[] = {
		"cpu", "cpu0", "cpu17", "cpuinfo", "cpulist", "cpumap", "cpuset.cpus",
		"cpuset.cpus.effective", "cpuset.effective_cpus", "devices", "has_cpu",
		"isolated", "kernel_max", "node", "node0", "node12", "online",
		"offline", "possible", "present", "stat", "status",
		"proc/stat", "sys/devices", "core_siblings", "core_siblings_list", "thread_siblings",
		"book_siblings_list", "drawer_siblings", "die_cpus", "die_cpus_list",
		"package_cpus", "cluster_cpus_list", "core_cpus", "shared_cpu_map",
		"shared_cpu_list", "related_cpus", "meminfo", "distance", "has_memory",
		"has_normal_memory", "affected_cpus", "freqdomain_cpus", "enabled", "nohz_full",
		"cpus", "effective_cpus",
	};
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz_-0123456789@\x7f\x80\xff";
	unsigned seed = 777;

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		ck_assert_msg(cps_path_rel_may_view(views[i]), "%s: no view?", views[i]);
		ck_assert_msg(!cps_path_rel_quick_pass(views[i]), "%s passed", views[i]);
	}
	for (int it = 0; it < 500000; it++) {
		char name[24];
		size_t n = 1 + (size_t)(rand_r(&seed) % 20);

		for (size_t j = 0; j < n; j++)
			name[j] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		name[n] = 0;
		if (rand_r(&seed) % 3 == 0) /* a view's ending, on any start */
			snprintf(name + n / 2, sizeof(name) - n / 2, "%s",
				 rand_r(&seed) % 2 ? "_cpus" : "_siblings_list");
		if (cps_path_rel_may_view(name))
			ck_assert_msg(!cps_path_rel_quick_pass(name), "%s passed", name);
	}
	ck_assert(cps_path_rel_quick_pass("zero")); /* ("nu" may begin numa_maps) */
	ck_assert(cps_path_rel_quick_pass("libfoo"));
	ck_assert(cps_path_rel_quick_pass("g")); /* (a, e, f, r begin cpufreq lists) */
	ck_assert(!cps_path_rel_quick_pass("a/b"));
	ck_assert(!cps_path_rel_quick_pass("data.json"));
}
END_TEST

static Suite *path_suite(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("canon");

	tcase_add_test(tc, spellings_of_proc_cpuinfo);
	tcase_add_test(tc, self_and_thread_self);
	tcase_add_test(tc, sys_cpu_spellings);
	tcase_add_test(tc, unknown_links_need_the_kernel);
	tcase_add_test(tc, outside_is_viewless);
	tcase_add_test(tc, leading_zeros_are_not_pids);
	tcase_add_test(tc, relative_fast_reject);
	tcase_add_test(tc, fast_path_agrees_with_walk);
	tcase_add_test(tc, quick_pass_is_safe);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(path_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
