/* SPDX-License-Identifier: BSD-3-Clause */
/* src/sets.c, membership.c, migrate.c, placement.c: every row of
 * DESIGN.md's errno table, nesting and renumbering, getfreecpus,
 * membership, concurrency. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#include "shm/registry.h"
#include "src/allowance.h"
#include "src/nodes.h"
#include "src/procfs.h"
#include "src/check.h"
#include "tests/testlib.h"

#define NW 2 /* 128-bit masks for the synthetic tables */

static struct cps_ctx ctx;
static const char *tname;

static uint64_t *mask(const char *list)
{
	static uint64_t bufs[8][CPS_MAX_WORDS];
	static int k;
	uint64_t *m = bufs[k++ % 8];
	tl_mask(m, ctx.t.mask_words, list);
	return m;
}

/* A 64-CPU synthetic root "0-63". */
static void setup_synth(void)
{
	tname = tl_name();
	uint64_t root[NW];
	struct cps_parse_error e;
	ck_assert_int_eq(cps_cpulist_parse("0-63", root, NW, &e), 0);
	tl_init(&ctx, tname, 64, 64, 64, 64 * NW, root);
	/* the caller may run on all 64 synthetic CPUs */
	cps_allowance_fake(root, NULL, NW);
}

/* The real machine as root, for attach (real affinity). */
static void setup_real(void)
{
	tname = tl_name();
	tl_init(&ctx, tname, 64, 64, 256, 0, NULL);
}

/* The synthetic root on a 4-node machine: node k holds CPUs 16k..16k+15
 * and memory; the caller may use every node. */
static void setup_numa(void)
{
	uint64_t nc[4 * NW] = { 0 };
	for (unsigned k = 0; k < 4; k++)
		for (unsigned c = 16 * k; c < 16 * k + 16; c++)
			cps_mask_set(nc + k * NW, NW, c);
	uint64_t mem[NW] = { 0xf };
	cps_nodes_fake(4, nc, mem, NW);
	cps_allowance_fake_mems(mem, NULL, NW);
	setup_synth();
}

static void print_violation(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "VIOLATION: %s\n", msg);
}

/* Every case leaves a table that keeps the invariants (cps_check, as
 * cpuset-inspect --check). */
static void teardown(void)
{
	cps_allowance_fake(NULL, NULL, 0);
	cps_allowance_fake_mems(NULL, NULL, 0);
	cps_nodes_fake(0, NULL, NULL, 0);
	struct shm_table copy;
	ck_assert_int_eq(cps_table_copy(&ctx, &copy), 0);
	int n = cps_check(&copy, print_violation, NULL);
	cps_table_copy_free(&copy);
	ck_assert_msg(n == 0, "%d violations of the table's invariants", n);
	cps_close(&ctx);
	shm_table_unlink(tname);
}

static uint32_t mk(uint32_t parent, unsigned flags, const char *cpus)
{
	uint32_t id = 0;
	int r = cps_create(&ctx, parent, flags, NULL, cpus ? mask(cpus) : NULL, &id);
	ck_assert_msg(r == 0, "create in %u (%s): %d %s", parent, cpus ? cpus : "-", r,
		      ctx.why ? ctx.why : "");
	return id;
}

static void cpus_eq(uint32_t id, const char *list)
{
	struct cps_setinfo si;
	ck_assert_int_eq(cps_set_get(&ctx, id, &si), 0);
	ck_assert_msg(cps_mask_equal(si.cpus, mask(list), ctx.t.mask_words), "set %u cpus", id);
}

/* ---- create ---- */
START_TEST(create_errors)
{
	uint32_t id, R = ctx.t.root_id;
	ck_assert_int_eq(cps_create(&ctx, R, 0x4, NULL, NULL, &id), -EINVAL); /* unknown flag */
	uint32_t loose = mk(R, 0, "0-7");
	/* strict child of a non-strict parent */
	ck_assert_int_eq(cps_create(&ctx, loose, CPS_STRICT, NULL, NULL, &id), -EINVAL);
	ck_assert_int_eq(cps_create(&ctx, 999, 0, NULL, NULL, &id), -EINVAL); /* no parent */
	ck_assert_int_eq(cps_create(&ctx, R, 0, "1234", NULL, &id), -EINVAL); /* all digits */
	ck_assert_int_eq(cps_create(&ctx, R, 0, "a b", NULL, &id), -EINVAL);
	ck_assert_int_eq(cps_create(&ctx, R, 0, "web", NULL, &id), 0);
	ck_assert_int_eq(cps_create(&ctx, R, 0, "web", NULL, &id), -EEXIST);
	/* ENOSPC: table full (64 sets) */
	int made = 3, r = 0;
	while ((r = cps_create(&ctx, R, 0, NULL, NULL, &id)) == 0)
		made++;
	ck_assert_int_eq(r, -ENOSPC);
	ck_assert_int_eq(made, 64);
	/* EACCES: table not writable */
	struct cps_ctx ro;
	ck_assert_int_eq(cps_open(&ro, tname, CPS_OPEN_READ), 0);
	ck_assert_int_eq(cps_create(&ro, R, 0, NULL, NULL, &id), -EACCES);
	cps_close(&ro);
}
END_TEST

/* ---- destroy ---- */
START_TEST(destroy_errors)
{
	uint32_t R = ctx.t.root_id;
	ck_assert_int_eq(cps_destroy(&ctx, R), -EINVAL);
	ck_assert_int_eq(cps_destroy(&ctx, 4242), -EINVAL);
	uint32_t a = mk(R, 0, "0-7"), b = mk(a, 0, "1");
	ck_assert_int_eq(cps_destroy(&ctx, a), -EBUSY); /* has a child */
	ctx.uid = 4321;                                  /* another user */
	ck_assert_int_eq(cps_destroy(&ctx, b), -EPERM);
	ctx.uid = 0;                                     /* root may */
	ck_assert_int_eq(cps_destroy(&ctx, b), 0);
	ck_assert_int_eq(cps_destroy(&ctx, a), 0);
	ck_assert_uint_eq(ctx.t.h->nsets, 1);
}
END_TEST

START_TEST(destroy_busy_with_member)
{
	uint32_t a = mk(ctx.t.root_id, 0, "1");
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, a, p), 0);
	ck_assert_int_eq(cps_destroy(&ctx, a), -EBUSY);
	tl_reap(p);
	/* the dead member is swept by the write itself */
	ck_assert_int_eq(cps_destroy(&ctx, a), 0);
}
END_TEST

/* ---- alloc ---- */
START_TEST(alloc_errors)
{
	uint32_t R = ctx.t.root_id;
	uint32_t a = mk(R, 0, "0-15");
	uint64_t empty[CPS_MAX_WORDS] = { 0 };
	ck_assert_int_eq(cps_alloc(&ctx, R, mask("0")), -EINVAL);     /* root */
	ck_assert_int_eq(cps_alloc(&ctx, 777, mask("0")), -EINVAL);   /* unknown */
	ck_assert_int_eq(cps_alloc(&ctx, a, empty), -EINVAL);         /* empty */
	ck_assert_int_eq(cps_alloc(&ctx, a, mask("64")), -EINVAL);    /* not present */
	uint32_t b = mk(a, 0, "0-3");
	ck_assert_int_eq(cps_alloc(&ctx, b, mask("0-4,20")), -EACCES); /* not in parent */
	ctx.uid = 4321;
	ck_assert_int_eq(cps_alloc(&ctx, b, mask("0-1")), -EPERM);
	ctx.uid = 0;
	/* removing a CPU a child still holds */
	ck_assert_int_eq(cps_alloc(&ctx, a, mask("2-15")), -EBUSY);
	/* strict sibling holds CPU 40; a loose set may not take it */
	uint32_t s1 = mk(R, CPS_STRICT, "40-41");
	uint32_t l1 = mk(R, 0, "42");
	ck_assert_int_eq(cps_alloc(&ctx, l1, mask("40,42")), -EBUSY);
	/* a strict set may take no CPU any sibling holds */
	ck_assert_int_eq(cps_alloc(&ctx, s1, mask("40-42")), -EBUSY);
	ck_assert_int_eq(cps_alloc(&ctx, s1, mask("40-41,50")), 0); /* its own + a free one */
	cpus_eq(s1, "40-41,50");
	/* create with CPUs refused leaves nothing behind */
	uint32_t id, n0 = ctx.t.h->nsets;
	ck_assert_int_eq(cps_create(&ctx, R, CPS_STRICT, NULL, mask("0"), &id), -EBUSY);
	ck_assert_uint_eq(ctx.t.h->nsets, n0);
}
END_TEST

START_TEST(strict_siblings_and_freecpus)
{
	uint32_t R = ctx.t.root_id;
	uint64_t f[CPS_MAX_WORDS];
	uint32_t s = mk(R, CPS_STRICT, "0-7");
	mk(R, 0, "8-15");
	/* a non-strict child may take everything but strictly held CPUs */
	ck_assert_int_eq(cps_getfreecpus(&ctx, R, 0, f), 0);
	ck_assert(cps_mask_equal(f, mask("8-63"), NW));
	/* a strict child only what no child holds */
	ck_assert_int_eq(cps_getfreecpus(&ctx, R, CPS_STRICT, f), 0);
	ck_assert(cps_mask_equal(f, mask("16-63"), NW));
	ck_assert_int_eq(cps_getfreecpus(&ctx, R, 0x10, f), -EINVAL);
	/* second strict sibling overlapping: refused; disjoint: fine */
	uint32_t id;
	ck_assert_int_eq(cps_create(&ctx, R, CPS_STRICT, NULL, mask("7-9"), &id), -EBUSY);
	ck_assert_int_eq(cps_create(&ctx, R, CPS_STRICT, NULL, mask("16-23"), &id), 0);
	/* inside the strict set, getfreecpus sees its CPUs */
	ck_assert_int_eq(cps_getfreecpus(&ctx, s, 0, f), 0);
	ck_assert(cps_mask_equal(f, mask("0-7"), NW));
}
END_TEST

START_TEST(three_levels_renumbered)
{
	uint32_t R = ctx.t.root_id;
	uint32_t l1 = mk(R, CPS_STRICT, "8-15");
	uint32_t l2 = mk(l1, CPS_STRICT, "10,12,14");
	uint32_t l3 = mk(l2, 0, "14");
	struct cps_setinfo s1, s2, s3;
	ck_assert_int_eq(cps_set_get(&ctx, l1, &s1), 0);
	ck_assert_int_eq(cps_set_get(&ctx, l2, &s2), 0);
	ck_assert_int_eq(cps_set_get(&ctx, l3, &s3), 0);
	ck_assert_uint_eq(s3.parent, l2);
	ck_assert(cps_mask_equal(s1.reserved, mask("10,12,14"), NW));
	ck_assert(cps_mask_equal(s1.sreserved, mask("10,12,14"), NW));
	ck_assert(cps_mask_equal(s2.reserved, mask("14"), NW));
	ck_assert(cps_mask_empty(s2.sreserved, NW));
	/* each level numbers its CPUs 0..n-1; virtual v is the (v mod n)-th */
	uint64_t v[NW], p[NW];
	tl_mask(v, NW, "0");
	ck_assert_uint_eq(cps_virt_to_phys(p, s1.cpus, NW, v, NW, true), 1);
	ck_assert(cps_mask_equal(p, mask("8"), NW));
	ck_assert_uint_eq(cps_virt_to_phys(p, s2.cpus, NW, v, NW, true), 1);
	ck_assert(cps_mask_equal(p, mask("10"), NW));
	tl_mask(v, NW, "4"); /* 4 mod 3 = 1 -> 12 */
	cps_virt_to_phys(p, s2.cpus, NW, v, NW, true);
	ck_assert(cps_mask_equal(p, mask("12"), NW));
	tl_mask(v, NW, "0-5");
	ck_assert_uint_eq(cps_virt_to_phys(p, s3.cpus, NW, v, NW, true), 1);
	ck_assert(cps_mask_equal(p, mask("14"), NW));
	/* without wrap, virtual CPUs beyond the set are ignored */
	tl_mask(v, NW, "1-5");
	ck_assert_uint_eq(cps_virt_to_phys(p, s3.cpus, NW, v, NW, false), 0);
	/* growing the middle level inside level 1 keeps the child */
	ck_assert_int_eq(cps_alloc(&ctx, l2, mask("10-15")), 0);
	ck_assert_int_eq(cps_alloc(&ctx, l2, mask("10-13")), -EBUSY); /* child holds 14 */
	/* destroy bottom up */
	ck_assert_int_eq(cps_destroy(&ctx, l1), -EBUSY);
	ck_assert_int_eq(cps_destroy(&ctx, l3), 0);
	ck_assert_int_eq(cps_destroy(&ctx, l2), 0);
	ck_assert_int_eq(cps_destroy(&ctx, l1), 0);
}
END_TEST

START_TEST(find_and_list)
{
	uint32_t id, R = ctx.t.root_id;
	ck_assert_int_eq(cps_create(&ctx, R, 0, "alpha", mask("1"), &id), 0);
	uint32_t f;
	ck_assert_int_eq(cps_find(&ctx, "alpha", &f), 0);
	ck_assert_uint_eq(f, id);
	char b[16];
	snprintf(b, sizeof(b), "%u", id);
	ck_assert_int_eq(cps_find(&ctx, b, &f), 0);
	ck_assert_int_eq(cps_find(&ctx, "beta", &f), -ENOENT);
	/* a name may start with a digit: "12x" is a name (none here), and
	 * names it once made; all digits is an id */
	ck_assert_int_eq(cps_find(&ctx, "12x", &f), -ENOENT);
	uint32_t id12;
	ck_assert_int_eq(cps_create(&ctx, R, 0, "12x", mask("1"), &id12), 0);
	ck_assert_int_eq(cps_find(&ctx, "12x", &f), 0);
	ck_assert_uint_eq(f, id12);
	ck_assert_int_eq(cps_create(&ctx, R, 0, "123", mask("1"), &f), -EINVAL);
	ck_assert_int_eq(cps_find(&ctx, "0", &f), -EINVAL);
	ck_assert_int_eq(cps_find(&ctx, "99999999999", &f), -EINVAL);
	ck_assert_int_eq(cps_destroy(&ctx, id12), 0);
	uint32_t ids[8];
	ck_assert_int_eq(cps_set_list(&ctx, ids, 8), 2);
	ck_assert_uint_eq(ids[0], R);
	ck_assert_uint_eq(ids[1], id);
}
END_TEST

/* ---- attach (real machine) ---- */
static void real_mask_eq(pid_t tid, const char *list)
{
	uint64_t m[CPS_MAX_WORDS] = { 0 }, want[CPS_MAX_WORDS];
	ck_assert_int_ge(syscall(SYS_sched_getaffinity, tid, sizeof(m), m), 0);
	tl_mask(want, CPS_MAX_WORDS, list);
	ck_assert_msg(cps_mask_equal(m, want, CPS_MAX_WORDS), "tid %d mask %llx", tid,
		      (unsigned long long)m[0]);
}

START_TEST(attach_errors_and_effect)
{
	uint32_t R = ctx.t.root_id, id;
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, NULL, &id), 0);
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, id, p), -EINVAL);   /* empty set */
	ck_assert_int_eq(cps_attach(&ctx, 5555, p), -EINVAL); /* unknown set */
	ck_assert_int_eq(cps_alloc(&ctx, id, mask("1")), 0);
	ck_assert_int_eq(cps_attach(&ctx, id, 4194304 + 7), -ESRCH);
	ctx.uid = 4321; /* not the set's owner */
	ck_assert_int_eq(cps_attach(&ctx, id, p), -EPERM);
	ctx.uid = 0;
	/* a set owned by 4321, and a process of another uid: EPERM */
	uint32_t theirs;
	ctx.uid = 4321;
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, mask("1"), &theirs), 0);
	ck_assert_int_eq(cps_attach(&ctx, theirs, p), -EPERM); /* p is root's */
	ctx.uid = 0;
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	real_mask_eq(p, "1");
	uint32_t w;
	ck_assert_int_eq(cps_which(&ctx, p, &w), 0);
	ck_assert_uint_eq(w, id);
	struct cps_setinfo si;
	cps_set_get(&ctx, id, &si);
	ck_assert_uint_eq(si.nmembers, 1);
	/* a child of a member is in the set by ancestry */
	ck_assert_int_eq(cps_which(&ctx, p, &w), 0);
	/* moving to another set: counts follow */
	ck_assert_int_eq(cps_attach(&ctx, theirs, p), 0); /* root may */
	cps_set_get(&ctx, id, &si);
	ck_assert_uint_eq(si.nmembers, 0);
	tl_reap(p);
}
END_TEST

START_TEST(attach_other_uid_process)
{
	uint32_t id = mk(ctx.t.root_id, 0, "0");
	pid_t p = fork();
	if (p == 0) {
		if (setuid(65534) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	/* until the child is nobody, or has ended (not root: setuid fails
	 * and it exits): no fixed time (under QEMU's user mode, on a loaded
	 * machine, a fork's first steps take seconds); the tcase's timeout
	 * bounds it */
	for (;;) {
		char path[64], line[256];
		unsigned ruid = 0;
		struct cps_procinfo pi;
		snprintf(path, sizeof path, "/proc/%d/status", (int)p);
		FILE *f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "Uid: %u", &ruid) == 1)
				break;
		fclose(f);
		if (ruid == 65534 || (cps_proc_info(p, &pi) == 0 && pi.state == 'Z'))
			break;
		usleep(10000);
	}
	ctx.uid = 4321; /* owns nothing, is not nobody */
	uint32_t mine;
	ck_assert_int_eq(cps_create(&ctx, ctx.t.root_id, 0, NULL, mask("0"), &mine), 0);
	ck_assert_int_eq(cps_attach(&ctx, mine, p), -EPERM);
	ctx.uid = 0;
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0); /* root may move anyone */
	tl_reap(p);
}
END_TEST

START_TEST(autoclean_and_ancestry)
{
	uint32_t id = mk(ctx.t.root_id, CPS_AUTOCLEAN, "1");
	pid_t p = tl_sleeper();
	/* never attached: stays */
	ck_assert_int_eq(cps_sweep(&ctx), 0);
	ck_assert_int_eq(shm_set_by_id(&ctx.t, id) != NULL, 1);
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	tl_reap(p);
	ck_assert_int_eq(cps_sweep(&ctx), 1);
	ck_assert_ptr_null(shm_set_by_id(&ctx.t, id));
}
END_TEST

START_TEST(reused_pid_is_not_member)
{
	uint32_t id = mk(ctx.t.root_id, 0, "1");
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	/* forge the record's start time: as if p were a new process */
	ck_assert_int_eq(shm_write_begin(&ctx.t), 0);
	struct shm_proc *pr = shm_proc_at(&ctx.t, (uint32_t)shm_proc_find(&ctx.t, p));
	uint64_t st = pr->start + 1;
	shm_write(&ctx.t, &pr->start, &st, sizeof(st));
	shm_write_commit(&ctx.t);
	uint32_t w;
	ck_assert_int_eq(cps_which(&ctx, p, &w), 0);
	ck_assert_uint_eq(w, ctx.t.root_id);
	ck_assert_int_eq(cps_sweep(&ctx), 1);
	tl_reap(p);
}
END_TEST

/* The rules the tools apply before a table exists or a set is made. */
START_TEST(root_cpus_online_and_nesting)
{
	uint64_t m[16], off[16], want[16];
	tl_mask(m, 16, "0");
	ck_assert_int_eq(cps_root_cpus_check(m, 16, off), 0); /* CPU 0 is always online */
	ck_assert_int_eq(cps_mask_empty(off, 16), 1);
	tl_mask(m, 16, "0,1000");
	ck_assert_int_eq(cps_root_cpus_check(m, 16, off), -EINVAL);
	tl_mask(want, 16, "1000");
	ck_assert_int_eq(cps_mask_equal(off, want, 16), 1);
	ck_assert_str_eq(cps_nesting_refusal(0, CPS_STRICT),
			 "a strict set can only be made inside a strict set");
	ck_assert_ptr_null(cps_nesting_refusal(CPS_STRICT, CPS_STRICT));
	ck_assert_ptr_null(cps_nesting_refusal(0, CPS_AUTOCLEAN));
}
END_TEST

/* A table that stays busy is not a missing set: EAGAIN, with its reason. */
START_TEST(busy_table_is_not_no_such_set)
{
	uint32_t id = mk(ctx.t.root_id, 0, "0");
	uint64_t m[CPS_MAX_WORDS];
	struct cps_ctx other;
	ck_assert_int_eq(cps_open(&other, tname, CPS_OPEN_WRITE), 0);
	other.patient = false; /* as the shim: no waiting for the writer */
	ck_assert_int_eq(shm_write_begin(&ctx.t), 0); /* a writer inside */
	/* the set is found through the writer (the table as committed); the
	 * attach, a write, then fails on the lock, never as "no such set" */
	int r = cps_attach(&other, id, 0);
	ck_assert_int_lt(r, 0);
	ck_assert_int_ne(r, -EINVAL);
	ck_assert_ptr_nonnull(other.why);
	ck_assert_ptr_null(strstr(other.why, "no such set"));
	ck_assert_int_eq(cps_getfreecpus(&other, id, 0, m), 0);
	shm_write_commit(&ctx.t);
	/* and a real missing set still says so */
	ck_assert_int_eq(cps_attach(&other, 9999, 0), -EINVAL);
	ck_assert_str_eq(other.why, "no such set");
	ck_assert_int_eq(cps_getfreecpus(&other, 9999, 0, m), -EINVAL);
	cps_close(&other);
}
END_TEST

START_TEST(full_of_dead_members)
{
	/* a registry full of dead members never blocks a new one */
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 8, 4, 8, 0, NULL);
	uint32_t id;
	uint64_t m[CPS_MAX_WORDS];
	tl_mask(m, c.t.mask_words, "1");
	ck_assert_int_eq(cps_create(&c, c.t.root_id, 0, NULL, m, &id), 0);
	pid_t p[4];
	for (int i = 0; i < 4; i++) {
		p[i] = tl_sleeper();
		ck_assert_int_eq(cps_register(&c, p[i], id), 0);
	}
	ck_assert_uint_eq(c.t.h->nprocs, 4);
	pid_t extra = tl_sleeper();
	ck_assert_int_eq(cps_register(&c, extra, id), -ENOSPC); /* all alive: full */
	for (int i = 0; i < 4; i++)
		tl_reap(p[i]);
	/* the shim's registration sweeps when it finds no room */
	ck_assert_int_eq(cps_register(&c, extra, id), 0);
	ck_assert_uint_eq(c.t.h->nprocs, 1);
	struct cps_setinfo si;
	ck_assert_int_eq(cps_set_get(&c, id, &si), 0);
	ck_assert_uint_eq(si.nmembers, 1);
	tl_reap(extra);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

/* ---- cps_check: each invariant, broken in a copy of a good table ---- */

struct said {
	int n;
	char text[4096];
};

static void collect(void *arg, const char *msg)
{
	struct said *w = arg;
	size_t len = strlen(w->text);
	w->n++;
	snprintf(w->text + len, sizeof(w->text) - len, "%s\n", msg);
}

/* A fresh copy of ctx's good table in *copy (the last one freed). */
/* A copy to forge records in. The copy marks the pages it read from the
 * table's file, and the check skips slots in no such page; a record
 * forged in the copy itself lies where the file had none, so the forging
 * tests take the copy as if every page had been read. */
static void fresh(struct shm_table *copy)
{
	if (copy->base)
		cps_table_copy_free(copy);
	ck_assert_int_eq(cps_table_copy(&ctx, copy), 0);
	free((void *)copy->present);
	copy->present = NULL;
}

#define ck_says(copy, want)                                                                  \
	do {                                                                                 \
		struct said w_ = { 0, "" };                                                  \
		int n_ = cps_check(copy, collect, &w_);                                      \
		ck_assert_int_eq(n_, w_.n);                                                  \
		ck_assert_msg(n_ > 0 && strstr(w_.text, want), "want [%s], said (%d):\n%s", \
			      want, n_, w_.text);                                            \
	} while (0)

static struct shm_set *set_of(const struct shm_table *t, uint32_t id)
{
	struct shm_set *s = shm_set_by_id(t, id);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(check_each_invariant)
{
	uint32_t R = ctx.t.root_id, A = mk(R, CPS_STRICT, "0-7"), A2 = mk(R, CPS_STRICT, "16-23");
	uint32_t B = mk(R, 0, "8-15"), C = mk(B, 0, "8-9");
	struct shm_table t = { 0 };
	char want[160];
	fresh(&t);
	ck_assert_int_eq(cps_check(&t, NULL, NULL), 0);

	/* the header */
	t.h->seq |= 1;
	ck_says(&t, "the sequence counter is odd");
	fresh(&t);
	t.h->jcount = 3;
	ck_says(&t, "the undo journal holds 3 entries outside a write");
	fresh(&t);
	set_of(&t, R)->id = 0;
	snprintf(want, sizeof(want), "the root set %u is missing", R);
	ck_says(&t, want);

	/* each set on its own and against its parent */
	fresh(&t);
	set_of(&t, C)->id = C + 1;
	snprintf(want, sizeof(want), "set %u sits in slot %u, not %u", C + 1, C % t.set_slots,
		 (C + 1) % t.set_slots);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, C)->flags |= 0x80;
	snprintf(want, sizeof(want), "set %u has unknown flags 0x80", C);
	ck_says(&t, want);
	fresh(&t);
	memset(set_of(&t, C)->name, 'x', SHM_NAME_MAX);
	snprintf(want, sizeof(want), "set %u has an unterminated name", C);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, R)->parent = B;
	snprintf(want, sizeof(want), "the root set has a parent (%u)", B);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, C)->parent = 999;
	snprintf(want, sizeof(want), "set %u has a missing parent 999", C);
	ck_says(&t, want);
	fresh(&t);
	cps_mask_set(shm_set_mask(&t, set_of(&t, C), SHM_MASK_CPUS), t.mask_words, 20);
	snprintf(want, sizeof(want), "set %u holds CPUs outside its parent %u", C, B);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, C)->flags |= CPS_STRICT;
	snprintf(want, sizeof(want), "strict set %u inside non-strict set %u", C, B);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, A)->nmembers = 2;
	snprintf(want, sizeof(want), "set %u counts 2 members but has 0", A);
	ck_says(&t, want);

	/* parents that lead nowhere */
	fresh(&t);
	set_of(&t, C)->parent = C;
	snprintf(want, sizeof(want), "set %u is its own parent", C);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, B)->parent = C;
	ck_says(&t, "make a cycle of parents: none is under the root");

	/* children: reserved masks, counts, strict siblings */
	fresh(&t);
	cps_mask_zero(shm_set_mask(&t, set_of(&t, B), SHM_MASK_RESERVED), t.mask_words);
	snprintf(want, sizeof(want), "set %u: reserved CPUs are not the union of its children's",
		 B);
	ck_says(&t, want);
	fresh(&t);
	cps_mask_zero(shm_set_mask(&t, set_of(&t, R), SHM_MASK_SRESERVED), t.mask_words);
	snprintf(want, sizeof(want), "set %u: strictly reserved CPUs are not the union", R);
	ck_says(&t, want);
	fresh(&t);
	set_of(&t, B)->nchildren = 5;
	snprintf(want, sizeof(want), "set %u counts 5 children but has 1", B);
	ck_says(&t, want);
	fresh(&t);
	cps_mask_set(shm_set_mask(&t, set_of(&t, A2), SHM_MASK_CPUS), t.mask_words, 0);
	snprintf(want, sizeof(want), "strict set %u shares CPUs with sibling %u", A2, A);
	ck_says(&t, want);

	/* names, and the header's count of sets */
	fresh(&t);
	strcpy(set_of(&t, A)->name, "twin");
	strcpy(set_of(&t, B)->name, "twin");
	ck_says(&t, "share the name 'twin'");
	fresh(&t);
	t.h->nsets++;
	snprintf(want, sizeof(want), "the header counts %u sets but there are %u", t.h->nsets,
		 t.h->nsets - 1);
	ck_says(&t, want);

	/* member records: forged in a free slot */
	uint32_t free_slot = 0;
	while (shm_proc_at(&t, free_slot)->pid)
		free_slot++;
	fresh(&t);
	shm_proc_at(&t, free_slot)->pid = -5;
	shm_proc_at(&t, free_slot)->set = A;
	snprintf(want, sizeof(want), "member slot %u holds pid -5", free_slot);
	ck_says(&t, want);
	ck_says(&t, "the header counts 0 members but there are 1");
	fresh(&t);
	/* a record the index cannot reach: a free slot off the pid's own
	 * probe path (where the look-up would find it, the index being the
	 * slots themselves) */
	uint32_t lost = free_slot;
	for (;;) {
		shm_proc_at(&t, lost)->pid = getpid();
		if (shm_proc_find(&t, getpid()) != (long)lost)
			break;
		shm_proc_at(&t, lost)->pid = 0;
		do
			lost++;
		while (shm_proc_at(&t, lost)->pid);
	}
	shm_proc_at(&t, lost)->set = 999;
	snprintf(want, sizeof(want), "member %d is in a missing set 999", (int)getpid());
	ck_says(&t, want);
	snprintf(want, sizeof(want), "member %d in slot %u cannot be found by its pid",
		 (int)getpid(), lost);
	ck_says(&t, want);
	fresh(&t);
	shm_proc_at(&t, free_slot)->pid = getpid();
	shm_proc_at(&t, free_slot)->set = A;
	set_of(&t, A)->nmembers = 1;
	snprintf(want, sizeof(want), "set %u has members but is not marked attached", A);
	ck_says(&t, want);

	/* thread records */
	fresh(&t);
	shm_thread_at(&t, 0)->tid = 4242;
	snprintf(want, sizeof(want), "thread 4242 in slot 0 cannot be found by its tid");
	ck_says(&t, want);
	ck_says(&t, "the header counts 0 threads but there are 1");
	cps_table_copy_free(&t);

	/* a raw write into the live table, in the last member slot (a page
	 * no record used): the copy reads it from the file, and the check,
	 * which skips the pages the file has no data in, says it */
	uint32_t last = ctx.t.proc_slots - 1;
	struct shm_proc *lp = shm_proc_at(&ctx.t, last);
	ck_assert_int_eq(lp->pid, 0);
	lp->pid = -7;
	lp->set = A;
	ck_assert_int_eq(cps_table_copy(&ctx, &t), 0);
	ck_assert_ptr_nonnull(t.present);
	snprintf(want, sizeof(want), "member slot %u holds pid -7", last);
	ck_says(&t, want);
	cps_table_copy_free(&t);
	lp->pid = 0;
	lp->set = 0;
}
END_TEST

/* ---- concurrency ---- */
START_TEST(concurrent_create_destroy)
{
	enum { K = 4, EACH = 12 };
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t kids[K];
	for (int k = 0; k < K; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct cps_ctx c;
			uint32_t ids[EACH];
			if (cps_open(&c, tname, CPS_OPEN_WRITE) < 0)
				_exit(10);
			for (int round = 0; round < 5; round++) {
				for (int i = 0; i < EACH; i++)
					if (cps_create(&c, c.t.root_id, 0, NULL, NULL, &ids[i]) < 0)
						_exit(11);
				for (int i = 0; i < EACH; i++) {
					struct cps_setinfo si;
					/* ours, and nobody else's id */
					if (cps_set_get(&c, ids[i], &si) < 0 || si.nchildren)
						_exit(12);
				}
				if (round < 4)
					for (int i = 0; i < EACH; i++)
						if (cps_destroy(&c, ids[i]) < 0)
							_exit(13);
			}
			if (write(fds[1], ids, sizeof(ids)) != sizeof(ids))
				_exit(14);
			_exit(0);
		}
	}
	close(fds[1]);
	uint32_t all[K * EACH];
	for (int k = 0; k < K; k++) {
		int st;
		waitpid(kids[k], &st, 0);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: %d", k,
			      WEXITSTATUS(st));
	}
	ck_assert_int_eq(read(fds[0], all, sizeof(all)), (ssize_t)sizeof(all));
	close(fds[0]);
	/* no id lost, none given twice */
	for (int i = 0; i < K * EACH; i++) {
		ck_assert_ptr_nonnull(shm_set_by_id(&ctx.t, all[i]));
		for (int j = i + 1; j < K * EACH; j++)
			ck_assert_uint_ne(all[i], all[j]);
	}
	ck_assert_uint_eq(ctx.t.h->nsets, 1 + K * EACH);
	struct cps_setinfo r;
	ck_assert_int_eq(cps_set_get(&ctx, ctx.t.root_id, &r), 0);
	ck_assert_uint_eq(r.nchildren, K * EACH);
}
END_TEST

/* ---- the kernel's allowance ---- */
START_TEST(allowance_create_alloc_attach)
{
	uint32_t R = ctx.t.root_id, id, ok;
	/* as under taskset -c 0-3 */
	cps_allowance_fake(mask("0-3"), NULL, NW);
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, mask("3-4"), &id), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 4 is outside the caller's affinity (0-3)");
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, mask("4-6,9"), &id), -EACCES);
	ck_assert_str_eq(ctx.why, "CPUs 4-6,9 are outside the caller's affinity (0-3)");
	ok = mk(R, 0, "1-2");
	/* alloc: keeping or removing CPUs is no expansion; adding one is */
	ck_assert_int_eq(cps_alloc(&ctx, ok, mask("1")), 0);
	ck_assert_int_eq(cps_alloc(&ctx, ok, mask("1,5")), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 5 is outside the caller's affinity (0-3)");
	/* a set made by someone allowed more: it keeps its CPUs, we may not
	 * add, nor move a process into it */
	cps_allowance_fake(mask("0-63"), NULL, NW);
	uint32_t wide = mk(R, 0, "2-5");
	cps_allowance_fake(mask("0-3"), NULL, NW);
	ck_assert_int_eq(cps_alloc(&ctx, wide, mask("2-4")), 0); /* narrowing */
	ck_assert_int_eq(cps_attach(&ctx, wide, 0), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 4 is outside the caller's affinity (0-3)");
	/* the root's CPUs too: attaching to the root is no way out */
	ck_assert_int_eq(cps_attach(&ctx, R, 0), -EACCES);
	/* a cgroup names itself as the reason */
	cps_allowance_fake(mask("0"), mask("0-1"), NW);
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, mask("1-2"), &id), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 2 is outside the caller's cgroup cpuset ((test): 0-1)");
	ck_assert_int_eq(cps_create(&ctx, R, 0, NULL, mask("1"), &id), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 1 is outside the caller's affinity (0)");
}
END_TEST

START_TEST(allowance_root_override)
{
	uint32_t id;
	cps_allowance_fake(mask("0"), NULL, NW);
	ck_assert_int_eq(cps_create(&ctx, ctx.t.root_id, 0, NULL, mask("7"), &id), -EACCES);
	if (geteuid() != 0) {
		ck_assert_int_eq(cps_allowance_override(true), -EPERM);
		return;
	}
	/* only explicitly: root is refused like anyone until it asks */
	ck_assert_int_eq(cps_allowance_override(true), 0);
	ck_assert_int_eq(cps_create(&ctx, ctx.t.root_id, 0, NULL, mask("7"), &id), 0);
	ck_assert_int_eq(cps_allowance_override(false), 0);
	ck_assert_int_eq(cps_create(&ctx, ctx.t.root_id, 0, NULL, mask("8"), &id), -EACCES);
}
END_TEST

/* The real kernel: a table made under a narrowed affinity still has the
 * machine's online CPUs as its root. */
START_TEST(root_is_online_cpus)
{
	uint64_t online[CPS_MAX_WORDS], aff[CPS_MAX_WORDS];
	struct cps_setinfo si;
	size_t nw = ctx.t.mask_words;
	ck_assert_int_eq(cps_online_cpus(online, nw), 0);
	cps_close(&ctx);
	shm_table_unlink(tname);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ck_assert_int_eq(cps_kernel_affinity(0, aff, nw), 0);
	ck_assert_int_eq(cps_mask_count(aff, nw), 1);
	ck_assert_int_eq(cps_open(&ctx, tname, CPS_OPEN_CREATE), 0);
	ck_assert_int_eq(cps_set_get(&ctx, ctx.t.root_id, &si), 0);
	ck_assert(cps_mask_equal(si.cpus, online, nw));
	/* and a set on CPU 0 is refused by the rule, not by the root */
	uint32_t id;
	ck_assert_int_eq(cps_create(&ctx, ctx.t.root_id, 0, NULL, mask("0"), &id), -EACCES);
	ck_assert_str_eq(ctx.why, "CPU 0 is outside the caller's affinity (1)");
}
END_TEST

/* ---- members that died ---- */
START_TEST(destroy_autoclean_with_dead_members)
{
	uint32_t id = mk(ctx.t.root_id, CPS_AUTOCLEAN, "1");
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	tl_reap(p);
	/* the set's only member died: destroy works (it was "no such set") */
	ck_assert_int_eq(cps_destroy(&ctx, id), 0);
	ck_assert_ptr_null(shm_set_by_id(&ctx.t, id));
	ck_assert_int_eq(cps_destroy(&ctx, id), -EINVAL); /* now it is gone */
	/* a plain set with a dead member: the member is swept, the set goes */
	id = mk(ctx.t.root_id, 0, "1");
	p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	tl_reap(p);
	ck_assert_int_eq(cps_destroy(&ctx, id), 0);
	ck_assert_ptr_null(shm_set_by_id(&ctx.t, id));
}
END_TEST

START_TEST(zombie_is_dead)
{
	uint32_t id = mk(ctx.t.root_id, CPS_AUTOCLEAN, "1");
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t p = fork();
	if (p == 0) {
		char c;
		close(fds[1]);
		(void)!read(fds[0], &c, 1); /* until the parent says */
		_exit(0);
	}
	close(fds[0]);
	ck_assert_int_eq(cps_attach(&ctx, id, p), 0);
	struct cps_procinfo pi;
	ck_assert_int_eq(cps_proc_info(p, &pi), 0);
	ck_assert(cps_proc_alive(p, pi.start));
	close(fds[1]); /* it exits; not reaped: a zombie */
	/* until it is one whose every thread has gone: no fixed time (an
	 * exit under QEMU's user mode, on a loaded machine, took more than
	 * the 2 s this waited once; the tcase's timeout bounds it). Its first
	 * thread is a zombie before its others have ended (QEMU's user mode
	 * runs a thread of its own in every process): while they end, the
	 * process is still alive, as a first thread that ended alone is */
	for (;;) {
		struct cps_procinfo z;
		if (cps_proc_info(p, &z) == 0 && z.state == 'Z' && z.nthreads <= 1)
			break;
		usleep(10000);
	}
	ck_assert(!cps_proc_alive(p, pi.start));
	struct cps_setinfo si;
	ck_assert_int_eq(cps_set_get(&ctx, id, &si), 0);
	ck_assert_uint_eq(si.nmembers, 1);
	ck_assert_int_eq(cps_sweep(&ctx), 1); /* the zombie is swept, the set with it */
	ck_assert_ptr_null(shm_set_by_id(&ctx.t, id));
	tl_reap(p);
}
END_TEST

static void *lingering(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A process whose first thread ended while another runs is alive. */
START_TEST(ended_leader_is_alive)
{
	pid_t p = fork();
	if (p == 0) {
		pthread_t th;
		pthread_create(&th, NULL, lingering, NULL);
		pthread_exit(NULL);
	}
	/* until its leader has ended: no fixed time (2 s was once too few
	 * under QEMU's user mode on a loaded machine); the tcase's timeout
	 * bounds it */
	struct cps_procinfo pi;
	while (cps_proc_info(p, &pi) != 0 || pi.state != 'Z')
		usleep(10000);
	ck_assert_int_eq(pi.state, 'Z');
	ck_assert(cps_proc_alive(p, pi.start));
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}
END_TEST

/* ---- memory nodes ---- */
static void mems_eq(uint32_t id, const char *list, unsigned how)
{
	struct cps_setinfo si;
	ck_assert_int_eq(cps_set_get(&ctx, id, &si), 0);
	ck_assert_msg(cps_mask_equal(si.mems, mask(list), ctx.t.mask_words), "set %u mems, not %s",
		      id, list);
	ck_assert_uint_eq(si.mems_own, how);
}

static uint32_t mkm(uint32_t parent, unsigned flags, const char *cpus, unsigned how,
		    const char *nodes)
{
	uint32_t id = 0;
	struct cps_mems m = { how, nodes ? mask(nodes) : NULL };
	int r = cps_create_mems(&ctx, parent, flags, NULL, cpus ? mask(cpus) : NULL, &m, &id);
	ck_assert_msg(r == 0, "create in %u (%s, %s): %d %s", parent, cpus ? cpus : "-",
		      nodes ? nodes : "auto", r, ctx.why ? ctx.why : "");
	return id;
}

static int try_mems(uint32_t parent, unsigned flags, const char *cpus, unsigned how,
		    const char *nodes)
{
	uint32_t id = 0;
	struct cps_mems m = { how, nodes ? mask(nodes) : NULL };
	return cps_create_mems(&ctx, parent, flags, NULL, cpus ? mask(cpus) : NULL, &m, &id);
}

START_TEST(mems_default_auto_list)
{
	uint32_t R = ctx.t.root_id;
	mems_eq(R, "0-3", CPS_MEMS_LIST); /* the machine's nodes with memory */
	uint32_t a = mk(R, 0, "0-7");
	mems_eq(a, "0-3", CPS_MEMS_PARENT);                 /* the parent's */
	uint32_t b = mkm(R, 0, "16-20,40", CPS_MEMS_AUTO, NULL);
	mems_eq(b, "1-2", CPS_MEMS_AUTO);                   /* nodes of its CPUs */
	uint32_t c = mkm(R, 0, "0-3", CPS_MEMS_LIST, "0,3");
	mems_eq(c, "0,3", CPS_MEMS_LIST);
	/* auto follows the CPUs; a list does not */
	ck_assert_int_eq(cps_alloc(&ctx, b, mask("48-50")), 0);
	mems_eq(b, "3", CPS_MEMS_AUTO);
	ck_assert_int_eq(cps_alloc(&ctx, c, mask("48")), 0);
	mems_eq(c, "0,3", CPS_MEMS_LIST);
	/* a child: inside its parent's nodes, by default all of them */
	uint32_t d = mk(c, 0, "48");
	mems_eq(d, "0,3", CPS_MEMS_PARENT);
	/* auto within the parent's: CPUs on node 3, parent 0,3 */
	uint32_t e = mkm(c, 0, "48", CPS_MEMS_AUTO, NULL);
	mems_eq(e, "3", CPS_MEMS_AUTO);
	/* alloc of nodes alone keeps the CPUs; auto again */
	struct cps_mems au = { CPS_MEMS_AUTO, NULL }, l0 = { CPS_MEMS_LIST, mask("0") };
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, &l0), 0);
	mems_eq(a, "0", CPS_MEMS_LIST);
	cpus_eq(a, "0-7");
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, mask("16-17"), &au), 0);
	mems_eq(a, "1", CPS_MEMS_AUTO);
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, NULL), -EINVAL); /* nothing given */
}
END_TEST

START_TEST(mems_errors)
{
	uint32_t R = ctx.t.root_id, id;
	uint64_t empty[CPS_MAX_WORDS] = { 0 };
	uint64_t zero[CPS_MAX_WORDS];
	tl_mask(zero, ctx.t.mask_words, "0");
	struct cps_mems none = { CPS_MEMS_LIST, empty }, n4 = { CPS_MEMS_LIST, mask("4") },
			n0 = { CPS_MEMS_LIST, zero }, bad = { 7, NULL };
	ck_assert_int_eq(cps_create_mems(&ctx, R, 0, NULL, mask("0"), &none, &id), -EINVAL);
	ck_assert_str_eq(ctx.why, "the node list is empty");
	ck_assert_int_eq(cps_create_mems(&ctx, R, 0, NULL, mask("0"), &n4, &id), -EINVAL);
	ck_assert_str_eq(ctx.why, "a node is not present on this machine (or holds no memory)");
	ck_assert_int_eq(cps_create_mems(&ctx, R, 0, NULL, mask("0"), &bad, &id), -EINVAL);
	ck_assert_int_eq(cps_alloc_mems(&ctx, R, NULL, &n0), -EINVAL); /* the root's are fixed */
	uint32_t a = mkm(R, 0, "0-31", CPS_MEMS_LIST, "0-1");
	/* EACCES: not in the parent */
	ck_assert_int_eq(try_mems(a, 0, "0", CPS_MEMS_LIST, "1-2"), -EACCES);
	ck_assert_str_eq(ctx.why, "a node is not in the parent set");
	/* EPERM: not the owner */
	ctx.uid = 4321;
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, &n0), -EPERM);
	ctx.uid = 0;
	/* EBUSY: removing a node a child holds */
	uint32_t b = mkm(a, 0, "0", CPS_MEMS_LIST, "1");
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, &n0), -EBUSY);
	ck_assert_str_eq(ctx.why, "a node to remove is still held by a child set");
	mems_eq(a, "0-1", CPS_MEMS_LIST);
	/* refused create leaves nothing */
	uint32_t n = ctx.t.h->nsets;
	ck_assert_int_eq(try_mems(R, 0, "0", CPS_MEMS_LIST, "4"), -EINVAL);
	ck_assert_uint_eq(ctx.t.h->nsets, n);
	(void)b;
}
END_TEST

START_TEST(mems_strict_owns)
{
	uint32_t R = ctx.t.root_id;
	/* a strict set with a default takes the parent's nodes, owning none */
	uint32_t s0 = mk(R, CPS_STRICT, "0-3"), sib = mk(R, 0, "4");
	mems_eq(s0, "0-3", CPS_MEMS_PARENT);
	mems_eq(sib, "0-3", CPS_MEMS_PARENT);
	/* a strict set may not own a node a sibling holds */
	ck_assert_int_eq(try_mems(R, CPS_STRICT, "16", CPS_MEMS_LIST, "1"), -EBUSY);
	ck_assert_str_eq(ctx.why, "a node is held by a sibling set and this set is strict");
	/* nor become an owner of the nodes it shares */
	uint64_t zero[CPS_MAX_WORDS];
	tl_mask(zero, ctx.t.mask_words, "0");
	struct cps_mems l0 = { CPS_MEMS_LIST, zero };
	ck_assert_int_eq(cps_alloc_mems(&ctx, s0, NULL, &l0), -EBUSY);
	/* once alone it may own them */
	ck_assert_int_eq(cps_destroy(&ctx, sib), 0);
	ck_assert_int_eq(cps_alloc_mems(&ctx, s0, NULL, &l0), 0);
	mems_eq(s0, "0", CPS_MEMS_LIST);
	ck_assert_int_eq(cps_destroy(&ctx, s0), 0);
	uint32_t s1 = mkm(R, CPS_STRICT, "16-31", CPS_MEMS_AUTO, NULL);
	mems_eq(s1, "1", CPS_MEMS_AUTO);
	mems_eq(R, "0-3", CPS_MEMS_LIST);
	/* then siblings' defaults leave node 1 out; a list with it is refused */
	uint32_t l = mk(R, 0, "0");
	mems_eq(l, "0,2-3", CPS_MEMS_PARENT);
	uint32_t s2 = mk(R, CPS_STRICT, "32");
	mems_eq(s2, "0,2-3", CPS_MEMS_PARENT);
	ck_assert_int_eq(try_mems(R, 0, "1", CPS_MEMS_LIST, "1-2"), -EBUSY);
	ck_assert_str_eq(ctx.why, "a node is owned by a strict sibling set");
	/* the owner may keep and narrow its own; its CPUs may move within node 1 */
	ck_assert_int_eq(cps_alloc(&ctx, s1, mask("20-23")), 0);
	mems_eq(s1, "1", CPS_MEMS_AUTO);
	/* inside the strict set, children see its nodes */
	uint32_t in = mk(s1, 0, "20");
	mems_eq(in, "1", CPS_MEMS_PARENT);
}
END_TEST

START_TEST(mems_allowance)
{
	uint32_t R = ctx.t.root_id, id;
	cps_allowance_fake_mems(mask("0-1"), NULL, NW);
	ck_assert_int_eq(try_mems(R, 0, "0", CPS_MEMS_LIST, "1-2"), -EACCES);
	ck_assert_str_eq(ctx.why, "node 2 is outside the caller's Mems_allowed (0-1)");
	/* the default keeps to the nodes the caller may use */
	uint32_t a = mk(R, 0, "0-3");
	mems_eq(a, "0-1", CPS_MEMS_PARENT);
	/* auto too: CPUs on nodes 1 and 2, only 1 allowed */
	uint32_t b = mkm(R, 0, "30-33", CPS_MEMS_AUTO, NULL);
	mems_eq(b, "1", CPS_MEMS_AUTO);
	/* a cgroup names itself */
	cps_allowance_fake_mems(mask("0"), mask("0-1"), NW);
	ck_assert_int_eq(try_mems(R, 0, "0", CPS_MEMS_LIST, "2-3"), -EACCES);
	ck_assert_str_eq(ctx.why, "nodes 2-3 are outside the caller's cgroup cpuset ((test): 0-1)");
	/* keeping nodes is no expansion */
	cps_allowance_fake_mems(mask("0-3"), NULL, NW);
	uint32_t w = mkm(R, 0, "0", CPS_MEMS_LIST, "2-3");
	cps_allowance_fake_mems(mask("0"), NULL, NW);
	struct cps_mems l3 = { CPS_MEMS_LIST, mask("3") }, l13 = { CPS_MEMS_LIST, mask("1,3") };
	ck_assert_int_eq(cps_alloc_mems(&ctx, w, NULL, &l3), 0);
	ck_assert_int_eq(cps_alloc_mems(&ctx, w, NULL, &l13), -EACCES);
	(void)id;
}
END_TEST

/* The checker finds broken node invariants (raw writes to the table). */
START_TEST(mems_check_finds)
{
	uint32_t R = ctx.t.root_id;
	uint32_t a = mkm(R, CPS_STRICT, "0", CPS_MEMS_LIST, "0");
	uint32_t b = mkm(R, 0, "16", CPS_MEMS_LIST, "1");
	struct shm_set *sa = shm_set_by_id(&ctx.t, a), *sb = shm_set_by_id(&ctx.t, b);
	struct shm_table copy;
	uint64_t *bm = shm_set_mask(&ctx.t, sb, SHM_MASK_MEMS);
	uint64_t save = bm[0];
	const char *cases[] = { "0-1", "4", "" };
	int want[] = { 1, 1, 2 }; /* shares with strict a; outside parent (and the union); empty + union */
	for (unsigned i = 0; i < 3; i++) {
		tl_mask(bm, ctx.t.mask_words, cases[i][0] ? cases[i] : "0");
		if (!cases[i][0])
			bm[0] = 0;
		ck_assert_int_eq(cps_table_copy(&ctx, &copy), 0);
		int n = cps_check(&copy, NULL, NULL);
		cps_table_copy_free(&copy);
		ck_assert_msg(n >= want[i], "b's mems %s: %d violations", cases[i], n);
		bm[0] = save;
	}
	sa->mems_own = 9;
	ck_assert_int_eq(cps_table_copy(&ctx, &copy), 0);
	ck_assert_int_ge(cps_check(&copy, NULL, NULL), 1);
	cps_table_copy_free(&copy);
	sa->mems_own = CPS_MEMS_LIST;
}
END_TEST

/* Whether this host's kernel has node k with memory. */
static bool host_has_memory(unsigned k)
{
	char buf[512] = "0";
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			strcpy(buf, "0");
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	uint64_t m[NW];
	struct cps_parse_error e;
	return cps_cpulist_parse(buf, m, NW, &e) == 0 && cps_mask_test(m, NW, k);
}

/* A resize of a set's nodes moves its members' pages (migrate_pages(2))
 * after the commit, from the nodes it left onto its nodes now. On this
 * host's kernel: a move onto node 0, which every kernel has, passes; onto
 * node 1 it passes where the host has that node with memory, else the
 * kernel refuses, the member is reported and the table keeps the nodes. */
START_TEST(mems_resize_moves_pages)
{
	uint32_t R = ctx.t.root_id;
	uint32_t a = mkm(R, 0, "0", CPS_MEMS_LIST, "0-1");
	pid_t p = tl_sleeper();
	ck_assert_int_eq(cps_attach(&ctx, a, p), 0);
	struct cps_mems l0 = { CPS_MEMS_LIST, mask("0") }, l01 = { CPS_MEMS_LIST, mask("0-1") },
			l1 = { CPS_MEMS_LIST, mask("1") };
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, &l0), 0); /* node 1 left for 0 */
	ck_assert_int_eq(ctx.unmoved, 0);
	ck_assert_int_eq(cps_alloc_mems(&ctx, a, NULL, &l01), 0); /* grown: nothing left */
	ck_assert_int_eq(ctx.unmoved, 0);
	int r = cps_alloc_mems(&ctx, a, NULL, &l1); /* node 0 left for 1 */
	if (host_has_memory(1)) {
		ck_assert_int_eq(r, 0);
		ck_assert_int_eq(ctx.unmoved, 0);
	} else {
		ck_assert_msg(r < 0, "pages moved onto a node the host lacks: %d", r);
		ck_assert_int_eq(ctx.unmoved, 1);
		ck_assert_int_eq(ctx.unmoved_pages, 1);
		ck_assert_int_eq(ctx.unmoved_pid[0], p);
		ck_assert_int_eq(-r, ctx.unmoved_err);
		ck_assert_ptr_nonnull(strstr(ctx.why, "pages"));
	}
	mems_eq(a, "1", CPS_MEMS_LIST);
	tl_reap(p);
}
END_TEST

static Suite *sets_suite(void)
{
	Suite *s = suite_create("sets");
	TCase *tc = tcase_create("rules");
	tcase_add_checked_fixture(tc, setup_synth, teardown);
	tcase_add_test(tc, create_errors);
	tcase_add_test(tc, destroy_errors);
	tcase_add_test(tc, alloc_errors);
	tcase_add_test(tc, strict_siblings_and_freecpus);
	tcase_add_test(tc, three_levels_renumbered);
	tcase_add_test(tc, find_and_list);
	tcase_add_test(tc, concurrent_create_destroy);
	tcase_add_test(tc, allowance_create_alloc_attach);
	tcase_add_test(tc, allowance_root_override);
	tcase_add_test(tc, check_each_invariant);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	TCase *tn = tcase_create("mems");
	tcase_add_checked_fixture(tn, setup_numa, teardown);
	tcase_add_test(tn, mems_default_auto_list);
	tcase_add_test(tn, mems_errors);
	tcase_add_test(tn, mems_strict_owns);
	tcase_add_test(tn, mems_allowance);
	tcase_add_test(tn, mems_check_finds);
	tcase_add_test(tn, mems_resize_moves_pages);
	suite_add_tcase(s, tn);
	TCase *tr = tcase_create("members");
	tcase_add_checked_fixture(tr, setup_real, teardown);
	tcase_add_test(tr, destroy_busy_with_member);
	tcase_add_test(tr, attach_errors_and_effect);
	tcase_add_test(tr, attach_other_uid_process);
	tcase_add_test(tr, autoclean_and_ancestry);
	tcase_add_test(tr, reused_pid_is_not_member);
	tcase_add_test(tr, full_of_dead_members);
	tcase_add_test(tr, busy_table_is_not_no_such_set);
	tcase_add_test(tr, root_is_online_cpus);
	tcase_add_test(tr, destroy_autoclean_with_dead_members);
	tcase_add_test(tr, zombie_is_dead);
	tcase_add_test(tr, ended_leader_is_alive);
	tcase_add_test(tr, root_cpus_online_and_nesting);
	tcase_set_timeout(tr, 60);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return tl_run(sets_suite());
}
