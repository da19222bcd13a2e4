/* SPDX-License-Identifier: BSD-3-Clause */
/* What the SPANK plugin's files share: slurm/cpusetshim.c (its options,
 * the hooks Slurm calls, a task's set and what it runs under) and
 * slurm/user_table.c (the user's table on the node: made, swept, a step's
 * sets destroyed, removed when unused). Hidden: Slurm looks up only the
 * hooks. */
#ifndef CPS_SLURM_PLUGIN_H
#define CPS_SLURM_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "src/sets.h"

#define TAG "cpusetshim: "

/* A step's facts and the names of its table and sets. */
struct step {
	uint32_t job, step, task;
	uid_t uid;
	char table[80];
	char parent[48]; /* slurm.<job>.<step> */
	char tname[48];  /* slurm.<job>.<step>.<task> */
};

/* What the library said of a failure r, else strerror's words. */
static inline const char *plugin_why(const struct cps_ctx *c, int r)
{
	return c->why ? c->why : strerror(-r);
}

#pragma GCC visibility push(hidden)
/* Open the user's table, making it when missing, with the node's online
 * CPUs as its root (whoever's affinity makes it). In slurmstepd as root
 * (the clean-up hooks), the user's table is accepted by naming its owner,
 * as the tools' --table-owner does; the variable is slurmstepd's own and
 * never reaches the task, whose environment Slurm builds apart. */
int plugin_table_open(struct cps_ctx *c, const char *name, uid_t owner, bool make);

/* The sets of the plugin that nothing uses, but those of job keep (its
 * steps are being set up): what crashed steps left. The dead members are
 * swept first, which destroys the task sets they emptied. */
void plugin_sweep_stale(struct cps_ctx *c, uint32_t keep_job);

/* Whether the table of that name is still the one the task was attached
 * to (set id): a step that ended removes a table holding nothing but the
 * root (plugin_table_remove_unused), and a task that had it open already
 * would otherwise be in a table nobody finds. */
bool plugin_table_still_ours(const struct step *s, uint32_t id);

/* Destroys the step's sets: every task's, then the parent. Returns how
 * many are left (busy). */
int plugin_step_destroy(struct cps_ctx *c, const struct step *s, bool last);

/* The user's table goes when it holds no set but the root and no member:
 * no step of the user runs on the node any more (each step's set lives as
 * long as the step). Checked and unlinked under the writers' lock, so no
 * set is made meanwhile; a task that had the table open then finds it
 * gone after its attach and starts again in a new one (task_init). The
 * next job makes the table again. */
void plugin_table_remove_unused(struct cps_ctx *c);
#pragma GCC visibility pop

#endif
