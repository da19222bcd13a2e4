/* SPDX-License-Identifier: BSD-3-Clause */
/* What the supervisor's files share: the supervisor's state, the caller
 * of a notification (supervise/caller.c), the answers
 * (supervise/answer.c) and the files mode (supervise/files.c). The calls
 * go one way: tree.c -> answer.c -> files.c -> caller.c. */
#ifndef CPS_SUPERVISE_SV_H
#define CPS_SUPERVISE_SV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/mask.h"
#include "src/sets.h"
#include "supervise/supervise.h"

struct seccomp_notif;
struct seccomp_notif_resp;

struct sv {
	struct cps_ctx *c;
	uint32_t set;     /* the set the tree was launched in (fallback) */
	enum sv_mode mode;
	int listener;
	pid_t self;       /* the supervisor: every process of the tree descends from it */
	pid_t keeper;     /* its child, outside the tree */
	pid_t warden;     /* the keeper's child, the program's parent, outside */
	pid_t prog;       /* the program's first process */
	size_t nw;        /* mask words of the table */
};

/* ---- caller.c ---- */

/* The set a caller sees: the placement of the caller's process (its
 * table record, else the set the tree was launched in), the CPUs
 * narrowed to those the supervisor itself may run on (its kernel mask:
 * the tree's confinement). 0, or a negative errno. tgid: the caller's
 * process, found when *tgid is 0. */
int sv_caller_set(struct sv *s, pid_t tid, pid_t *tgid, struct cps_placement *pl);

/* True if process tgid belongs to the supervised tree (descends from the
 * supervisor other than through the keeper or the warden). */
bool sv_in_tree(struct sv *s, pid_t tgid);

/* Read len bytes at addr of tid's memory: 0 or a negative errno. */
int sv_peek(pid_t tid, uint64_t addr, void *buf, size_t len);
/* Write them: 0 or a negative errno. */
int sv_poke(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* A NUL-terminated string at addr (at most len-1 bytes, read page by
 * page so that a string ending before an unmapped page is read): 0 or a
 * negative errno (-ENAMETOOLONG when it does not end within len). */
int sv_peek_str(pid_t tid, uint64_t addr, char *buf, size_t len);
/* The notification id still valid (its thread waits for our answer). */
bool sv_id_valid(struct sv *s, uint64_t id);
/* A notification's call number, without the ABI's bits (x32's) */
unsigned sv_call_nr(const struct seccomp_notif *q);
/* nr is openat, or open where the architecture has it */
bool sv_is_open(unsigned nr);

/* ---- files.c ---- */

/* Answer an open/openat: 1 answered (resp filled or descriptor sent),
 * 0 continue (the kernel opens the real file). */
int sv_files_open(struct sv *s, const struct seccomp_notif *req, struct seccomp_notif_resp *resp);

/* ---- answer.c ---- */

/* Take one notification from s->listener and answer it: 0, or the
 * -errno of the wait for it (-ENOENT: the caller was interrupted, or,
 * with synchronous wake-ups, nobody is left under the filter). */
int sv_answer(struct sv *s);

#endif
