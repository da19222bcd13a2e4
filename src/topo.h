/* SPDX-License-Identifier: BSD-3-Clause */
/* CPUs chosen by topology (pure): hwloc-style locations ("package:0",
 * "core:2-3", "numa:1", "package:0.core:1", "core:0-1.pu:0", combined with
 * whitespace and the prefixes ~ x ^) and counts (4 cores, 2 packages of
 * 3 cores each), resolved against a topology description the caller
 * made: which package, die, cache, cluster, core and node each CPU of
 * its view is in.
 *
 * The view's CPUs are 0..n-1 (the caller's own numbers). Objects are
 * numbered by logical index as hwloc numbers them: the order of a walk of
 * the tree, each level's objects sorted by their first CPU; nodes by
 * their number in the view. Indexes in a chain count within the object
 * before ("package:1.core:0" is package 1's first core).
 *
 * Functions return 0 or a negative errno: -EINVAL a malformed location
 * or count, -ENOENT an object the view does not have (the message names
 * those it has), -ENOSPC a count the view (or what is free of it) cannot
 * hold. The message is in err->msg. */
#ifndef CPS_TOPO_H
#define CPS_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "src/mask.h"

/* The levels, outermost first (their order is the walk's); NODE stands
 * apart: nodes are numbered, not walked. */
enum cps_topo_kind {
	CPS_TOPO_DRAWER, /* s390's drawers and books: hwloc's groups above */
	CPS_TOPO_BOOK,   /* packages, walked in that order */
	CPS_TOPO_PACKAGE,
	CPS_TOPO_DIE,
	CPS_TOPO_L3,
	CPS_TOPO_CLUSTER,
	CPS_TOPO_L2,
	CPS_TOPO_L1,
	CPS_TOPO_CORE,
	CPS_TOPO_PU,
	CPS_TOPO_NODE,
	CPS_TOPO_NKINDS
};

struct cps_topo {
	unsigned n;      /* CPUs 0..n-1, those of the view having a PU */
	unsigned nnodes; /* nodes 0..nnodes-1 (some may hold no CPU) */
	const char *where; /* "this machine", "set 3": for messages */
	/* filled by the caller: for each kind and CPU, an identity of the
	 * object holding it (any number, equal for one object; -1 none);
	 * for PU the CPU's own number where the view has it, -1 where its
	 * numbers have a hole (an offline CPU); for NODE the node's number
	 * in the view */
	int obj[CPS_TOPO_NKINDS][CPS_MAX_CPUS];
	/* filled by cps_topo_finish: each CPU's object named by its first
	 * CPU (-1 none), and the CPUs in walk order */
	int first[CPS_TOPO_NKINDS][CPS_MAX_CPUS];
	unsigned order[CPS_MAX_CPUS], norder;
	uint64_t present[CPS_MAX_WORDS];
};

struct cps_topo_err {
	char msg[320];
};

/* What a count asks for: packages (0: any), and cores or PUs (in each
 * package when packages is given; 0: whole packages). */
struct cps_topo_count {
	unsigned packages, cores, pus;
};

/* The obj tables made into first and order; call once after filling
 * obj (and n, nnodes). -EINVAL if n is 0 or beyond CPS_MAX_CPUS. */
int cps_topo_finish(struct cps_topo *t);
/* A kind's name ("package", "numa" ...), and a name into a kind (the
 * aliases: socket, node, numanode, l3cache ...); -1 if none. */
const char *cps_topo_kind_name(enum cps_topo_kind k);
int cps_topo_kind_of(const char *name, size_t len);
/* The objects of kind k whose CPUs meet scope (NULL: all), in logical
 * order, as their keys (the first CPU; a node's number) into keys (room
 * for CPS_MAX_CPUS); returns how many. */
unsigned cps_topo_objects(const struct cps_topo *t, enum cps_topo_kind k, const uint64_t *scope,
			  size_t nw, int *keys);
/* The CPUs of object key of kind k, and'ed into out (nw words). */
void cps_topo_cpus_of(const struct cps_topo *t, enum cps_topo_kind k, int key, uint64_t *out,
		      size_t nw);
/* A location into out (nw words, zeroed first; CPUs of the view). */
int cps_topo_resolve(const struct cps_topo *t, const char *loc, uint64_t *out, size_t nw,
		     struct cps_topo_err *err);
/* Whether a --cpus argument is a location rather than a list or mask:
 * it starts with a letter, ~ or ^, or holds a blank. */
int cps_topo_is_location(const char *s);
/* A count chosen among avail (CPUs of the view; NULL: all) into out:
 * whole cores first, packed into one package when they fit there (the
 * package that fits most tightly), then across packages in order, then
 * cores partly available (doc/topology.md). */
int cps_topo_pick(const struct cps_topo *t, const struct cps_topo_count *want,
		  const uint64_t *avail, uint64_t *out, size_t nw, struct cps_topo_err *err);

#endif
