/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared fixtures of the Check suites: private tables, child processes. */
#ifndef CPS_TESTLIB_H
#define CPS_TESTLIB_H

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/sets.h"

/* A table name no other test (or user) uses. Each call's name stays valid
 * for the next seven calls: a test may make its own table while the
 * fixture still holds the name of the one it will remove. */
static inline const char *tl_name(void)
{
	static char buf[8][96];
	static unsigned n;
	char *b = buf[n % 8];
	snprintf(b, sizeof(buf[0]), "cpusetshim-check.%d.%u", (int)getpid(), n);
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

/* Run a suite; the exit status of the test program. */
static inline int tl_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
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
