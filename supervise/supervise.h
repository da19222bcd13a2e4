/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor of cpuset-run and of the Slurm plugin: a program the
 * preload cannot reach (a static ELF, a Go binary) runs with a seccomp
 * filter that hands its affinity calls, and in files mode its opens, to
 * the supervisor, which answers them from the set as the shim would
 * (doc/supervisor.md). Linked by cpuset-run and the plugin
 * alone (libcps_supervise), never by the shim or libcpusetctl. */
#ifndef CPS_SUPERVISE_SUPERVISE_H
#define CPS_SUPERVISE_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/sets.h"

enum sv_mode { SV_AUTO = -1, SV_OFF = 0, SV_CALLS = 1, SV_FILES = 2 };

/* Why a program needs the supervisor: NULL if the preload reaches it
 * (a dynamic ELF that is not Go, a script whose interpreter is one),
 * else a short reason ("static ELF", "Go binary"). prog is found as
 * execvp would find it in search (a PATH; NULL: $PATH); a program that
 * cannot be read is NULL (the exec says why). */
const char *sv_prog_kind(const char *prog, const char *search);

/* Whether prog (found as sv_prog_kind finds it) is a container runtime or
 * a chroot-like launcher, which runs programs from an image where the
 * host's shim may be missing: SV_CONTAINER_RUNTIME, or
 * SV_CONTAINER_CLIENT for a client that may hand the container to a
 * daemon (docker, nerdctl), else NULL. sv_prog_kind gives the same
 * reason for it: its whole tree is supervised. */
#define SV_CONTAINER_RUNTIME "container runtime"
#define SV_CONTAINER_CLIENT "container client"
const char *sv_launcher(const char *prog, const char *search);
/* sv_prog_kind for a prog sv_launcher said NULL of (its kind by its
 * contents alone): a launcher that asked that already (cpuset-run) does
 * not find and resolve the program a second time. */
const char *sv_prog_sniff(const char *prog, const char *search);

/* Where the supervisor's messages go (NULL: stderr, after the program's
 * name): one line each, without its newline. */
void sv_set_say(void (*fn)(const char *msg));

/* True inside a supervised tree (the environment says so and the kernel
 * shows a seccomp filter): the kernel takes one listening filter per
 * process, and the outer supervisor answers by each caller's own set. */
bool sv_under_supervisor(void);
/* The same of another process, by its starting environment (root, or its
 * user). */
bool sv_supervised(pid_t pid);

/* Run argv under a supervisor in mode (SV_CALLS or SV_FILES), the
 * program in set of table c: returns the exit status cpuset-run exits
 * with (the program's; 128+signal is re-raised by the caller through
 * *sig). Never returns for an exec in place: the program is a child. */
int sv_run(struct cps_ctx *c, uint32_t set, enum sv_mode mode, char **argv, int *sig);

/* The same for a program its caller execs itself (the Slurm task, whose
 * exec is Slurm's): 0 in the program's process, filtered, ready for the
 * exec; 1 in the caller, the supervisor, once the tree has ended, with
 * *status and *sig as sv_run gives them (sv_exit_as then ends the
 * caller as the program ended); a negative errno when the supervisor
 * could not be started (said). name: the program, for messages. */
int sv_start(struct cps_ctx *c, uint32_t set, enum sv_mode mode, const char *name, int *status,
	     int *sig);

/* Exit with status, or die of sig when it is not 0 (no core file).
 * Never returns. */
__attribute__((noreturn)) void sv_exit_as(int status, int sig);

/* The physical marker (src/rawsys.h): a size argument carrying it in its
 * upper 32 bits is in physical CPUs. */
#define SV_MARKED(arg) (((uint64_t)(arg) >> 32) == (uint64_t)CPS_PHYS_MARK)

#endif
