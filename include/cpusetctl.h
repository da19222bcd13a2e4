/* cpusetctl.h — the public C API of cpusetshim.
 *
 * User-space hierarchical CPU sets, after the 2003 CPUSETS proposal: the
 * five calls mirror its system calls and, like system calls, return -1 and
 * set errno on failure (0 or a non-negative value on success). Masks are
 * cpu_set_t buffers with their size in bytes, as for sched_setaffinity(2).
 *
 * The calls work on one table (a POSIX shared-memory object): by default
 * $CPUSETSHIM_TABLE, else the caller's own "cpusetshim.<euid>", made on
 * first use. cpuset_use_table() picks another. All calls are thread-safe.
 */
#ifndef CPUSETCTL_H
#define CPUSETCTL_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int cpuset_t;

#define CPUSET_ROOT 1u         /* the id of the root set of a new table */
#define CPUSET_STRICT 0x1      /* shares no CPU with a sibling */
#define CPUSET_AUTOCLEAN 0x2   /* destroyed when its last process leaves */

/* Use the table called name (a shm name, NULL for the default) for the
 * following calls. -1/EINVAL for a malformed name. */
int cpuset_use_table(const char *name);

/* New child of the caller's current set, with no CPUs yet.
 * EINVAL: a strict child of a non-strict parent, or an unknown flag;
 * ENOSPC: table full; EACCES: table not writable. */
int cpuset_create(cpuset_t *id, int flags);

/* Removes an empty, unused set. EINVAL: the root or an unknown id; EPERM:
 * not the owner (root may); EBUSY: it has processes or children. */
int cpuset_destroy(cpuset_t id);

/* Sets the CPUs of a set, moving every member thread at once.
 * EINVAL: the root, unknown, empty mask, a CPU not present; EACCES: a CPU
 * not in the parent; EBUSY: a CPU held by a strict sibling (or, for a
 * strict set, by any sibling), or a CPU a child still holds; EPERM: not the
 * owner. */
int cpuset_alloc(cpuset_t id, size_t setsize, const cpu_set_t *mask);

/* Moves a process, all its threads (pid 0: the caller), into a set.
 * EINVAL: unknown or empty set; ESRCH: no such process; EPERM: not the owner
 * of the set, or not allowed to move that process. */
int cpuset_attach(cpuset_t id, pid_t pid);

/* The CPUs of the caller's set that a new child with these flags could
 * take. Returns setsize. EINVAL: unknown flag, setsize too small. */
int cpuset_getfreecpus(int flags, size_t setsize, cpu_set_t *mask);

/* ---- beyond the seed: what tools, batch systems and launchers need ---- */

/* The width in bits of the table's masks (use CPU_ALLOC_SIZE of it). */
int cpuset_mask_bits(void);

/* Create a child of parent (0: the caller's set) with these CPUs
 * (mask NULL: none yet) and an optional unique name, in one step.
 * EEXIST: the name is taken; otherwise as cpuset_create + cpuset_alloc. */
int cpuset_create_in(cpuset_t parent, int flags, const char *name, size_t setsize,
		     const cpu_set_t *mask, cpuset_t *id);

/* The set called name, or by its id written in decimal. ENOENT: none. */
int cpuset_find(const char *name_or_id, cpuset_t *id);

/* The set a process is in (pid 0: the caller). ESRCH: no such process. */
int cpuset_which(pid_t pid, cpuset_t *id);

/* Ids of all sets, increasing; returns how many exist (may exceed max). */
int cpuset_list(cpuset_t *ids, size_t max);

struct cpuset_info {
	cpuset_t id, parent;      /* parent 0 for the root */
	int flags;
	uid_t owner;
	unsigned nchildren, nmembers;
	char name[48];
};
/* Facts about a set and, if cpus is not NULL, its physical CPUs. */
int cpuset_get(cpuset_t id, struct cpuset_info *info, size_t setsize, cpu_set_t *cpus);

#ifdef __cplusplus
}
#endif
#endif
