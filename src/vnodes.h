/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual memory nodes (pure): virtual node v is the v-th node, from 0,
 * of a set's nodes (mems, nw words, n of them), as virtual CPU v is the
 * v-th CPU of its CPUs. Node masks of the memory-policy system calls are
 * arrays of unsigned long of which the kernel reads maxnode - 1 bits. */
#ifndef CPS_VNODES_H
#define CPS_VNODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPS_ULONG_BITS (8 * sizeof(unsigned long))

/* The physical node of virtual node v, or -1 when the set has no such node. */
long cps_vnode_phys(const uint64_t *mems, size_t nw, unsigned n, long v);
/* The virtual number of physical node p: its rank in mems; a node outside
 * the set (memory placed before the set had its nodes, or by a raw call)
 * reads as n + p, never a node of the set; negative p is kept. */
long cps_pnode_virt(const uint64_t *mems, size_t nw, unsigned n, long p);
/* A caller's virtual node mask (maxnode - 1 bits of vmask; none when
 * maxnode < 2) as physical nodes in phys (nw words): virtual nodes the set
 * does not have are left out (*dropped then true); relative folds v onto
 * v mod n (MPOL_F_RELATIVE_NODES). Returns how many physical nodes. */
unsigned cps_vnodes_in(uint64_t *phys, const uint64_t *mems, size_t nw, unsigned n,
		       const unsigned long *vmask, unsigned long maxnode, bool relative,
		       bool *dropped);
/* Physical nodes (nw words) as the caller's virtual mask: the
 * cps_vnodes_words(maxnode) words of vmask written, nodes outside the set
 * left out. */
void cps_vnodes_out(unsigned long *vmask, unsigned long maxnode, const uint64_t *mems, size_t nw,
		    const uint64_t *phys);
/* Words of a mask of maxnode - 1 bits. */
static inline size_t cps_vnodes_words(unsigned long maxnode)
{
	return maxnode < 2 ? 0 : (size_t)((maxnode - 1 + CPS_ULONG_BITS - 1) / CPS_ULONG_BITS);
}

#endif
