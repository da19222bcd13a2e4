/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset's read side (tools/cpuset.h): list, show (--topology too) and
 * which, as text or JSON, each set with its members that still run and
 * the records of those that ended. The commands that write are
 * tools/cpuset.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "tools/cpuset.h"
#include "tools/where.h"

/* The member records of every set, each with whether its process still
 * runs (the record's start time against the process's): a member that
 * ended is listed as such until the next write sweeps it. */
struct members_now {
	struct cps_member *m;
	bool *alive;
	long n;
};

static int members_now(struct cps_ctx *c, uint32_t set, struct members_now *mn)
{
	mn->m = NULL;
	mn->alive = NULL;
	mn->n = cps_members_alloc(c, set, &mn->m);
	if (mn->n < 0)
		return (int)mn->n;
	if (!(mn->alive = malloc(((size_t)mn->n + 1) * sizeof(bool)))) {
		free(mn->m);
		return -ENOMEM;
	}
	for (long i = 0; i < mn->n; i++)
		mn->alive[i] = cps_proc_alive(mn->m[i].pid, mn->m[i].start);
	return 0;
}

static void members_now_free(struct members_now *mn)
{
	free(mn->m);
	free(mn->alive);
}

/* Set id's members in mn that run (*dead: those that ended). */
static unsigned live_members(const struct members_now *mn, uint32_t id, unsigned *dead)
{
	unsigned live = 0;
	*dead = 0;
	for (long i = 0; i < mn->n; i++)
		if (mn->m[i].set == id)
			mn->alive[i] ? live++ : (*dead)++;
	return live;
}

static void print_set_json(struct cps_ctx *c, const struct cps_setinfo *s,
			   const struct members_now *mn)
{
	size_t mw = c->t.mask_words;
	printf("{\"id\":%u,\"parent\":%u,\"name\":", s->id, s->parent);
	cli_json_str(stdout, s->name);
	printf(",\"flags\":[%s%s%s],\"owner\":%u,\"cpus\":",
	       (s->flags & CPS_STRICT) ? "\"strict\"" : "",
	       (s->flags & CPS_FLAGS_ALL) == CPS_FLAGS_ALL ? "," : "",
	       (s->flags & CPS_AUTOCLEAN) ? "\"autoclean\"" : "", s->uid);
	cli_json_str(stdout, cli_cpulist_own(s->cpus, mw));
	if (cli_own_inside()) {
		printf(",\"physical_cpus\":");
		cli_json_str(stdout, cli_cpulist(s->cpus, mw));
	}
	printf(",\"ncpus\":%u,\"reserved\":", cps_mask_count(s->cpus, mw));
	cli_json_str(stdout, cli_cpulist_own(s->reserved, mw));
	printf(",\"strictly_reserved\":");
	cli_json_str(stdout, cli_cpulist_own(s->sreserved, mw));
	unsigned dead, live = live_members(mn, s->id, &dead);
	printf(",\"members\":%u,\"dead_members\":%u,\"children\":%u,\"mems\":", live, dead,
	       s->nchildren);
	cli_json_str(stdout, cli_nodelist_own(s->mems, mw));
	if (cli_own_inside()) {
		printf(",\"physical_mems\":");
		cli_json_str(stdout, cli_cpulist(s->mems, mw));
	}
	printf(",\"mems_from\":\"%s\",\"mems_reserved\":", cli_mems_from(s->mems_own));
	cli_json_str(stdout, cli_nodelist_own(s->mreserved, mw));
	printf(",\"mems_owned\":");
	cli_json_str(stdout, cli_nodelist_own(s->msreserved, mw));
	printf("}");
}

/* One row of list: MEMBERS counts those that run, and "+N dead" the
 * records of those that ended, till the next write sweeps them. */
static void list_row(struct cps_ctx *c, const struct cps_setinfo *s, const struct members_now *mn)
{
	char parent[16], members[32];
	unsigned dead, live = live_members(mn, s->id, &dead);
	snprintf(parent, sizeof(parent), s->parent ? "%u" : "-", s->parent);
	snprintf(members, sizeof(members), dead ? "%u+%u dead" : "%u", live, dead);
	printf("%-6u %-6s %-16s %-16s %-10s %7s %8u  %s\n", s->id, parent,
	       cli_name(s->name[0] ? s->name : "-"), cli_flags(s->flags), cli_user(s->uid), members,
	       s->nchildren, cli_cpulist_own(s->cpus, c->t.mask_words));
}

int cmd_list(struct cps_ctx *c, int argc, char **argv)
{
	if (argc != 1)
		return bad_usage("list: unexpected argument '%s'", argv[1]);
	uint32_t *ids = NULL;
	struct members_now mn;
	long n = cps_set_ids(c, &ids);
	int r = n < 0 ? (int)n : members_now(c, 0, &mn);
	if (r < 0) {
		free(ids);
		return r == -ENOMEM ? CLI_TABLE : cli_refused(r, NULL, "list");
	}
	if (cpuset_json())
		printf("[");
	else
		printf("%-6s %-6s %-16s %-16s %-10s %7s %8s  %s\n", "ID", "PARENT", "NAME", "FLAGS",
		       "OWNER", "MEMBERS", "CHILDREN", "CPUS");
	int first = 1;
	for (long i = 0; i < n; i++) {
		struct cps_setinfo s;
		if (cps_set_get(c, ids[i], &s) < 0)
			continue; /* destroyed meanwhile */
		if (cpuset_json()) {
			printf("%s", first ? "" : ",");
			print_set_json(c, &s, &mn);
		} else {
			list_row(c, &s, &mn);
		}
		first = 0;
	}
	if (cpuset_json())
		printf("]\n");
	members_now_free(&mn);
	free(ids);
	return CLI_OK;
}

static void show_text(struct cps_ctx *c, const struct cps_setinfo *s,
		      const struct members_now *mn)
{
	size_t mw = c->t.mask_words;
	unsigned dead, live = live_members(mn, s->id, &dead);
	printf("id:                 %u\n", s->id);
	printf("name:               %s\n", cli_name(s->name[0] ? s->name : "-"));
	printf(s->parent ? "parent:             %u\n" : "parent:             -\n", s->parent);
	printf("flags:              %s\n", cli_flags(s->flags));
	printf("owner:              %s\n", cli_user(s->uid));
	printf("cpus:               %s (%u)\n", cli_cpulist(s->cpus, mw), cps_mask_count(s->cpus, mw));
	printf("reserved:           %s\n", cli_cpulist(s->reserved, mw));
	printf("strictly reserved:  %s\n", cli_cpulist(s->sreserved, mw));
	printf("mems:               %s (%s)\n", cli_cpulist(s->mems, mw), cli_mems_from(s->mems_own));
	printf("reserved mems:      %s\n", cli_cpulist(s->mreserved, mw));
	printf("owned mems:         %s\n", cli_cpulist(s->msreserved, mw));
	printf("children:           %u\n", s->nchildren);
	printf(dead ? "members:            %u (and %u dead, till the next write sweeps them)\n"
		    : "members:            %u\n", live, dead);
	for (long i = 0; i < mn->n && i < (long)s->nmembers + 64; i++)
		printf("  pid %d (parent %d, uid %u)%s\n", mn->m[i].pid, mn->m[i].ppid,
		       (unsigned)mn->m[i].uid, mn->alive[i] ? "" : " [dead]");
}

/* A set's packages, cores, caches and nodes, as lstopo shows them to a
 * program inside it: the set's CPUs and nodes numbered from 0. */
static int show_topology(struct cps_ctx *c, const struct cps_setinfo *s)
{
	char where[64];
	snprintf(where, sizeof(where), "set %u", s->id);
	struct where_view *v = where_view_of(s->cpus, s->mems, c->t.mask_words, where);
	if (!v)
		return CLI_USAGE;
	where_print_tree(stdout, v);
	free(v);
	return CLI_OK;
}

int cmd_show(struct cps_ctx *c, int argc, char **argv)
{
	uint32_t id;
	struct cps_setinfo s;
	struct members_now mn;
	int r;
	bool topology = argc == 3 && !strcmp(argv[1], "--topology");
	if (topology) {
		argv++;
		argc--;
	}
	if (argc != 2)
		return bad_usage("show wants exactly one SET%s", "");
	if ((r = cli_set(c, argv[1], &id)))
		return r;
	if ((r = cps_set_get(c, id, &s)) < 0)
		return cli_refused(r, "no such set", "show %s", argv[1]);
	if (topology)
		return show_topology(c, &s);
	if ((r = members_now(c, id, &mn)) < 0)
		return r == -ENOMEM ? CLI_TABLE : cli_refused(r, NULL, "show %s", argv[1]);
	if (cpuset_json()) {
		printf("{\"set\":");
		print_set_json(c, &s, &mn);
		printf(",\"members\":[");
		for (long i = 0; i < mn.n; i++)
			printf("%s{\"pid\":%d,\"ppid\":%d,\"uid\":%u,\"alive\":%s}", i ? "," : "",
			       mn.m[i].pid, mn.m[i].ppid, (unsigned)mn.m[i].uid,
			       mn.alive[i] ? "true" : "false");
		printf("]}\n");
	} else {
		show_text(c, &s, &mn);
	}
	members_now_free(&mn);
	return CLI_OK;
}

int cmd_which(struct cps_ctx *c, int argc, char **argv)
{
	pid_t pid = 0;
	uint32_t id;
	struct cps_setinfo s;
	int r;
	if (argc > 2)
		return bad_usage("which wants at most one PID%s", "");
	if (argc == 2 && cli_pid(argv[1], &pid) < 0)
		return bad_usage("'%s' is not a process id (decimal, 1 or more)", argv[1]);
	if (pid == 0)
		pid = getpid(); /* by ancestry, the caller's set */
	if ((r = cps_which(c, pid, &id)) < 0)
		return cli_refused(r, r == -ESRCH ? "no such process" : NULL, "which %d", (int)pid);
	if ((r = cps_set_get(c, id, &s)) < 0)
		return cli_refused(r, NULL, "which %d", (int)pid);
	if (cpuset_json()) {
		struct members_now mn;
		if ((r = members_now(c, id, &mn)) < 0)
			return r == -ENOMEM ? CLI_TABLE : cli_refused(r, NULL, "which %d", (int)pid);
		printf("{\"pid\":%d,\"set\":", (int)pid);
		print_set_json(c, &s, &mn);
		printf("}\n");
		members_now_free(&mn);
	} else {
		printf("%u%s%s\n", s.id, s.name[0] ? " " : "", cli_name(s.name));
	}
	return CLI_OK;
}
