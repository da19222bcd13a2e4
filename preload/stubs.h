/* SPDX-License-Identifier: BSD-3-Clause */
/* The frameless entry points: the shim's one interface that knows an
 * architecture's instructions. A file per architecture,
 * preload/stubs-<cpu>.c (x86_64, aarch64), built everywhere and empty but
 * for its own (#if). Where it has code, it defines some or all of
 * syscall, open, open64, openat and openat64 as global functions of its
 * own: each decides in a few instructions, with no frame and only
 * scratch registers, whether the call may be one the shim acts on. If it
 * cannot be, it jumps to libc's function (shim_syscall_next,
 * shim_open_hot.next[], NULL until resolved) with the caller's registers
 * and stack as they were; if it may be, or libc's is not resolved yet,
 * to the C slow path below, also untouched. Every slow path is also that
 * name itself, a weak alias (SHIM_STUB_DEFAULT) that a stub's definition
 * overrides at link time: an architecture without a file, or a name its
 * file leaves out, has the C function as its entry point, and a port adds
 * a file and nothing else (its name in preload/Makemodule.am). */
#ifndef CPS_PRELOAD_STUBS_H
#define CPS_PRELOAD_STUBS_H

#pragma GCC visibility push(hidden)

/* The slow paths (preload/syscall.c, preload/open.c): the shim's whole C
 * wrappers, with libc's signatures. */
long shim_syscall_slow(long nr, ...);
int shim_open_slow(const char *path, int flags, ...);
int shim_open64_slow(const char *path, int flags, ...);
int shim_openat_slow(int dirfd, const char *path, int flags, ...);
int shim_openat64_slow(int dirfd, const char *path, int flags, ...);

/* libc's syscall, for the syscall stub; NULL until resolved. libc's open
 * family are shim_open_hot.next[] (preload/shim.h). */
extern long (*shim_syscall_next)(long, ...);

#pragma GCC visibility pop

/* NAME exported as SLOW, unless a stub defines NAME (a weak alias: in
 * SLOW's file, after SLOW) */
#define SHIM_STUB_DEFAULT(name, slow)                                                  \
	extern __typeof(name) name __attribute__((weak, alias(#slow), visibility("default")))

#endif
