/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared fixtures of the Check suites: private tables, child processes. */
#ifndef CPS_TESTLIB_H
#define CPS_TESTLIB_H

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/sets.h"

/* The process that runs the suite (tl_run): the first part of its
 * tables' names, whichever forked child makes them. */
static pid_t tl_runner;

/* A table name no other test (or user) uses: cpusetshim-check.R.P.N (the
 * runner R, the test's process P). Each call's name stays valid for the
 * next seven calls: a test may make its own table while the fixture still
 * holds the name of the one it will remove. */
static inline const char *tl_name(void)
{
	static char buf[8][96];
	static unsigned n;
	char *b = buf[n % 8];
	snprintf(b, sizeof(buf[0]), "cpusetshim-check.%d.%d.%u",
		 (int)(tl_runner ? tl_runner : getpid()), (int)getpid(), n);
	n++;
	return b;
}

/* A fresh table with the given capacities and root CPUs (list parsed by
 * the caller into root, mask_bits wide); NULL root: the real machine. */
static inline void tl_init(struct cps_ctx *c, const char *name, uint32_t sets, uint32_t procs,
			   uint32_t threads, uint32_t bits, const uint64_t *root)
{
	struct cps_init_opts o;
	cps_init_opts_default(&o);
	if (sets)
		o.caps.max_sets = sets;
	if (procs)
		o.caps.max_procs = procs;
	if (threads)
		o.caps.max_threads = threads;
	if (bits)
		o.caps.mask_bits = bits;
	o.cpus = root;
	o.force = true;
	int r = cps_init(c, name, &o);
	ck_assert_msg(r == 0, "init %s: %d %s", name, r, c->why ? c->why : "");
}

static inline void tl_mask(uint64_t *m, size_t nw, const char *list)
{
	struct cps_parse_error e;
	ck_assert_msg(cps_cpulist_parse(list, m, nw, &e) == 0, "bad list %s", list);
}

static int tl_unlink_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes what the runner's tables left in /dev/shm (the tables and their
 * kept views' folders), naming each on stderr; how many there were. */
static inline int tl_sweep(void)
{
	char pre[64], path[512];
	int n = snprintf(pre, sizeof(pre), "cpusetshim-check.%d.", (int)tl_runner), left = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, pre, (size_t)n))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
		fprintf(stderr, "# left in /dev/shm: %s\n", path);
		nftw(path, tl_unlink_one, 8, FTW_DEPTH | FTW_PHYS);
		left++;
	}
	if (d)
		closedir(d);
	return left;
}

/* Run a suite; the exit status of the test program. A check that fails
 * may leave its table; a suite whose checks all pass leaves nothing in
 * /dev/shm, else it fails, naming what it left. */
static inline int tl_run(Suite *s)
{
	tl_runner = getpid();
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	int left = tl_sweep();
	if (!failed && left)
		fprintf(stderr, "# every check passed, but the suite left %d file(s) in /dev/shm\n", left);
	return failed || left ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A child that sleeps until killed; returns its pid. */
static inline pid_t tl_sleeper(void)
{
	pid_t p = fork();
	ck_assert_int_ge(p, 0);
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

static inline void tl_reap(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

#endif
