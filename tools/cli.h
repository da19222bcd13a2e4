/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared helpers of the command-line tools: messages, exit codes, option
 * values, JSON strings. */
#ifndef CPS_TOOLS_CLI_H
#define CPS_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "src/sets.h"

/* Exit codes shared by cpuset and cpuset-inspect. */
enum {
	CLI_OK = 0,
	CLI_REFUSED = 1, /* the set rules said no */
	CLI_USAGE = 2,   /* bad command line or input */
	CLI_TABLE = 3,   /* the table cannot be used (missing, foreign, corrupt) */
	CLI_UNMOVED = 4, /* done in the table, but the kernel refused to move processes */
};

extern const char *cli_prog;
void cli_init(const char *argv0);
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: what: reason (ENAME)"; returns the exit code for err. */
int cli_refused(int err, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *cli_errname(int err);
/* Open a table; on failure prints why and returns CLI_TABLE (or CLI_USAGE).
 * Only how CPS_OPEN_CREATE makes a missing table. */
int cli_open(struct cps_ctx *c, const char *table, int how);
/* The same, but a table that does not exist (under a valid name) returns
 * -ENOENT without a word: the caller says what that means for it. */
int cli_open_existing(struct cps_ctx *c, const char *table, int how);
/* --table-owner USER: root's confirmation of the owner of a table named
 * by --table or $CPUSETSHIM_TABLE (sets $CPUSETSHIM_TABLE_OWNER). */
int cli_table_owner(const char *user);
/* A user's uid by name (NSS: not in a static cpuset-run, where only
 * numbers are taken); -1 if there is no such user. */
int cli_uid_of(const char *name, uid_t *uid);
/* Parse a CPU list for the table; prints a pointed error; CLI_USAGE. */
int cli_cpus(const char *s, uint64_t *m, size_t nw);
/* A node list, the same way ("bad node list"); a --mems argument: "auto"
 * or a node list into how->nodes; how a set holds its nodes, in words
 * ("parent", "list", "auto"). */
int cli_nodes(const char *s, uint64_t *m, size_t nw);
int cli_mems(const char *s, struct cps_mems *how, size_t nw);
const char *cli_mems_from(unsigned how);
/* Numbers: decimal digits only ("010" is ten), at most max; -1 if not. */
int cli_uint(const char *s, unsigned long max, unsigned long *out);
/* Octal digits only (modes). */
int cli_octal(const char *s, unsigned long max, unsigned long *out);
/* A process id: decimal, 1 or more; -1 if not. */
int cli_pid(const char *s, pid_t *out);
/* A new set's name (NULL: none): CLI_OK, or CLI_USAGE, said. */
int cli_set_name(const char *name);
/* Resolve an id or a name; prints and returns an exit code on failure. */
int cli_set(struct cps_ctx *c, const char *what, uint32_t *id);
/* A JSON string of s, valid whatever its bytes: '"', '\\' and control
 * characters (C0, DEL, C1) escaped, UTF-8 as it is, each byte that is not
 * UTF-8 as \ufffd. */
void cli_json_str(FILE *f, const char *s);
/* s (at most n bytes) for a terminal, as ps and ls -b do: printable UTF-8
 * as it is; every byte of a control character (C0, DEL, C1) and every
 * byte that is not UTF-8 as \ooo (three octal digits), a backslash as
 * \\. Into out (len bytes, cut before an escape that does not fit);
 * returns its length. cli_name: a set or process name (at most
 * SHM_NAME_MAX bytes) so, in one of four static buffers used in turn. */
size_t cli_escape(char *out, size_t len, const char *s, size_t n);
const char *cli_name(const char *s);
char *cli_cpulist(const uint64_t *m, size_t nw); /* static buffer */
const char *cli_flags(unsigned flags);              /* "strict,autoclean" or "-" */
const char *cli_user(uid_t uid);                    /* static buffer */

/* The caller's own numbers: inside a set (its own set is not the root),
 * CPU k is the k-th CPU of its set (node k its k-th node); cli_physical (--physical) keeps the
 * machine's. cli_own_set learns the caller's set (returns its id when
 * inside one, else 0, or a negative errno when the look-up fails, with
 * c->why); then cli_cpus_own parses a list in the caller's
 * numbers into physical ones (CLI_REFUSED, said, for a CPU beyond its
 * set or, outside any set, beyond the machine: a refusal, like a CPU
 * the set rules refuse; a location such as package:0 is resolved by
 * tools/where.c), and cli_cpulist_own shows physical CPUs in them, those outside
 * its set added as "+machine:LIST" (static buffer). */
extern bool cli_physical;
int cli_own_set(struct cps_ctx *c);
int cli_cpus_own(const char *s, uint64_t *m, size_t nw);
/* A --mems argument in the caller's numbers: "auto", or a node list
 * where, inside a set, node k is the k-th node of its set (CLI_REFUSED,
 * said, for a node beyond them, as cli_cpus_own for a CPU), into physical
 * nodes in how->nodes; outside any set or with --physical the machine's. */
int cli_mems_own(const char *s, struct cps_mems *how, size_t nw);
char *cli_cpulist_own(const uint64_t *m, size_t nw);
/* Physical nodes in the caller's numbers, as cli_cpulist_own for CPUs
 * (its own static buffer). */
char *cli_nodelist_own(const uint64_t *m, size_t nw);
bool cli_own_inside(void);
uint32_t cli_own_set_id(void); /* the caller's set when inside one, else 0 */
/* Its set's CPUs and nodes (the machine's numbers) when inside one. */
const uint64_t *cli_own_cpus(size_t *nw);
const uint64_t *cli_own_mems(size_t *nw);

#endif
