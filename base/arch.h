/* SPDX-License-Identifier: BSD-3-Clause */
/* The one interface that knows architectures (but for the shim's frameless
 * entry points, preload/stubs.h, which are instructions): for each, its
 * name, its audit architecture (what seccomp's filter and a table's header
 * name it by), the numbers of the system calls the supervisor answers, and the
 * 32-bit ABI its kernel may also run (whose affinity calls the filter
 * fails closed). One file per architecture, base/arch_<cpu>.c; a port adds
 * its file and its name in base/arch.c's list (CONTRIBUTING.md). Pure: the
 * data and look-ups only, no system call. */
#ifndef CPS_BASE_ARCH_H
#define CPS_BASE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPS_NO_CALL (-1) /* the architecture has no such system call */

/* The system calls the supervisor names, by their numbers on one ABI. */
struct cps_arch_calls {
	int sched_getaffinity, sched_setaffinity, getcpu, io_uring_setup;
	int openat, open, openat2;
};

struct cps_arch {
	const char *name;       /* the kernel's (uname -m), with Debian's */
	uint32_t audit;         /* AUDIT_ARCH_* */
	uint32_t nr_mask;       /* bits of a call's number ignored (x32's) */
	struct cps_arch_calls nr;
	uint32_t compat_audit;  /* a 32-bit ABI the kernel may run, or 0 */
	struct cps_arch_calls compat; /* its affinity calls (the rest unused) */
	bool host;              /* the architecture this file was built for */
};

/* Every architecture known, NULL-terminated. */
extern const struct cps_arch *const cps_arches[];
/* The architecture built for, or NULL (a port without its file). */
const struct cps_arch *cps_arch_host(void);
/* The architecture of an audit value, or NULL. */
const struct cps_arch *cps_arch_by_audit(uint32_t audit);

/* In an architecture's own file: the host's libc agrees with its numbers
 * (CALL's number is N). */
#define CPS_ARCH_SAME(call, n) _Static_assert(SYS_##call == (n), "SYS_" #call " is not " #n)

#endif
