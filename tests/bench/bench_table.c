/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_table — the cost of the shim's table look-ups as the table grows.
 *
 *   bench_table fill NSETS NPROCS NTHREADS
 *       Fill the (empty) table named by $CPUSETSHIM_TABLE, made beforehand
 *       with `cpuset init --force` and large enough capacities: NSETS sets
 *       under the root, NPROCS member records spread over them and NTHREADS
 *       thread records (wanted masks) spread over the members. Written
 *       directly through the shm/ write functions, in a few transactions
 *       (each bounded by the undo journal). The pids and tids are fake
 *       (above any pid_max), so nothing real is ever matched.
 *   bench_table time MS BATCHES
 *       Time the read side on that table: cps_placement_read, shm_proc_find and
 *       cps_thread_lookup, for one key again and again ("hot", what a
 *       process does with its own records), for every key in turn
 *       ("spread"), and for absent keys ("miss"). Prints one line per
 *       look-up: "NAME NS_MEDIAN NS_MIN", then the fill and the mean and
 *       longest probe distances of the two hash tables.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shm/registry.h"
#include "shm/table.h"
#include "src/mask.h"
#include "src/sets.h"

#define PID_BASE 10000000  /* fake member pids: PID_BASE + i */
#define TID_BASE 20000000  /* fake thread ids: TID_BASE + j */
#define MISS_BASE 30000000 /* keys never filled */
#define FAKE_START 4242ULL /* start time of the fake members */

static struct cps_ctx ctx;

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_table: %s: %s%s%s\n", what, strerror(err < 0 ? -err : err),
		ctx.why ? ": " : "", ctx.why ? ctx.why : "");
	exit(1);
}

static void begin(void)
{
	int r = shm_write_begin(&ctx.t);
	if (r < 0)
		die("write begin", r);
}

static void commit(void)
{
	shm_write_commit(&ctx.t);
}

/* ---- fill ---- */

static int fill(long nsets, long nprocs, long nthreads)
{
	struct shm_table *t = &ctx.t;
	struct shm_header *h = t->h;
	size_t mw = t->mask_words;
	struct shm_set *root = shm_set_by_id(t, t->root_id);
	if (!root)
		die("no root set", EINVAL);
	if (h->nsets != 1 || h->nprocs != 0 || h->nthreads != 0) {
		fprintf(stderr, "bench_table: the table is not empty (make it with cpuset init --force)\n");
		return 1;
	}
	if (nsets < 1 || nprocs < 1 || nthreads < 0 || (uint64_t)nsets + 1 > h->caps.max_sets ||
	    (uint64_t)nprocs > h->caps.max_procs || (uint64_t)nthreads > h->caps.max_threads) {
		fprintf(stderr, "bench_table: the table's capacities are too small for that fill\n");
		return 1;
	}
	const uint64_t *rootcpus = shm_set_mask(t, root, SHM_MASK_CPUS);
	unsigned ncpu = cps_mask_count(rootcpus, mw);
	uint32_t *ids = calloc((size_t)nsets, sizeof(*ids));
	uint32_t *members = calloc((size_t)nsets, sizeof(*members));
	if (!ids || !members)
		die("calloc", ENOMEM);
	uint64_t reserved[CPS_MAX_WORDS];
	cps_mask_zero(reserved, mw);

	/* sets: one CPU of the root each, in turn; not strict, so they may share */
	for (long i = 0; i < nsets;) {
		begin();
		/* (each set record journalled whole: 1,000 a transaction) */
		for (long k = 0; k < 1000 && i < nsets; k++, i++) {
			uint32_t id = shm_set_new_id(t);
			if (!id)
				die("new set id", ENOSPC);
			struct shm_set *s = shm_set_at(t, id % t->set_slots);
			int r = shm_undo(t, s, t->set_rsz);
			if (r < 0)
				die("journal", r);
			memset(s, 0, t->set_rsz);
			s->parent = t->root_id;
			s->uid = (uint32_t)geteuid();
			snprintf(s->name, sizeof(s->name), "bench-%u", id);
			unsigned cpu = (unsigned)cps_mask_nth(rootcpus, mw, (unsigned)(i % ncpu));
			cps_mask_set(shm_set_mask(t, s, SHM_MASK_CPUS), mw, cpu);
			cps_mask_set(reserved, mw, cpu);
			/* the root's memory nodes, as a set made without --mems */
			cps_mask_copy(shm_set_mask(t, s, SHM_MASK_MEMS), shm_set_mask(t, root, SHM_MASK_MEMS), mw);
			s->mems_own = CPS_MEMS_PARENT;
			__atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
			if ((r = shm_write_u32(t, &h->nsets, h->nsets + 1)) < 0)
				die("journal", r);
			ids[i] = id;
		}
		commit();
	}
	/* the root's bookkeeping: its children and the CPUs they hold */
	begin();
	int r;
	if ((r = shm_write_u32(t, &root->nchildren, (uint32_t)nsets)) < 0 ||
	    (r = shm_write(t, shm_set_mask(t, root, SHM_MASK_RESERVED), reserved, mw * 8)) < 0 ||
	    (r = shm_write(t, shm_set_mask(t, root, SHM_MASK_MRESERVED),
			   shm_set_mask(t, root, SHM_MASK_MEMS), mw * 8)) < 0)
		die("journal", r);
	commit();

	/* members: the insert journals the whole record, so it is filled in place */
	for (long i = 0; i < nprocs;) {
		begin();
		for (long k = 0; k < 20000 && i < nprocs; k++, i++) {
			long slot = shm_proc_insert(t, (pid_t)(PID_BASE + i));
			if (slot < 0)
				die("member insert", (int)slot);
			struct shm_proc *p = shm_proc_at(t, (uint32_t)slot);
			p->set = ids[i % nsets];
			p->start = FAKE_START;
			p->ppid = 1;
			p->uid = (uint32_t)geteuid();
			members[i % nsets]++;
		}
		commit();
	}
	begin();
	for (long i = 0; i < nsets; i++) {
		struct shm_set *s = shm_set_by_id(t, ids[i]);
		if (members[i] && ((r = shm_write_u32(t, &s->nmembers, members[i])) < 0 ||
				   (r = shm_write_u32(t, &s->attached, 1)) < 0))
			die("journal", r);
	}
	commit();

	/* threads: wanted virtual CPU 0, spread over the members */
	for (long j = 0; j < nthreads;) {
		begin();
		for (long k = 0; k < 20000 && j < nthreads; k++, j++) {
			long slot = shm_thread_insert(t, (pid_t)(TID_BASE + j));
			if (slot < 0)
				die("thread insert", (int)slot);
			struct shm_thread *th = shm_thread_at(t, (uint32_t)slot);
			th->pid = (int32_t)(PID_BASE + j % nprocs);
			th->pstart = FAKE_START;
			cps_mask_set(th->wanted, mw, 0);
		}
		commit();
	}
	printf("filled sets=%u members=%u threads=%u writes=%llu\n", h->nsets - 1, h->nprocs,
	       h->nthreads, (unsigned long long)h->writes);
	free(ids);
	free(members);
	return 0;
}

/* ---- time ---- */

static volatile long sink;
static long nprocs, nthreads;
static pid_t hot_pid, hot_tid;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long l_snapshot_hot(long i)
{
	struct cps_placement s;
	(void)i;
	return cps_placement_read(&ctx.t, hot_pid, FAKE_START, 0, &s) == 0 ? (long)s.set : -1;
}

static long l_snapshot_spread(long i)
{
	struct cps_placement s;
	return cps_placement_read(&ctx.t, (pid_t)(PID_BASE + i % nprocs), FAKE_START, 0, &s) == 0
		       ? (long)s.set
		       : -1;
}

static long l_proc_find_hot(long i)
{
	(void)i;
	return shm_proc_find(&ctx.t, hot_pid);
}

static long l_proc_find_spread(long i)
{
	return shm_proc_find(&ctx.t, (pid_t)(PID_BASE + i % nprocs));
}

static long l_proc_find_miss(long i)
{
	return shm_proc_find(&ctx.t, (pid_t)(MISS_BASE + i % 1000003)) < 0 ? 0 : -1;
}

static long l_thread_wanted_hot(long i)
{
	uint64_t w[CPS_MAX_WORDS];
	(void)i;
	return cps_thread_lookup(&ctx.t, hot_tid, w, ctx.t.mask_words) == 1 ? (long)w[0] : -1;
}

static long l_thread_wanted_spread(long i)
{
	uint64_t w[CPS_MAX_WORDS];
	return cps_thread_lookup(&ctx.t, (pid_t)(TID_BASE + i % nthreads), w, ctx.t.mask_words) == 1
		       ? (long)w[0]
		       : -1;
}

static long l_thread_wanted_miss(long i)
{
	uint64_t w[CPS_MAX_WORDS];
	return cps_thread_lookup(&ctx.t, (pid_t)(MISS_BASE + i % 1000003), w, ctx.t.mask_words) == 0
		       ? 0
		       : -1;
}

static const struct {
	const char *name;
	long (*fn)(long);
} lookups[] = {
	{ "snapshot_hot", l_snapshot_hot },
	{ "snapshot_spread", l_snapshot_spread },
	{ "proc_find_hot", l_proc_find_hot },
	{ "proc_find_spread", l_proc_find_spread },
	{ "proc_find_miss", l_proc_find_miss },
	{ "thread_wanted_hot", l_thread_wanted_hot },
	{ "thread_wanted_spread", l_thread_wanted_spread },
	{ "thread_wanted_miss", l_thread_wanted_miss },
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The keys are visited in a scrambled order (a stride prime to the count),
 * so "spread" does not walk the slots in memory order. */
static double batch(long (*fn)(long), long iters, long *bad)
{
	double t0 = now_ns();
	long acc = 0;
	for (long i = 0; i < iters; i++) {
		long v = fn(i * 7919);
		if (v < 0)
			(*bad)++;
		acc += v;
	}
	sink = acc;
	return (now_ns() - t0) / (double)iters;
}

/* Mean and longest distance of the records from their home slots. The
 * home is computed as shm/registry.c does; a record that linear probing
 * could not have put where it is means the copy here is out of date, and
 * the figure is withheld (-1). */
static uint32_t home_of(uint32_t k, uint32_t slots)
{
	return (uint32_t)((k * 2654435769u) >> 7) & (slots - 1);
}

static void probes(const unsigned char *recs, uint32_t slots, size_t rsz, double *mean,
		   long *longest)
{
	double sum = 0;
	long n = 0, far = 0;
	for (uint32_t i = 0; i < slots; i++) {
		int32_t k;
		memcpy(&k, recs + (size_t)i * rsz, sizeof(k));
		if (k <= 0)
			continue;
		uint32_t home = home_of((uint32_t)k, slots);
		long d = (long)((i - home) & (slots - 1));
		for (uint32_t j = home; j != i; j = (j + 1) & (slots - 1)) {
			int32_t kj;
			memcpy(&kj, recs + (size_t)j * rsz, sizeof(kj));
			if (kj <= 0) {
				*mean = -1;
				*longest = -1;
				return;
			}
		}
		sum += (double)(d + 1);
		if (d + 1 > far)
			far = d + 1;
		n++;
	}
	*mean = n ? sum / (double)n : 0;
	*longest = far;
}

static int time_lookups(double ms, int batches)
{
	struct shm_header *h = ctx.t.h;
	nprocs = h->nprocs;
	nthreads = h->nthreads;
	if (nprocs < 1 || nthreads < 1) {
		fprintf(stderr, "bench_table: the table is not filled\n");
		return 1;
	}
	hot_pid = PID_BASE;
	hot_tid = TID_BASE;
	if (shm_proc_find(&ctx.t, hot_pid) < 0 || shm_thread_find(&ctx.t, hot_tid) < 0) {
		fprintf(stderr, "bench_table: the table was not filled by bench_table fill\n");
		return 1;
	}
	/* every page mapped once, so that no look-up pays a first-touch fault */
	unsigned long touch = 0;
	for (size_t off = 0; off < ctx.t.size; off += 4096)
		touch += ((volatile const unsigned char *)ctx.t.base)[off];
	sink = (long)touch;
	for (size_t k = 0; k < sizeof(lookups) / sizeof(lookups[0]); k++) {
		long bad = 0, iters = 1024;
		double ns[1000];
		/* warm up and calibrate to about ms per batch */
		for (;;) {
			double t = batch(lookups[k].fn, iters, &bad) * (double)iters;
			if (t >= ms * 1e6 / 4 || iters > (1L << 34))
				break;
			iters *= 2;
		}
		iters *= 4;
		for (int b = 0; b < batches; b++)
			ns[b] = batch(lookups[k].fn, iters, &bad);
		if (bad) {
			fprintf(stderr, "bench_table: %s: %ld look-ups gave a wrong answer\n",
				lookups[k].name, bad);
			return 1;
		}
		qsort(ns, (size_t)batches, sizeof(double), cmp_d);
		printf("%s %.3f %.3f\n", lookups[k].name, ns[batches / 2], ns[0]);
	}
	double pm, tm;
	long pl, tl;
	probes(ctx.t.procs, ctx.t.proc_slots, ctx.t.proc_rsz, &pm, &pl);
	probes(ctx.t.threads, ctx.t.thread_slots, ctx.t.thread_rsz, &tm, &tl);
	printf("fill sets=%u members=%u threads=%u member_slots=%u thread_slots=%u\n",
	       h->nsets - 1, h->nprocs, h->nthreads, ctx.t.proc_slots, ctx.t.thread_slots);
	printf("probes members_mean=%.2f members_longest=%ld threads_mean=%.2f threads_longest=%ld\n",
	       pm, pl, tm, tl);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "fill")) {
		int r = cps_open(&ctx, NULL, CPS_OPEN_WRITE);
		if (r < 0)
			die("open the table", r);
		return fill(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	}
	if (argc == 4 && !strcmp(argv[1], "time")) {
		int r = cps_open(&ctx, NULL, CPS_OPEN_READ);
		if (r < 0)
			die("open the table", r);
		double ms = atof(argv[2]);
		int batches = atoi(argv[3]);
		if (ms <= 0 || batches < 1 || batches > 1000) {
			fprintf(stderr, "bench_table: bad MS or BATCHES\n");
			return 2;
		}
		return time_lookups(ms, batches);
	}
	fprintf(stderr, "usage: bench_table fill NSETS NPROCS NTHREADS | time MS BATCHES\n");
	return 2;
}
