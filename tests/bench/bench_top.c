/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_top — the cost of one refresh of cpuset-inspect --top against the
 * number of members.
 *
 *   bench_top MEMBERS SETS ROUNDS
 *       In the (empty) table named by $CPUSETSHIM_TABLE, made beforehand
 *       with `cpuset init --force`: SETS sets under the root, one CPU of
 *       the root each in turn, and MEMBERS member records spread over them.
 *       The members are real processes (children of this program, asleep
 *       until it ends), so that the member column reads real
 *       /proc/PID/stat files; their records are written directly through
 *       the shm/ write functions, as bench_table does, without moving them.
 *       Then ROUNDS refreshes (tools/top.c's top_sample, what each refresh
 *       of --top does before printing) without the member column, and
 *       ROUNDS with it, alternating. Prints
 *         sets N members N
 *         plain MEDIAN_MS MIN_MS MAX_MS
 *         members MEDIAN_MS MIN_MS MAX_MS
 *         members_counted N
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm/registry.h"
#include "shm/table.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "tools/top.h"

static struct cps_ctx ctx;
static pid_t *kids;
static long nkids;

static void reap(void)
{
	for (long i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (long i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
	nkids = 0;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_top: %s: %s\n", what, strerror(err < 0 ? -err : err));
	reap();
	exit(1);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void fill(long nsets, long nmembers)
{
	struct shm_table *t = &ctx.t;
	struct shm_header *h = t->h;
	size_t mw = t->mask_words;
	struct shm_set *root = shm_set_by_id(t, t->root_id);
	if (!root)
		die("no root set", EINVAL);
	if (h->nsets != 1 || h->nprocs != 0)
		die("the table is not empty (make it with cpuset init --force)", EINVAL);
	if ((uint64_t)nsets + 1 > h->caps.max_sets || (uint64_t)nmembers > h->caps.max_procs)
		die("the table's capacities are too small", ENOSPC);
	const uint64_t *rootcpus = shm_set_mask(t, root, SHM_MASK_CPUS);
	unsigned ncpu = cps_mask_count(rootcpus, mw);
	uint32_t *ids = calloc((size_t)nsets, sizeof(*ids));
	uint32_t *count = calloc((size_t)nsets, sizeof(*count));
	uint64_t reserved[CPS_MAX_WORDS];
	if (!ids || !count)
		die("calloc", ENOMEM);
	cps_mask_zero(reserved, mw);
	int r;
	if ((r = shm_write_begin(t)) < 0)
		die("write begin", r);
	for (long i = 0; i < nsets; i++) {
		uint32_t id = shm_set_new_id(t);
		if (!id)
			die("new set id", ENOSPC);
		struct shm_set *s = shm_set_at(t, id % t->set_slots);
		if ((r = shm_undo(t, s, t->set_rsz)) < 0)
			die("journal", r);
		memset(s, 0, t->set_rsz);
		s->parent = t->root_id;
		s->uid = (uint32_t)geteuid();
		snprintf(s->name, sizeof(s->name), "top-%u", id);
		unsigned cpu = (unsigned)cps_mask_nth(rootcpus, mw, (unsigned)(i % ncpu));
		cps_mask_set(shm_set_mask(t, s, SHM_MASK_CPUS), mw, cpu);
		cps_mask_set(reserved, mw, cpu);
		__atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
		if ((r = shm_write_u32(t, &h->nsets, h->nsets + 1)) < 0)
			die("journal", r);
		ids[i] = id;
	}
	if ((r = shm_write_u32(t, &root->nchildren, (uint32_t)nsets)) < 0 ||
	    (r = shm_write(t, shm_set_mask(t, root, SHM_MASK_RESERVED), reserved, mw * 8)) < 0)
		die("journal", r);
	shm_write_commit(t);
	for (long i = 0; i < nmembers;) {
		if ((r = shm_write_begin(t)) < 0)
			die("write begin", r);
		for (long k = 0; k < 20000 && i < nmembers; k++, i++) {
			struct cps_procinfo pi;
			if (cps_proc_stat(kids[i], &pi) < 0)
				die("a member's /proc/PID/stat", ESRCH);
			long slot = shm_proc_insert(t, kids[i]);
			if (slot < 0)
				die("member insert", (int)slot);
			struct shm_proc *p = shm_proc_at(t, (uint32_t)slot);
			p->set = ids[i % nsets];
			p->start = pi.start;
			p->ppid = getpid();
			p->uid = (uint32_t)geteuid();
			count[i % nsets]++;
		}
		shm_write_commit(t);
	}
	if ((r = shm_write_begin(t)) < 0)
		die("write begin", r);
	for (long i = 0; i < nsets; i++) {
		struct shm_set *s = shm_set_by_id(t, ids[i]);
		if (count[i] && ((r = shm_write_u32(t, &s->nmembers, count[i])) < 0 ||
				 (r = shm_write_u32(t, &s->attached, 1)) < 0))
			die("journal", r);
	}
	shm_write_commit(t);
	free(ids);
	free(count);
}

static void report(const char *name, double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("%s %.3f %.3f %.3f\n", name, v[n / 2], v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bench_top MEMBERS SETS ROUNDS\n");
		return 2;
	}
	long nmembers = atol(argv[1]), nsets = atol(argv[2]), rounds = atol(argv[3]);
	if (nmembers < 1 || nsets < 1 || rounds < 1) {
		fprintf(stderr, "bench_top: MEMBERS, SETS and ROUNDS are 1 or more\n");
		return 2;
	}
	int r = cps_open(&ctx, NULL, CPS_OPEN_WRITE);
	if (r < 0)
		die("open the table", r);
	kids = calloc((size_t)nmembers, sizeof(*kids));
	if (!kids)
		die("calloc", ENOMEM);
	for (; nkids < nmembers; nkids++) {
		pid_t p = fork();
		if (p < 0)
			die("fork", errno);
		if (p == 0) {
			for (;;)
				pause();
		}
		kids[nkids] = p;
	}
	fill(nsets, nmembers);
	struct top_state plain, with;
	if ((r = top_init(&plain, &ctx, false)) < 0 || (r = top_init(&with, &ctx, true)) < 0)
		die("top_init", r);
	double *tp = calloc((size_t)rounds, sizeof(double)), *tm = calloc((size_t)rounds, sizeof(double));
	if (!tp || !tm)
		die("calloc", ENOMEM);
	/* a first sample each: the one every run takes before its first refresh */
	if ((r = top_sample(&plain)) < 0 || (r = top_sample(&with)) < 0)
		die("top_sample", r);
	for (long i = 0; i < rounds; i++) {
		if ((r = top_sample(&plain)) < 0 || (r = top_sample(&with)) < 0)
			die("top_sample", r);
		tp[i] = plain.refresh_ms;
		tm[i] = with.refresh_ms;
	}
	long counted = 0;
	for (size_t i = 0; i < with.nsets; i++)
		counted += with.sets[i].members;
	printf("sets %ld members %ld\n", nsets, nmembers);
	report("plain", tp, rounds);
	report("members", tm, rounds);
	long alive = 0;
	for (size_t i = 0; i < with.nmem; i++)
		alive += with.mem[i].threads >= 0;
	printf("members_counted %ld read %ld\n", counted, alive);
	top_free(&plain);
	top_free(&with);
	free(tp);
	free(tm);
	reap();
	free(kids);
	cps_close(&ctx);
	return 0;
}
