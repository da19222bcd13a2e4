/* SPDX-License-Identifier: BSD-3-Clause */
/* A view's kind, its delivery, and the one switch from kind to bytes.
 *
 * Every row of the list of virtual files (src/vfiles.h) carries its kind:
 * the transform that makes the view's bytes (or none: the physical file
 * itself), for /proc and /sys alike; and its delivery: how a front end
 * hands the view to a caller (src/vkind.h). cps_vmake is the switch the
 * shim (its open, its rewind, the /sys families, the test root's files)
 * and the supervisor (supervise/files.c) make every view's bytes through:
 * the caller reads the real file (and what else the kind needs, below),
 * cps_vmake makes the view of it.
 *
 * Pure: no system calls. Returns 0 or a negative errno. The switch is
 * inline (a call less on the shim's open); src/vmake.c holds the kinds'
 * deliveries.
 */
#ifndef CPS_VMAKE_H
#define CPS_VMAKE_H

#include <stdbool.h>
#include <stddef.h>

#include <errno.h>

#include "src/vcgroup.h"
#include "src/vkind.h"
#include "src/vsys.h"
#include "src/vcpuinfo.h"
#include "src/vproc_pidstat.h"
#include "src/views.h"

struct cps_vmake_in {
	const char *real; /* the real file's bytes, when cps_vmake_reads */
	size_t len;
	/* the set; its nodes (s->k > 0) where the kind takes them: the node
	 * kinds, a status's Mems lines, numa_maps, a cgroup's node list */
	const struct cps_view_input *s;
	/* CPS_VK_HAS_CPU: node k's cpumap (NULL: unknown, the node dropped) */
	const char *const *maps;
	const size_t *lens;
	unsigned nmaps;
	/* CPS_VK_DISTANCE: the online node list whose order the row follows */
	const char *online;
	size_t olen;
};

/* Whether kind is made from its real file (else from the set alone). */
static inline bool cps_vmake_reads(int kind)
{
	return kind >= CPS_VK_MASK && kind < CPS_VK_COUNT && kind != CPS_VK_RANGE &&
	       kind != CPS_VK_POSSIBLE && kind != CPS_VK_KERNEL_MAX;
}


/* The delivery of kind, as its rows say (0: none has it); room for
 * CPS_VK_ROOM kinds, so that a new kind is a line of src/vkind.h alone. */
#define CPS_VK_ROOM 32
extern const unsigned char cps_vkind_delivery[CPS_VK_ROOM];

/* ---- the switch, inline: a caller that knows its kind gets the
 * transform's call alone, and the shim's open no call more ---- */

/* A status: its CPU lines, then its node lines from them (with nodes). */
static inline int cps_vmake_status(const struct cps_vmake_in *in, struct cps_buf *out)
{
	const struct cps_view_input *s = in->s;
	size_t start = out->len;
	int r = cps_view_status(out, in->real, in->len, s);
	if (r || !s->k)
		return r;
	struct cps_buf t = { 0 };
	r = cps_view_status_mems(&t, out->p + start, out->len - start, s->mems, s->mnw, s->k);
	if (r == 0) {
		out->len = start;
		r = cps_buf_append(out, t.p, t.len);
	}
	cps_buf_free(&t);
	return r;
}

/* has_cpu by the node cpumaps; with nodes, in the set's node numbers. */
static inline int cps_vmake_has_cpu(const struct cps_vmake_in *in, struct cps_buf *out)
{
	const struct cps_view_input *s = in->s;
	if (!s->k)
		return cps_view_has_cpu(out, in->real, in->len, in->maps, in->lens, in->nmaps, s);
	struct cps_buf t = { 0 };
	int r = cps_view_has_cpu(&t, in->real, in->len, in->maps, in->lens, in->nmaps, s);
	if (!r)
		r = cps_view_nodelist(out, t.p, t.len, s);
	cps_buf_free(&t);
	return r;
}

/* The view of kind into out. -EINVAL: a kind that is no content view. */
static inline int cps_vmake(int kind, const struct cps_vmake_in *in, struct cps_buf *out)
{
	const struct cps_view_input *s = in->s;
	const char *real = in->real;
	size_t len = in->len;

	switch (kind) {
	case CPS_VK_MASK:
	case CPS_VK_LIST:
	case CPS_VK_SPACELIST:
	case CPS_VK_OFFLINE:
	case CPS_VK_ONLINE: return cps_view_cpumask_file(out, kind, real, len, s);
	case CPS_VK_RANGE: return cps_view_cpurange(out, s);
	case CPS_VK_POSSIBLE: return cps_view_possible(out, s);
	case CPS_VK_KERNEL_MAX: return cps_view_kernel_max(out, s);
	case CPS_VK_HAS_CPU: return cps_vmake_has_cpu(in, out);
	case CPS_VK_NODELIST: return cps_view_nodelist(out, real, len, s);
	case CPS_VK_NODEINFO: return cps_view_node_info(out, real, len, s);
	case CPS_VK_DISTANCE:
		return cps_view_node_distance(out, real, len, in->online, in->olen, s);
	case CPS_VK_CPUINFO: return cps_view_cpuinfo_set(out, real, len, s);
	case CPS_VK_STAT: return cps_view_stat(out, real, len, s);
	case CPS_VK_STATUS:
	case CPS_VK_STATUS_TASK: return cps_vmake_status(in, out);
	case CPS_VK_PIDSTAT: return cps_view_pidstat(out, real, len, s);
	case CPS_VK_NUMA_MAPS: return cps_view_numa_maps(out, real, len, s);
	case CPS_VK_CGROUP_CPUS: return cps_view_cgroup_cpus(out, real, len, s);
	case CPS_VK_CGROUP_MEMS: return cps_view_cgroup_mems(out, real, len, s);
	default: return -EINVAL;
	}
}


#endif
