/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ — cpuset-oci-hook's translation of the container's own cpuset
 * (linux.resources.cpu.cpus and .mems): a list of the virtual CPUs or
 * memory nodes of the set it is launched in made the machine's. No
 * system call: tests/check_oci.c runs it on made-up sets. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "tools/oci_hook.h"

int oh_translate(const char *list, const uint64_t *frame, size_t nw, uint64_t *phys,
		 struct cps_parse_error *pe)
{
	uint64_t virt[CPS_MAX_WORDS] = { 0 };
	if (nw > CPS_MAX_WORDS)
		nw = CPS_MAX_WORDS;
	memset(phys, 0, nw * 8);
	if (cps_cpulist_parse(list, virt, nw, pe) < 0)
		return -EINVAL;
	/* no wrap: a cpuset is a hard list, virtual v the frame's v-th */
	if (cps_mask_last(virt, nw) >= (int)cps_mask_count(frame, nw))
		return -ERANGE;
	cps_virt_to_phys(phys, frame, nw, virt, nw, false);
	return 0;
}
