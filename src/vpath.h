/* SPDX-License-Identifier: BSD-3-Clause */
/* Which family of views a canonical path belongs to: the one classifier
 * the shim's dispatch asks before it does anything else with a path.
 *
 * A canonical path is absolute, with no "//", no "." or ".." components
 * and no trailing '/'. Below /sys/devices/system/cpu, /sys/bus/cpu/devices
 * and /sys/devices/system/node it must not have been resolved through the
 * kernel's symlinks: the cpuN names there are virtual.
 *
 * Pure: no system calls, no allocation.
 */
#ifndef CPS_VPATH_H
#define CPS_VPATH_H

enum cps_vfamily {
	CPS_VF_NONE = 0, /* not a view: the real file, untouched */
	CPS_VF_CPUINFO,  /* /proc/cpuinfo */
	CPS_VF_STAT,     /* /proc/stat */
	CPS_VF_STATUS,   /* /proc/<pid>/status and the task forms */
	CPS_VF_PIDSTAT,  /* /proc/<pid>/stat and the task forms (field 39) */
	CPS_VF_CGROUP,   /* the caller's cgroup CPU and node list files */
	CPS_VF_CPUDIR,   /* /sys/devices/system/cpu[/...], /sys/bus/cpu/devices[/...] */
	CPS_VF_NODE,     /* /sys/devices/system/node[/...] */
	CPS_VF_NUMA_MAPS, /* /proc/<pid>/numa_maps and the task form */
};

/* The family of canon: its row's in the list of virtual files
 * (src/vfiles.h). Anything whose second byte is neither 'p' nor 's' is
 * CPS_VF_NONE after two byte compares. The /proc families are named
 * there only by their shape; whether a pid is the caller's, or a cgroup
 * file the caller's own, is for the family's own code to decide. */
enum cps_vfamily cps_vpath_family(const char *canon);

/* The path below root when canon is root itself or inside it ("/" for
 * root itself), else NULL. root is absolute, canonical, not "/". Used for
 * the test-only root override (CPUSETSHIM_TEST_ROOT). */
const char *cps_vpath_below(const char *canon, const char *root);

#endif
