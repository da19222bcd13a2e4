/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's allowance: the CPUs a process may run on, as the kernel
 * sees them (never through the shim: the affinity is asked with the system
 * call instruction, the cgroup and sysfs files are read with raw system
 * calls, which the shim passes through untouched).
 *
 * A set never reaches beyond the CPUs the kernel allows its creator:
 * create, alloc and attach refuse (EACCES) CPUs outside the caller's
 * cgroup's effective CPUs or outside its own current affinity.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef CPS_ALLOWANCE_H
#define CPS_ALLOWANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel affinity of thread tid (0: the caller), nw words. */
int cps_kernel_affinity(pid_t tid, uint64_t *m, size_t nw);

/* The effective CPUs of the caller's cpuset cgroup (v1: cpuset.effective_cpus,
 * v2: cpuset.cpus.effective of its cgroup or the nearest ancestor that has
 * one). path (may be NULL) gets the file read. -ENOENT: no cpuset cgroup. */
int cps_cgroup_cpus(uint64_t *m, size_t nw, char *path, size_t plen);

/* After moving the caller onto a set's CPUs: whether the kernel mask k it
 * reads back is the set's. The kernel leaves out the CPUs that are
 * present but offline (sched_getaffinity gives the active ones): those
 * are not asked for. False: the kernel refused or narrowed the affinity,
 * and msg (len bytes) says so, "set N: the kernel ... not running the
 * program", one sentence for cpuset-run and the shim alike. */
bool cps_affinity_holds(uint32_t set, const uint64_t *cpus, const uint64_t *k, size_t nw,
			char *msg, size_t len);

/* The CPUs of want the caller cannot run on. 0: none; -EACCES: some, and
 * *why (a per-thread buffer, valid until the next call) names them and the
 * reason: outside the cgroup's effective CPUs, or outside the affinity. */
int cps_allowance_check(const uint64_t *want, size_t nw, const char **why);

/* Root's explicit override, for the calling process: the check above then
 * passes. -EPERM unless the effective uid is 0. */
int cps_allowance_override(bool on);

/* Test seam (only the unit tests, which link the core library, call it):
 * the affinity and, if cgroup is not NULL, the cgroup's CPUs the check
 * uses instead of the kernel's; affinity NULL: the kernel's again. */
void cps_allowance_fake(const uint64_t *affinity, const uint64_t *cgroup, size_t nw);

/* Memory nodes, the same way: the kernel's Mems_allowed of the caller
 * (get_mempolicy MPOL_F_MEMS_ALLOWED, raw), its cgroup's effective nodes
 * (v2 cpuset.mems.effective, v1 cpuset.effective_mems or cpuset.mems),
 * the check (-EACCES with *why naming the nodes: outside the cgroup, or
 * outside Mems_allowed; root's override lifts it) and its test seam. */
int cps_kernel_mems_allowed(uint64_t *m, size_t nw);
int cps_cgroup_mems(uint64_t *m, size_t nw, char *path, size_t plen);
/* The nodes the check lets through: all under root's override, the
 * fake's, else the kernel's Mems_allowed. */
int cps_mems_allowed(uint64_t *m, size_t nw);
int cps_mems_allowance_check(const uint64_t *want, size_t nw, const char **why);
void cps_allowance_fake_mems(const uint64_t *allowed, const uint64_t *cgroup, size_t nw);

#endif
