/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual memory nodes (src/vnodes.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "src/mask.h"
#include "src/vnodes.h"

long cps_vnode_phys(const uint64_t *mems, size_t nw, unsigned n, long v)
{
	if (v < 0 || (unsigned long)v >= n)
		return -1;
	return cps_mask_nth(mems, nw, (unsigned)v);
}

long cps_pnode_virt(const uint64_t *mems, size_t nw, unsigned n, long p)
{
	if (p < 0)
		return p;
	if ((unsigned long)p < nw * 64 && cps_mask_test(mems, nw, (unsigned)p))
		return (long)cps_mask_rank(mems, nw, (unsigned)p);
	return (long)n + p;
}

unsigned cps_vnodes_in(uint64_t *phys, const uint64_t *mems, size_t nw, unsigned n,
		       const unsigned long *vmask, unsigned long maxnode, bool relative,
		       bool *dropped)
{
	unsigned count = 0;
	*dropped = false;
	cps_mask_zero(phys, nw);
	size_t words = cps_vnodes_words(maxnode);
	for (size_t w = 0; w < words; w++) {
		unsigned long bits = vmask[w];
		if (w + 1 == words && (maxnode - 1) % CPS_ULONG_BITS)
			bits &= (1ul << ((maxnode - 1) % CPS_ULONG_BITS)) - 1;
		while (bits) {
			unsigned b = (unsigned)__builtin_ctzl(bits);
			bits &= bits - 1;
			unsigned long v = w * CPS_ULONG_BITS + b;
			if (relative && n)
				v %= n;
			long p = v < n ? cps_vnode_phys(mems, nw, n, (long)v) : -1;
			if (p < 0) {
				*dropped = true;
				continue;
			}
			if (!cps_mask_test(phys, nw, (unsigned)p)) {
				cps_mask_set(phys, nw, (unsigned)p);
				count++;
			}
		}
	}
	return count;
}

void cps_vnodes_out(unsigned long *vmask, unsigned long maxnode, const uint64_t *mems, size_t nw,
		    const uint64_t *phys)
{
	size_t words = cps_vnodes_words(maxnode);
	unsigned long bitsmax = maxnode < 2 ? 0 : maxnode - 1;
	for (size_t w = 0; w < words; w++)
		vmask[w] = 0;
	unsigned v = 0;
	for (int p = cps_mask_next(mems, nw, -1); p >= 0; p = cps_mask_next(mems, nw, p), v++)
		if (cps_mask_test(phys, nw, (unsigned)p) && v < bitsmax)
			vmask[v / CPS_ULONG_BITS] |= 1ul << (v % CPS_ULONG_BITS);
}
