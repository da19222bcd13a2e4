/* SPDX-License-Identifier: BSD-3-Clause */
/* x86_64 (amd64): its audit architecture and system call numbers (base/arch.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <linux/audit.h>

#include "base/arch.h"

#if defined(__x86_64__) && !defined(__ILP32__)
#define HOST true
#include <sys/syscall.h>
CPS_ARCH_SAME(sched_getaffinity, 204);
CPS_ARCH_SAME(sched_setaffinity, 203);
CPS_ARCH_SAME(getcpu, 309);
CPS_ARCH_SAME(io_uring_setup, 425);
CPS_ARCH_SAME(openat, 257);
CPS_ARCH_SAME(open, 2);
CPS_ARCH_SAME(openat2, 437);
#else
#define HOST false
#endif

const struct cps_arch cps_arch_x86_64 = {
	.name = "x86_64 (amd64)",
	.audit = AUDIT_ARCH_X86_64,
	.nr_mask = 0x40000000u,
	.nr = { .sched_getaffinity = 204, .sched_setaffinity = 203, .getcpu = 309,
		.io_uring_setup = 425, .openat = 257, .open = 2, .openat2 = 437 },
	.compat_audit = AUDIT_ARCH_I386,
	.compat = { .sched_getaffinity = 242, .sched_setaffinity = 241, .getcpu = 318,
		    .io_uring_setup = CPS_NO_CALL, .openat = CPS_NO_CALL, .open = CPS_NO_CALL,
		    .openat2 = CPS_NO_CALL },
	.host = HOST,
};
