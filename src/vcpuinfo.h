/* SPDX-License-Identifier: BSD-3-Clause */
/* /proc/cpuinfo as the set's machine prints it: the set's blocks
 * (cps_view_cpuinfo in src/views.h), then the topology counts of that
 * machine. Pure, as src/views.h. */
#ifndef CPS_VCPUINFO_H
#define CPS_VCPUINFO_H

#include <stddef.h>

#include "src/views.h"

/* A cpuinfo text whose blocks are the whole machine: each block's
 * "siblings" becomes the number of blocks of its package ("physical id")
 * and "cpu cores" the number of distinct "core id"s among them, as the
 * kernel counts them. Everything else, "core id" and "apicid" included
 * (hardware ids, kept as sysfs keeps them), is copied. Blocks without a
 * "physical id" (architectures that print none) are copied as they are.
 * On the kernel's own full file this is the identity. */
int cps_view_cpuinfo_shape(struct cps_buf *out, const char *in, size_t len);

/* The set's cpuinfo: cps_view_cpuinfo, then cps_view_cpuinfo_shape. */
int cps_view_cpuinfo_set(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s);

#endif
