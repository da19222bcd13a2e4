/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of virtual files: every file and directory of /proc and /sys
 * the shim serves as a view, one row each, with its family and its
 * transform. Every path filter is derived from it:
 *   - the family of a canonical path (cps_vpath_family, src/vpath.h) and
 *     the kind of a /sys view with its physical path (cps_vsys_resolve,
 *     src/vsys.h), hence the dispatch of open, stat, access, readlink and
 *     the directory listings (a row of kind CPS_VK_DIR);
 *   - the names a path relative to a directory fd may end in
 *     (cps_path_view_name, src/path.h);
 *   - the open stubs' two-byte table (cps_path_second), made by the
 *     compiler from the rows' names (src/vfiles.c);
 *   - the second byte of an absolute path that may be a view
 *     (cps_vpath_root2), which the open stubs also test (x86-64, aarch64).
 * Adding a view is one row here and one transform (src/vmake.c;
 * CONTRIBUTING.md shows the diff).
 *
 * A row is X(a, dir, name, family, kind, delivery, flags): the file is
 * dir "/" name; kind (enum cps_vkind, src/vmake.h) says how its bytes are
 * made (cps_vmake) or that it is the physical file; delivery (enum
 * cps_vdelivery) how a front end hands it over: the physical file, kept
 * for the set, made at each open into the pool, or made at each open and
 * kept by its contents. Rows of one kind share its delivery
 * (cps_vkind_delivery, tests/check_vsys.c). Patterns, one component at a time:
 *   "#"      in a component: a decimal number as the kernel writes one
 *            (no sign, no leading zero but "0"); "cpu#" is a virtual CPU
 *            and "node#" a virtual node, both renumbered to the physical
 *            ones in the physical path (nodes only when the set has
 *            nodes); "#" alone is a thread id;
 *   "$pid"   a process: a number, "self" or "thread-self";
 *   "x*"     at the end of a component: any rest ("has_*");
 *   "**"     a whole component: any number of components, none included.
 * Rows are tried in order; the first that matches is the path's. flags:
 * CPS_VFILE_NODES, the row applies only when the set has memory nodes
 * (the next row that matches then decides); CPS_VFILE_SHIM, the view is
 * the shim's alone (the supervisor's differences). A row whose name is "**" is
 * its family's rest: the files that are the physical file itself, by
 * their virtual path; their names are not views' names.
 *
 * Pure: no system calls, no allocation.
 */
#ifndef CPS_VFILES_H
#define CPS_VFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "src/vpath.h"
#include "src/vkind.h"
#include "src/vsys.h"

#define CPS_VFILE_NODES 1
/* The shim's view alone: the supervisor hands over the real file
 * (supervise/files.c; doc/limits.md says why). */
#define CPS_VFILE_SHIM 2

#define CPS_VFILE_CPU "/sys/devices/system/cpu"
#define CPS_VFILE_NODE "/sys/devices/system/node"
#define CPS_VFILE_CPUN CPS_VFILE_CPU "/cpu#"
#define CPS_VFILE_NODEN CPS_VFILE_NODE "/node#"

/* A CPU list of a CPU's directory in both the kernel's forms: a mask
 * ("name") and a list ("name_list"). */
#define CPS_VFILE_MASK_LIST(X, a, dir, name)                        \
	X(a, dir, name, CPS_VF_CPUDIR, CPS_VK_MASK, CPS_VD_KEPT, 0)              \
	X(a, dir, name "_list", CPS_VF_CPUDIR, CPS_VK_LIST, CPS_VD_KEPT, 0)

/* The table, as an X-macro: X(a, dir, name, family, kind, delivery,
 * flags) for each row, a passed through. doc/shim.md ("The list of
 * virtual files") shows
 * it. */
#define CPS_VFILES(X, a)                                                                    \
	/* /proc */                                                                                 \
	X(a, "/proc", "cpuinfo", CPS_VF_CPUINFO, CPS_VK_CPUINFO, CPS_VD_KEPT, 0)                    \
	X(a, "/proc", "stat", CPS_VF_STAT, CPS_VK_STAT, CPS_VD_POOL, 0)                             \
	X(a, "/proc/$pid", "status", CPS_VF_STATUS, CPS_VK_STATUS, CPS_VD_POOL, 0)                  \
	X(a, "/proc/$pid/task/#", "status", CPS_VF_STATUS, CPS_VK_STATUS_TASK, CPS_VD_POOL, 0)      \
	X(a, "/proc/$pid", "stat", CPS_VF_PIDSTAT, CPS_VK_PIDSTAT, CPS_VD_POOL, 0)                  \
	X(a, "/proc/$pid/task/#", "stat", CPS_VF_PIDSTAT, CPS_VK_PIDSTAT, CPS_VD_POOL, 0)           \
	X(a, "/proc/$pid", "numa_maps", CPS_VF_NUMA_MAPS, CPS_VK_NUMA_MAPS, CPS_VD_POOL, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	X(a, "/proc/$pid/task/#", "numa_maps", CPS_VF_NUMA_MAPS, CPS_VK_NUMA_MAPS, CPS_VD_POOL, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	/* the caller's cgroup's CPU files (v2, v1, v1 noprefix): whose they are                    \
	 * is the family's business */                                                              \
	X(a, "/sys/fs/cgroup/**", "cpuset.cpus", CPS_VF_CGROUP, CPS_VK_CGROUP_CPUS, CPS_VD_MADE, CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "cpuset.cpus.effective", CPS_VF_CGROUP, CPS_VK_CGROUP_CPUS, CPS_VD_MADE, CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "cpuset.effective_cpus", CPS_VF_CGROUP, CPS_VK_CGROUP_CPUS, CPS_VD_MADE, CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "cpus", CPS_VF_CGROUP, CPS_VK_CGROUP_CPUS, CPS_VD_MADE, CPS_VFILE_SHIM)        \
	X(a, "/sys/fs/cgroup/**", "effective_cpus", CPS_VF_CGROUP, CPS_VK_CGROUP_CPUS, CPS_VD_MADE, CPS_VFILE_SHIM) \
	/* and its node lists, when the set has nodes */                                            \
	X(a, "/sys/fs/cgroup/**", "cpuset.mems", CPS_VF_CGROUP, CPS_VK_CGROUP_MEMS, CPS_VD_MADE, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "cpuset.mems.effective", CPS_VF_CGROUP, CPS_VK_CGROUP_MEMS, CPS_VD_MADE, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "cpuset.effective_mems", CPS_VF_CGROUP, CPS_VK_CGROUP_MEMS, CPS_VD_MADE, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "mems", CPS_VF_CGROUP, CPS_VK_CGROUP_MEMS, CPS_VD_MADE, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	X(a, "/sys/fs/cgroup/**", "effective_mems", CPS_VF_CGROUP, CPS_VK_CGROUP_MEMS, CPS_VD_MADE, CPS_VFILE_NODES | CPS_VFILE_SHIM) \
	/* the CPU directory */                                                                     \
	X(a, "/sys/devices/system", "cpu", CPS_VF_CPUDIR, CPS_VK_DIR, CPS_VD_PHYSICAL, 0)           \
	X(a, CPS_VFILE_CPU, "online", CPS_VF_CPUDIR, CPS_VK_ONLINE, CPS_VD_MADE, 0)                 \
	X(a, CPS_VFILE_CPU, "present", CPS_VF_CPUDIR, CPS_VK_RANGE, CPS_VD_KEPT, 0)                 \
	X(a, CPS_VFILE_CPU, "possible", CPS_VF_CPUDIR, CPS_VK_POSSIBLE, CPS_VD_KEPT, 0)             \
	X(a, CPS_VFILE_CPU, "kernel_max", CPS_VF_CPUDIR, CPS_VK_KERNEL_MAX, CPS_VD_KEPT, 0)         \
	X(a, CPS_VFILE_CPU, "offline", CPS_VF_CPUDIR, CPS_VK_OFFLINE, CPS_VD_KEPT, 0)               \
	X(a, CPS_VFILE_CPU, "isolated", CPS_VF_CPUDIR, CPS_VK_LIST, CPS_VD_KEPT, 0)                 \
	X(a, CPS_VFILE_CPU, "enabled", CPS_VF_CPUDIR, CPS_VK_LIST, CPS_VD_KEPT, 0)                  \
	X(a, CPS_VFILE_CPU, "nohz_full", CPS_VF_CPUDIR, CPS_VK_LIST, CPS_VD_KEPT, 0)                \
	/* a CPU's directory: its nodeK link is renamed with the set's nodes */                     \
	X(a, CPS_VFILE_CPU, "cpu#", CPS_VF_CPUDIR, CPS_VK_DIR, CPS_VD_PHYSICAL, CPS_VFILE_NODES)    \
	X(a, CPS_VFILE_CPUN, "node#", CPS_VF_CPUDIR, CPS_VK_SAME, CPS_VD_PHYSICAL, CPS_VFILE_NODES) \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "thread_siblings")                    \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "core_siblings")                      \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "core_cpus")                          \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "cluster_cpus")                       \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "die_cpus")                           \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "package_cpus")                       \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "book_siblings")                      \
	CPS_VFILE_MASK_LIST(X, a, CPS_VFILE_CPUN "/topology", "drawer_siblings")                    \
	X(a, CPS_VFILE_CPUN "/cache/index#", "shared_cpu_map", CPS_VF_CPUDIR, CPS_VK_MASK, CPS_VD_KEPT, 0) \
	X(a, CPS_VFILE_CPUN "/cache/index#", "shared_cpu_list", CPS_VF_CPUDIR, CPS_VK_LIST, CPS_VD_KEPT, 0) \
	X(a, CPS_VFILE_CPUN "/cpufreq", "related_cpus", CPS_VF_CPUDIR, CPS_VK_SPACELIST, CPS_VD_KEPT, 0) \
	X(a, CPS_VFILE_CPUN "/cpufreq", "affected_cpus", CPS_VF_CPUDIR, CPS_VK_SPACELIST, CPS_VD_KEPT, 0) \
	X(a, CPS_VFILE_CPUN "/cpufreq", "freqdomain_cpus", CPS_VF_CPUDIR, CPS_VK_SPACELIST, CPS_VD_KEPT, 0) \
	X(a, CPS_VFILE_CPUN, "**", CPS_VF_CPUDIR, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)                  \
	X(a, CPS_VFILE_CPU, "**", CPS_VF_CPUDIR, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)                   \
	/* its alias: the CPUs' links */                                                            \
	X(a, "/sys/bus/cpu", "devices", CPS_VF_CPUDIR, CPS_VK_DIR, CPS_VD_PHYSICAL, 0)              \
	X(a, "/sys/bus/cpu/devices", "cpu#", CPS_VF_CPUDIR, CPS_VK_DIR, CPS_VD_PHYSICAL, CPS_VFILE_NODES) \
	X(a, "/sys/bus/cpu/devices/cpu#", "**", CPS_VF_CPUDIR, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)     \
	X(a, "/sys/bus/cpu/devices", "**", CPS_VF_CPUDIR, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)          \
	/* the NUMA nodes */                                                                        \
	X(a, "/sys/devices/system", "node", CPS_VF_NODE, CPS_VK_DIR, CPS_VD_PHYSICAL, CPS_VFILE_NODES) \
	X(a, CPS_VFILE_NODE, "has_cpu", CPS_VF_NODE, CPS_VK_HAS_CPU, CPS_VD_KEPT, CPS_VFILE_SHIM)                \
	X(a, CPS_VFILE_NODE, "online", CPS_VF_NODE, CPS_VK_NODELIST, CPS_VD_KEPT, CPS_VFILE_NODES)  \
	X(a, CPS_VFILE_NODE, "possible", CPS_VF_NODE, CPS_VK_NODELIST, CPS_VD_KEPT, CPS_VFILE_NODES) \
	X(a, CPS_VFILE_NODE, "has_*", CPS_VF_NODE, CPS_VK_NODELIST, CPS_VD_KEPT, CPS_VFILE_NODES)   \
	X(a, CPS_VFILE_NODE, "node#", CPS_VF_NODE, CPS_VK_DIR, CPS_VD_PHYSICAL, 0)                  \
	X(a, CPS_VFILE_NODEN, "cpumap", CPS_VF_NODE, CPS_VK_MASK, CPS_VD_KEPT, 0)                   \
	X(a, CPS_VFILE_NODEN, "cpulist", CPS_VF_NODE, CPS_VK_LIST, CPS_VD_KEPT, 0)                  \
	X(a, CPS_VFILE_NODEN, "distance", CPS_VF_NODE, CPS_VK_DISTANCE, CPS_VD_KEPT, CPS_VFILE_NODES) \
	X(a, CPS_VFILE_NODEN, "meminfo", CPS_VF_NODE, CPS_VK_NODEINFO, CPS_VD_KEPT, CPS_VFILE_NODES) \
	X(a, CPS_VFILE_NODEN, "cpu#", CPS_VF_NODE, CPS_VK_DIR, CPS_VD_PHYSICAL, CPS_VFILE_NODES)    \
	X(a, CPS_VFILE_NODEN "/cpu#", "**", CPS_VF_NODE, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)           \
	X(a, CPS_VFILE_NODEN, "**", CPS_VF_NODE, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)                   \
	X(a, CPS_VFILE_NODE, "**", CPS_VF_NODE, CPS_VK_SAME, CPS_VD_PHYSICAL, 0)

struct cps_vfile {
	const char *path;     /* dir "/" name */
	unsigned char name;   /* where name starts in path */
	unsigned char family; /* enum cps_vfamily */
	unsigned char kind;   /* enum cps_vkind: how its bytes are made */
	unsigned char delivery; /* enum cps_vdelivery */
	unsigned char flags;  /* CPS_VFILE_NODES */
	unsigned char name_len; /* the name's bytes */
};

extern const struct cps_vfile cps_vfiles[];
extern const size_t cps_nvfiles;

/* Where a path's numbers are: its virtual CPU ('c'), virtual node ('n'),
 * process ('p': digits, "self" or "thread-self") and thread ('t'). */
struct cps_vmatch {
	unsigned ncap;
	struct {
		char what;
		unsigned short at, len;
	} cap[4];
};

/* The row of canonical path canon (src/vpath.h), or NULL: none. nodes:
 * the set has memory nodes (rows CPS_VFILE_NODES apply). m (may be NULL)
 * gets where canon's numbers are. */
const struct cps_vfile *cps_vfile_find(const char *canon, bool nodes, struct cps_vmatch *m);
/* The same in one walk of the list for both answers: the row of canon
 * when the set has nodes (returned, its numbers in *m) and when it has
 * none (*plain); a caller that learns the set's nodes after the path's
 * family picks one (cps_vfile_captures, for *plain's numbers if it is
 * another row). *len: canon's length, when a row is returned. The
 * thread's last path is kept: the same path again is one compare. */
const struct cps_vfile *cps_vfile_lookup(const char *canon, const struct cps_vfile **plain,
					 struct cps_vmatch *m, size_t *len);
/* Where canon's numbers are, by its row. */
void cps_vfile_captures(const struct cps_vfile *row, const char *canon, struct cps_vmatch *m);

/* Whether name (len bytes, no '/') matches the name of a row that is not
 * its family's rest. */
bool cps_vfile_name(const char *name, size_t len);

/* Whether the component c (len bytes) may name a number the views
 * renumber (cpuN, nodeN): a path relative to a directory fd holding one
 * may be a view wherever the fd points. */
bool cps_vfile_renumbered(const char *c, size_t len);

/* Whether c (len bytes) is the first component of some row ("proc",
 * "sys"). */
bool cps_vfile_root(const char *c, size_t len);

/* The second byte of an absolute path that may be a view (with '/' and
 * '.', which a spelling of one may have there): the rows' roots' second
 * bytes, "/proc" and "/sys" (tests/check_vsys.c checks it against the
 * table; the open stubs test the same two macros). */
#define CPS_VPATH_ROOT2_A 0x70 /* 'p' */
#define CPS_VPATH_ROOT2_B 0x73 /* 's' */
static inline bool cps_vpath_root2(char c)
{
	return c == CPS_VPATH_ROOT2_A || c == CPS_VPATH_ROOT2_B || c == '/' || c == '.';
}

#endif
