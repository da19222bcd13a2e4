/* SPDX-License-Identifier: BSD-3-Clause */
/* riscv64: its audit architecture and system call numbers (base/arch.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <linux/audit.h>

#include "base/arch.h"

#if defined(__riscv) && __riscv_xlen == 64
#define HOST true
#include <sys/syscall.h>
CPS_ARCH_SAME(sched_getaffinity, 123);
CPS_ARCH_SAME(sched_setaffinity, 122);
CPS_ARCH_SAME(getcpu, 168);
CPS_ARCH_SAME(io_uring_setup, 425);
CPS_ARCH_SAME(openat, 56);
#ifdef SYS_open
#error "riscv64 has no open system call"
#endif
CPS_ARCH_SAME(openat2, 437);
#else
#define HOST false
#endif

const struct cps_arch cps_arch_riscv64 = {
	.name = "riscv64",
	.audit = AUDIT_ARCH_RISCV64,
	.nr_mask = 0,
	.nr = { .sched_getaffinity = 123, .sched_setaffinity = 122, .getcpu = 168,
		.io_uring_setup = 425, .openat = 56, .open = CPS_NO_CALL, .openat2 = 437 },
	.compat_audit = AUDIT_ARCH_RISCV32,
	.compat = { .sched_getaffinity = 123, .sched_setaffinity = 122, .getcpu = 168,
		    .io_uring_setup = CPS_NO_CALL, .openat = CPS_NO_CALL, .open = CPS_NO_CALL,
		    .openat2 = CPS_NO_CALL },
	.host = HOST,
};
