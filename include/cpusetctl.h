/* SPDX-License-Identifier: BSD-3-Clause */
/* cpusetctl.h — the public C API of cpusetshim.
 *
 * User-space hierarchical CPU sets, after the 2003 CPUSETS proposal: the
 * five calls mirror its system calls and, like system calls, return -1 and
 * set errno on failure (0 or a non-negative value on success). Masks are
 * cpu_set_t buffers with their size in bytes, as for sched_setaffinity(2).
 *
 * The calls work on one table (a POSIX shared-memory object): by default
 * $CPUSETSHIM_TABLE, else the caller's own "cpusetshim.<euid>", made on
 * first use. cpusetctl_use_table() picks another. All calls are thread-safe.
 *
 * Names: the library's own prefix (cpusetctl_*, cpusetctl_id_t,
 * CPUSETCTL_*), not the proposal's cpuset_* and cpuset_t, which collide
 * with FreeBSD's cpuset_t (a CPU mask) and with SGI libcpuset's cpuset_*
 * functions of other signatures. Changed while the soname is still 0.
 */
#ifndef CPUSETCTL_H
#define CPUSETCTL_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int cpusetctl_id_t;

#define CPUSETCTL_ROOT 1u         /* the id of the root set of a new table */
#define CPUSETCTL_STRICT 0x1      /* shares no CPU with a sibling */
#define CPUSETCTL_AUTOCLEAN 0x2   /* destroyed when its last process leaves */

/* Use the table called name (a shm name, NULL for the default) for the
 * following calls. -1/EINVAL for a malformed name. */
int cpusetctl_use_table(const char *name);

/* New child of the caller's current set, with no CPUs yet.
 * EINVAL: a strict child of a non-strict parent, or an unknown flag;
 * ENOSPC: table full; EACCES: table not writable. */
int cpusetctl_create(cpusetctl_id_t *id, int flags);

/* Removes an empty, unused set. EINVAL: the root or an unknown id; EPERM:
 * not the owner (root may); EBUSY: it has processes or children. */
int cpusetctl_destroy(cpusetctl_id_t id);

/* Sets the CPUs of a set, moving every member thread at once.
 * EINVAL: the root, unknown, empty mask, a CPU not present; EACCES: a CPU
 * not in the parent; EBUSY: a CPU held by a strict sibling (or, for a
 * strict set, by any sibling), or a CPU a child still holds; EPERM: not the
 * owner. */
int cpusetctl_alloc(cpusetctl_id_t id, size_t setsize, const cpu_set_t *mask);

/* Moves a process, all its threads (pid 0: the caller), into a set; its
 * running descendants keep their masks (children to come inherit it).
 * EINVAL: unknown or empty set; ESRCH: no such process; EPERM: not the owner
 * of the set, or not allowed to move that process (pid 1 or a pid
 * namespace's first process, but the caller; for root with another user's
 * table, a process not of that user). */
int cpusetctl_attach(cpusetctl_id_t id, pid_t pid);

/* The CPUs of the caller's set that a new child with these flags could
 * take. Returns setsize. EINVAL: unknown flag, setsize too small. */
int cpusetctl_getfreecpus(int flags, size_t setsize, cpu_set_t *mask);

/* ---- beyond the 2003 proposal: what tools, batch systems and launchers need ---- */

/* The kernel's allowance. cpusetctl_create, cpusetctl_create_in and
 * cpusetctl_alloc refuse (EACCES) to give a set CPUs the calling thread
 * cannot run on: CPUs outside its cgroup's effective CPUs or outside its
 * current kernel affinity; cpusetctl_attach refuses a set with such CPUs.
 * A set never reaches beyond what the kernel allows its creator.
 * cpusetctl_override(1) lifts that for the calling process's following
 * calls, for root only (EPERM otherwise); cpusetctl_override(0) restores it. */
int cpusetctl_override(int on);

#define CPUSETCTL_REPLACE 0x1 /* cpusetctl_init_table: replace an existing table */

/* Make the table called name (NULL: the default) for a batch system or
 * an administrator: its root set holds cpus (NULL: the machine's online
 * CPUs, whatever the caller's affinity), it has permissions mode (0: 0600;
 * group bits make a table shared with group) and group gid ((gid_t)-1:
 * the caller's). EEXIST: it exists (flags CPUSETCTL_REPLACE replaces it);
 * EINVAL: bad name, mode or flags, or no CPU; EPERM: gid not allowed. The
 * following calls still use the table cpusetctl_use_table() chose. */
int cpusetctl_init_table(const char *name, size_t setsize, const cpu_set_t *cpus, mode_t mode,
			 gid_t gid, int flags);

/* Remove every member process that has ended (or is a zombie) and destroy
 * the AUTOCLEAN sets that leaves empty, as every write does first.
 * Returns how many members were removed. */
int cpusetctl_sweep(void);


/* The width in bits of the table's masks (use CPU_ALLOC_SIZE of it). */
int cpusetctl_mask_bits(void);

/* Create a child of parent (0: the caller's set) with these CPUs
 * (mask NULL: none yet) and an optional unique name, in one step.
 * EEXIST: the name is taken; otherwise as cpusetctl_create + cpusetctl_alloc. */
int cpusetctl_create_in(cpusetctl_id_t parent, int flags, const char *name, size_t setsize,
		     const cpu_set_t *mask, cpusetctl_id_t *id);

/* The set called name, or by its id written in decimal. ENOENT: none. */
int cpusetctl_find(const char *name_or_id, cpusetctl_id_t *id);

/* The set a process is in (pid 0: the caller). ESRCH: no such process. */
int cpusetctl_which(pid_t pid, cpusetctl_id_t *id);

/* Ids of all sets, increasing; returns how many exist (may exceed max). */
int cpusetctl_list(cpusetctl_id_t *ids, size_t max);

struct cpusetctl_info {
	cpusetctl_id_t id, parent;      /* parent 0 for the root */
	int flags;
	uid_t owner;
	unsigned nchildren, nmembers;
	char name[48];
};
/* Facts about a set and, if cpus is not NULL, its physical CPUs. */
int cpusetctl_get(cpusetctl_id_t id, struct cpusetctl_info *info, size_t setsize, cpu_set_t *cpus);

/* ---- memory nodes: a set's NUMA nodes, beside its CPUs ---- */

/* Gives a set memory nodes: nodemask holds maxnode bits in unsigned longs,
 * as set_mempolicy(2) takes them (physical node numbers); nodemask NULL:
 * "auto", the nodes holding the set's CPUs (within its parent's nodes),
 * made again whenever its CPUs change. A new set has its parent's nodes
 * that no strict sibling owns; a strict set owns the nodes it is given.
 * EINVAL: the root, unknown, empty mask, a node without memory or beyond
 * the table's width; EACCES: a node not in the parent, or outside the
 * caller's Mems_allowed or its cgroup's cpuset.mems; EBUSY: a node a
 * strict sibling owns (or, for a strict set, any sibling's), or a node a
 * child still holds; EPERM: not the owner. */
int cpusetctl_set_mems(cpusetctl_id_t id, const unsigned long *nodemask, unsigned long maxnode);

/* The set's memory nodes (physical numbers) into nodemask of maxnode bits.
 * Returns how many nodes it has. EINVAL: unknown set, or maxnode too small
 * for its highest node; EFAULT: nodemask NULL. */
int cpusetctl_get_mems(cpusetctl_id_t id, unsigned long *nodemask, unsigned long maxnode);

#ifdef __cplusplus
}
#endif
#endif
