/* SPDX-License-Identifier: BSD-3-Clause */
/* The /sys topology views (src/vsys.h), the family classifier
 * (src/vpath.h) and cpuinfo's shape (src/vcpuinfo.h), on text alone and
 * on the captured machines. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vcpuinfo.h"
#include "src/path.h"
#include "src/redirects.h"
#include "src/vfiles.h"
#include "src/vmake.h"
#include "src/vpath.h"
#include "src/vsys.h"

#define NW 4

struct set {
	uint64_t m[NW];
	unsigned n;
	struct cps_view_input in;
};

static void set_of(struct set *s, const char *list)
{
	struct cps_parse_error err;

	memset(s, 0, sizeof(*s));
	ck_assert_msg(cps_cpulist_parse(list, s->m, NW, &err) == 0, "bad list %s", list);
	s->n = cps_mask_count(s->m, NW);
	s->in.set = s->m;
	s->in.nw = NW;
	s->in.n = s->n;
}

/* A view of text (given without its NUL, as read) as a C string. */
static char *view_of(int kind, const char *text, const struct set *s)
{
	struct cps_buf out = { 0 };
	size_t len = strlen(text);
	char *exact = malloc(len ? len : 1), *r;

	memcpy(exact, text, len);
	ck_assert_int_eq(cps_view_cpumask_file(&out, kind, exact, len, &s->in), 0);
	free(exact);
	r = strdup(out.p);
	cps_buf_free(&out);
	return r;
}

/* ---- the classifier ---- */

START_TEST(test_family)
{
	static const struct {
		const char *path;
		enum cps_vfamily f;
	} cases[] = {
		{ "/proc/cpuinfo", CPS_VF_CPUINFO },
		{ "/proc/stat", CPS_VF_STAT },
		{ "/proc/self/status", CPS_VF_STATUS },
		{ "/proc/123/task/456/status", CPS_VF_STATUS },
		{ "/proc/123/stat", CPS_VF_PIDSTAT },
		{ "/proc/thread-self/stat", CPS_VF_PIDSTAT },
		{ "/proc/123/statm", CPS_VF_NONE },
		{ "/proc/cpuinfox", CPS_VF_NONE },
		{ "/proc/12a/stat", CPS_VF_NONE },
		{ "/sys/devices/system/cpu", CPS_VF_CPUDIR },
		{ "/sys/devices/system/cpu/cpu3/topology/core_id", CPS_VF_CPUDIR },
		{ "/sys/devices/system/cpufreq", CPS_VF_NONE },
		{ "/sys/bus/cpu/devices", CPS_VF_CPUDIR },
		{ "/sys/bus/cpu/devices/cpu1", CPS_VF_CPUDIR },
		{ "/sys/bus/cpu", CPS_VF_NONE },
		{ "/sys/devices/system/node", CPS_VF_NODE },
		{ "/sys/devices/system/node/node0/cpulist", CPS_VF_NODE },
		{ "/sys/devices/system/nodes", CPS_VF_NONE },
		{ "/sys/fs/cgroup/user.slice/cpuset.cpus.effective", CPS_VF_CGROUP },
		{ "/sys/fs/cgroup/cpuset.mems", CPS_VF_CGROUP },
		{ "/sys/fs/cgroup/a/cpuset.mems.effective", CPS_VF_CGROUP },
		{ "/sys/fs/cgroup/cpuset.memsx", CPS_VF_NONE },
		{ "/proc/123/numa_maps", CPS_VF_NUMA_MAPS },
		{ "/proc/self/task/7/numa_maps", CPS_VF_NUMA_MAPS },
		{ "/proc/numa_maps", CPS_VF_NONE },
		{ "/etc/passwd", CPS_VF_NONE },
		{ "/", CPS_VF_NONE },
		{ "sys/devices/system/cpu", CPS_VF_NONE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(cps_vpath_family(cases[i].path) == cases[i].f, "%s: %d, want %d",
			      cases[i].path, cps_vpath_family(cases[i].path), cases[i].f);
}
END_TEST

START_TEST(test_below)
{
	ck_assert_str_eq(cps_vpath_below("/t/m/sys/devices", "/t/m"), "/sys/devices");
	ck_assert_str_eq(cps_vpath_below("/t/m", "/t/m"), "/");
	ck_assert_ptr_null(cps_vpath_below("/t/mx/sys", "/t/m"));
	ck_assert_ptr_null(cps_vpath_below("/t", "/t/m"));
	ck_assert_ptr_null(cps_vpath_below("/t/m/sys", ""));
}
END_TEST

/* ---- paths ---- */

START_TEST(test_resolve)
{
	static const struct {
		const char *path;
		int kind;
		const char *phys;
	} cases[] = {
		{ "/sys/devices/system/cpu", CPS_VK_DIR, "/sys/devices/system/cpu" },
		{ "/sys/devices/system/cpu/cpu0", CPS_VK_SAME, "/sys/devices/system/cpu/cpu5" },
		{ "/sys/devices/system/cpu/cpu1/topology/core_id", CPS_VK_SAME,
		  "/sys/devices/system/cpu/cpu9/topology/core_id" },
		{ "/sys/devices/system/cpu/cpu2/topology/core_id", CPS_VK_ABSENT, NULL },
		{ "/sys/devices/system/cpu/cpu2", CPS_VK_ABSENT, NULL },
		{ "/sys/devices/system/cpu/cpu9", CPS_VK_ABSENT, NULL },
		{ "/sys/devices/system/cpu/cpu99999999999", CPS_VK_ABSENT, NULL },
		{ "/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", CPS_VK_LIST,
		  "/sys/devices/system/cpu/cpu9/topology/thread_siblings_list" },
		{ "/sys/devices/system/cpu/cpu1/topology/core_siblings", CPS_VK_MASK,
		  "/sys/devices/system/cpu/cpu9/topology/core_siblings" },
		{ "/sys/devices/system/cpu/cpu0/topology/die_cpus", CPS_VK_MASK,
		  "/sys/devices/system/cpu/cpu5/topology/die_cpus" },
		{ "/sys/devices/system/cpu/cpu0/topology/package_cpus_list", CPS_VK_LIST,
		  "/sys/devices/system/cpu/cpu5/topology/package_cpus_list" },
		{ "/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_map", CPS_VK_MASK,
		  "/sys/devices/system/cpu/cpu5/cache/index3/shared_cpu_map" },
		{ "/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", CPS_VK_LIST,
		  "/sys/devices/system/cpu/cpu5/cache/index3/shared_cpu_list" },
		{ "/sys/devices/system/cpu/cpu0/cache/index3/id", CPS_VK_SAME,
		  "/sys/devices/system/cpu/cpu5/cache/index3/id" },
		{ "/sys/devices/system/cpu/cpu0/cpufreq/related_cpus", CPS_VK_SPACELIST,
		  "/sys/devices/system/cpu/cpu5/cpufreq/related_cpus" },
		{ "/sys/devices/system/cpu/online", CPS_VK_ONLINE, "/sys/devices/system/cpu/online" },
		{ "/sys/devices/system/cpu/possible", CPS_VK_POSSIBLE,
		  "/sys/devices/system/cpu/possible" },
		{ "/sys/devices/system/cpu/present", CPS_VK_RANGE, "/sys/devices/system/cpu/present" },
		{ "/sys/devices/system/cpu/kernel_max", CPS_VK_KERNEL_MAX,
		  "/sys/devices/system/cpu/kernel_max" },
		{ "/sys/devices/system/cpu/offline", CPS_VK_OFFLINE, "/sys/devices/system/cpu/offline" },
		{ "/sys/devices/system/cpu/isolated", CPS_VK_LIST, "/sys/devices/system/cpu/isolated" },
		{ "/sys/devices/system/cpu/cpufreq/policy0", CPS_VK_SAME,
		  "/sys/devices/system/cpu/cpufreq/policy0" },
		{ "/sys/devices/system/cpu/cpu01", CPS_VK_SAME, "/sys/devices/system/cpu/cpu01" },
		{ "/sys/devices/system/cpu/cpuidle", CPS_VK_SAME, "/sys/devices/system/cpu/cpuidle" },
		{ "/sys/bus/cpu/devices", CPS_VK_DIR, "/sys/bus/cpu/devices" },
		{ "/sys/bus/cpu/devices/cpu1", CPS_VK_SAME, "/sys/bus/cpu/devices/cpu9" },
		{ "/sys/bus/cpu/devices/cpu2", CPS_VK_ABSENT, NULL },
		{ "/sys/devices/system/node", CPS_VK_SAME, "/sys/devices/system/node" },
		{ "/sys/devices/system/node/has_cpu", CPS_VK_HAS_CPU,
		  "/sys/devices/system/node/has_cpu" },
		{ "/sys/devices/system/node/online", CPS_VK_SAME, "/sys/devices/system/node/online" },
		{ "/sys/devices/system/node/node3", CPS_VK_DIR, "/sys/devices/system/node/node3" },
		{ "/sys/devices/system/node/node3/cpumap", CPS_VK_MASK,
		  "/sys/devices/system/node/node3/cpumap" },
		{ "/sys/devices/system/node/node3/cpulist", CPS_VK_LIST,
		  "/sys/devices/system/node/node3/cpulist" },
		{ "/sys/devices/system/node/node3/meminfo", CPS_VK_SAME,
		  "/sys/devices/system/node/node3/meminfo" },
		{ "/sys/devices/system/node/node3/cpu1", CPS_VK_SAME,
		  "/sys/devices/system/node/node3/cpu9" },
		{ "/sys/devices/system/node/node3/cpu7", CPS_VK_ABSENT, NULL },
		{ "/sys/class/net", CPS_VK_NONE, NULL },
	};
	struct set s;
	char phys[128];

	set_of(&s, "5,9");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int k = cps_vsys_resolve(cases[i].path, &s.in, phys, sizeof(phys));

		ck_assert_msg(k == cases[i].kind, "%s: kind %d, want %d", cases[i].path, k,
			      cases[i].kind);
		if (cases[i].phys)
			ck_assert_str_eq(phys, cases[i].phys);
	}
	/* a physical path that does not fit is refused, never cut */
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/cpu/cpu0/topology/core_id", &s.in,
					  phys, 30),
			 -ENAMETOOLONG);
	/* the renumbered name may be longer than the virtual one */
	set_of(&s, "100");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/cpu/cpu0", &s.in, phys, 30),
			 -ENAMETOOLONG);
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/cpu/cpu0", &s.in, phys, 31),
			 CPS_VK_SAME);
	ck_assert_str_eq(phys, "/sys/devices/system/cpu/cpu100");
}
END_TEST

START_TEST(test_dirent)
{
	struct set s;
	char out[64];

	set_of(&s, "3,7,12");
	ck_assert_int_eq(cps_vsys_dirent("cpu7", &s.in, out), 1);
	ck_assert_str_eq(out, "cpu1");
	ck_assert_int_eq(cps_vsys_dirent("cpu12", &s.in, out), 1);
	ck_assert_str_eq(out, "cpu2");
	ck_assert_int_eq(cps_vsys_dirent("cpu0", &s.in, out), -1);
	ck_assert_int_eq(cps_vsys_dirent("cpu8", &s.in, out), -1);
	ck_assert_int_eq(cps_vsys_dirent("cpu", &s.in, out), 0);
	ck_assert_int_eq(cps_vsys_dirent("cpufreq", &s.in, out), 0);
	ck_assert_int_eq(cps_vsys_dirent("cpu7x", &s.in, out), 0);
	ck_assert_int_eq(cps_vsys_dirent("online", &s.in, out), 0);
	ck_assert_int_eq(cps_vsys_dirent(".", &s.in, out), 0);
}
END_TEST

/* ---- contents ---- */

START_TEST(test_kmask_widths)
{
	static const struct {
		const char *set, *real, *want;
	} cases[] = {
		/* the width is the set's possible CPUs w (n, or its highest
		 * CPU plus one), as the kernel's for w possible CPUs */
		{ "1", "3\n", "1\n" },
		{ "0-1", "3\n", "3\n" },
		{ "0", "00000000,00000002\n", "0\n" },
		{ "4-7", "f0\n", "0f\n" },
		{ "0-31", "ffffffff\n", "ffffffff\n" },
		{ "0-32", "1,ffffffff\n", "1,ffffffff\n" },
		{ "0-35", "f,ffffffff\n", "f,ffffffff\n" },
		{ "0-36", "1f,ffffffff\n", "1f,ffffffff\n" },
		{ "0-39", "00000000,000000ff,ffffffff\n", "ff,ffffffff\n" },
		{ "0-39", "00000000,00000000,00000001\n", "00,00000001\n" },
		{ "0-95", "ffffffff,ffffffff,ffffffff\n", "ffffffff,ffffffff,ffffffff\n" },
		{ "64-127", "ffffffff,ffffffff,00000000,00000000\n",
		  "00000000,00000000,ffffffff,ffffffff\n" },
		{ "1,3,5", "2a\n", "07\n" },
		{ "1,3,5", "15\n", "00\n" },
		/* wider than the set's words: bits beyond are outside the set */
		{ "0", "80000000,00000000,00000000,00000000,00000000,00000001\n", "1\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct set s;
		char *v;

		set_of(&s, cases[i].set);
		v = view_of(CPS_VK_MASK, cases[i].real, &s);
		ck_assert_msg(!strcmp(v, cases[i].want), "set %s, %s: got [%s] want [%s]",
			      cases[i].set, cases[i].real, v, cases[i].want);
		free(v);
	}
}
END_TEST

START_TEST(test_lists)
{
	static const struct {
		int kind;
		const char *set, *real, *want;
	} cases[] = {
		{ CPS_VK_LIST, "4-7", "0-15\n", "0-3\n" },
		{ CPS_VK_LIST, "4,6,8,10", "6-9\n", "1-2\n" },
		{ CPS_VK_LIST, "4,6,8,10", "0-3\n", "\n" },
		{ CPS_VK_LIST, "4,6,8,10", "\n", "\n" },
		{ CPS_VK_LIST, "4,6,8,10", "(null)\n", "\n" },
		/* the kernel pads it to nr_cpu_ids columns (8 here) */
		{ CPS_VK_LIST, "4,6,8,10", "  (null)\n", "\n" },
		{ CPS_VK_LIST, "1,3,200", "200,3\n", "1-2\n" },
		/* online: the set's CPUs the kernel has online, renumbered */
		{ CPS_VK_ONLINE, "1,3,5", "0-3,5\n", "0-2\n" },
		{ CPS_VK_ONLINE, "1,3,5", "0-1,4-5\n", "0,2\n" },
		{ CPS_VK_ONLINE, "4-7", "0-5\n", "0-1\n" },
		{ CPS_VK_LIST, "0-3", "0-3:2\n", "0,2\n" },
		{ CPS_VK_SPACELIST, "2-3", "0 1 2 3 \n", "0 1 \n" },
		{ CPS_VK_SPACELIST, "2-3", "0 1\n", "\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct set s;
		char *v;

		set_of(&s, cases[i].set);
		v = view_of(cases[i].kind, cases[i].real, &s);
		ck_assert_msg(!strcmp(v, cases[i].want), "set %s, %s: got [%s] want [%s]",
			      cases[i].set, cases[i].real, v, cases[i].want);
		free(v);
	}
}
END_TEST

/* The kernel's formats as captured machines have them: files that end in
 * "\n\0", an empty list written as "\0\n", masks of many 32-bit groups;
 * and the files of every topology level (cluster, die, book, drawer) are
 * lists or masks by their names. */
START_TEST(test_formats)
{
	static const struct {
		int kind;
		const char *set, *real;
		size_t len;
		const char *want;
	} cases[] = {
		{ CPS_VK_LIST, "60-67", "0-63\n\0", 6, "0-3\n" },
		{ CPS_VK_LIST, "60-67", "\0\n", 2, "\n" },
		{ CPS_VK_MASK, "32-95", "00000000,00000000,ffffffff,ffffffff\n\0", 37,
		  "00000000,00000000,ffffffff\n" },
		{ CPS_VK_MASK, "60-67", "ffffffff,ffffffff,00000000,00000000\n", 36,
		  "0,00000000,000000f0\n" },
		{ CPS_VK_MASK, "0,40,127", "80000000,00000000,00000000,00000001\n\0", 37,
		  "00000000,00000000,00000000,00000005\n" },
		/* offline: the real file's, and the possible CPUs past n */
		{ CPS_VK_OFFLINE, "2,5", "\n", 1, "2-5\n" },
		{ CPS_VK_OFFLINE, "0-1", "\n", 1, "\n" },
		{ CPS_VK_OFFLINE, "1,3,9", "3\n", 2, "1,3-9\n" },
		{ CPS_VK_MASK, "0-39", "00000000,000000ff,ffffffff\n", 28, "ff,ffffffff\n" },
	};
	static const struct {
		const char *file;
		int kind;
	} names[] = {
		{ "topology/cluster_cpus_list", CPS_VK_LIST },
		{ "topology/cluster_cpus", CPS_VK_MASK },
		{ "topology/die_cpus_list", CPS_VK_LIST },
		{ "topology/die_cpus", CPS_VK_MASK },
		{ "topology/book_siblings", CPS_VK_MASK },
		{ "topology/book_siblings_list", CPS_VK_LIST },
		{ "topology/drawer_siblings_list", CPS_VK_LIST },
		{ "topology/core_cpus", CPS_VK_MASK },
		{ "topology/package_cpus_list", CPS_VK_LIST },
		{ "topology/cluster_id", CPS_VK_SAME },
		{ "topology/book_id", CPS_VK_SAME },
		{ "cache/index3/shared_cpu_map", CPS_VK_MASK },
		{ "cache/index3/id", CPS_VK_SAME },
	};
	struct set s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cps_buf out = { 0 };

		set_of(&s, cases[i].set);
		ck_assert_int_eq(cps_view_cpumask_file(&out, cases[i].kind, cases[i].real, cases[i].len,
						       &s.in),
				 0);
		ck_assert_msg(!strcmp(out.p, cases[i].want), "case %zu: got [%s] want [%s]", i, out.p,
			      cases[i].want);
		cps_buf_free(&out);
	}
	set_of(&s, "5,9");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char canon[128], phys[128], want[128];

		snprintf(canon, sizeof(canon), "/sys/devices/system/cpu/cpu1/%s", names[i].file);
		snprintf(want, sizeof(want), "/sys/devices/system/cpu/cpu9/%s", names[i].file);
		ck_assert_int_eq(cps_vsys_resolve(canon, &s.in, phys, sizeof(phys)), names[i].kind);
		ck_assert_str_eq(phys, want);
	}
}
END_TEST

START_TEST(test_bad_input_left_untouched)
{
	static const char *const bad[] = { "zz\n", "0-\n", "1,,2x\n", "" };
	struct cps_buf out = { 0 };
	struct set s;

	set_of(&s, "0-3");
	ck_assert_int_eq(cps_buf_append(&out, "keep", 4), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(cps_view_cpumask_file(&out, CPS_VK_MASK, bad[i], strlen(bad[i]),
						       &s.in),
				 -EINVAL);
		ck_assert_str_eq(out.p, "keep");
	}
	ck_assert_int_eq(cps_view_cpumask_file(&out, CPS_VK_LIST, "x", 1, &s.in), -EINVAL);
	ck_assert_int_eq(cps_view_cpumask_file(&out, CPS_VK_SPACELIST, "1 x", 3, &s.in), -EINVAL);
	ck_assert_int_eq(cps_view_cpumask_file(&out, CPS_VK_RANGE, "1", 1, &s.in), -EINVAL);
	ck_assert_str_eq(out.p, "keep");
	ck_assert_uint_eq(out.len, 4);
	cps_buf_free(&out);
}
END_TEST

START_TEST(test_kernel_max)
{
	struct cps_buf out = { 0 };
	struct set s;

	/* the possible CPUs reach the set's highest CPU */
	set_of(&s, "3,9,40");
	ck_assert_int_eq(cps_view_kernel_max(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "40\n");
	cps_buf_free(&out);
	out = (struct cps_buf){ 0 };
	ck_assert_int_eq(cps_view_possible(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "0-40\n");
	cps_buf_free(&out);
	out = (struct cps_buf){ 0 };
	ck_assert_int_eq(cps_view_cpurange(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "0-2\n");
	cps_buf_free(&out);
	out = (struct cps_buf){ 0 };
	/* without CPUSETSHIM_WIDE_POSSIBLE: the set's n */
	cps_view_wide_possible = false;
	ck_assert_int_eq(cps_view_kernel_max(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "2\n");
	cps_buf_free(&out);
	out = (struct cps_buf){ 0 };
	ck_assert_int_eq(cps_view_possible(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "0-2\n");
	cps_buf_free(&out);
	cps_view_wide_possible = true;
	out = (struct cps_buf){ 0 };
	set_of(&s, "0-3");
	ck_assert_int_eq(cps_view_kernel_max(&out, &s.in), 0);
	ck_assert_str_eq(out.p, "3\n");
	cps_buf_free(&out);
}
END_TEST

START_TEST(test_has_cpu)
{
	const char *maps[8] = { "0f\n", "f0\n", NULL, "0f00\n", "00\n" };
	size_t lens[8];
	struct cps_buf out = { 0 };
	struct set s;

	for (int k = 0; k < 8; k++)
		lens[k] = maps[k] ? strlen(maps[k]) : 0;
	set_of(&s, "4-5,8");
	ck_assert_int_eq(cps_view_has_cpu(&out, "0-1,3\n", 6, maps, lens, 8, &s.in), 0);
	ck_assert_str_eq(out.p, "1,3\n");
	cps_buf_free(&out);
	/* a node has_cpu does not list stays out, whatever its map */
	ck_assert_int_eq(cps_view_has_cpu(&out, "0-1\n", 4, maps, lens, 8, &s.in), 0);
	ck_assert_str_eq(out.p, "1\n");
	cps_buf_free(&out);
	set_of(&s, "0");
	ck_assert_int_eq(cps_view_has_cpu(&out, "1,3\n", 4, maps, lens, 8, &s.in), 0);
	ck_assert_str_eq(out.p, "\n");
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_has_cpu(&out, "1-\n", 3, maps, lens, 8, &s.in), -EINVAL);
	cps_buf_free(&out);
}
END_TEST

/* ---- cpuinfo ---- */

static const char ci_block[] = "processor\t: %u\nphysical id\t: %u\nsiblings\t: %u\n"
			       "core id\t\t: %u\ncpu cores\t: %u\napicid\t\t: %u\n\n";

/* A machine of 2 packages x 2 cores x 2 threads, CPU c on package c/4,
 * core (c/2)%2, APIC id c, as the kernel prints it. */
static char *machine_2x2x2(void)
{
	static char buf[2048];
	size_t o = 0;

	for (unsigned c = 0; c < 8; c++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ci_block, c, c / 4, 4u,
				      (c / 2) % 2, 2u, c);
	return buf;
}

START_TEST(test_cpuinfo_shape)
{
	const char *m = machine_2x2x2();
	struct cps_buf out = { 0 };
	struct set s;
	char want[2048];
	size_t o = 0;

	/* the whole machine: as it is */
	ck_assert_int_eq(cps_view_cpuinfo_shape(&out, m, strlen(m)), 0);
	ck_assert_str_eq(out.p, m);
	cps_buf_free(&out);

	/* one thread of core 0 and both of core 1 on package 0, one on
	 * package 1: counts per package of the set, ids kept */
	set_of(&s, "0,2,3,5");
	ck_assert_int_eq(cps_view_cpuinfo_set(&out, m, strlen(m), &s.in), 0);
	o += (size_t)snprintf(want + o, sizeof(want) - o, ci_block, 0u, 0u, 3u, 0u, 2u, 0u);
	o += (size_t)snprintf(want + o, sizeof(want) - o, ci_block, 1u, 0u, 3u, 1u, 2u, 2u);
	o += (size_t)snprintf(want + o, sizeof(want) - o, ci_block, 2u, 0u, 3u, 1u, 2u, 3u);
	o += (size_t)snprintf(want + o, sizeof(want) - o, ci_block, 3u, 1u, 1u, 0u, 1u, 5u);
	ck_assert_str_eq(out.p, want);
	cps_buf_free(&out);

	/* a thread taken offline (CPU 7: package 1 has siblings 3 on 2
	 * cores): threads per core are the most a core has, not the
	 * average, so CPUs 4 and 5 are one core */
	{
		char m7[2048];
		size_t k = 0;

		for (unsigned c = 0; c < 7; c++)
			k += (size_t)snprintf(m7 + k, sizeof(m7) - k, ci_block, c, c / 4,
					      c < 4 ? 4u : 3u, (c / 2) % 2, 2u, c);
		set_of(&s, "4,5");
		ck_assert_int_eq(cps_view_cpuinfo_set(&out, m7, k, &s.in), 0);
		o = (size_t)snprintf(want, sizeof(want), ci_block, 0u, 1u, 2u, 0u, 1u, 4u);
		snprintf(want + o, sizeof(want) - o, ci_block, 1u, 1u, 2u, 0u, 1u, 5u);
		ck_assert_str_eq(out.p, want);
		cps_buf_free(&out);
	}

	/* no physical id (other architectures): untouched */
	ck_assert_int_eq(cps_view_cpuinfo_shape(&out, "processor : 0\nsiblings : 9\n", 27), 0);
	ck_assert_str_eq(out.p, "processor : 0\nsiblings : 9\n");
	cps_buf_free(&out);
}
END_TEST

/* ---- the captured machines ---- */

static const char *const machines[] = { "16em64t-4s2c2t", "48amd64-", "64amd64-", "96em64t-" };
#define NMACHINES 4

static char *fixture(const char *prefix, const char *rel, size_t *len)
{
	const char *dir = getenv("CPS_FIXTURES");
	char path[1024], found[256] = "";
	struct dirent *de;
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	DIR *d;
	FILE *f;

	if (!dir || !*dir)
		dir = "tests/fixtures/unpacked";
	d = opendir(dir);
	ck_assert_msg(d != NULL, "fixtures %s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			snprintf(found, sizeof(found), "%s", de->d_name);
	closedir(d);
	ck_assert_msg(*found, "no machine %s* in %s", prefix, dir);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, found, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Every CPU mask of every CPU of the set, read through its virtual path:
 * the CPUs it names are exactly the real file's CPUs of the set,
 * renumbered, and the mask is w bits wide (cps_view_width). */
START_TEST(test_machine_masks)
{
	static const char *const sets[] = { "1", "0-7", "0-63:3", "2,7,13,40-47" };
	static const char *const files[] = { "topology/thread_siblings", "topology/core_siblings",
					     "cache/index0/shared_cpu_map",
					     "cache/index1/shared_cpu_map",
					     "cache/index2/shared_cpu_map",
					     "cache/index3/shared_cpu_map" };
	const char *mc = machines[_i / 4];
	struct set s;
	unsigned checked = 0;

	set_of(&s, sets[_i % 4]);
	for (unsigned v = 0; v < s.n; v++) {
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			char vpath[256], phys[256], *real, *view;
			uint64_t pm[CPS_MAX_WORDS], vm[CPS_MAX_WORDS];
			struct cps_parse_error err;
			size_t len;
			int k;

			snprintf(vpath, sizeof(vpath), "/sys/devices/system/cpu/cpu%u/%s", v, files[f]);
			k = cps_vsys_resolve(vpath, &s.in, phys, sizeof(phys));
			ck_assert_int_eq(k, CPS_VK_MASK);
			real = fixture(mc, phys + 1, &len);
			if (!real)
				continue; /* no such cache, or an offline CPU */
			view = view_of(k, real, &s);
			ck_assert_int_eq(cps_hexmask_parse(real, pm, CPS_MAX_WORDS, &err), 0);
			ck_assert_int_eq(cps_hexmask_parse(view, vm, CPS_MAX_WORDS, &err), 0);
			for (unsigned c = 0; c < 64 * NW; c++) {
				bool want = cps_mask_test(s.m, NW, c) &&
					    cps_mask_test(pm, CPS_MAX_WORDS, c);
				unsigned r = cps_mask_rank(s.m, NW, c);

				if (want)
					ck_assert_msg(cps_mask_test(vm, CPS_MAX_WORDS, r),
						      "%s %s: CPU %u (virtual %u) missing", mc,
						      phys, c, r);
			}
			ck_assert_uint_eq(cps_mask_count(vm, CPS_MAX_WORDS),
					  ({
						  uint64_t both[NW];
						  cps_mask_and(both, s.m, pm, NW);
						  cps_mask_count(both, NW);
					  }));
			/* as wide as the kernel prints w bits (w possible CPUs) */
			unsigned w = cps_view_width(&s.in);
			ck_assert_uint_eq(strlen(view), (w + 31) / 32 * 9 - 8 +
							 ((w % 32 ? w % 32 : 32) + 3) / 4);
			free(real);
			free(view);
			checked++;
		}
	}
	if (strcmp(mc, "16em64t-4s2c2t") || strcmp(sets[_i % 4], "1"))
		ck_assert_uint_gt(checked, 0);
}
END_TEST

/* cpuinfo's shape of each whole captured machine is the kernel's own */
START_TEST(test_machine_cpuinfo_identity)
{
	struct cps_buf out = { 0 };
	size_t len;
	char *real = fixture(machines[_i], "proc/cpuinfo", &len);

	ck_assert_ptr_nonnull(real);
	ck_assert_int_eq(cps_view_cpuinfo_shape(&out, real, len), 0);
	ck_assert_uint_eq(out.len, len);
	ck_assert(memcmp(out.p, real, len) == 0);
	cps_buf_free(&out);
	free(real);
}
END_TEST

/* ---- the kept redirects (src/redirects.c) ---- */

/* Spelling i and its physical path: all of one length, so that only the
 * bytes tell two apart in a slot. */
static void rd_paths(unsigned i, char *virt, char *phys)
{
	sprintf(virt, "/sys/devices/system/cpu/cpu%04u/topology/core_id", i);
	sprintf(phys, "/sys/devices/system/cpu/cpu%04u/topology/core_id", (i * 7 + 3) % 10000);
}

/* A hit is of the spelling asked for: its own physical path, V and p(V). */
static bool rd_check(const struct cps_redirects *t, unsigned i, bool *hit)
{
	char virt[128], phys[128], got[CPS_REDIRECT_PATH];
	uint32_t v, p;

	rd_paths(i, virt, phys);
	*hit = cps_redirect_find(t, virt, strlen(virt), got, &v, &p);
	return !*hit || (strcmp(got, phys) == 0 && v == i && p == (i * 7 + 3) % 10000);
}

START_TEST(test_redirects_kept)
{
	static struct cps_redirects t;
	char virt[128], phys[128], got[CPS_REDIRECT_PATH];
	unsigned hits = 0;
	uint32_t v, p;
	bool hit;

	memset(&t, 0, sizeof(t));
	ck_assert(!cps_redirect_find(&t, "/sys/x", 6, got, &v, &p));
	for (unsigned i = 0; i < 2000; i++) {
		rd_paths(i, virt, phys);
		cps_redirect_keep(&t, virt, strlen(virt), phys, i, (i * 7 + 3) % 10000);
		ck_assert_msg(rd_check(&t, i, &hit) && hit, "spelling %u not found after keeping it", i);
	}
	/* 2000 spellings in 64 slots: each found is its own */
	for (unsigned i = 0; i < 2000; i++) {
		ck_assert_msg(rd_check(&t, i, &hit), "spelling %u: another's redirect", i);
		hits += hit;
	}
	ck_assert_uint_ge(hits, 30);
	ck_assert_uint_le(hits, CPS_REDIRECT_SLOTS);
	/* too long: not kept */
	char lng[CPS_REDIRECT_PATH + 8];
	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = 0;
	cps_redirect_keep(&t, lng, strlen(lng), "/x", 1, 1);
	ck_assert(!cps_redirect_find(&t, lng, strlen(lng), got, &v, &p));
}
END_TEST

static struct cps_redirects rd_shared;
static int rd_bad;

static void *rd_writer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	char virt[128], phys[128];

	for (int k = 0; k < 200000; k++) {
		unsigned i = (unsigned)rand_r(&seed) % 500;
		rd_paths(i, virt, phys);
		cps_redirect_keep(&rd_shared, virt, strlen(virt), phys, i, (i * 7 + 3) % 10000);
	}
	return NULL;
}

static void *rd_reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	bool hit;

	for (int k = 0; k < 200000; k++)
		if (!rd_check(&rd_shared, (unsigned)rand_r(&seed) % 500, &hit))
			__atomic_add_fetch(&rd_bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Two writers replace slots while two readers look up: no hit is torn. */
START_TEST(test_redirects_threads)
{
	pthread_t th[4];

	for (uintptr_t i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, i < 2 ? rd_writer : rd_reader,
						(void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(rd_bad, 0);
}
END_TEST

/* A path of row r of the list of virtual files: its patterns made
 * concrete ("#" 1, "$pid" 12, a glob's rest "memory"). */
static void row_path(const struct cps_vfile *r, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = r->path; *p && o + 8 < len; p++) {
		if (*p == '#') {
			out[o++] = '1';
		} else if (!strncmp(p, "$pid", 4)) {
			memcpy(out + o, "12", 2);
			o += 2;
			p += 3;
		} else if (*p == '*' && p[1] == '*') {
			memcpy(out + o, "x", 1); /* some name of the family's rest */
			o += 1;
			p++;
		} else if (*p == '*') {
			memcpy(out + o, "memory", 6);
			o += 6;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = 0;
}

static uint64_t set_mems[1];

static void with_mems(struct set *s, const char *cpus)
{
	set_of(s, cpus);
	set_mems[0] = (1u << 0) | (1u << 2) | (1u << 5);
	s->in.mems = set_mems;
	s->in.mnw = 1;
	s->in.k = 3;
}

/* Every row of the list of virtual files passes every path filter that is
 * derived from it, and only its own: the family, the kind and physical
 * path (with the set's nodes and without), the name alone (a directory
 * fd's relative name), every relative form below each of its
 * directories, the stubs' two-byte table and the second byte of the
 * absolute path. */
START_TEST(test_table_rows_filtered)
{
	const struct cps_vfile *r = &cps_vfiles[_i];
	const char *name = r->path + r->name;
	bool rest = !strcmp(name, "**");
	char path[256], phys[256];
	struct set s, sn;

	set_of(&s, "0-7");
	with_mems(&sn, "0-7");
	row_path(r, path, sizeof(path));
	ck_assert_msg(cps_vpath_root2(path[1]), "%s: second byte refused", path);
	ck_assert_msg(cps_vpath_family(path) == r->family, "%s: family %d, want %d", path,
		      cps_vpath_family(path), r->family);
	ck_assert_msg(cps_vfile_find(path, true, NULL) == r || rest, "%s: another row", path);
	if (r->family == CPS_VF_CPUDIR || r->family == CPS_VF_NODE) {
		ck_assert_int_eq(cps_vsys_resolve(path, &sn.in, phys, sizeof(phys)), r->kind);
		if (!(r->flags & CPS_VFILE_NODES))
			ck_assert_int_eq(cps_vsys_resolve(path, &s.in, phys, sizeof(phys)), r->kind);
	}
	/* its kind is delivered as its row says, as every row of that kind
	 * is (one bit: two rows that disagree would show two); a physical
	 * file is no made view */
	ck_assert_msg(r->kind > CPS_VK_ABSENT && r->kind < CPS_VK_COUNT, "%s: kind %d", path,
		      r->kind);
	ck_assert_msg(cps_vkind_delivery[r->kind] == r->delivery, "%s: delivery %d, its kind's %d",
		      path, r->delivery, cps_vkind_delivery[r->kind]);
	ck_assert((r->delivery == CPS_VD_PHYSICAL) == (r->kind < CPS_VK_MASK));
	/* a row of the set's nodes is no row without them */
	ck_assert((cps_vfile_find(path, false, NULL) == r) == !(r->flags & CPS_VFILE_NODES) || rest);
	if (rest)
		return;
	const char *base = strrchr(path, '/') + 1;
	ck_assert_msg(cps_path_view_name(base, strlen(base)), "%s: %s is no view's name", path, base);
	ck_assert_msg(!cps_path_rel_quick_pass(base), "%s: %s passed by the stubs' table", path,
		      base);
	for (const char *p = path + 1; (p = strchr(p, '/')); p++)
		ck_assert_msg(cps_path_rel_may_view(p + 1), "%s: relative %s refused", path, p + 1);
}
END_TEST

/* The derived filters take no more than the table: names that no row has
 * pass the quick test and the name test refuses them; the CPU
 * directory's files named since the table began are there. */
START_TEST(test_table_names_only)
{
	static const char *const none[] = { "uevent", "energy_perf_bias", "null", "libfoo",
					     "g", "cpuidle", "vulnerabilities", "numastat",
					     "topology", "cache", "index3", "self" };

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		ck_assert_msg(!cps_path_view_name(none[i], strlen(none[i])), "%s: a view's name?",
			      none[i]);
	ck_assert(cps_path_rel_quick_pass("uevent") && cps_path_rel_quick_pass("zero"));
	ck_assert(cps_path_view_name("enabled", 7) && cps_path_view_name("nohz_full", 9));
	ck_assert(cps_path_view_name("meminfo", 7) && cps_path_view_name("distance", 8));
	ck_assert(cps_path_view_name("has_normal_memory", 17));
	ck_assert_uint_ge(cps_nvfiles, 40);
	/* the second bytes of the roots, and the spellings' '/' and '.' */
	bool want[256] = { 0 };
	want['/'] = want['.'] = true;
	for (size_t i = 0; i < cps_nvfiles; i++)
		want[(unsigned char)cps_vfiles[i].path[1]] = true;
	for (int c = 0; c < 256; c++)
		ck_assert_msg(cps_vpath_root2((char)c) == want[c], "second byte %d", c);
}
END_TEST

/* Every view's path, one of each kind, with its family: each must pass
 * every path filter in every relative form (the rest of the path below
 * each of its directories, as openat of a descriptor of that directory
 * gives it), and the name alone must not be let through by the stubs'
 * two-byte table. */
static const struct {
	const char *path;
	enum cps_vfamily family;
} every_view[] = {
	{ "/proc/cpuinfo", CPS_VF_CPUINFO },
	{ "/proc/stat", CPS_VF_STAT },
	{ "/proc/self/status", CPS_VF_STATUS },
	{ "/proc/thread-self/status", CPS_VF_STATUS },
	{ "/proc/12/task/13/status", CPS_VF_STATUS },
	{ "/proc/12/stat", CPS_VF_PIDSTAT },
	{ "/proc/self/task/13/stat", CPS_VF_PIDSTAT },
	{ "/sys/fs/cgroup/job/cpuset.cpus", CPS_VF_CGROUP },
	{ "/sys/fs/cgroup/job/cpuset.cpus.effective", CPS_VF_CGROUP },
	{ "/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus", CPS_VF_CGROUP },
	{ "/sys/fs/cgroup/cpuset/job/cpus", CPS_VF_CGROUP },
	{ "/sys/fs/cgroup/cpuset/job/effective_cpus", CPS_VF_CGROUP },
	{ "/sys/devices/system/cpu/cpu3", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/thread_siblings_list", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/core_siblings", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/core_cpus_list", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/cluster_cpus", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/die_cpus_list", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/package_cpus", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/book_siblings_list", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/topology/drawer_siblings", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/cache/index2/shared_cpu_map", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/cache/index2/shared_cpu_list", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/cpufreq/related_cpus", CPS_VF_CPUDIR },
	{ "/sys/devices/system/cpu/cpu3/cpufreq/affected_cpus", CPS_VF_CPUDIR },
	{ "/sys/bus/cpu/devices/cpu3", CPS_VF_CPUDIR },
	{ "/sys/devices/system/node/has_cpu", CPS_VF_NODE },
	{ "/sys/devices/system/node/node1/cpumap", CPS_VF_NODE },
	{ "/sys/devices/system/node/node1/cpulist", CPS_VF_NODE },
	{ "/sys/devices/system/node/node1/cpu3", CPS_VF_NODE },
};

START_TEST(test_every_view_filtered)
{
	const char *path = every_view[_i].path;
	const char *base = strrchr(path, '/') + 1;

	ck_assert_int_eq(cps_vpath_family(path), every_view[_i].family);
	ck_assert_msg(cps_path_view_name(base, strlen(base)), "%s: %s is no view's name", path, base);
	ck_assert_msg(!cps_path_rel_quick_pass(base), "%s: %s passed by the stubs' table", path,
		      base);
	for (const char *p = path + 1; (p = strchr(p, '/')); p++)
		ck_assert_msg(cps_path_rel_may_view(p + 1), "%s: relative %s refused", path, p + 1);
}
END_TEST

/* ---- a set's memory nodes ---- */

/* Nodes "0,2,5" (virtual 0,1,2) of a sparse machine of nodes 0-2,5,7. */

START_TEST(test_node_resolve)
{
	struct set s;
	char phys[256], out[64];

	with_mems(&s, "0-3");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node", &s.in, phys, sizeof(phys)),
			 CPS_VK_DIR);
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node2/distance", &s.in, phys,
					  sizeof(phys)), CPS_VK_DISTANCE);
	ck_assert_str_eq(phys, "/sys/devices/system/node/node5/distance");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node1/meminfo", &s.in, phys,
					  sizeof(phys)), CPS_VK_NODEINFO);
	ck_assert_str_eq(phys, "/sys/devices/system/node/node2/meminfo");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node1/numastat", &s.in, phys,
					  sizeof(phys)), CPS_VK_SAME);
	ck_assert_str_eq(phys, "/sys/devices/system/node/node2/numastat");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node2/cpu1", &s.in, phys,
					  sizeof(phys)), CPS_VK_DIR);
	ck_assert_str_eq(phys, "/sys/devices/system/node/node5/cpu1");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node3", &s.in, phys,
					  sizeof(phys)), CPS_VK_ABSENT);
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/has_memory", &s.in, phys,
					  sizeof(phys)), CPS_VK_NODELIST);
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/possible", &s.in, phys,
					  sizeof(phys)), CPS_VK_NODELIST);
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/cpu/cpu3/node2", &s.in, phys,
					  sizeof(phys)), CPS_VK_SAME);
	ck_assert_str_eq(phys, "/sys/devices/system/cpu/cpu3/node5");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/cpu/cpu3/node3", &s.in, phys,
					  sizeof(phys)), CPS_VK_ABSENT);
	ck_assert_int_eq(cps_vsys_dirent("node5", &s.in, out), 1);
	ck_assert_str_eq(out, "node2");
	ck_assert_int_eq(cps_vsys_dirent("node7", &s.in, out), -1);
	ck_assert_int_eq(cps_vsys_dirent("node1", &s.in, out), -1);
	ck_assert_int_eq(cps_vsys_dirent("online", &s.in, out), 0);
	/* without nodes: today's physical numbers */
	set_of(&s, "0-3");
	ck_assert_int_eq(cps_vsys_resolve("/sys/devices/system/node/node5/distance", &s.in, phys,
					  sizeof(phys)), CPS_VK_SAME);
	ck_assert_str_eq(phys, "/sys/devices/system/node/node5/distance");
	ck_assert_int_eq(cps_vsys_dirent("node5", &s.in, out), 0);
}
END_TEST

START_TEST(test_node_contents)
{
	struct set s;
	struct cps_buf out = { 0 };
	static const char info[] = "Node 5 MemTotal:  100 kB\nNode 5 MemFree:  7 kB\n"
				   "Node 7 X: 1\nOther 5\n";

	with_mems(&s, "0-3");
	ck_assert_int_eq(cps_view_nodelist(&out, "0-2,5,7\n", 8, &s.in), 0);
	ck_assert_str_eq(out.p, "0-2\n");
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_nodelist(&out, "1,5\n\0", 5, &s.in), 0);
	ck_assert_str_eq(out.p, "2\n");
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_nodelist(&out, "\n", 1, &s.in), 0);
	ck_assert_str_eq(out.p, "\n");
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_nodelist(&out, "1-\n", 3, &s.in), -EINVAL);
	cps_buf_free(&out);
	/* columns: online 0-2,5,7; the set's are nodes 0, 2 and 5 */
	ck_assert_int_eq(cps_view_node_distance(&out, "10 21 31 41 51\n", 15, "0-2,5,7\n", 8,
						&s.in), 0);
	ck_assert_str_eq(out.p, "10 31 41\n");
	cps_buf_free(&out);
	/* a short row ends where it ends */
	ck_assert_int_eq(cps_view_node_distance(&out, "10 21\n", 6, "0-2,5,7\n", 8, &s.in), 0);
	ck_assert_str_eq(out.p, "10\n");
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_node_info(&out, info, sizeof(info) - 1, &s.in), 0);
	ck_assert_str_eq(out.p, "Node 2 MemTotal:  100 kB\nNode 2 MemFree:  7 kB\n"
				"Node 10 X: 1\nOther 5\n");
	cps_buf_free(&out);
}
END_TEST

static Suite *vsys_suite(void)
{
	Suite *s = suite_create("vsys");
	TCase *tc = tcase_create("paths");

	tcase_add_test(tc, test_family);
	tcase_add_test(tc, test_below);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_dirent);
	tcase_add_test(tc, test_node_resolve);
	tcase_add_loop_test(tc, test_table_rows_filtered, 0, (int)cps_nvfiles);
	tcase_add_test(tc, test_table_names_only);
	tcase_add_loop_test(tc, test_every_view_filtered, 0,
			    (int)(sizeof(every_view) / sizeof(every_view[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("contents");
	tcase_add_test(tc, test_kmask_widths);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_bad_input_left_untouched);
	tcase_add_test(tc, test_kernel_max);
	tcase_add_test(tc, test_has_cpu);
	tcase_add_test(tc, test_node_contents);
	tcase_add_test(tc, test_cpuinfo_shape);
	suite_add_tcase(s, tc);

	tc = tcase_create("redirects");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_redirects_kept);
	tcase_add_test(tc, test_redirects_threads);
	suite_add_tcase(s, tc);

	tc = tcase_create("machines");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_machine_masks, 0, NMACHINES * 4);
	tcase_add_loop_test(tc, test_machine_cpuinfo_identity, 0, NMACHINES);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* the views of CPUSETSHIM_WIDE_POSSIBLE=1 (test_kernel_max: both) */
	cps_view_wide_possible = true;
	SRunner *sr = srunner_create(vsys_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
