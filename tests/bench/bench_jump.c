/* SPDX-License-Identifier: BSD-3-Clause */
/* A reference preload library: the pass-through calls the shim is in the
 * way of (the open family, fopen, stat, access, lseek, pread) and
 * sched_setaffinity, each
 * interposed by the least any interposer can be on x86-64: one jump to the
 * next definition, no frame, no test. Timed in one process against libc's
 * own function (bench_calls --ab), it shows the floor of interposing such
 * a call on this machine, beside the shim's figure. Elsewhere it
 * interposes nothing (run.sh then says so). */
#define _GNU_SOURCE
#include <dlfcn.h>

#if defined(__x86_64__)
#define CALLS(X)                                                                               \
	X(open) X(open64) X(openat) X(openat64) X(fopen) X(fopen64) X(stat) X(stat64) X(access) \
	X(lseek) X(lseek64) X(pread) X(pread64) X(sched_setaffinity)

#define NEXT(name) __attribute__((visibility("hidden"))) void *next_##name;
CALLS(NEXT)

#define STUB(name)                                                                 \
	__asm__(".text\n"                                                             \
		".globl " #name "\n"                                                  \
		".type " #name ", @function\n"                                        \
		".p2align 6\n" #name ":\n"                                            \
		"jmp *next_" #name "(%rip)\n"                                         \
		".size " #name ", .-" #name "\n");
CALLS(STUB)

#define RESOLVE(name) next_##name = dlsym(RTLD_NEXT, #name);
__attribute__((constructor)) static void resolve(void)
{
	CALLS(RESOLVE)
}
#endif
