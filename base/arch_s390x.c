/* SPDX-License-Identifier: BSD-3-Clause */
/* s390x: its audit architecture and system call numbers (base/arch.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <linux/audit.h>

#include "base/arch.h"

#if defined(__s390x__)
#define HOST true
#include <sys/syscall.h>
CPS_ARCH_SAME(sched_getaffinity, 240);
CPS_ARCH_SAME(sched_setaffinity, 239);
CPS_ARCH_SAME(getcpu, 311);
CPS_ARCH_SAME(io_uring_setup, 425);
CPS_ARCH_SAME(openat, 288);
CPS_ARCH_SAME(open, 5);
CPS_ARCH_SAME(openat2, 437);
#else
#define HOST false
#endif

const struct cps_arch cps_arch_s390x = {
	.name = "s390x",
	.audit = AUDIT_ARCH_S390X,
	.nr_mask = 0,
	.nr = { .sched_getaffinity = 240, .sched_setaffinity = 239, .getcpu = 311,
		.io_uring_setup = 425, .openat = 288, .open = 5, .openat2 = 437 },
	.compat_audit = AUDIT_ARCH_S390,
	.compat = { .sched_getaffinity = 240, .sched_setaffinity = 239, .getcpu = 311,
		    .io_uring_setup = CPS_NO_CALL, .openat = CPS_NO_CALL, .open = CPS_NO_CALL,
		    .openat2 = CPS_NO_CALL },
	.host = HOST,
};
