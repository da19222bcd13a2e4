/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine's memory nodes as the set rules need them: which nodes
 * hold memory (the root set's nodes), and which nodes hold given CPUs
 * (a set's "auto" nodes). Read with raw system calls (the shim makes
 * views of these files). Functions return 0 or a negative errno. */
#ifndef CPS_NODES_H
#define CPS_NODES_H

#include <stddef.h>
#include <stdint.h>

/* The nodes with memory: /sys/devices/system/node/has_memory, else its
 * online nodes, else node 0 alone (a kernel without NUMA has one node,
 * 0, holding all memory and every CPU). nw words. */
int cps_machine_mems(uint64_t *m, size_t nw);

/* The nodes holding at least one of cpus (each node's cpulist). A machine
 * without node directories: node 0 when cpus is not empty. */
int cps_cpu_nodes(const uint64_t *cpus, uint64_t *nodes, size_t nw);

/* Test seam (the unit tests): nnodes nodes, node k holding the CPUs at
 * node_cpus + k * nw, memory the nodes with memory; nnodes 0: the
 * machine's again. */
void cps_nodes_fake(unsigned nnodes, const uint64_t *node_cpus, const uint64_t *memory, size_t nw);

#endif
