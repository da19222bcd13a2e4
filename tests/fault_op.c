/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs one of the shim's own table writes with the test-only fault points
 * on, so tests/crash.sh can kill it at every write step:
 *   fault_op register PID SET      (what the shim does at start, fork, exec)
 *   fault_op want PID TID LIST     (what it does on sched_setaffinity)
 *   fault_op hold MS COUNT         (a writer that takes the lock COUNT
 *                                   times, MS milliseconds each: a queue;
 *                                   $FAULT_OP_HELD, a file made once held;
 *                                   $FAULT_OP_RELEASE, the first hold kept
 *                                   until that file is there)
 * The table is $CPUSETSHIM_TABLE. Exit 0 done, 1 refused, 2 usage. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/sets.h"
#include "src/sets_internal.h"

int main(int argc, char **argv)
{
	struct cps_ctx c;
	struct cps_parse_error e;
	uint64_t m[CPS_MAX_WORDS] = { 0 };
	if (cps_open(&c, NULL, CPS_OPEN_WRITE | CPS_OPEN_FAULTS) < 0) {
		fprintf(stderr, "fault_op: cannot open the table\n");
		return 2;
	}
	int r;
	if (argc == 4 && !strcmp(argv[1], "register")) {
		r = cps_register(&c, atoi(argv[2]), (uint32_t)atoi(argv[3]));
	} else if (argc == 5 && !strcmp(argv[1], "want")) {
		if (cps_cpulist_parse(argv[4], m, c.t.mask_words, &e) < 0)
			return 2;
		r = cps_thread_record(&c, atoi(argv[2]), atoi(argv[3]), 0, m, c.t.mask_words);
	} else if (argc == 4 && !strcmp(argv[1], "hold")) {
		long ms = atol(argv[2]);
		struct timespec hold = { ms / 1000, (ms % 1000) * 1000000L }, gap = { 0, 2000000L };
		r = 0;
		for (int i = 0; i < atoi(argv[3]) && r >= 0; i++) {
			if ((r = cps_txn_begin(&c, false)) < 0)
				break;
			/* $FAULT_OP_HELD: a file made once the lock is held, for a
			 * test to wait on rather than guess a start-up time */
			const char *held = getenv("FAULT_OP_HELD");
			if (held && i == 0)
				close(open(held, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
			nanosleep(&hold, NULL);
			/* $FAULT_OP_RELEASE: held on until that file is there, so a
			 * test ends the hold when it has seen what it waits for,
			 * however slow the machine */
			const char *release = getenv("FAULT_OP_RELEASE");
			while (release && i == 0 && access(release, F_OK) != 0)
				nanosleep(&gap, NULL);
			r = cps_txn_end(&c, 0);
			nanosleep(&gap, NULL);
		}
	} else {
		fprintf(stderr, "usage: fault_op register PID SET | want PID TID LIST | hold MS COUNT\n");
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "fault_op: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
