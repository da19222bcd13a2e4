/* SPDX-License-Identifier: BSD-3-Clause */
/* The x86-64 frameless entry points (preload/stubs.h): syscall(2) and the
 * open family jump straight to libc's with the caller's registers and
 * stack as they were, unless the call may be one the shim translates;
 * then they jump to the C slow paths (preload/syscall.c, preload/open.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/syscall.h>

#include "preload/shim.h"
#include "preload/stubs.h"
#include "src/vfiles.h"

#if defined(__x86_64__)
#define SHIM_STR_(x) #x
#define SHIM_STR(x) SHIM_STR_(x)
#ifdef __CET__
#define SHIM_ENDBR "endbr64\n"
#else
#define SHIM_ENDBR ""
#endif

/* The pass-through of syscall(2) with no frame at all: every number but
 * the three we translate, io_uring_setup, the memory-policy ones and the
 * two that move the working directory jumps to libc's syscall with the caller's
 * registers and stack as they were (libc takes its seventh argument from
 * the stack). The rest, and the case where libc's is not resolved yet, go
 * to shim_syscall_slow (preload/syscall.c), also with everything as the
 * caller left it. */
__asm__(".text\n"
	".globl syscall\n"
	".type syscall, @function\n"
	".p2align 4\n"
	"syscall:\n" SHIM_ENDBR
	"cmpq $" SHIM_STR(SYS_sched_getaffinity) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_sched_setaffinity) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_getcpu) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_chdir) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_fchdir) ", %rdi\n"
	"je 1f\n"
	/* the memory-policy numbers: mbind, set_ and get_mempolicy in a
	 * row, migrate_pages, move_pages, set_mempolicy_home_node */
	"leaq -" SHIM_STR(SYS_mbind) "(%rdi), %r11\n"
	"cmpq $2, %r11\n"
	"jbe 1f\n"
	"cmpq $" SHIM_STR(SYS_migrate_pages) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_move_pages) ", %rdi\n"
	"je 1f\n"
	"cmpq $450, %rdi\n" /* SYS_set_mempolicy_home_node */
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_io_uring_setup) ", %rdi\n"
	"je 1f\n"
	"movq shim_syscall_next(%rip), %r11\n"
	"testq %r11, %r11\n"
	"je 1f\n"
	"jmp *%r11\n"
	"1:\n"
	"jmp shim_syscall_slow\n"
	".size syscall, .-syscall\n");

/* The pass-through of the open calls with no frame at all: an absolute
 * path whose second byte is none of 'p', 's', '/', '.' can be no view
 * (cps_vpath_root2, src/vfiles.h: the second bytes of the roots of the
 * list of virtual files, which tests/check_vsys.c checks against the
 * table; the stubs compare its two macros), so the call jumps to libc's with the
 * caller's registers and stack as they were, mode included when there is
 * one. Everything else (relative paths, NULL, /proc and /sys, libc's not
 * resolved yet) goes to the C wrappers of preload/open.c, also untouched.
 * libc's are shim_open_hot.next[] (preload/real.c fills them).
 *
 * A relative path (to the working directory: open, or openat with
 * AT_FDCWD) passes too when the working directory is known to be far from
 * /proc and /sys (shim_open_hot.cwd_state, preload/path.c) and the path holds no
 * "..": the bytes are scanned with the scratch registers r10 and r11, the
 * caller's left as they were. dirfd is the register of openat's first
 * argument, or none for open.
 *
 * Laid out for the cache: each stub starts a 64-byte line and an absolute
 * path's whole pass (up to the jump to libc) lies in that line, with the
 * way out to the C wrapper ("1:") right after it, so that every branch is
 * short. After a system call the kernel has taken the caches and the
 * predictors for itself, and what a pass costs here goes by the lines it
 * touches more than by its instructions (measured: five more compares in
 * a second line cost about 10 ns, a pass in one line about as much as a
 * bare jump). */
#define OPEN_STUB(name, pathreg, dirfd_test, slot, slow)                               \
	__asm__(".text\n"                                                             \
		".globl " name "\n"                                                   \
		".type " name ", @function\n"                                         \
		".p2align 6\n" name ":\n" SHIM_ENDBR                                    \
		"testq " pathreg ", " pathreg "\n"                                    \
		"je 1f\n"                                                             \
		"cmpb $0x2f, (" pathreg ")\n"     /* '/' */                           \
		"jne 3f\n"                                                            \
		"movzbl 1(" pathreg "), %r11d\n"                                      \
		"cmpl $" SHIM_STR(CPS_VPATH_ROOT2_A) ", %r11d\n"                     \
		"je 1f\n"                                                             \
		"cmpl $" SHIM_STR(CPS_VPATH_ROOT2_B) ", %r11d\n"                     \
		"je 1f\n"                                                             \
		"cmpl $0x2f, %r11d\n"             /* '/' */                           \
		"je 1f\n"                                                             \
		"cmpl $0x2e, %r11d\n"             /* '.' */                           \
		"je 1f\n"                                                             \
		"2:\n"                                                                \
		"movq shim_open_hot+" slot "(%rip), %r11\n"                          \
		"testq %r11, %r11\n"                                                  \
		"je 1f\n"                                                             \
		"jmp *%r11\n"                                                         \
		"1:\n"                                                                \
		"jmp " slow "\n"                                                      \
		"3:\n" dirfd_test                                                     \
		"cmpl $" SHIM_STR(SHIM_CWD_FAR) ", shim_open_hot+" SHIM_STR(SHIM_OPEN_HOT_CWD) "(%rip)\n"            \
		"jne 1b\n"                                                            \
		"movq " pathreg ", %r10\n"                                            \
		"4:\n"                                                                \
		"movzbl (%r10), %r11d\n"                                              \
		"testl %r11d, %r11d\n"                                                \
		"je 2b\n"                                                             \
		"incq %r10\n"                                                         \
		"cmpl $0x2e, %r11d\n"             /* '.' */                           \
		"jne 4b\n"                                                            \
		"cmpb $0x2e, (%r10)\n"            /* ".." */                          \
		"jne 4b\n"                                                            \
		"jmp 1b\n"                                                            \
		".size " name ", .-" name "\n")
/* openat's relative path to a directory fd: one name with no '/' or '.'
 * whose first two bytes begin no view's name (cps_path_second, src/path.c:
 * cps_path_rel_quick_pass in C) passes too. The path is in %rsi. The
 * table has a word for every first byte (none from 0x80 on); bt takes the
 * second byte modulo 64. With the head this fits two lines of the cache. */
#define AT_FDCWD_TEST                                                                 \
	"cmpl $-100, %edi\n"                                                          \
	"je 6f\n"                                                                     \
	"movq %rsi, %r10\n"                                                           \
	"5:\n"                                                                        \
	"movzbl (%r10), %r11d\n"                                                      \
	"incq %r10\n"                                                                 \
	"cmpl $0x2f, %r11d\n"             /* '/' */                                   \
	"je 1b\n"                                                                     \
	"cmpl $0x2e, %r11d\n"             /* '.' */                                   \
	"je 1b\n"                                                                     \
	"testl %r11d, %r11d\n"                                                        \
	"jne 5b\n"                                                                    \
	"movzbl (%rsi), %r11d\n"                                                      \
	"leaq cps_path_second(%rip), %r10\n"                                          \
	"movq (%r10,%r11,8), %r10\n"                                                  \
	"testq %r10, %r10\n"                                                          \
	"je 2b\n"                                                                     \
	"movzbl 1(%rsi), %r11d\n"                                                     \
	"btq %r11, %r10\n"              /* the bit of the second byte, mod 64 */      \
	"jc 1b\n"                                                                     \
	"jmp 2b\n"                                                                    \
	"6:\n"
OPEN_STUB("open", "%rdi", "", "0", "shim_open_slow");
OPEN_STUB("open64", "%rdi", "", "8", "shim_open64_slow");
OPEN_STUB("openat", "%rsi", AT_FDCWD_TEST, "16", "shim_openat_slow");
OPEN_STUB("openat64", "%rsi", AT_FDCWD_TEST, "24", "shim_openat64_slow");
#endif
