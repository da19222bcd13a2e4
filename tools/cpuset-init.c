/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset init: a new table, its root set, mode, group and capacities
 * (tools/cpuset.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/allowance.h"
#include "src/mask.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "src/cgmirror.h"
#include "tools/cpuset.h"

/* One of init's options that sets the table's mode, group, capacities or
 * --force: -1, or an exit status. */
static int init_option(int ch, struct cps_init_opts *o)
{
	static const char *const opt_of[] = { ['s'] = "--max-sets", ['p'] = "--max-procs",
					      ['t'] = "--max-threads", ['b'] = "--mask-bits" };
	static const unsigned max_of[] = { ['s'] = SHM_MAX_SETS, ['p'] = SHM_MAX_PROCS,
					   ['t'] = SHM_MAX_THREADS, ['b'] = SHM_MAX_MASK_BITS };
	unsigned long v;
	switch (ch) {
	case 'm':
		if (optarg[0] != '0' || cli_octal(optarg, 07777, &v) < 0)
			return bad_usage("--mode wants an octal mode like 0660, not '%s'", optarg);
		if (v & 0002)
			return bad_usage("--mode %s: a table writable by every user lets any user "
					 "move anyone's processes; share it with a group (--group)",
					 optarg);
		o->mode = (mode_t)v;
		return -1;
	case 'g': {
		struct group *g = getgrnam(optarg);
		if (g)
			o->gid = g->gr_gid;
		else if (cli_uint(optarg, 0xfffffffe, &v) == 0)
			o->gid = (gid_t)v;
		else
			return bad_usage("no such group '%s'", optarg);
		return -1;
	}
	case 's': case 'p': case 't': case 'b': {
		bool digits = *optarg && !optarg[strspn(optarg, "0123456789")];
		if (!digits)
			return bad_usage("'%s' is not a number", optarg);
		if (cli_uint(optarg, ~0ul, &v) < 0 || v > max_of[ch]) {
			fprintf(stderr, "%s: %s %s is too large (at most %u)\n", cli_prog, opt_of[ch],
				optarg, max_of[ch]);
			return CLI_USAGE;
		}
		if (ch == 's') o->caps.max_sets = (uint32_t)v;
		if (ch == 'p') o->caps.max_procs = (uint32_t)v;
		if (ch == 't') o->caps.max_threads = (uint32_t)v;
		if (ch == 'b') o->caps.mask_bits = (uint32_t)((v + 63) / 64 * 64);
		return -1;
	}
	case 'f': o->force = true; return -1;
	default: return CLI_USAGE;
	}
}

/* Whether the capacities make a table: 0, or CLI_USAGE said. */
static int init_layout_ok(const struct cps_init_opts *o)
{
	struct shm_header lay;
	int r = shm_layout(&lay, &o->caps);
	if (r == 0)
		return 0;
	if (r == -EOVERFLOW)
		cli_err("init: a table of these capacities would take more than %llu MiB; "
			"ask for fewer threads, members or mask bits",
			SHM_MAX_TABLE_BYTES >> 20);
	else
		cli_err("init: capacities out of range (sets 2-%u, procs 1-%u, threads 1-%u, "
			"mask bits 64-%u)", SHM_MAX_SETS, SHM_MAX_PROCS, SHM_MAX_THREADS,
			SHM_MAX_MASK_BITS);
	return CLI_USAGE;
}

/* --cpus and --mems of the root set into m and nm (o->caps.mask_bits
 * wide), checked against the machine: 0, or an exit status said. */
static int init_root(const char *cpus, const char *mems, struct cps_init_opts *o, uint64_t *m,
		     uint64_t *nm)
{
	size_t nw = o->caps.mask_bits / 64;
	uint64_t off[CPS_MAX_WORDS];
	int r;
	if (cpus) {
		if ((r = cli_cpus(cpus, m, nw)))
			return r;
		if (cps_root_cpus_check(m, nw, off) < 0) {
			cli_err("init: CPUs %s are not online on this machine", cli_cpulist(off, nw));
			return CLI_USAGE;
		}
		if (cps_mask_empty(m, nw)) {
			cli_err("init: the root set needs at least one CPU");
			return CLI_USAGE;
		}
		o->cpus = m;
	}
	if (mems) {
		if ((r = cli_nodes(mems, nm, nw)))
			return r;
		if (cps_mask_empty(nm, nw)) {
			cli_err("init: the root set needs at least one memory node");
			return CLI_USAGE;
		}
		if (cps_root_mems_check(nm, nw, off) < 0) {
			cli_err("init: nodes %s hold no memory on this machine", cli_cpulist(off, nw));
			return CLI_USAGE;
		}
		o->mems = nm;
	}
	return 0;
}

static int cgroup_on(struct cps_ctx *c);

int cmd_init(const char *table, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, 0, 'c' }, { "mode", required_argument, 0, 'm' },
		{ "group", required_argument, 0, 'g' }, { "max-sets", required_argument, 0, 's' },
		{ "max-procs", required_argument, 0, 'p' },
		{ "max-threads", required_argument, 0, 't' },
		{ "mask-bits", required_argument, 0, 'b' }, { "force", no_argument, 0, 'f' },
		{ "mems", required_argument, 0, 'M' }, { "cgroup", no_argument, 0, 'C' },
		{ 0, 0, 0, 0 }
	};
	struct cps_init_opts o;
	const char *cpus = NULL, *mems = NULL;
	uint64_t m[CPS_MAX_WORDS], nm[CPS_MAX_WORDS];
	int ch, r;
	bool cgroup = false;
	cps_init_opts_default(&o);
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'c')
			cpus = optarg;
		else if (ch == 'M')
			mems = optarg;
		else if (ch == 'C')
			cgroup = true;
		else if ((r = init_option(ch, &o)) >= 0)
			return r;
	}
	if (optind != argc)
		return bad_usage("init: unexpected argument '%s'", argv[optind]);
	if ((r = init_layout_ok(&o)) || (r = init_root(cpus, mems, &o, m, nm)))
		return r;
	if ((o.mode & 0066) && o.gid == (gid_t)-1 && (o.mode & 0006) == 0)
		o.gid = getegid();
	if (o.mode & 0022)
		fprintf(stderr,
			"%s: warning: a shared table is one trust domain: every user who may write "
			"it can move the processes of every other user of it, and can make tables "
			"under names the others use. Share it only among users who trust each "
			"other (cpusetshim(7), SHARED TABLES).\n", cli_prog);
	struct cps_ctx c;
	r = cps_init(&c, table, &o);
	if (r == -EEXIST) {
		cli_err("init: the table exists already (use --force to replace it)");
		return CLI_REFUSED;
	}
	if (r < 0) {
		cli_err("init: %s: %s", c.why ? c.why : "cannot make the table", strerror(-r));
		return CLI_TABLE;
	}
	printf("%s\n", c.t.name);
	r = CLI_OK;
	if (cgroup)
		r = cgroup_on(&c);
	else
		cps_cgm_prune(&c); /* a replaced table's sets are gone */
	cps_close(&c);
	return r;
}

/* Where the mirror is (dir), or that there is none (NULL). */
static void cgroup_print(const char *dir)
{
	if (!cpuset_json())
		printf("cgroup: %s\n", dir ? dir : "none");
	else if (!dir)
		printf("{\"cgroup\":null}\n");
	else {
		printf("{\"cgroup\":");
		cli_json_str(stdout, dir);
		printf("}\n");
	}
}

/* The mirror made (or found), every member placed in its set's cgroup. */
static int cgroup_on(struct cps_ctx *c)
{
	char dir[CPS_CGM_PATH];
	int r = cps_cgm_make(c, dir, sizeof(dir));
	if (r < 0)
		return cli_refused(r, c->why, "cgroup on: %s", dir[0] ? dir : "the cgroup mirror");
	uint32_t *ids = NULL;
	long n = cps_set_ids(c, &ids);
	int bad = 0, first = 0;
	for (long i = 0; i < n; i++) {
		struct cps_setinfo si;
		if (cps_set_get(c, ids[i], &si) < 0 || !si.nmembers)
			continue;
		if ((r = cps_migrate_set(c, ids[i])) < 0 || c->unmoved) {
			bad++;
			first = first ? first : r < 0 ? -r : c->unmoved_err;
		}
	}
	free(ids);
	cps_cgm_prune(c);
	cgroup_print(dir);
	if (bad) {
		fprintf(stderr, "%s: cgroup on: the members of %d set%s were not all placed in "
			"their cgroups: %s\n", cli_prog, bad, bad == 1 ? "" : "s", strerror(first));
		return CLI_UNMOVED;
	}
	return CLI_OK;
}

/* The mirror removed: its processes back in the hierarchy's root, then
 * moved onto their sets' CPUs again (a v1 cpuset's attach set their
 * affinity to all the root's CPUs). */
static int cgroup_off(struct cps_ctx *c)
{
	char dir[CPS_CGM_PATH];
	if (!cps_cgm_on(c, dir, sizeof(dir))) {
		cgroup_print(NULL);
		return CLI_OK;
	}
	int r = cps_cgm_remove(c);
	uint32_t *ids = NULL;
	long n = cps_set_ids(c, &ids);
	for (long i = 0; i < n; i++)
		cps_migrate_set(c, ids[i]);
	free(ids);
	if (r < 0)
		return cli_refused(r, "a process is still in one of its cgroups", "cgroup off: %s",
				   dir);
	cgroup_print(NULL);
	return CLI_OK;
}

int cmd_cgroup(struct cps_ctx *c, int argc, char **argv)
{
	char dir[CPS_CGM_PATH];
	if (argc > 2)
		return bad_usage("cgroup wants on, off, show or nothing, not '%s'", argv[2]);
	if (argc == 2 && !strcmp(argv[1], "on"))
		return cgroup_on(c);
	if (argc == 2 && !strcmp(argv[1], "off"))
		return cgroup_off(c);
	if (argc == 2 && strcmp(argv[1], "show"))
		return bad_usage("cgroup wants on, off, show or nothing, not '%s'", argv[1]);
	cgroup_print(cps_cgm_on(c, dir, sizeof(dir)) ? dir : NULL);
	return CLI_OK;
}
