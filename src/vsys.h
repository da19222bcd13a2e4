/* SPDX-License-Identifier: BSD-3-Clause */
/* Views of the machine's description in /sys: the CPU directory
 * (src/vsys_cpu.c: /sys/devices/system/cpu, /sys/bus/cpu/devices) and the
 * NUMA nodes (src/vsys_node.c: /sys/devices/system/node).
 *
 * The set is a machine of n CPUs: virtual CPU v is the set's v-th CPU
 * (ascending), cpuV/... is physical cpu<p(v)>/..., every CPU list or mask
 * is the set's part of the real one in virtual numbers, printed as the
 * kernel prints it on a machine with n possible CPUs. Hardware ids
 * (core_id, physical_package_id, die_id, cluster_id, cache id) are kept, as
 * hwloc's own restriction keeps them.
 *
 * Pure functions, as src/views.h: paths in, paths out, text in, text out;
 * never a system call. Returns as there: 0 or a negative errno.
 */
#ifndef CPS_VSYS_H
#define CPS_VSYS_H

#include <stddef.h>
#include <stdint.h>

#include "src/vkind.h"
#include "src/views.h"


/* Which view canon (canonical, see src/vpath.h; a CPS_VF_CPUDIR or
 * CPS_VF_NODE path) is: its row's kind in the list of virtual files
 * (src/vfiles.h); and the physical path it is made from, written to
 * phys (len bytes) for every kind but NONE and ABSENT. The physical path
 * is canon with its virtual cpuV component replaced by cpu<p(v)>, and,
 * when the set has nodes, nodeV by node<p(V)>.
 * Returns the kind, or -ENAMETOOLONG when phys is too small. */
int cps_vsys_resolve(const char *canon, const struct cps_view_input *s, char *phys, size_t len);
struct cps_vfile;
struct cps_vmatch;
/* The same for canon's row already found (cps_vfile_lookup, the one for
 * the set's nodes) and where its numbers are (m). */
int cps_vsys_phys(const struct cps_vfile *row, const struct cps_vmatch *m, const char *canon,
		  const struct cps_view_input *s, char *phys, size_t len);

/* A directory entry of a CPS_VK_DIR directory: 0 keep name as it is,
 * 1 show it as out (a virtual "cpuV", never longer than name), -1 drop it
 * (a CPU outside the set). out has room for name's length + 1. */
int cps_vsys_dirent(const char *name, const struct cps_view_input *s, char *out);

/* The view of a CPS_VK_MASK, _LIST or _SPACELIST file: the real text
 * (physical CPUs, len bytes, not NUL-terminated) clipped to the set and
 * renumbered, in the same format; masks n bits wide as the kernel prints
 * them ("%*pb": 32-bit groups, the first only as wide as its bits). */
int cps_view_cpumask_file(struct cps_buf *out, int kind, const char *real, size_t len,
			  const struct cps_view_input *s);

/* kernel_max: "n-1\n". */
int cps_view_kernel_max(struct cps_buf *out, const struct cps_view_input *s);

/* A mask as the kernel prints a cpumask on a machine of nbits possible
 * CPUs, plus "\n". */
int cps_buf_put_kmask(struct cps_buf *out, const uint64_t *m, size_t nw, unsigned nbits);
/* The same without the newline (status's Cpus_allowed). */
int cps_buf_put_kmask_bits(struct cps_buf *out, const uint64_t *m, size_t nw, unsigned nbits);

/* has_cpu: of the nodes the real has_cpu lists (real, len), those whose
 * cpumap (maps[k], lens[k], for node k < nnodes; NULL when unknown: such a
 * node is dropped) holds a CPU of the set; as a list, "\n"-terminated. */
int cps_view_has_cpu(struct cps_buf *out, const char *real, size_t len, const char *const *maps,
		     const size_t *lens, unsigned nnodes, const struct cps_view_input *s);

/* "cpu<digits>" at s followed by '/' or the end: 1 and *num, else 0. */
int cps_vsys_cpu_name(const char *s, unsigned *num, const char **end);

/* With the set's nodes (s->k > 0): a node list file (physical nodes,
 * "0-3,8\n") as the set's virtual nodes, "\n"-terminated. */
int cps_view_nodelist(struct cps_buf *out, const char *real, size_t len,
		      const struct cps_view_input *s);
/* A node's distance row (real, len: one number per online node, in the
 * order of the node list online, olen bytes) restricted to the set's
 * nodes, in virtual order. */
int cps_view_node_distance(struct cps_buf *out, const char *real, size_t len, const char *online,
			   size_t olen, const struct cps_view_input *s);
/* meminfo-type files: a line "Node P ..." reads "Node V ..." (V the
 * virtual number of P: k + P outside the set); the rest as it is. */
int cps_view_node_info(struct cps_buf *out, const char *real, size_t len,
		       const struct cps_view_input *s);
/* "node<digits>" at name followed by '/' or the end: 1 and *num, else 0. */
int cps_vsys_node_name(const char *name, unsigned *num, const char **end);

#endif
