/* SPDX-License-Identifier: BSD-3-Clause */
/* Which memory nodes Slurm gives a task, from the value of SLURM_MEM_BIND
 * that slurmstepd puts in the task's environment ("quiet,map_mem:0,1",
 * "verbose,mask_mem:0x1,0x2", "quiet,local", "quiet,rank",
 * "quiet,none"; the flags verbose, quiet, prefer and sort before the
 * type). Pure: the plugin (slurm/cpusetshim.c) reads the environment and
 * the cgroup, the unit test (tests/check_membind.c) feeds it strings.
 */
#ifndef CPS_SLURM_MEMBIND_H
#define CPS_SLURM_MEMBIND_H

#include <stddef.h>
#include <stdint.h>

enum cps_membind {
	CPS_MEMBIND_UNSAID = 0, /* no binding (unset, empty, none, only flags) */
	CPS_MEMBIND_NODES = 1,  /* these nodes (map_mem, mask_mem, rank) */
	CPS_MEMBIND_LOCAL = 2,  /* the nodes of the task's CPUs (local) */
};

/* The binding of the task of local id local (SLURM_LOCALID: entry local
 * modulo the list's length, as Slurm takes it; rank: node local, which
 * Slurm refuses itself when the machine lacks it). Returns a
 * cps_membind, with nodes (nw words) set for CPS_MEMBIND_NODES; or
 * -EINVAL with why (wlen bytes) saying what is wrong: an unknown word, an
 * empty or malformed list or entry, an empty mask, a node beyond the
 * width. v may be NULL (unset). */
int cps_membind_parse(const char *v, unsigned local, uint64_t *nodes, size_t nw, char *why,
		      size_t wlen);

/* The task's nodes, chosen from what Slurm says: bind, a result of
 * cps_membind_parse with its nodes in bnodes; the task's cpuset cgroup,
 * cg_path the file its nodes cg_nodes were read from (NULL: none), taken
 * only when it is Slurm's (a path with "/job_", task/cgroup) and bind
 * says nothing; machine, the nodes with memory. Returns CPS_MEMS_LIST
 * with out set (nw words), or CPS_MEMS_AUTO (the nodes of the task's
 * CPUs: also for local); -EINVAL with why when the binding names a node
 * without memory. *from: where the nodes come from, for the log. */
int cps_membind_choose(int bind, const uint64_t *bnodes, const char *cg_path,
		       const uint64_t *cg_nodes, const uint64_t *machine, size_t nw, uint64_t *out,
		       const char **from, char *why, size_t wlen);

#endif
