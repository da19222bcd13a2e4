/* SPDX-License-Identifier: BSD-3-Clause */
/* CPUs chosen by topology, for the tools: the caller's view of the
 * machine's topology read from /sys (below the test root when one is set),
 * locations and counts resolved in it (src/topo.c), and a set's topology
 * printed as a tree. */
#ifndef CPS_TOOLS_WHERE_H
#define CPS_TOOLS_WHERE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/sets.h"
#include "src/topo.h"

/* Exit codes of cpuset for a location or count (bad ones are CLI_USAGE). */
enum {
	CLI_NO_OBJECT = 5, /* a location names an object the view lacks */
	CLI_NO_FIT = 6,    /* a count the view, or what is free of it, cannot hold */
};

/* A view: the topology of some CPUs, numbered as a program among them
 * sees them, with each CPU's machine number and its caches' sizes. */
struct where_view {
	struct cps_topo t;
	unsigned phys[CPS_MAX_CPUS];        /* the machine's number of each CPU */
	unsigned cache_kb[3][CPS_MAX_CPUS]; /* L1d, L2, L3 sizes of each CPU's */
	unsigned node_phys[CPS_MAX_CPUS];   /* the machine's number of each node */
	char where[64];
};

/* The view of the machine's CPUs cpus and nodes mems (NULL: all of them,
 * numbered as the machine numbers them; else numbered 0..n-1 in order).
 * NULL with a message said on failure. Free with free(). */
struct where_view *where_view_of(const uint64_t *cpus, const uint64_t *mems, size_t nw,
				 const char *where);
/* The caller's view: its own set's (tools/cli.h, cli_own_set), the
 * machine's outside any set or with --physical; under the test root
 * CPUSETSHIM_TEST_CPUS and CPUSETSHIM_TEST_MEMS as its set. */
struct where_view *where_caller(void);

/* A location (tools/cli.h, cli_cpus_own) into the machine's CPUs m; an
 * exit code of cpuset (CLI_USAGE, CLI_NO_OBJECT, CLI_NO_FIT), said. */
int cli_where(const char *loc, uint64_t *m, size_t nw);
/* The view's CPUs of a location, in its own numbers (cpuset cpus). */
int cli_where_view(const struct where_view *v, const char *loc, uint64_t *out, size_t nw);

/* --cores N, --sockets N (--packages), --pus N, --free: the option
 * taken (-1 if name is none of them; else 0, or CLI_USAGE said). */
int cli_count_option(const char *name, const char *arg);
/* Their getopt_long entries, all returning CLI_COUNT_OPTION. */
#define CLI_COUNT_OPTION 0x7c0
#define CLI_COUNT_OPTIONS                                                                          \
	{ "cores", required_argument, 0, CLI_COUNT_OPTION },                                       \
		{ "sockets", required_argument, 0, CLI_COUNT_OPTION },                             \
		{ "packages", required_argument, 0, CLI_COUNT_OPTION },                            \
		{ "pus", required_argument, 0, CLI_COUNT_OPTION },                                 \
	{                                                                                          \
		"free", no_argument, 0, CLI_COUNT_OPTION                                           \
	}
bool cli_counting(void);
const char *cli_count_text(void); /* "4 cores", for messages */
/* The count into the machine's CPUs m: among those free for a new child
 * of parent with flags (cps_getfreecpus) with --free, else among all of
 * the caller's view. An exit code of cpuset, said. */
int cli_count_cpus(struct cps_ctx *c, uint32_t parent, unsigned flags, uint64_t *m);
/* The same in the view v's numbers (cpuset cpus). */
int cli_count_view(struct cps_ctx *c, uint32_t parent, unsigned flags,
		   const struct where_view *v, uint64_t *vm);
/* cpuset-run's exit code for one of cpuset's (125 usage, 124 no such
 * object, 123 no fit). */
int cli_where_run_code(int code);

/* A view as a compact tree, as lstopo prints one. */
void where_print_tree(FILE *f, const struct where_view *v);

#endif
