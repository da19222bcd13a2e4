/* SPDX-License-Identifier: BSD-3-Clause */
/* The SPANK plugin's tables (slurm/plugin.h): each user's table on the
 * node, made by the first step with the node's online CPUs as its root;
 * what crashed steps of the user's earlier jobs left, swept; a step's
 * sets destroyed at its end, and the table removed when it holds nothing
 * but the root. The hooks that call these are slurm/cpusetshim.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "shm/table.h"
#include "slurm/plugin.h"
#include "src/cpulist.h"
#include "src/kept_views.h"
#include "src/mask.h"
#include "src/sets.h"

static int online_cpus(uint64_t *m, size_t nw)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f)
		return -errno;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return cps_cpulist_parse(buf, m, nw, NULL) < 0 ? -EINVAL : 0;
}

int plugin_table_open(struct cps_ctx *c, const char *name, uid_t owner, bool make)
{
	if (geteuid() == 0 && owner != 0) {
		/* set once per step (slurmstepd has threads: its environment is
		 * changed as little as can be) */
		char u[16];
		const char *cur = getenv("CPUSETSHIM_TABLE_OWNER");
		snprintf(u, sizeof(u), "%u", (unsigned)owner);
		if (!cur || strcmp(cur, u))
			setenv("CPUSETSHIM_TABLE_OWNER", u, 1);
	}
	int r = cps_open(c, name, CPS_OPEN_WRITE);
	if (r != -ENOENT || !make)
		return r;
	struct cps_init_opts o;
	uint64_t cpus[CPS_MAX_WORDS];
	cps_init_opts_default(&o);
	cps_mask_zero(cpus, CPS_MAX_WORDS);
	if (online_cpus(cpus, o.caps.mask_bits / 64) == 0)
		o.cpus = cpus;
	r = cps_init(c, name, &o);
	if (r == -EEXIST) /* another task made it first */
		r = cps_open(c, name, CPS_OPEN_WRITE);
	return r;
}

/* Names "slurm.<job>." of a set, or 0 when not the plugin's. */
static uint32_t job_of_name(const char *name)
{
	if (strncmp(name, "slurm.", 6))
		return 0;
	char *end;
	unsigned long j = strtoul(name + 6, &end, 10);
	return *end == '.' ? (uint32_t)j : 0;
}

void plugin_sweep_stale(struct cps_ctx *c, uint32_t keep_job)
{
	uint32_t *ids = NULL;
	int r = cps_sweep(c);
	if (r < 0) {
		slurm_error(TAG "table %s: cannot sweep: %s", c->t.name, plugin_why(c, r));
		return;
	}
	/* children before parents: repeat while something went */
	for (int round = 0; round < 4; round++) {
		free(ids);
		ids = NULL;
		long n = cps_set_ids(c, &ids);
		bool gone = false;
		for (long i = 0; i < n; i++) {
			struct cps_setinfo si;
			if (cps_set_get(c, ids[i], &si) < 0 || si.nmembers || si.nchildren)
				continue;
			uint32_t j = job_of_name(si.name);
			if (!j || j == keep_job)
				continue;
			if (cps_destroy(c, ids[i]) == 0) {
				slurm_verbose(TAG "swept set %s, left by an earlier job", si.name);
				gone = true;
			}
		}
		if (!gone)
			break;
	}
	free(ids);
}

bool plugin_table_still_ours(const struct step *s, uint32_t id)
{
	struct cps_ctx c;
	uint32_t now = 0;
	if (cps_open(&c, s->table, CPS_OPEN_READ) < 0)
		return false;
	bool ok = cps_which(&c, 0, &now) == 0 && now == id;
	cps_close(&c);
	return ok;
}

int plugin_step_destroy(struct cps_ctx *c, const struct step *s, bool last)
{
	uint32_t *ids = NULL, pid;
	size_t pl = strlen(s->parent);
	int left = 0;
	if (cps_find(c, s->parent, &pid) < 0)
		return 0;
	long n = cps_set_ids(c, &ids);
	for (long i = 0; i < n; i++) {
		struct cps_setinfo si;
		if (cps_set_get(c, ids[i], &si) < 0 || si.parent != pid ||
		    strncmp(si.name, s->parent, pl) || si.name[pl] != '.')
			continue;
		int r = cps_destroy(c, ids[i]);
		if (r < 0 && r != -EINVAL) {
			left++;
			if (last)
				slurm_error(TAG "set %s: %s; left for the sweep", si.name, plugin_why(c, r));
		}
	}
	free(ids);
	int r = cps_destroy(c, pid);
	if (r < 0 && r != -EINVAL) {
		left++;
		if (last)
			slurm_error(TAG "set %s: %s; left for the sweep", s->parent, plugin_why(c, r));
	}
	return left;
}

void plugin_table_remove_unused(struct cps_ctx *c)
{
	struct shm_table *t = &c->t;
	cps_sweep(c); /* the dead members out first (best effort) */
	if (shm_write_begin(t) < 0)
		return;
	bool unused = t->h->nsets <= 1 && t->h->nprocs == 0;
	if (!unused)
		slurm_debug(TAG "table %s kept: %u sets, %u members", t->name, t->h->nsets,
			    t->h->nprocs);
	if (unused && shm_table_unlink(t->name) == 0) {
		cps_kept_remove(t->name);
		slurm_verbose(TAG "table %s removed: the user's last job on the node has ended",
			      t->name);
	}
	shm_write_abort(t);
}
