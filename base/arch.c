/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of architectures (base/arch.h): one line per port. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/arch.h"

extern const struct cps_arch cps_arch_x86_64, cps_arch_aarch64, cps_arch_ppc64le,
	cps_arch_s390x, cps_arch_riscv64;

const struct cps_arch *const cps_arches[] = {
	&cps_arch_x86_64, &cps_arch_aarch64, &cps_arch_ppc64le, &cps_arch_s390x,
	&cps_arch_riscv64, NULL,
};

const struct cps_arch *cps_arch_host(void)
{
	for (size_t i = 0; cps_arches[i]; i++)
		if (cps_arches[i]->host)
			return cps_arches[i];
	return NULL;
}

const struct cps_arch *cps_arch_by_audit(uint32_t audit)
{
	for (size_t i = 0; cps_arches[i]; i++)
		if (cps_arches[i]->audit == audit)
			return cps_arches[i];
	return NULL;
}
