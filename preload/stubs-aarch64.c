/* SPDX-License-Identifier: BSD-3-Clause */
/* The aarch64 frameless entry points (preload/stubs.h), as
 * preload/stubs-x86_64.c's: syscall(2) and the open family jump straight
 * to libc's with the caller's registers and stack as they were, unless
 * the call may be one the shim translates; then they branch to the C slow
 * paths (preload/syscall.c, preload/open.c).
 *
 * AAPCS64: a variadic argument is passed as a named one would be (x0..x7,
 * then the stack), so libc's syscall and open find the caller's six
 * arguments, or mode, where the caller put them. The stubs write only x9,
 * x10 and x16 (scratch; x16 is the intra-procedure-call register that a
 * linker's veneer may take too), never x18 (the platform's) nor the stack,
 * and take no frame: lr is the caller's return address. With branch
 * protection on (-mbranch-protection=bti or standard: the compiler then
 * marks this file's object BTI in its GNU property note), each entry
 * starts with "bti c", which both a call (blr) and a PLT's "br x17"
 * land on; they sign no return address, since they never return. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/syscall.h>

#include "preload/shim.h"
#include "preload/stubs.h"
#include "src/vfiles.h"

#if defined(__aarch64__) && !defined(__ILP32__)
#define SHIM_STR_(x) #x
#define SHIM_STR(x) SHIM_STR_(x)
#ifdef __ARM_FEATURE_BTI_DEFAULT
#define SHIM_BTI "bti c\n"
#else
#define SHIM_BTI ""
#endif

/* The numbers the stub takes in runs, each tested as one range */
_Static_assert(SYS_sched_getaffinity == SYS_sched_setaffinity + 1, "the affinity pair");
_Static_assert(SYS_fchdir == SYS_chdir + 1, "the working-directory pair");
_Static_assert(SYS_get_mempolicy == SYS_mbind + 1 && SYS_set_mempolicy == SYS_mbind + 2 &&
		       SYS_migrate_pages == SYS_mbind + 3 && SYS_move_pages == SYS_mbind + 4,
	       "the memory-policy run");
#ifdef SYS_set_mempolicy_home_node
_Static_assert(SYS_set_mempolicy_home_node == 450, "set_mempolicy_home_node");
#endif

/* The pass-through of syscall(2) with no frame at all, as x86-64's: every
 * number but the three we translate, io_uring_setup, the memory-policy
 * ones and the two that move the working directory branches to libc's
 * syscall with the caller's registers as they were (x0 the number, x1-x6
 * its arguments). The rest, and the case where libc's is not resolved
 * yet, go to shim_syscall_slow (preload/syscall.c), also untouched. On
 * aarch64 the numbers come in three runs and three singles: fifteen
 * instructions of tests for any number, then four to load libc's and
 * jump. */
__asm__(".text\n"
	".globl syscall\n"
	".type syscall, %function\n"
	".p2align 6\n"
	"syscall:\n" SHIM_BTI
	"sub x16, x0, #" SHIM_STR(SYS_sched_setaffinity) "\n" /* and getaffinity */
	"cmp x16, #1\n"
	"b.ls 1f\n"
	"sub x16, x0, #" SHIM_STR(SYS_chdir) "\n" /* and fchdir */
	"cmp x16, #1\n"
	"b.ls 1f\n"
	/* mbind, get_ and set_mempolicy, migrate_pages, move_pages */
	"sub x16, x0, #" SHIM_STR(SYS_mbind) "\n"
	"cmp x16, #4\n"
	"b.ls 1f\n"
	"cmp x0, #" SHIM_STR(SYS_getcpu) "\n"
	"b.eq 1f\n"
	"cmp x0, #" SHIM_STR(SYS_io_uring_setup) "\n"
	"b.eq 1f\n"
	"cmp x0, #450\n" /* SYS_set_mempolicy_home_node */
	"b.eq 1f\n"
	"adrp x16, shim_syscall_next\n"
	"ldr x16, [x16, #:lo12:shim_syscall_next]\n"
	"cbz x16, 1f\n"
	"br x16\n"
	"1:\n"
	"b shim_syscall_slow\n"
	".size syscall, .-syscall\n");

/* The pass-through of the open calls with no frame at all, as x86-64's:
 * an absolute path whose second byte is none of 'p', 's', '/', '.' can be
 * no view (cps_vpath_root2, src/vfiles.h; the stubs compare its two
 * macros), so the call branches to libc's (shim_open_hot.next[], filled
 * by preload/real.c) with the caller's registers as they were, mode
 * included when there is one. A relative path (to the working directory:
 * open, or openat with AT_FDCWD) passes too when the working directory is
 * known to be far from /proc and /sys (shim_open_hot.cwd_state,
 * preload/path.c) and the path holds no "..". Everything else (NULL,
 * /proc and /sys, libc's not resolved yet) goes to the C wrappers of
 * preload/open.c, also untouched. pathreg is the register of the path
 * (x0 for open, x1 for openat); each stub starts a 64-byte line, which an
 * absolute path's pass fills (16 instructions, one more with "bti c"),
 * with the way out to the C wrapper ("1:") right after it. */
#define OPEN_STUB(name, pathreg, dirfd_test, slot, slow)                               \
	__asm__(".text\n"                                                             \
		".globl " name "\n"                                                   \
		".type " name ", %function\n"                                         \
		".p2align 6\n" name ":\n" SHIM_BTI                                      \
		"cbz " pathreg ", 1f\n"                                               \
		"ldrb w10, [" pathreg "]\n"                                           \
		"cmp w10, #0x2f\n"                /* '/' */                           \
		"b.ne 3f\n"                                                           \
		"ldrb w10, [" pathreg ", #1]\n"                                       \
		"cmp w10, #" SHIM_STR(CPS_VPATH_ROOT2_A) "\n"                         \
		"b.eq 1f\n"                                                           \
		"cmp w10, #" SHIM_STR(CPS_VPATH_ROOT2_B) "\n"                         \
		"b.eq 1f\n"                                                           \
		"sub w10, w10, #0x2e\n"           /* '.' or '/' */                    \
		"cmp w10, #1\n"                                                       \
		"b.ls 1f\n"                                                           \
		"2:\n"                                                                \
		"adrp x16, shim_open_hot+" slot "\n"                                  \
		"ldr x16, [x16, #:lo12:shim_open_hot+" slot "]\n"                     \
		"cbz x16, 1f\n"                                                       \
		"br x16\n"                                                            \
		"1:\n"                                                                \
		"b " slow "\n"                                                        \
		"3:\n" dirfd_test                                                     \
		"adrp x16, shim_open_hot+" SHIM_STR(SHIM_OPEN_HOT_CWD) "\n"           \
		"ldr w10, [x16, #:lo12:shim_open_hot+" SHIM_STR(SHIM_OPEN_HOT_CWD) "]\n" \
		"cmp w10, #" SHIM_STR(SHIM_CWD_FAR) "\n"                              \
		"b.ne 1b\n"                                                           \
		"mov x9, " pathreg "\n"                                               \
		"4:\n"                                                                \
		"ldrb w10, [x9], #1\n"                                                \
		"cbz w10, 2b\n"                                                       \
		"cmp w10, #0x2e\n"                /* '.' */                           \
		"b.ne 4b\n"                                                           \
		"ldrb w10, [x9]\n"                                                    \
		"cmp w10, #0x2e\n"                /* ".." */                          \
		"b.ne 4b\n"                                                           \
		"b 1b\n"                                                              \
		".size " name ", .-" name "\n")
/* openat's relative path to a directory fd (w0, an int: its upper half is
 * not the caller's to fill): one name with no '/' or '.' whose first two
 * bytes begin no view's name (cps_path_second, src/path.c:
 * cps_path_rel_quick_pass in C) passes too. The path is in x1. The table
 * has a word for every first byte (none from 0x80 on); the shift takes the
 * second byte modulo 64, as x86-64's bt. */
#define AT_FDCWD_TEST                                                                 \
	"cmn w0, #100\n"                  /* AT_FDCWD */                              \
	"b.eq 6f\n"                                                                   \
	"mov x9, x1\n"                                                                \
	"5:\n"                                                                        \
	"ldrb w10, [x9], #1\n"                                                        \
	"cmp w10, #0x2f\n"                /* '/' */                                   \
	"b.eq 1b\n"                                                                   \
	"cmp w10, #0x2e\n"                /* '.' */                                   \
	"b.eq 1b\n"                                                                   \
	"cbnz w10, 5b\n"                                                              \
	"ldrb w10, [x1]\n"                                                            \
	"adrp x9, cps_path_second\n"                                                  \
	"add x9, x9, #:lo12:cps_path_second\n"                                        \
	"ldr x9, [x9, x10, lsl #3]\n"                                                 \
	"cbz x9, 2b\n"                                                                \
	"ldrb w10, [x1, #1]\n"                                                        \
	"lsr x9, x9, x10\n"               /* the bit of the second byte, mod 64 */    \
	"tbnz x9, #0, 1b\n"                                                           \
	"b 2b\n"                                                                      \
	"6:\n"
OPEN_STUB("open", "x0", "", "0", "shim_open_slow");
OPEN_STUB("open64", "x0", "", "8", "shim_open64_slow");
OPEN_STUB("openat", "x1", AT_FDCWD_TEST, "16", "shim_openat_slow");
OPEN_STUB("openat64", "x1", AT_FDCWD_TEST, "24", "shim_openat64_slow");
#endif
