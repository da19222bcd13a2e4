/* SPDX-License-Identifier: BSD-3-Clause */
/* preload/setcopy.c and setcopy.h: the hand-inlined translations of the
 * hot paths (setcopy_to_virtual, setcopy_to_physical, setcopy_vcpu, read
 * straight from the set copy and its derived tables) give exactly what the
 * general ones give on a copy of the CPUs (shim_to_virtual,
 * shim_to_physical: src/mask.c's cps_phys_to_virt and cps_virt_to_phys;
 * the rank rule of sched_getcpu). Random sets of a 256-CPU synthetic
 * table, random masks and buffer sizes, wrapping on and off; a fixed seed,
 * so a failure replays.
 *
 * The set copy is linked alone: the rest of the shim is replaced by the
 * few definitions below, and the process's set is the fallback set (no
 * record, no /proc). */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "src/allowance.h"
#include "tests/testlib.h"

/* ---- what the rest of the shim provides ---- */
struct shim_real shim_real;
int shim_state = ST_READY;
bool shim_wrap = true;
struct cps_ctx shim_ctx;
pid_t shim_self_pid;
uint64_t shim_self_start;
uint32_t shim_fallback_set;
long shim_tid_offset = -1;

bool shim_ready(void)
{
	return true;
}

void shim_debug(const char *fmt, ...)
{
	(void)fmt;
}

bool shim_repair_dead_writer(void)
{
	return false;
}

int shim_placement_wait(pid_t pid, uint64_t start, uint32_t fallback, struct cps_placement *s)
{
	return cps_placement_read(&shim_ctx.t, pid, start, fallback, s);
}

/* The policy half of a refresh (preload/mempolicy.c): the nodes it was
 * last handed. */
static uint64_t follow_mems[4];
static unsigned follow_calls;
void shim_mempolicy_follow(const uint64_t *mems, uint32_t nw)
{
	memcpy(follow_mems, mems, (nw < 4 ? nw : 4) * 8);
	follow_calls++;
}

/* ---- the test ---- */

#define BITS 256
#define NW (BITS / 64)

static uint64_t rng = 20261203;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

/* A random mask of CPUs below limit, each in with probability about
 * 1/density (density 0: none, 1: all). */
static void random_mask(uint64_t *m, size_t nw, unsigned limit, unsigned density)
{
	cps_mask_zero(m, nw);
	for (unsigned c = 0; c < limit && c < nw * 64; c++)
		if (density && next() % density == 0)
			cps_mask_set(m, nw, c);
}

static const char *tname;

static void setup(void)
{
	uint64_t root[NW];
	tname = tl_name();
	tl_mask(root, NW, "0-255");
	tl_init(&shim_ctx, tname, 128, 8, 8, BITS, root);
	cps_allowance_fake(root, NULL, NW); /* the synthetic CPUs are allowed */
	shim_ctx.patient = false;
	shim_real.syscall = syscall;
	shim_self_pid = getpid();
	shim_self_start = 0;
	shim_state = ST_READY;
}

static void teardown(void)
{
	cps_allowance_fake(NULL, NULL, 0);
	cps_close(&shim_ctx);
	shm_table_unlink(tname);
}

/* A new random set, made the process's set; its CPUs in set. */
static void new_set(uint64_t *set, unsigned *n)
{
	static const unsigned shapes[][2] = {
		{ 1, 1 }, { 64, 1 }, { 64, 2 }, { 128, 3 }, { 256, 2 }, { 256, 7 }, { 256, 40 },
		{ 256, 1 }, { 8, 2 }, { 200, 5 },
	};
	unsigned k = (unsigned)(next() % CPS_ARRAY_SIZE(shapes));
	do
		random_mask(set, NW, shapes[k][0], shapes[k][1]);
	while (cps_mask_empty(set, NW));
	/* sometimes the set starts beyond the first word */
	if (next() % 4 == 0 && !cps_mask_test(set, NW, 255)) {
		uint64_t hi[NW] = { 0 };
		for (unsigned c = 0; c + 64 < BITS; c++)
			if (cps_mask_test(set, NW, c))
				cps_mask_set(hi, NW, c + 64);
		if (!cps_mask_empty(hi, NW))
			cps_mask_copy(set, hi, NW);
	}
	uint32_t id;
	int r = cps_create(&shim_ctx, shim_ctx.t.root_id, 0, NULL, set, &id);
	ck_assert_msg(r == 0, "create: %d %s", r, shim_ctx.why ? shim_ctx.why : "");
	shim_fallback_set = id;
	*n = cps_mask_count(set, NW);
}

static const size_t sizes[] = { 8, 16, 24, 32, 40, 64, 128, 256, 1024 };

/* Each refresh hands the set's nodes to the policy half, once. */
START_TEST(refresh_hands_nodes)
{
	uint64_t set[NW];
	unsigned n, before = follow_calls;
	new_set(set, &n);
	ck_assert(shim_refresh(true));
	ck_assert_uint_eq(follow_calls, before + 1);
	struct cps_setinfo si;
	ck_assert_int_eq(cps_set_get(&shim_ctx, shim_fallback_set, &si), 0);
	ck_assert(cps_mask_equal(follow_mems, si.mems, NW));
	ck_assert(!cps_mask_empty(follow_mems, NW));
}
END_TEST

START_TEST(to_virtual_agrees)
{
	for (int round = 0; round < 60; round++) {
		uint64_t set[NW];
		unsigned n;
		new_set(set, &n);
		struct shim_cpus v;
		ck_assert(shim_cpus_now(&v));
		ck_assert_uint_eq(v.n, n);
		for (int t = 0; t < 200; t++) {
			size_t size = sizes[next() % CPS_ARRAY_SIZE(sizes)];
			/* the kernel's mask: the whole set, part of it, CPUs outside */
			uint64_t k[128] = { 0 }, a[128], b[128];
			switch (next() % 4) {
			case 0: cps_mask_copy(k, set, NW); break;
			case 1: random_mask(k, NW, BITS, 2); cps_mask_and(k, k, set, NW); break;
			case 2: random_mask(k, NW, BITS, 3); break;
			default: random_mask(k, NW, BITS, 0); cps_mask_set(k, NW, (unsigned)(next() % BITS)); break;
			}
			memcpy(a, k, sizeof(a));
			memcpy(b, k, sizeof(b));
			ck_assert(setcopy_to_virtual(a, size, size));
			shim_to_virtual(b, size, &v);
			ck_assert_msg(!memcmp(a, b, size),
				      "round %d try %d: size %zu, set of %u CPUs: hot and general "
				      "translations to virtual differ",
				      round, t, size, n);
		}
	}
}
END_TEST

START_TEST(to_physical_agrees)
{
	for (int round = 0; round < 60; round++) {
		uint64_t set[NW];
		unsigned n;
		new_set(set, &n);
		struct shim_cpus v;
		ck_assert(shim_cpus_now(&v));
		for (int t = 0; t < 200; t++) {
			shim_wrap = next() % 2;
			size_t size = sizes[next() % CPS_ARRAY_SIZE(sizes)];
			uint64_t want[128] = { 0 };
			switch (next() % 4) {
			case 0: random_mask(want, 128, n, 1); break;          /* 0..n-1 */
			case 1: random_mask(want, 128, n, 3); break;          /* within */
			case 2: random_mask(want, 128, 2 * n + 70, 5); break; /* beyond */
			default: random_mask(want, 128, size * 8, 0); cps_mask_set(want, 128, (unsigned)(next() % (size * 8))); break;
			}
			uint64_t p1[CPS_MAX_WORDS] = { 0 }, p2[CPS_MAX_WORDS] = { 0 };
			uint64_t v1[CPS_MAX_WORDS], v2[CPS_MAX_WORDS];
			size_t vw;
			uint32_t nw;
			uint64_t seq;
			long got = setcopy_to_physical(p1, want, size, v1, &vw, &nw, &seq);
			unsigned cnt = shim_to_physical(p2, want, size, &v, v2);
			ck_assert_msg(got >= 0, "round %d try %d: hot path passed through", round, t);
			ck_assert_msg((got == 0) == (cnt == 0),
				      "round %d try %d: size %zu wrap %d: hot %ld CPUs, general %u",
				      round, t, size, (int)shim_wrap, got, cnt);
			ck_assert_uint_eq(nw, v.nw);
			if (got)
				ck_assert_msg(cps_mask_equal(p1, p2, v.nw),
					      "round %d try %d: size %zu wrap %d, set of %u CPUs: hot "
					      "and general translations to physical differ",
					      round, t, size, (int)shim_wrap, n);
		}
	}
	shim_wrap = true;
}
END_TEST

START_TEST(vcpu_agrees)
{
	for (int round = 0; round < 60; round++) {
		uint64_t set[NW];
		unsigned n;
		new_set(set, &n);
		for (unsigned cpu = 0; cpu < BITS + 40; cpu++) {
			unsigned got, want;
			ck_assert(setcopy_vcpu(cpu, &got));
			/* the rule: the rank in the set, else cpu mod n */
			if (cps_mask_test(set, NW, cpu))
				want = cps_mask_rank(set, NW, cpu);
			else
				want = cpu % n;
			ck_assert_msg(got == want, "round %d: CPU %u is %u, not %u", round, cpu, got,
				      want);
		}
	}
}
END_TEST

static Suite *setcopy_suite(void)
{
	Suite *s = suite_create("setcopy");
	TCase *tc = tcase_create("hot and general translations agree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, to_virtual_agrees);
	tcase_add_test(tc, refresh_hands_nodes);
	tcase_add_test(tc, to_physical_agrees);
	tcase_add_test(tc, vcpu_agrees);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(setcopy_suite());
}
