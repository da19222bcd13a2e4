/* SPDX-License-Identifier: BSD-3-Clause */
/* What cpuset's files share (tools/cpuset.c, tools/cpuset-init.c,
 * tools/cpuset-show.c). */
#ifndef CPS_TOOLS_CPUSET_H
#define CPS_TOOLS_CPUSET_H

#include <stdbool.h>

/* A usage error: the message (fmt with arg) and a pointer to --help on
 * stderr; returns CLI_USAGE. */
int bad_usage(const char *fmt, const char *arg);

/* cpuset init with its arguments (argv[0] is "init"), on table (NULL: the
 * default). An exit code. */
int cmd_init(const char *table, int argc, char **argv);

struct cps_ctx;
/* Whether --json was given. */
bool cpuset_json(void);
/* cpuset cgroup [on|off|show]: the table's cgroup mirror. An exit code. */
int cmd_cgroup(struct cps_ctx *c, int argc, char **argv);
/* tools/cpuset-show.c: cpuset list, show [--topology] SET and which
 * [PID] with their arguments (argv[0] is the command). An exit code. */
int cmd_list(struct cps_ctx *c, int argc, char **argv);
int cmd_show(struct cps_ctx *c, int argc, char **argv);
int cmd_which(struct cps_ctx *c, int argc, char **argv);

#endif
