/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/mask.h"
#include "src/vproc_pidstat.h"
#include "src/vcgroup.h"
#include "src/views.h"

/* The views of /proc/<pid>/stat field 39 and of the cgroup CPU files, on
 * text alone. Inputs are copied into buffers of exactly their length, so a
 * view that reads past its input trips the address sanitizer. */

#define NW 2

struct set {
	uint64_t m[NW];
	unsigned n;
};

static struct set set_of(const unsigned *cpus, unsigned n)
{
	struct set s = { { 0 }, 0 };

	for (unsigned i = 0; i < n; i++)
		cps_mask_set(s.m, NW, cpus[i]);
	s.n = cps_mask_count(s.m, NW);
	return s;
}

static struct cps_view_input input_of(const struct set *s)
{
	struct cps_view_input v = { s->m, NW, s->n, NULL, 0, NULL, 0, 0 };

	return v;
}

/* view(real) with the exact-length copy; returns the malloc'd result or
 * NULL when the view refused (r holds why). */
typedef int (*view_fn)(struct cps_buf *, const char *, size_t, const struct cps_view_input *);

static char *run(view_fn fn, const char *real, const struct set *s, int *r)
{
	size_t len = strlen(real);
	char *copy = malloc(len ? len : 1);
	struct cps_buf out = { 0 };
	struct cps_view_input in = input_of(s);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, real, len);
	*r = fn(&out, copy, len, &in);
	free(copy);
	if (*r) {
		ck_assert_uint_eq(out.len, 0);
		cps_buf_free(&out);
		return NULL;
	}
	return out.p;
}

/* a stat line whose field 39 is cpu and whose comm is comm */
static void stat_line(char *buf, size_t len, const char *comm, unsigned cpu)
{
	snprintf(buf, len,
		 "3622 (%s) R 3620 3620 3465 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 76600 "
		 "3133440 382 18446744073709551615 94827543748608 94827543768489 "
		 "140728596869536 0 0 0 0 0 0 0 0 0 17 %u 0 0 0 0 0 94827543784496 "
		 "94827543786112 94827640860672 140728596875701 140728596875721 "
		 "140728596875721 140728596877291 0\n",
		 comm, cpu);
}

START_TEST(field39_rule)
{
	static const unsigned c13[] = { 1, 3, 70 };
	struct set s = set_of(c13, 3);

	/* in the set: its virtual number */
	ck_assert_uint_eq(cps_pidstat_vcpu(1, s.m, NW, s.n), 0);
	ck_assert_uint_eq(cps_pidstat_vcpu(3, s.m, NW, s.n), 1);
	ck_assert_uint_eq(cps_pidstat_vcpu(70, s.m, NW, s.n), 2);
	/* outside: p mod n, always a CPU of the view */
	for (unsigned p = 0; p < 128; p++)
		ck_assert_uint_lt(cps_pidstat_vcpu(p, s.m, NW, s.n), s.n);
	ck_assert_uint_eq(cps_pidstat_vcpu(0, s.m, NW, s.n), 0);
	ck_assert_uint_eq(cps_pidstat_vcpu(2, s.m, NW, s.n), 2);
	ck_assert_uint_eq(cps_pidstat_vcpu(127, s.m, NW, s.n), 1);
}
END_TEST

START_TEST(field39_rewritten)
{
	static const unsigned one[] = { 1 }, both[] = { 0, 1 }, far[] = { 64, 100 };
	static const char *const comms[] = {
		"cat", "a b", ") (", "x) 1 2 3 (y", "", "((((", "tab\there", "99)",
	};
	struct set s1 = set_of(one, 1), s2 = set_of(both, 2), s3 = set_of(far, 2);
	char real[1024], want[1024];
	int r;

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		char *got;

		stat_line(real, sizeof(real), comms[i], 1);
		stat_line(want, sizeof(want), comms[i], 0);
		got = run(cps_view_pidstat, real, &s1, &r);
		ck_assert_msg(got, "comm [%s]: refused %d", comms[i], r);
		ck_assert_str_eq(got, want);
		free(got);

		got = run(cps_view_pidstat, real, &s2, &r);
		ck_assert_str_eq(got, real); /* {0,1}: 1 is virtual 1 */
		free(got);

		stat_line(real, sizeof(real), comms[i], 100);
		stat_line(want, sizeof(want), comms[i], 1);
		got = run(cps_view_pidstat, real, &s3, &r);
		ck_assert_str_eq(got, want);
		free(got);

		stat_line(real, sizeof(real), comms[i], 7); /* outside {64,100}: 7 mod 2 */
		got = run(cps_view_pidstat, real, &s3, &r);
		stat_line(want, sizeof(want), comms[i], 1);
		ck_assert_str_eq(got, want);
		free(got);
	}
}
END_TEST

/* The scan reads eight bytes at a time: with names of 0 to 23 bytes
 * (spaces in some), field 39 falls at every offset in a word. */
START_TEST(field39_every_alignment)
{
	static const unsigned one[] = { 1 };
	struct set s1 = set_of(one, 1);
	char comm[40], real[1024], want[1024];
	int r;

	for (size_t k = 0; k < 24; k++) {
		for (size_t j = 0; j < k; j++)
			comm[j] = (char)(j % 3 == 1 ? ' ' : 'a' + (char)j);
		comm[k] = 0;
		stat_line(real, sizeof(real), comm, 1);
		stat_line(want, sizeof(want), comm, 0);
		char *got = run(cps_view_pidstat, real, &s1, &r);
		ck_assert_msg(got, "comm of %zu: refused %d", k, r);
		ck_assert_str_eq(got, want);
		free(got);
	}
}
END_TEST

START_TEST(field39_bad_input)
{
	static const unsigned one[] = { 1 };
	struct set s = set_of(one, 1);
	static const char *const bad[] = {
		"", "3622 (cat R 1 2 3\n", "3622 (cat) R 3620\n",
		/* 38 fields: no field 39 */
		"1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 17\n",
		"1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 17 x 0\n",
		"1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 17 "
		"99999999999 0\n",
		/* no space after the name; a line ending before field 39 */
		"1 (c)R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 17 1 0\n",
		"1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1\n1 1 0 0 0 0 0 0 0 0 0 17 1 0\n",
	};
	int r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *got = run(cps_view_pidstat, bad[i], &s, &r);

		ck_assert_msg(!got && r == -EINVAL, "[%s] accepted", bad[i]);
	}
	/* field 39 last, no newline */
	char *got = run(cps_view_pidstat,
			"1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 "
			"17 1", &s, &r);
	ck_assert_str_eq(got, "1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 "
			      "0 0 0 0 17 0");
	free(got);
}
END_TEST

START_TEST(cgroup_lists)
{
	static const unsigned one[] = { 1 }, both[] = { 0, 1 }, odd[] = { 3, 5, 9, 64, 65 };
	struct set s1 = set_of(one, 1), s2 = set_of(both, 2), s3 = set_of(odd, 5);
	const struct {
		const struct set *s;
		const char *real, *want;
	} cases[] = {
		{ &s1, "0-1\n", "0\n" },
		{ &s2, "0-1\n", "0-1\n" },
		{ &s1, "1\n", "0\n" },
		{ &s1, "0\n", "\n" }, /* nothing of the set: an empty list */
		{ &s1, "\n", "\n" },  /* v2: nothing asked */
		{ &s1, "", "" },
		{ &s3, "0-127\n", "0-4\n" },
		{ &s3, "5,64-65\n", "1,3-4\n" },
		{ &s3, "0-9:3\n", "0,2\n" },
		{ &s3, "3,9", "0,2" },
	};
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = run(cps_view_cgroup_cpus, cases[i].real, cases[i].s, &r);

		ck_assert_msg(got, "[%s] refused: %d", cases[i].real, r);
		ck_assert_msg(!strcmp(got, cases[i].want), "[%s]: got [%s], want [%s]",
			      cases[i].real, got, cases[i].want);
		free(got);
	}
	static const char *const bad[] = { "x\n", "0-1\n2\n", "0x3\n", "1-0\n", "0-99999\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *got = run(cps_view_cgroup_cpus, bad[i], &s2, &r);

		ck_assert_msg(!got && r == -EINVAL, "[%s] accepted", bad[i]);
	}
}
END_TEST

/* view(real) in a set of CPU 0 whose memory nodes are mems (none: a set
 * without nodes of its own) */
static char *run_mems(view_fn fn, const char *real, const struct set *mems, int *r)
{
	size_t len = strlen(real);
	char *copy = malloc(len ? len : 1);
	struct cps_buf out = { 0 };
	uint64_t cpu0[NW] = { 1 };
	struct cps_view_input in = { cpu0, NW, 1, NULL, 0, mems->m, NW, mems->n };

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, real, len);
	*r = fn(&out, copy, len, &in);
	free(copy);
	return *r ? NULL : out.p;
}

START_TEST(cgroup_mems)
{
	static const unsigned odd[] = { 1, 3 }, far[] = { 2, 70 };
	struct set m1 = set_of(odd, 2), m2 = set_of(far, 2), none = { { 0 }, 0 };
	const struct {
		const struct set *m;
		const char *real, *want;
	} cases[] = {
		{ &m1, "0-3\n", "0-1\n" },
		{ &m1, "3\n", "1\n" },
		{ &m1, "0,2\n", "\n" }, /* none of the set's nodes */
		{ &m1, "\n", "\n" },
		{ &m1, "", "" },
		{ &m2, "0-127\n", "0-1\n" },
		{ &m2, "70\n", "1\n" },
		{ &none, "0-3\n", "0-3\n" }, /* no nodes of its own: as it is */
	};
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = run_mems(cps_view_cgroup_mems, cases[i].real, cases[i].m, &r);

		ck_assert_msg(got, "[%s] refused: %d", cases[i].real, r);
		ck_assert_msg(!strcmp(got, cases[i].want), "[%s]: got [%s], want [%s]",
			      cases[i].real, got, cases[i].want);
		free(got);
	}
	ck_assert_ptr_null(run_mems(cps_view_cgroup_mems, "x\n", &m1, &r));
	ck_assert_int_eq(r, -EINVAL);
}
END_TEST

START_TEST(numa_maps)
{
	static const unsigned odd[] = { 1, 3 };
	struct set m = set_of(odd, 2), none = { { 0 }, 0 };
	const struct {
		const char *real, *want;
	} cases[] = {
		{ "7f0000000000 default anon=5 dirty=5 N1=2 N3=3 kernelpagesize_kB=4\n",
		  "7f0000000000 default anon=5 dirty=5 N0=2 N1=3 kernelpagesize_kB=4\n" },
		/* a node outside the set reads as 2 + its number, in order */
		{ "7f0000001000 bind:1,3 anon=4 N0=1 N3=3 kernelpagesize_kB=4\n",
		  "7f0000001000 bind:0-1 anon=4 N1=3 N2=1 kernelpagesize_kB=4\n" },
		{ "7f0000002000 prefer (many):3 heap anon=4 N3=4 kernelpagesize_kB=4\n",
		  "7f0000002000 prefer (many):1 heap anon=4 N1=4 kernelpagesize_kB=4\n" },
		{ "7f0000003000 weighted interleave:1,3 file=/tmp/N1=5 N1=1\n",
		  "7f0000003000 weighted interleave:0-1 file=/tmp/N1=5 N0=1\n" },
		/* with either flag the kernel prints the physical nodes */
		{ "7f0000004000 interleave=relative:1,3 anon=2 N1=2\n",
		  "7f0000004000 interleave=relative:0-1 anon=2 N0=2\n" },
		{ "7f0000005000 bind=static:0-1 anon=2 N1=2\n",
		  "7f0000005000 bind=static:0,2 anon=2 N0=2\n" },
		{ "7f0000006000 prefer:3 stack anon=1 dirty=1 active=0 N3=1 kernelpagesize_kB=4",
		  "7f0000006000 prefer:1 stack anon=1 dirty=1 active=0 N1=1 kernelpagesize_kB=4" },
		{ "00400000 default file=/bin/cat mapped=3 mapmax=2\n\n",
		  "00400000 default file=/bin/cat mapped=3 mapmax=2\n\n" },
		{ "", "" },
	};
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = run_mems(cps_view_numa_maps, cases[i].real, &m, &r);

		ck_assert_msg(got, "[%s] refused: %d", cases[i].real, r);
		ck_assert_msg(!strcmp(got, cases[i].want), "[%s]: got [%s], want [%s]",
			      cases[i].real, got, cases[i].want);
		free(got);
		got = run_mems(cps_view_numa_maps, cases[i].real, &none, &r);
		ck_assert_msg(got && !strcmp(got, cases[i].real), "no nodes of its own: [%s]",
			      got ? got : "(refused)");
		free(got);
	}
}
END_TEST

static const char mountinfo_hybrid[] =
	"23 1 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

START_TEST(cgroup_dirs)
{
	char v1[256], v2[256];
	const char *cg = "9:name=systemd:/\n3:cpuset:/job/12\n1:cpu:/\n0::/user.slice/a\n";

	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mountinfo_hybrid,
						strlen(mountinfo_hybrid), v1, sizeof(v1), v2,
						sizeof(v2)),
			 3);
	ck_assert_str_eq(v1, "/sys/fs/cgroup/cpuset/job/12");
	ck_assert_str_eq(v2, "/sys/fs/cgroup/unified/user.slice/a");

	cg = "3:cpuset:/\n0::/\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mountinfo_hybrid,
						strlen(mountinfo_hybrid), v1, sizeof(v1), v2,
						sizeof(v2)),
			 3);
	ck_assert_str_eq(v1, "/sys/fs/cgroup/cpuset");
	ck_assert_str_eq(v2, "/sys/fs/cgroup/unified");

	/* pure v2, a container's mount showing a subtree, an escaped space */
	const char *mi = "30 1 0:26 /kube/pod\\0401 /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
	cg = "0::/kube/pod 1/ctr\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mi, strlen(mi), v1, sizeof(v1), v2,
						sizeof(v2)),
			 2);
	ck_assert_str_eq(v1, "");
	ck_assert_str_eq(v2, "/sys/fs/cgroup/ctr");
	/* a cgroup outside what the mount shows */
	cg = "0::/other\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mi, strlen(mi), v1, sizeof(v1), v2,
						sizeof(v2)),
			 0);
	cg = "0::/kube/pod 12\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mi, strlen(mi), v1, sizeof(v1), v2,
						sizeof(v2)),
			 0);
	/* v1 with cpuset co-mounted, and with no cpuset mount */
	mi = "40 31 0:40 / /cg/cs rw - cgroup cgroup rw,cpu,cpuset,cpuacct\n";
	cg = "4:cpu,cpuset,cpuacct:/a\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mi, strlen(mi), v1, sizeof(v1), v2,
						sizeof(v2)),
			 1);
	ck_assert_str_eq(v1, "/cg/cs/a");
	mi = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mi, strlen(mi), v1, sizeof(v1), v2,
						sizeof(v2)),
			 0);
	/* too small for the answer */
	cg = "3:cpuset:/job/12\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), mountinfo_hybrid,
						strlen(mountinfo_hybrid), v1, 10, v2, sizeof(v2)),
			 0);
	/* garbage */
	cg = "junk\n::\n3:cpuset\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs(cg, strlen(cg), "x - y\n", 6, v1, sizeof(v1), v2,
						sizeof(v2)),
			 0);
	ck_assert(cps_cgroup_cpu_file("cpuset.cpus", true));
	ck_assert(cps_cgroup_cpu_file("cpuset.cpus", false));
	ck_assert(cps_cgroup_cpu_file("cpuset.cpus.effective", true));
	ck_assert(!cps_cgroup_cpu_file("cpuset.cpus.effective", false));
	ck_assert(cps_cgroup_cpu_file("cpuset.effective_cpus", false));
	ck_assert(!cps_cgroup_cpu_file("cpuset.effective_cpus", true));
	ck_assert(!cps_cgroup_cpu_file("cpuset.mems", true));
	/* v1 without the prefix: a noprefix mount, the cpuset filesystem */
	ck_assert(cps_cgroup_cpu_file("cpus", false));
	ck_assert(cps_cgroup_cpu_file("effective_cpus", false));
	ck_assert(!cps_cgroup_cpu_file("cpus", true));
	ck_assert(!cps_cgroup_cpu_file("mems", false));
}
END_TEST

/* As hwloc finds them: /proc/self/cpuset and /proc/mounts (the captured
 * machines have no mountinfo); and the legacy cpuset filesystem in
 * mountinfo. */
START_TEST(cgroup_dirs_mounts)
{
	char v1[256], v2[256];
	static const char legacy[] =
		"none /dev/cpuset cgroup rw,relatime,cpuset,noprefix,release_agent=/sbin/x 0 0\n";
	static const char unified[] =
		"rootfs / rootfs rw 0 0\n"
		"none /cgroup/freezer cgroup rw,relatime,freezer 0 0\n"
		"none /cgroup/unified cgroup2 rw 0 0\n";
	static const char both[] =
		"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nosuid 0 0\n"
		"cgroup /sys/fs/cgroup/cpuset cgroup rw,nosuid,cpuset 0 0\n"
		"cpuset /dev/old\\040cpuset cpuset rw 0 0\n";

	ck_assert_int_eq(cps_cgroup_cpuset_dirs_mounts("/prout\n", 7, legacy, strlen(legacy), v1,
						       sizeof(v1), v2, sizeof(v2)),
			 1);
	ck_assert_str_eq(v1, "/dev/cpuset/prout");
	ck_assert_str_eq(v2, "");
	ck_assert_int_eq(cps_cgroup_cpuset_dirs_mounts("/uid_1/job_2/step_0\n", 20, unified,
						       strlen(unified), v1, sizeof(v1), v2,
						       sizeof(v2)),
			 2);
	ck_assert_str_eq(v2, "/cgroup/unified/uid_1/job_2/step_0");
	ck_assert_int_eq(cps_cgroup_cpuset_dirs_mounts("/\n", 2, both, strlen(both), v1, sizeof(v1),
						       v2, sizeof(v2)),
			 3);
	ck_assert_str_eq(v1, "/sys/fs/cgroup/cpuset");
	ck_assert_str_eq(v2, "/sys/fs/cgroup/unified");
	/* no path, or no such mount */
	ck_assert_int_eq(cps_cgroup_cpuset_dirs_mounts("", 0, both, strlen(both), v1, sizeof(v1), v2,
						       sizeof(v2)),
			 0);
	ck_assert_int_eq(cps_cgroup_cpuset_dirs_mounts("/a\n", 3, "none /x cgroup rw,memory 0 0\n",
						       29, v1, sizeof(v1), v2, sizeof(v2)),
			 0);
	/* mountinfo naming the cpuset filesystem */
	static const char mi[] = "30 1 0:26 / /dev/cpuset rw,relatime - cpuset none rw\n";
	ck_assert_int_eq(cps_cgroup_cpuset_dirs("0::/\n1:cpuset:/job\n", 19, mi, strlen(mi), v1,
						sizeof(v1), v2, sizeof(v2)),
			 1);
	ck_assert_str_eq(v1, "/dev/cpuset/job");
}
END_TEST

static Suite *vpidstat_suite(void)
{
	Suite *s = suite_create("vpidstat");
	TCase *tc = tcase_create("pidstat");

	tcase_add_test(tc, field39_rule);
	tcase_add_test(tc, field39_rewritten);
	tcase_add_test(tc, field39_every_alignment);
	tcase_add_test(tc, field39_bad_input);
	suite_add_tcase(s, tc);
	tc = tcase_create("cgroup");
	tcase_add_test(tc, cgroup_lists);
	tcase_add_test(tc, cgroup_mems);
	tcase_add_test(tc, numa_maps);
	tcase_add_test(tc, cgroup_dirs);
	tcase_add_test(tc, cgroup_dirs_mounts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vpidstat_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
