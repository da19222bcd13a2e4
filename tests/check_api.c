/* SPDX-License-Identifier: BSD-3-Clause */
/* The public API (libcpusetctl): system-call convention, -1 and errno, for
 * every row of DESIGN.md's table. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "include/cpusetctl.h"
#include "tests/testlib.h"

static const char *tname;
static size_t set_size;
static cpu_set_t *set_buf;

static cpu_set_t *cpus(const char *list)
{
	uint64_t m[CPS_MAX_WORDS] = { 0 };
	if (*list)
		tl_mask(m, CPS_MAX_WORDS, list);
	CPU_ZERO_S(set_size, set_buf);
	for (int c = cps_mask_next(m, CPS_MAX_WORDS, -1); c >= 0; c = cps_mask_next(m, CPS_MAX_WORDS, c))
		CPU_SET_S((size_t)c, set_size, set_buf);
	return set_buf;
}

static void setup(void)
{
	struct cps_ctx c;
	tname = tl_name();
	tl_init(&c, tname, 32, 64, 64, 0, NULL); /* the real machine */
	cps_close(&c);
	ck_assert_int_eq(cpusetctl_use_table(tname), 0);
	int bits = cpusetctl_mask_bits();
	ck_assert_int_ge(bits, 1024);
	set_size = CPU_ALLOC_SIZE(bits);
	set_buf = CPU_ALLOC(bits);
}

static void teardown(void)
{
	CPU_FREE(set_buf);
	cpusetctl_use_table(NULL);
	shm_table_unlink(tname);
}

#define FAILS(call, err)                                                       \
	do {                                                                   \
		errno = 0;                                                     \
		ck_assert_int_eq((call), -1);                                  \
		ck_assert_msg(errno == (err), "%s: errno %d (%s), want %d", #call, errno, \
			      strerror(errno), (err));                         \
	} while (0)

START_TEST(create_rows)
{
	cpusetctl_id_t a, b;
	FAILS(cpusetctl_create(&a, 0x8), EINVAL);
	ck_assert_int_eq(cpusetctl_create(&a, 0), 0);
	ck_assert_int_eq(cpusetctl_alloc(a, set_size, cpus("0-1")), 0);
	/* strict inside non-strict */
	FAILS(cpusetctl_create_in(a, CPUSETCTL_STRICT, NULL, 0, NULL, &b), EINVAL);
	FAILS(cpusetctl_create(NULL, 0), EFAULT);
	/* full: 32 sets */
	int r;
	while ((r = cpusetctl_create(&b, 0)) == 0)
		;
	ck_assert_int_eq(errno, ENOSPC);
	FAILS(cpusetctl_use_table("x/y"), EINVAL);
}
END_TEST

START_TEST(destroy_rows)
{
	cpusetctl_id_t a, b;
	FAILS(cpusetctl_destroy(CPUSETCTL_ROOT), EINVAL);
	FAILS(cpusetctl_destroy(999), EINVAL);
	ck_assert_int_eq(cpusetctl_create_in(0, 0, "p", set_size, cpus("0-1"), &a), 0);
	ck_assert_int_eq(cpusetctl_create_in(a, 0, NULL, set_size, cpus("1"), &b), 0);
	FAILS(cpusetctl_destroy(a), EBUSY);
	setenv("CPUSETSHIM_TEST_UID", "4321", 1);
	FAILS(cpusetctl_destroy(b), EPERM);
	unsetenv("CPUSETSHIM_TEST_UID");
	ck_assert_int_eq(cpusetctl_destroy(b), 0);
	ck_assert_int_eq(cpusetctl_destroy(a), 0);
}
END_TEST

START_TEST(alloc_rows)
{
	cpusetctl_id_t a, b, s;
	FAILS(cpusetctl_alloc(CPUSETCTL_ROOT, set_size, cpus("0")), EINVAL);
	FAILS(cpusetctl_alloc(999, set_size, cpus("0")), EINVAL);
	ck_assert_int_eq(cpusetctl_create(&a, 0), 0);
	FAILS(cpusetctl_alloc(a, set_size, cpus("")), EINVAL);           /* empty */
	FAILS(cpusetctl_alloc(a, set_size, cpus("1000")), EINVAL);       /* not present */
	ck_assert_int_eq(cpusetctl_alloc(a, set_size, cpus("1")), 0);
	ck_assert_int_eq(cpusetctl_create_in(a, 0, NULL, set_size, cpus("1"), &b), 0);
	FAILS(cpusetctl_alloc(b, set_size, cpus("0")), EACCES);          /* not in parent */
	FAILS(cpusetctl_alloc(a, set_size, cpus("0")), EBUSY);           /* child holds 1 */
	setenv("CPUSETSHIM_TEST_UID", "4321", 1);
	FAILS(cpusetctl_alloc(b, set_size, cpus("1")), EPERM);
	unsetenv("CPUSETSHIM_TEST_UID");
	ck_assert_int_eq(cpusetctl_create_in(0, CPUSETCTL_STRICT, NULL, set_size, cpus("0"), &s), 0);
	cpusetctl_id_t l;
	ck_assert_int_eq(cpusetctl_create(&l, 0), 0);
	FAILS(cpusetctl_alloc(l, set_size, cpus("0")), EBUSY);           /* strict sibling */
	FAILS(cpusetctl_alloc(s, set_size, cpus("0-1")), EBUSY);         /* strict vs any sibling */
	FAILS(cpusetctl_alloc(a, set_size, NULL), EFAULT);
}
END_TEST

/* Memory nodes on this machine's own: its nodes with memory (node 0 on a
 * kernel without NUMA). */
START_TEST(mems_rows)
{
	cpusetctl_id_t a;
	unsigned long nodes[1024 / (8 * sizeof(unsigned long))], big[9000 / (8 * sizeof(unsigned long)) + 1];
	uint64_t have[CPS_MAX_WORDS] = { 0 };
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	char line[256] = "0";
	if (f) {
		if (!fgets(line, sizeof(line), f))
			strcpy(line, "0");
		fclose(f);
	}
	line[strcspn(line, "\n")] = 0;
	tl_mask(have, CPS_MAX_WORDS, line);
	int first = cps_mask_next(have, CPS_MAX_WORDS, -1);
	memset(nodes, 0, sizeof(nodes));
	ck_assert_int_eq(cpusetctl_get_mems(CPUSETCTL_ROOT, nodes, 1024),
			 (int)cps_mask_count(have, CPS_MAX_WORDS));
	ck_assert(nodes[first / 64] >> (first % 64) & 1);
	FAILS(cpusetctl_get_mems(CPUSETCTL_ROOT, NULL, 1024), EFAULT);
	FAILS(cpusetctl_get_mems(CPUSETCTL_ROOT, nodes, (unsigned long)first), EINVAL); /* too small */
	FAILS(cpusetctl_get_mems(999, nodes, 1024), EINVAL);
	FAILS(cpusetctl_set_mems(CPUSETCTL_ROOT, nodes, 1024), EINVAL);
	ck_assert_int_eq(cpusetctl_create_in(0, 0, NULL, set_size, cpus("0"), &a), 0);
	/* by default the parent's */
	memset(nodes, 0, sizeof(nodes));
	ck_assert_int_eq(cpusetctl_get_mems(a, nodes, 1024), (int)cps_mask_count(have, CPS_MAX_WORDS));
	memset(nodes, 0, sizeof(nodes));
	FAILS(cpusetctl_set_mems(a, nodes, 1024), EINVAL);             /* empty */
	nodes[1023 / 64] = 1ul << (1023 % 64);
	FAILS(cpusetctl_set_mems(a, nodes, 1024), EINVAL);             /* no such node */
	memset(big, 0, sizeof(big));
	big[8999 / 64] = 1ul << (8999 % 64);
	FAILS(cpusetctl_set_mems(a, big, 9000), EINVAL);               /* beyond the width */
	memset(nodes, 0, sizeof(nodes));
	nodes[first / 64] = 1ul << (first % 64);
	setenv("CPUSETSHIM_TEST_UID", "4321", 1);
	FAILS(cpusetctl_set_mems(a, nodes, 1024), EPERM);
	unsetenv("CPUSETSHIM_TEST_UID");
	ck_assert_int_eq(cpusetctl_set_mems(a, nodes, 1024), 0);
	memset(nodes, 0, sizeof(nodes));
	ck_assert_int_eq(cpusetctl_get_mems(a, nodes, 1024), 1);
	ck_assert(nodes[first / 64] >> (first % 64) & 1);
	ck_assert_int_eq(cpusetctl_set_mems(a, NULL, 0), 0);           /* auto */
	ck_assert_int_eq(cpusetctl_get_mems(a, nodes, 1024), 1);
}
END_TEST

START_TEST(attach_rows)
{
	cpusetctl_id_t a, e;
	ck_assert_int_eq(cpusetctl_create(&e, 0), 0);
	ck_assert_int_eq(cpusetctl_create_in(0, 0, NULL, set_size, cpus("1"), &a), 0);
	pid_t p = tl_sleeper();
	FAILS(cpusetctl_attach(999, p), EINVAL);
	FAILS(cpusetctl_attach(e, p), EINVAL);
	FAILS(cpusetctl_attach(a, 4194304 + 9), ESRCH);
	setenv("CPUSETSHIM_TEST_UID", "4321", 1);
	FAILS(cpusetctl_attach(a, p), EPERM);
	unsetenv("CPUSETSHIM_TEST_UID");
	ck_assert_int_eq(cpusetctl_attach(a, p), 0);
	cpu_set_t *got = CPU_ALLOC(1024);
	ck_assert_int_eq(sched_getaffinity(p, CPU_ALLOC_SIZE(1024), got), 0);
	ck_assert_int_eq(CPU_COUNT_S(CPU_ALLOC_SIZE(1024), got), 1);
	ck_assert(CPU_ISSET_S(1, CPU_ALLOC_SIZE(1024), got));
	CPU_FREE(got);
	cpusetctl_id_t w;
	ck_assert_int_eq(cpusetctl_which(p, &w), 0);
	ck_assert_uint_eq(w, a);
	struct cpusetctl_info info;
	ck_assert_int_eq(cpusetctl_get(a, &info, set_size, set_buf), 0);
	ck_assert_uint_eq(info.nmembers, 1);
	ck_assert_uint_eq(info.parent, CPUSETCTL_ROOT);
	ck_assert(CPU_ISSET_S(1, set_size, set_buf) && CPU_COUNT_S(set_size, set_buf) == 1);
	FAILS(cpusetctl_destroy(a), EBUSY);
	tl_reap(p);
	ck_assert_int_eq(cpusetctl_destroy(a), 0);
}
END_TEST

START_TEST(freecpus_rows)
{
	cpusetctl_id_t s;
	ck_assert_int_eq(cpusetctl_getfreecpus(0, set_size, set_buf), (int)set_size);
	int all = CPU_COUNT_S(set_size, set_buf);
	ck_assert_int_ge(all, 1);
	ck_assert_int_eq(cpusetctl_create_in(0, CPUSETCTL_STRICT, "s", set_size, cpus("0"), &s), 0);
	ck_assert_int_eq(cpusetctl_getfreecpus(0, set_size, set_buf), (int)set_size);
	ck_assert_int_eq(CPU_COUNT_S(set_size, set_buf), all - 1);
	ck_assert(!CPU_ISSET_S(0, set_size, set_buf));
	ck_assert_int_eq(cpusetctl_getfreecpus(CPUSETCTL_STRICT, set_size, set_buf), (int)set_size);
	ck_assert(!CPU_ISSET_S(0, set_size, set_buf));
	FAILS(cpusetctl_getfreecpus(0x40, set_size, set_buf), EINVAL);
	FAILS(cpusetctl_getfreecpus(0, set_size, NULL), EFAULT);
	cpusetctl_id_t f;
	ck_assert_int_eq(cpusetctl_find("s", &f), 0);
	ck_assert_uint_eq(f, s);
	FAILS(cpusetctl_find("nope", &f), ENOENT);
	cpusetctl_id_t ids[4];
	ck_assert_int_eq(cpusetctl_list(ids, 4), 2);
}
END_TEST

START_TEST(kernel_allowance_rows)
{
	cpusetctl_id_t a;
	cpu_set_t one;
	/* under taskset -c 0: CPU 1 is refused, with EACCES */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	FAILS(cpusetctl_create_in(0, 0, NULL, set_size, cpus("1"), &a), EACCES);
	ck_assert_int_eq(cpusetctl_create_in(0, 0, NULL, set_size, cpus("0"), &a), 0);
	FAILS(cpusetctl_alloc(a, set_size, cpus("0-1")), EACCES);
	if (geteuid() == 0) {
		/* root only explicitly */
		ck_assert_int_eq(cpusetctl_override(1), 0);
		ck_assert_int_eq(cpusetctl_alloc(a, set_size, cpus("0-1")), 0);
		ck_assert_int_eq(cpusetctl_override(0), 0);
		FAILS(cpusetctl_attach(a, 0), EACCES);
	} else {
		FAILS(cpusetctl_override(1), EPERM);
	}
}
END_TEST

START_TEST(init_table_rows)
{
	char name[64];
	cpu_set_t one;
	snprintf(name, sizeof(name), "%s.init", tname);
	FAILS(cpusetctl_init_table(name, 0, NULL, 0, (gid_t)-1, 0x10), EINVAL);
	FAILS(cpusetctl_init_table(name, 0, NULL, 010000, (gid_t)-1, 0), EINVAL);
	FAILS(cpusetctl_init_table("a/b", 0, NULL, 0, (gid_t)-1, 0), EINVAL);
	FAILS(cpusetctl_init_table(name, set_size, cpus(""), 0, (gid_t)-1, 0), EINVAL);
	/* made inside a task bound to CPU 1, the root is still the machine's */
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ck_assert_int_eq(cpusetctl_init_table(name, 0, NULL, 0640, (gid_t)-1, 0), 0);
	FAILS(cpusetctl_init_table(name, 0, NULL, 0, (gid_t)-1, 0), EEXIST);
	ck_assert_int_eq(cpusetctl_use_table(name), 0);
	struct cpusetctl_info info;
	ck_assert_int_eq(cpusetctl_get(CPUSETCTL_ROOT, &info, set_size, set_buf), 0);
	ck_assert_int_eq(CPU_COUNT_S(set_size, set_buf), (int)sysconf(_SC_NPROCESSORS_ONLN));
	/* replaced, with the CPUs asked for */
	ck_assert_int_eq(cpusetctl_init_table(name, set_size, cpus("0"), 0, (gid_t)-1,
					      CPUSETCTL_REPLACE), 0);
	ck_assert_int_eq(cpusetctl_get(CPUSETCTL_ROOT, &info, set_size, set_buf), 0);
	ck_assert_int_eq(CPU_COUNT_S(set_size, set_buf), 1);
	ck_assert(CPU_ISSET_S(0, set_size, set_buf));
	cpusetctl_use_table(tname);
	shm_table_unlink(name);
}
END_TEST

START_TEST(sweep_rows)
{
	cpusetctl_id_t a;
	ck_assert_int_eq(cpusetctl_create_in(0, CPUSETCTL_AUTOCLEAN, "swept", set_size, cpus("0"), &a), 0);
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cpusetctl_attach(a, p), 0);
	ck_assert_int_eq(cpusetctl_sweep(), 0); /* alive */
	tl_reap(p);
	ck_assert_int_eq(cpusetctl_sweep(), 1);
	cpusetctl_id_t found;
	FAILS(cpusetctl_find("swept", &found), ENOENT); /* the AUTOCLEAN set went with it */
	/* destroy of an AUTOCLEAN set whose members died: done, not EINVAL */
	ck_assert_int_eq(cpusetctl_create_in(0, CPUSETCTL_AUTOCLEAN, NULL, set_size, cpus("0"), &a), 0);
	p = tl_sleeper();
	ck_assert_int_eq(cpusetctl_attach(a, p), 0);
	tl_reap(p);
	ck_assert_int_eq(cpusetctl_destroy(a), 0);
	FAILS(cpusetctl_destroy(a), EINVAL);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("rows");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_rows);
	tcase_add_test(tc, destroy_rows);
	tcase_add_test(tc, alloc_rows);
	tcase_add_test(tc, attach_rows);
	tcase_add_test(tc, freecpus_rows);
	tcase_add_test(tc, kernel_allowance_rows);
	tcase_add_test(tc, init_table_rows);
	tcase_add_test(tc, sweep_rows);
	tcase_add_test(tc, mems_rows);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(api_suite());
}
