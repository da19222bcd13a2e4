/* SPDX-License-Identifier: BSD-3-Clause */
/* What cpuset-oci-hook's files share: the container, the CPUs it is
 * given, and the mounts that give them to it (tools/oci_mount.c). */
#ifndef CPS_TOOLS_OCI_HOOK_H
#define CPS_TOOLS_OCI_HOOK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/mask.h"

/* The fixed paths inside the container. */
#define OH_SHIM_DIR "dev/cpusetshim"
#define OH_SHIM_IN "/dev/cpusetshim/libcpusetshim.so"
#define OH_PRELOAD "etc/ld.so.preload"

/* Exit codes (cpuset-oci-hook(8)); the runtime stops the container on
 * any but 0. */
enum {
	OH_OK = 0,      /* made a set, or nothing to do (in no set) */
	OH_REFUSED = 1, /* the image or the host is not what it may be */
	OH_USAGE = 2,   /* bad options or state */
	OH_TABLE = 3,   /* the table cannot be used */
};

struct oh_container {
	pid_t pid;                /* its first process, the runtime's number */
	char bundle[PATH_MAX];
	char root[PATH_MAX];      /* its root file system, absolute */
	unsigned long uid;        /* process.user.uid */
	uint32_t set;             /* the host's set it is in, 0 for its cgroup's */
	size_t nw;                /* words of cpus and mems */
	uint64_t cpus[CPS_MAX_WORDS];
	uint64_t mems[CPS_MAX_WORDS];
	bool mems_given;          /* mems from its set; else the machine's */
	unsigned mask_bits;
	bool config_read;         /* root, uid, cpuset and memlist below read */
	char cpuset[4096];        /* linux.resources.cpu.cpus, "" if none */
	char memlist[4096];       /* linux.resources.cpu.mems, "" if none */
};

struct cps_parse_error;

/* Make the container a set: a private table of its CPUs, the shim and
 * the preload list, bind-mounted read-only at the fixed paths (an
 * OH_ exit code, said). */
int oh_mount(const struct oh_container *c, const char *shim);

/* How oh_cpuset acts: says what it would do; writes the cgroup and every
 * thread's affinity; under cpuset-run's supervisor, the cgroup only. */
enum oh_cpuset_mode { OH_CPUSET_DRY, OH_CPUSET_APPLY, OH_CPUSET_SUPERVISED };

/* The container's own cpuset (c->cpuset, virtual CPUs of frame, the CPUs
 * of the set it is launched in; c->memlist, virtual nodes of nodes, the
 * set's memory nodes, unless nodes is NULL) made physical in its cpuset
 * cgroup and its threads' affinity (tools/oci_cpuset.c): 1 done, c->cpus
 * and c->mems the physical CPUs and nodes it names; 0 it asks for none;
 * an OH_ exit code as a negative number, said (CPUs or nodes the set
 * does not have: OH_REFUSED, nothing written). */
int oh_cpuset(struct oh_container *c, const uint64_t *frame, const uint64_t *nodes,
	      enum oh_cpuset_mode mode);

/* A list (linux.resources.cpu.cpus or .mems) of virtual members of frame
 * (a set's CPUs or memory nodes, nw words: virtual v is its v-th, no
 * wrap) made physical in phys (tools/oci_translate.c): 0; -EINVAL not a
 * list (pe says why); -ERANGE it names a member frame does not have. */
int oh_translate(const char *list, const uint64_t *frame, size_t nw, uint64_t *phys,
		 struct cps_parse_error *pe);

#endif
