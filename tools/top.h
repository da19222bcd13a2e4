/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-inspect --top: a live view of the sets, how busy their CPUs are
 * and how much of that their members used (tools/top.c). A sample is one
 * copy of the table, one read of /proc/stat, the kernel's CPU times,
 * attributed to the sets by their CPUs, and with members, each member's
 * /proc/PID/stat: its threads and CPU time. The loop that shows them is
 * tools/top_loop.c, their text and JSON tools/top_print.c. */
#ifndef CPS_TOOLS_TOP_H
#define CPS_TOOLS_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "src/sets.h"

struct top_opts {
	double delay;   /* seconds between refreshes */
	long count;     /* refreshes to show, 0: until q or Ctrl-C */
	bool json;      /* one JSON object a line */
	bool members;   /* a line for each member too */
};

/* A CPU's times from /proc/stat, in clock ticks. */
struct top_cpu {
	uint64_t user, sys, idle, other;
	bool seen; /* its line was there (online) */
};

/* A member's own figures (with members). */
struct top_member {
	pid_t pid;
	uint32_t set;
	uint64_t start;   /* the record's start time */
	uint64_t ticks;   /* utime + stime */
	int threads;      /* -1: gone (dead, or its pid reused) */
	int cpu;          /* the CPU it last ran on (physical) */
	double busy;      /* % of one CPU over the interval, -1: no earlier sample */
	char comm[20];
};

#define TOP_SHARES_SHOWN 8
struct top_set {
	uint32_t id, parent, flags;
	char name[SHM_NAME_MAX];
	uint64_t cpus[CPS_MAX_WORDS];
	unsigned ncpus;
	unsigned members;     /* member records of processes that run */
	unsigned wrapped;     /* binds that wrapped (approximate: shm_set.wrapped) */
	unsigned threads_rec; /* thread records of its members (threads that set a mask) */
	long threads;         /* threads of its live members (with members), else -1 */
	uint64_t user, sys, idle, other; /* ticks over the interval, its CPUs summed */
	double members_busy;  /* its members' CPU time over the interval, in % of
			       * its CPUs' (with members; -1: no earlier sample) */
	unsigned nshares;     /* sets, not its ancestors or descendants, holding its CPUs */
	uint32_t shares[TOP_SHARES_SHOWN];
};

struct top_state {
	struct cps_ctx *c;
	bool members;            /* each member's /proc/PID/stat read */
	bool list_members;       /* and a line printed for each */
	size_t nw;               /* mask words used */
	int statfd;              /* /proc/stat, kept open */
	char *buf;
	size_t bufcap;
	struct top_cpu *prev, *cur; /* CPS_MAX_CPUS each */
	unsigned ncpus_seen;     /* highest CPU number seen + 1 */
	bool have_prev;
	double t_prev, t_cur;    /* CLOCK_MONOTONIC seconds of the two samples */
	double refresh_ms;       /* the cost of the last sample */
	char table[SHM_TABLE_NAME_MAX];
	unsigned char *copy;     /* the table's copy, kept */
	size_t copy_size;
	off_t (*ext)[2];         /* the file's data extents, read each refresh */
	size_t capext;
	off_t (*copied)[2];      /* those the copy was made with */
	long ncopied;            /* -1: the copy was made from the whole mapping */
	struct top_set *sets;
	size_t nsets, capsets;
	struct top_member *mem, *prevmem;
	size_t nmem, nprevmem, capmem, capprevmem;
};

/* CLOCK_MONOTONIC, in seconds. */
double top_now(void);
/* 0, or a negative errno. */
int top_init(struct top_state *s, struct cps_ctx *c, bool members);
/* One sample: the table copied, /proc/stat read once, the sets' figures
 * over the time since the last sample. 0 or a negative errno. */
int top_sample(struct top_state *s);
void top_free(struct top_state *s);
/* The interval's ticks of cpu (user, system, idle, other): false when it
 * was not there at both samples (tools/top_print.c's too). */
bool top_cpu_delta(const struct top_state *s, unsigned cpu, uint64_t d[4]);
/* The text view: at most max_lines lines (0: all), each cut at width
 * columns (0: whole), the names and CPU lists narrowed first. */
void top_print_text(const struct top_state *s, FILE *f, double delay, int max_lines, int width);
void top_print_json(const struct top_state *s, FILE *f, double delay);

/* The loop: refreshes until count, q or a signal; restores the terminal.
 * Returns an exit code. */
int top_run(struct cps_ctx *c, const struct top_opts *o);

#endif
