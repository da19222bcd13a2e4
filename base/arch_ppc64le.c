/* SPDX-License-Identifier: BSD-3-Clause */
/* ppc64le (ppc64el): its audit architecture and system call numbers (base/arch.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <linux/audit.h>

#include "base/arch.h"

#if defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define HOST true
#include <sys/syscall.h>
CPS_ARCH_SAME(sched_getaffinity, 223);
CPS_ARCH_SAME(sched_setaffinity, 222);
CPS_ARCH_SAME(getcpu, 302);
CPS_ARCH_SAME(io_uring_setup, 425);
CPS_ARCH_SAME(openat, 286);
CPS_ARCH_SAME(open, 5);
CPS_ARCH_SAME(openat2, 437);
#else
#define HOST false
#endif

const struct cps_arch cps_arch_ppc64le = {
	.name = "ppc64le (ppc64el)",
	.audit = AUDIT_ARCH_PPC64LE,
	.nr_mask = 0,
	.nr = { .sched_getaffinity = 223, .sched_setaffinity = 222, .getcpu = 302,
		.io_uring_setup = 425, .openat = 286, .open = 5, .openat2 = 437 },
	.compat_audit = 0,
	.compat = { .sched_getaffinity = CPS_NO_CALL, .sched_setaffinity = CPS_NO_CALL, .getcpu = CPS_NO_CALL,
		    .io_uring_setup = CPS_NO_CALL, .openat = CPS_NO_CALL, .open = CPS_NO_CALL,
		    .openat2 = CPS_NO_CALL },
	.host = HOST,
};
