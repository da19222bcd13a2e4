/* cpuset-run's supervisor: a program the preload cannot reach (a static
 * ELF, a Go binary) runs with a seccomp filter that hands its affinity
 * calls, and in files mode its opens, to cpuset-run, which answers them
 * from the set as the shim would (DESIGN.md, "The supervisor"). */
#ifndef CPS_TOOLS_SUPERVISE_H
#define CPS_TOOLS_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/sets.h"

enum sv_mode { SV_AUTO = -1, SV_OFF = 0, SV_CALLS = 1, SV_FILES = 2 };

/* Why a program needs the supervisor: NULL if the preload reaches it
 * (a dynamic ELF that is not Go, a script whose interpreter is one),
 * else a short reason ("static ELF", "Go binary"). prog is found as
 * execvp would find it; a program that cannot be read is NULL (the exec
 * says why). */
const char *sv_prog_kind(const char *prog);

/* True inside a supervised tree (the environment says so and the kernel
 * shows a seccomp filter): the kernel takes one listening filter per
 * process, and the outer supervisor answers by each caller's own set. */
bool sv_under_supervisor(void);

/* Run argv under a supervisor in mode (SV_CALLS or SV_FILES), the
 * program in set of table c: returns the exit status cpuset-run exits
 * with (the program's; 128+signal is re-raised by the caller through
 * *sig). Never returns for an exec in place: the program is a child. */
int sv_run(struct cps_ctx *c, uint32_t set, enum sv_mode mode, char **argv, int *sig);

/* The physical marker (src/rawsys.h): a size argument carrying it in its
 * upper 32 bits is in physical CPUs. */
#define SV_MARKED(arg) (((uint64_t)(arg) >> 32) == (uint64_t)CPS_PHYS_MARK)

/* ---- supervise_files.c ---- */
struct sv;
struct seccomp_notif;
struct seccomp_notif_resp;
/* Answer an open/openat: 1 answered (resp filled or descriptor sent),
 * 0 continue (the kernel opens the real file). */
int sv_files_open(struct sv *s, const struct seccomp_notif *req, struct seccomp_notif_resp *resp);

#endif
