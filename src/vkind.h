/* SPDX-License-Identifier: BSD-3-Clause */
/* A view's kind and its delivery: the columns of the list of virtual
 * files (src/vfiles.h) that say how its bytes are made (src/vmake.h) and
 * how a front end hands it over. */
#ifndef CPS_VKIND_H
#define CPS_VKIND_H

enum cps_vkind {
	CPS_VK_NONE = 0,  /* no view: the path as it is */
	CPS_VK_ABSENT,    /* cpuN with N >= n: ENOENT for every call */
	CPS_VK_SAME,      /* the physical file as it is (a file, a directory or a link) */
	CPS_VK_DIR,       /* the physical directory, its cpuN entries renamed or
			   * dropped (cps_vsys_dirent) */
	/* below: made (cps_vmake); CPS_VK_MASK is the first */
	CPS_VK_MASK,      /* a hex CPU mask ("ff,ffffffff") */
	CPS_VK_LIST,      /* a CPU list ("0-3,8") */
	CPS_VK_SPACELIST, /* CPUs separated by spaces (cpufreq) */
	CPS_VK_RANGE,     /* present: "0-(n-1)" */
	CPS_VK_KERNEL_MAX,/* kernel_max: w-1 (cps_view_width) */
	CPS_VK_HAS_CPU,   /* node/has_cpu: nodes holding CPUs of the set */
	CPS_VK_POSSIBLE,  /* possible: "0-(w-1)" (cps_view_width) */
	CPS_VK_OFFLINE,   /* offline: a CPU list, and virtual CPUs n..w-1 */
	CPS_VK_ONLINE,    /* online: a CPU list, the set's CPUs online */
	CPS_VK_NODELIST,  /* node/{online,possible,has_*}: the set's nodes */
	CPS_VK_DISTANCE,  /* nodeV/distance: the row's columns of the set */
	CPS_VK_NODEINFO,  /* nodeV/meminfo: "Node P" lines as "Node V" */
	CPS_VK_CPUINFO,   /* /proc/cpuinfo */
	CPS_VK_STAT,      /* /proc/stat */
	CPS_VK_STATUS,    /* /proc/<pid>/status */
	CPS_VK_STATUS_TASK, /* /proc/<pid>/task/<tid>/status: a thread's */
	CPS_VK_PIDSTAT,   /* /proc/<pid>/stat and the task form: field 39 */
	CPS_VK_NUMA_MAPS, /* /proc/<pid>/numa_maps and the task form */
	CPS_VK_CGROUP_CPUS, /* a cpuset cgroup's CPU list file */
	CPS_VK_CGROUP_MEMS, /* a cpuset cgroup's node list file */
	CPS_VK_COUNT
};

/* How a view reaches the caller (a row's delivery; bits, so that the
 * kinds' table can tell two rows of one kind that disagree). */
enum cps_vdelivery {
	CPS_VD_PHYSICAL = 1, /* the physical file, opened by the caller's flags */
	CPS_VD_KEPT = 2,     /* made once for the set, kept and shared */
	CPS_VD_POOL = 4,     /* made at each open from a file that changes */
	CPS_VD_MADE = 8,     /* made at each open, kept by its contents (few differ) */
};

/* What a kind is made of. */

#endif
