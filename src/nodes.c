/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine's memory nodes (src/nodes.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/nodes.h"
#include "src/rawsys.h"

#define NODE_DIR "/sys/devices/system/node/"
#define FAKE_NODES 64

static unsigned fake_n;
static uint64_t fake_cpus[FAKE_NODES][CPS_MAX_WORDS], fake_mem[CPS_MAX_WORDS];

void cps_nodes_fake(unsigned nnodes, const uint64_t *node_cpus, const uint64_t *memory, size_t nw)
{
	if (nnodes > FAKE_NODES)
		nnodes = FAKE_NODES;
	if (nw > CPS_MAX_WORDS)
		nw = CPS_MAX_WORDS;
	fake_n = 0;
	memset(fake_cpus, 0, sizeof(fake_cpus));
	cps_mask_zero(fake_mem, CPS_MAX_WORDS);
	for (unsigned k = 0; k < nnodes; k++)
		cps_mask_copy(fake_cpus[k], node_cpus + (size_t)k * nw, nw);
	if (memory)
		cps_mask_copy(fake_mem, memory, nw);
	fake_n = nnodes;
}

int cps_machine_mems(uint64_t *m, size_t nw)
{
	cps_mask_zero(m, nw);
	if (fake_n) {
		cps_mask_copy(m, fake_mem, nw);
		return 0;
	}
	if (cps_list_file(NODE_DIR "has_memory", m, nw) == 0 && !cps_mask_empty(m, nw))
		return 0;
	if (cps_list_file(NODE_DIR "online", m, nw) == 0 && !cps_mask_empty(m, nw))
		return 0;
	cps_mask_zero(m, nw);
	cps_mask_set(m, nw, 0);
	return 0;
}

int cps_cpu_nodes(const uint64_t *cpus, uint64_t *nodes, size_t nw)
{
	uint64_t have[CPS_MAX_WORDS], nc[CPS_MAX_WORDS];
	if (nw > CPS_MAX_WORDS)
		return -EINVAL;
	cps_mask_zero(nodes, nw);
	if (fake_n) {
		for (unsigned k = 0; k < fake_n && k < nw * 64; k++)
			if (cps_mask_intersects(fake_cpus[k], cpus, nw))
				cps_mask_set(nodes, nw, (unsigned)k);
		return 0;
	}
	if (cps_list_file(NODE_DIR "online", have, nw) < 0 || cps_mask_empty(have, nw)) {
		if (!cps_mask_empty(cpus, nw))
			cps_mask_set(nodes, nw, 0);
		return 0;
	}
	for (size_t k = 0; k < nw * 64; k++) {
		if (!cps_mask_test(have, nw, (unsigned)k))
			continue;
		char path[96], *p = path;
		memcpy(p, NODE_DIR "node", sizeof(NODE_DIR "node") - 1);
		p += sizeof(NODE_DIR "node") - 1;
		p += cps_fmt_dec(p, k);
		memcpy(p, "/cpulist", sizeof("/cpulist"));
		if (cps_list_file(path, nc, nw) == 0 && cps_mask_intersects(nc, cpus, nw))
			cps_mask_set(nodes, nw, (unsigned)k);
	}
	return 0;
}
