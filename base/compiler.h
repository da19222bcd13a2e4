/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiler helpers shared by every layer (base/ is below shm/). */
#ifndef CPS_COMPILER_H
#define CPS_COMPILER_H

#define CPS_LIKELY(x) __builtin_expect(!!(x), 1)
#define CPS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CPS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* The one macro that makes a symbol part of the public ABI. */
#define CPS_PUBLIC __attribute__((visibility("default")))

static inline void cps_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
