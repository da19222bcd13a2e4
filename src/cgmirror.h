/* SPDX-License-Identifier: BSD-3-Clause */
/* The cgroup mirror: each set of a table as a cpuset cgroup holding the
 * set's memory nodes, its members placed in it, so that the kernel
 * confines their memory (src/cgmirror.c; doc/memory-nodes.md, "Memory
 * nodes by the kernel: the cgroup mirror"). Each call does nothing
 * (returns 0) when the table has no mirror. Negative errnos otherwise,
 * as src/ does.
 */
#ifndef CPS_CGMIRROR_H
#define CPS_CGMIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cps_ctx;

/* Make the table's mirror (cpuset init --cgroup): the directory named as
 * the table at the cpuset hierarchy's root, the controller enabled below
 * it (v2) or its CPUs and nodes copied from the root (v1). dir gets its
 * path. */
int cps_cgm_make(struct cps_ctx *c, char *dir, size_t len);
/* Remove the mirror and its sets' directories (empty ones: a cgroup with
 * a process cannot be removed, and the error says so). */
int cps_cgm_remove(struct cps_ctx *c);
/* Whether the table has a mirror; dir (may be NULL) gets its path. */
bool cps_cgm_on(struct cps_ctx *c, char *dir, size_t len);
/* pid into set's cgroup, made with the set's nodes if it is not there. */
int cps_cgm_place(struct cps_ctx *c, uint32_t set, pid_t pid);
/* The set's nodes written to its cgroup (after a change of nodes). */
int cps_cgm_mems(struct cps_ctx *c, uint32_t set);
/* The directories of sets that are gone removed: how many could not be. */
int cps_cgm_prune(struct cps_ctx *c);

/* Pure helpers, for the tests: the mount point of the v1 cpuset (v2:
 * cgroup2) hierarchy in the text of /proc/self/mounts; whether a
 * space-separated list (cgroup.controllers) holds word. */
int cps_cgm_hierarchy(const char *mounts, bool v2, char *dir, size_t len);
bool cps_cgm_word(const char *list, const char *word);

#endif
