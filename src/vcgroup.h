/* SPDX-License-Identifier: BSD-3-Clause */
/* Views of the CPU files of the caller's own cgroup: v2 cpuset.cpus and
 * cpuset.cpus.effective, v1 cpuset.cpus and cpuset.effective_cpus. They
 * name the set's virtual CPUs, as the other views do (the JVM, for one,
 * prints them as its processor list).
 */
#ifndef CPS_VCGROUP_H
#define CPS_VCGROUP_H

#include <stdbool.h>

#include "src/views.h"

/* A CPU list file: each CPU of the real list that is in the set becomes
 * its virtual number, the others are dropped. An empty list (v2's
 * cpuset.cpus when nothing is asked: "no restriction") stays empty.
 * -EINVAL when the text is no CPU list (the caller passes it through). */
int cps_view_cgroup_cpus(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s);

/* A node list file (v2 cpuset.mems and cpuset.mems.effective, v1
 * cpuset.mems and cpuset.effective_mems): the same through the set's
 * memory nodes, virtual node v the v-th. A set without nodes of its own
 * (k 0) shows the file as it is. */
int cps_view_cgroup_mems(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s);

/*
 * The directories of the caller's cpuset cgroup, from the text of
 * /proc/self/cgroup and /proc/self/mountinfo: v2 from the "0::PATH" line
 * and a cgroup2 mount, v1 from the line whose controllers hold "cpuset"
 * and a cgroup mount whose options hold it. A mount shows the cgroups
 * below its root only: PATH must lie below it. Either directory is ""
 * when there is none (or it does not fit). Returns a mask: 1 v1 found,
 * 2 v2 found.
 */
int cps_cgroup_cpuset_dirs(const char *cgroup, size_t cglen, const char *mountinfo, size_t milen,
			   char *v1, size_t v1len, char *v2, size_t v2len);

/* The same from the text of /proc/self/cpuset (the path of the caller's
 * cpuset cgroup, v1 or v2) and of /proc/mounts (no mount roots: each
 * mount shows its hierarchy from its root): v1 from a cgroup mount with
 * the cpuset controller or a cpuset filesystem, v2 from a cgroup2 mount,
 * as hwloc finds them. */
int cps_cgroup_cpuset_dirs_mounts(const char *cpuset, size_t cslen, const char *mounts,
				  size_t mlen, char *v1, size_t v1len, char *v2, size_t v2len);

/* Whether name is one of the CPU files of a v1 (v2 false) or v2 cgroup
 * (v1: with the cpuset. prefix, or without it, as a noprefix cgroup
 * mount or the legacy cpuset filesystem names them). */
bool cps_cgroup_cpu_file(const char *name, bool v2);
/* The same for the node list files (cps_view_cgroup_mems): cpuset.mems,
 * v2 cpuset.mems.effective, v1 cpuset.effective_mems, and v1's mems and
 * effective_mems without the prefix. */
bool cps_cgroup_mems_file(const char *name, bool v2);

#endif
