/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset — create, destroy, allocate CPUs to and attach processes to
 * hierarchical CPU sets (the 2003 CPUSETS proposal's system calls, from
 * the shell). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/allowance.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "tools/cpuset.h"
#include "tools/where.h"

static const char *table;
static bool json, override;

bool cpuset_json(void)
{
	return json;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: cpuset [--table NAME] [--table-owner USER] [--json] [--override]\n"
"              [--physical] COMMAND [ARGS]\n"
"\n"
"Hierarchical CPU sets in user space. Programs run in a set with the\n"
"cpusetshim preload see only its CPUs, numbered 0..n-1.\n"
"\n"
"Commands:\n"
"  init [--cpus LIST] [--mems NODES] [--mode MODE] [--group GROUP] [--max-sets N]\n"
"       [--max-procs N] [--max-threads N] [--mask-bits N] [--force] [--cgroup]\n"
"                           make the table ('create' also makes one when\n"
"                           there is none); --cgroup:\n"
"                           and its cgroup mirror (cgroup on)\n"
"  create [--cpus LIST] [--mems NODES|auto] [--strict] [--autoclean]\n"
"         [--name NAME] [--parent SET] [--cores N] [--sockets N] [--pus N] [--free]\n"
"                           make a child set (of the caller's set by default)\n"
"                           with LIST, a count (of what 'free' offers with\n"
"                           --free), or what 'free' offers; prints its id\n"
"  destroy SET              remove an empty, unused set\n"
"  alloc [--mems NODES|auto] SET [LIST]\n"
"                           give SET these CPUs, moving every member thread,\n"
"                           and these memory nodes\n"
"  attach [--descendants] [--force] SET PID...\n"
"                           move processes (all their threads) into SET;\n"
"                           --descendants: their running descendants of the\n"
"                           same user and session too; --force: pid 1 or a\n"
"                           pid namespace's first process (refused otherwise)\n"
"  free [--strict] [--parent SET]\n"
"                           CPUs a new child could take\n"
"  cpus [--cores N] [--sockets N] [--pus N] [--free] [--strict] [--parent SET]\n"
"       [LIST]               the CPUs a LIST or a count names (read only)\n"
"  list                     every set\n"
"  show [--topology] SET    one set and its members; --topology: its\n"
"                           packages, cores, caches and nodes as a tree\n"
"  which [PID]              the set a process is in (default: the caller)\n"
"  sweep                    forget dead members now\n"
"  cgroup [on|off|show]     the table's cgroup mirror (root): each set a\n"
"                           cpuset cgroup with its memory nodes, so that\n"
"                           the kernel confines its members' memory; on\n"
"                           makes it and places every member, off removes\n"
"                           it; without an argument, where it is\n"
"  repair                   roll back what a writer killed mid-write left\n"
"                           (any write does this too; this changes nothing else)\n"
"\n"
"SET is an id or a name. LIST is a CPU list (0-3,8 or 0-31:2), a hex\n"
"mask (0xff) or a location (package:0, socket:1, core:2-3, numa:1, pu:0,\n"
"package:0.core:1, 'core:0-3 ~core:1'), in the caller's own numbers and\n"
"topology: inside a set, its set's CPUs\n"
"are 0..n-1 (CPUs outside it are shown as +machine:LIST); outside any set\n"
"they are the machine's. init --cpus and --mems take the machine's\n"
"numbers. NODES is a list of NUMA node numbers in the same form and the\n"
"same numbers: inside a set its set's nodes are 0..k-1 (as its programs\n"
"see them), outside any set the machine's; auto: the\n"
"nodes holding the set's CPUs, again whenever they change. A set's nodes\n"
"are by default its parent's that no strict sibling owns; a strict set\n"
"owns the nodes it is given.\n"
"\n"
"Options:\n"
"  --table NAME   the shared-memory table (default $CPUSETSHIM_TABLE, else\n"
"                 cpusetshim.<uid>)\n"
"  --table-owner USER\n"
"                 root only uses a table of another user when it is named\n"
"                 and this names its owner\n"
"  --json         machine-readable output for list, show and which\n"
"  --physical     the machine's CPU and node numbers, also inside a set\n"
"  --override     root only: create, alloc and attach may use CPUs outside\n"
"                 the caller's cgroup and affinity (refused otherwise, EACCES)\n"
"  -h, --help     this text\n"
"  -V, --version  the version\n"
"\n"
"Exit status: 0 done, 1 refused by the set rules, 2 bad usage,\n"
"3 the table cannot be used, 4 done in the table but the kernel refused\n"
"to move some processes (named in the message), 5 a location names an\n"
"object this view lacks, 6 a count does not fit.\n");
}

int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", cli_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'cpuset --help'.\n");
	return CLI_USAGE;
}

/* ---- create / destroy / alloc / attach / free ---- */

/* create's CPUs into m: those given (cpus), or else what is free in the
 * parent pid for a set of these flags. CLI_OK or an exit code. */
static int create_cpus(struct cps_ctx *c, const char *cpus, uint32_t pid, unsigned flags,
		       uint64_t *m)
{
	size_t mw = c->t.mask_words;
	int r;
	if (cpus && cli_counting())
		return bad_usage("create: --cpus and a count (--cores, --sockets, --pus, --free) "
				 "exclude each other%s", "");
	if (cli_counting())
		return cli_count_cpus(c, pid, flags, m);
	if (cpus)
		return cli_cpus_own(cpus, m, mw);
	/* the 2003 CPUSETS proposal's "same processors as the parent": what is free */
	if ((r = cps_getfreecpus(c, pid, flags, m)) < 0)
		return cli_refused(r, c->why, "create");
	if (!cps_mask_empty(m, mw))
		cli_err("create: no --cpus: the new set has its parent's free CPUs, %s",
			cli_cpulist_own(m, mw));
	else {
		struct cps_setinfo ps;
		const char *why;
		if (cps_set_get(c, pid ? pid : cps_current(c), &ps) == 0 &&
		    (why = cps_nesting_refusal(ps.flags, flags)) != NULL)
			return cli_refused(EINVAL, why, "create");
		return cli_refused(EBUSY, "the parent has no free CPU for such a set",
				   "create");
	}
	return CLI_OK;
}

static int cmd_create(struct cps_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, 0, 'c' }, { "strict", no_argument, 0, 's' },
		{ "autoclean", no_argument, 0, 'a' }, { "name", required_argument, 0, 'n' },
		{ "parent", required_argument, 0, 'p' }, { "mems", required_argument, 0, 'M' },
		CLI_COUNT_OPTIONS,
		{ 0, 0, 0, 0 }
	};
	const char *cpus = NULL, *name = NULL, *parent = NULL, *mems = NULL;
	unsigned flags = 0;
	int ch, r, at;
	while ((ch = getopt_long(argc, argv, "+", opts, &at)) != -1) {
		switch (ch) {
		case CLI_COUNT_OPTION:
			if ((r = cli_count_option(opts[at].name, optarg)))
				return r;
			break;
		case 'c': cpus = optarg; break;
		case 's': flags |= CPS_STRICT; break;
		case 'a': flags |= CPS_AUTOCLEAN; break;
		case 'n':
			if ((r = cli_set_name(optarg)))
				return r;
			name = optarg;
			break;
		case 'p': parent = optarg; break;
		case 'M': mems = optarg; break;
		default: return CLI_USAGE;
		}
	}
	if (optind != argc)
		return bad_usage("create: unexpected argument '%s'", argv[optind]);
	size_t mw = c->t.mask_words;
	uint64_t m[CPS_MAX_WORDS], nm[CPS_MAX_WORDS];
	struct cps_mems how = { CPS_MEMS_AUTO, nm };
	if (mems && (r = cli_mems_own(mems, &how, mw)))
		return r;
	uint32_t pid = 0, id;
	if (parent && (r = cli_set(c, parent, &pid)))
		return r;
	if ((r = create_cpus(c, cpus, pid, flags, m)))
		return r;
	r = cps_create_mems(c, pid, flags, name, m, mems ? &how : NULL, &id);
	if (r < 0) {
		if (r == -EINVAL && name && !c->why)
			c->why = "bad name";
		return cli_refused(r, c->why, "create%s%s", name ? " " : "", name ? name : "");
	}
	printf("%u\n", id);
	return CLI_OK;
}

/* "PID (COMMAND)" of a process, in buf. */
static const char *proc_name(pid_t pid, char *buf, size_t len)
{
	char path[64], comm[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	/* raw: its own name, which its owner may have set to any bytes, is
	 * escaped where it is printed */
	snprintf(buf, len, comm[0] ? "%d (%s)" : "%d", (int)pid, comm);
	return buf;
}

/* Why set id is busy, its members named (the first few, then how many
 * more), into buf; c->why alone when it has none to name. */
static const char *busy_members(struct cps_ctx *c, uint32_t id, char *buf, size_t len)
{
	enum { SHOWN = 3 };
	struct cps_member *m = NULL;
	long n = cps_members_alloc(c, id, &m);
	if (n <= 0) {
		free(m);
		return c->why;
	}
	char name[64];
	size_t k = (size_t)snprintf(buf, len, "%s:", c->why);
	for (long i = 0; i < n && i < SHOWN && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s %s", i ? "," : "",
				      proc_name(m[i].pid, name, sizeof(name)));
	if (n > SHOWN && k < len)
		snprintf(buf + k, len - k, " and %ld more", n - SHOWN);
	free(m);
	return buf;
}

static int cmd_destroy(struct cps_ctx *c, int argc, char **argv)
{
	uint32_t id;
	int r;
	if (argc != 2)
		return bad_usage("destroy wants exactly one SET%s", "");
	if ((r = cli_set(c, argv[1], &id)))
		return r;
	if ((r = cps_destroy(c, id)) < 0) {
		char why[400];
		const char *w = c->why;
		if (r == -EBUSY && w && strstr(w, "member"))
			w = busy_members(c, id, why, sizeof(why));
		return cli_refused(r, w, "destroy %s", argv[1]);
	}
	return CLI_OK;
}

/* A refusal; or, when the set rules held and the kernel refused to move
 * some processes (another user's, a privileged one), the change made and
 * who was not moved: exit status CLI_UNMOVED, never success. */
static int unmoved_refused(struct cps_ctx *c, int r, const char *fmt, const char *a,
			   const char *b)
{
	if (!c->unmoved)
		return cli_refused(r, c->why, fmt, a, b);
	char what[256], pids[480], safe[480 * 4], name[64];
	size_t n = 0;
	int shown = c->unmoved < (int)CPS_ARRAY_SIZE(c->unmoved_pid) ? c->unmoved
								       : (int)CPS_ARRAY_SIZE(c->unmoved_pid);
	pids[0] = 0;
	for (int i = 0; i < shown && n < sizeof(pids); i++)
		n += (size_t)snprintf(pids + n, sizeof(pids) - n, "%s%s", i ? " " : "",
				      proc_name(c->unmoved_pid[i], name, sizeof(name)));
	snprintf(what, sizeof(what), fmt, a, b);
	cli_escape(safe, sizeof(safe), pids, sizeof(pids));
	if (c->unmoved_foreign)
		cli_err("%s: the table is another user's (uid %ld): root moves only that user's "
			"processes with it; %d process%s not of that user not moved (EPERM): %s%s",
			what, c->foreign_uid, c->unmoved, c->unmoved == 1 ? "" : "es", safe,
			c->unmoved > shown ? " ..." : "");
	else
		cli_err("%s: %s; %d process%s not moved, the kernel said: %s (%s): %s%s", what,
			c->why, c->unmoved, c->unmoved == 1 ? "" : "es", strerror(c->unmoved_err),
			cli_errname(c->unmoved_err), safe, c->unmoved > shown ? " ..." : "");
	return CLI_UNMOVED;
}

/* A migration moves threads that run meanwhile, and on a busy machine
 * this tool would get a share of the CPUs like each of the processes it
 * moves: a resize among hundreds of starting members then takes seconds
 * of waiting for the CPU, with the set half moved. A caller the kernel
 * lets (root, CAP_SYS_NICE) migrates at nice -10, never lower than it
 * was; others at their own. */
static void migrate_urgently(void)
{
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && now > -10)
		(void)setpriority(PRIO_PROCESS, 0, -10);
}

static int cmd_alloc(struct cps_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { { "mems", required_argument, 0, 'M' },
					      { 0, 0, 0, 0 } };
	uint32_t id;
	uint64_t m[CPS_MAX_WORDS], nm[CPS_MAX_WORDS];
	struct cps_mems how = { CPS_MEMS_AUTO, nm };
	const char *mems = NULL;
	int ch, r;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch != 'M')
			return CLI_USAGE;
		mems = optarg;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 3 && !(mems && argc == 2))
		return bad_usage(mems ? "alloc --mems wants SET and at most a CPU LIST%s"
				      : "alloc wants SET and a CPU LIST%s", "");
	if ((r = cli_set(c, argv[1], &id)) || (argc == 3 && (r = cli_cpus_own(argv[2], m, c->t.mask_words))))
		return r;
	if (mems && (r = cli_mems_own(mems, &how, c->t.mask_words)))
		return r;
	migrate_urgently();
	if ((r = cps_alloc_mems(c, id, argc == 3 ? m : NULL, mems ? &how : NULL)) < 0)
		return unmoved_refused(c, r, "alloc %s %s", argv[1], argc == 3 ? argv[2] : mems);
	return CLI_OK;
}

static int cmd_attach(struct cps_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { { "descendants", no_argument, 0, 'd' },
					      { "force", no_argument, 0, 'f' },
					      { 0, 0, 0, 0 } };
	uint32_t id;
	pid_t pid;
	unsigned flags = 0;
	int ch, r, ret = CLI_OK;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'd')
			flags |= CPS_ATTACH_DESCENDANTS;
		else if (ch == 'f')
			flags |= CPS_ATTACH_FORCE;
		else
			return CLI_USAGE;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3)
		return bad_usage("attach wants SET and at least one PID%s", "");
	/* 0 would be this tool itself, gone when it returns: refused, as
	 * anything but a decimal process id */
	for (int i = 2; i < argc; i++)
		if (cli_pid(argv[i], &pid) < 0)
			return bad_usage("'%s' is not a process id (decimal, 1 or more)", argv[i]);
	if ((r = cli_set(c, argv[1], &id)))
		return r;
	migrate_urgently();
	for (int i = 2; i < argc; i++) {
		cli_pid(argv[i], &pid);
		if ((r = cps_attach_flags(c, id, pid, flags)) == -EINVAL && !cps_proc_is_process(pid)) {
			pid_t tg = cps_proc_tgid(pid);
			char why[128];
			snprintf(why, sizeof(why),
				 "%d is a thread of process %d, not a process (attach %d to move "
				 "it with all its threads)", (int)pid, (int)tg, (int)tg);
			ret = cli_refused(r, why, "attach %s %s", argv[1], argv[i]);
		} else if (r == -EPERM && c->foreign_uid > 0 && !c->unmoved) {
			char why[200], name[64];
			snprintf(why, sizeof(why), "%s is not of uid %ld, the table's owner: root moves "
				 "only that user's processes with another user's table",
				 proc_name(pid, name, sizeof(name)), c->foreign_uid);
			ret = cli_refused(r, c->why && strstr(c->why, "another user's") ? why : c->why,
					  "attach %s %s", argv[1], argv[i]);
		} else if (r < 0) {
			ret = unmoved_refused(c, r, "attach %s %s", argv[1], argv[i]);
		}
	}
	return ret;
}

static int cmd_free(struct cps_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { { "strict", no_argument, 0, 's' },
					      { "parent", required_argument, 0, 'p' },
					      { 0, 0, 0, 0 } };
	unsigned flags = 0;
	uint32_t parent = 0;
	uint64_t m[CPS_MAX_WORDS];
	int ch, r;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 's')
			flags |= CPS_STRICT;
		else if (ch == 'p') {
			if ((r = cli_set(c, optarg, &parent)))
				return r;
		} else
			return CLI_USAGE;
	}
	if (optind != argc)
		return bad_usage("free: unexpected argument '%s'", argv[optind]);
	if ((r = cps_getfreecpus(c, parent, flags, m)) < 0)
		return cli_refused(r, c->why, "free");
	if (json) {
		printf("{\"cpus\":");
		cli_json_str(stdout, cli_cpulist_own(m, c->t.mask_words));
		printf("}\n");
	} else {
		printf("%s\n", cli_cpulist_own(m, c->t.mask_words));
	}
	return CLI_OK;
}

/* cpus' answer: a location's or a count's CPUs in the view's numbers. */
static int cpus_of(struct cps_ctx *c, const char *what, uint32_t parent, unsigned flags)
{
	uint64_t vm[CPS_MAX_WORDS];
	char list[CPS_MAX_CPUS * 6];
	struct where_view *v = where_caller();
	int r;
	if (!v)
		return CLI_USAGE;
	r = what ? cli_where_view(v, what, vm, CPS_MAX_WORDS)
		 : cli_count_view(c, parent, flags, v, vm);
	if (r == CLI_OK) {
		cps_cpulist_format(list, sizeof(list), vm, CPS_MAX_WORDS);
		if (json) {
			printf("{\"cpus\":");
			cli_json_str(stdout, list);
			printf("}\n");
		} else {
			printf("%s\n", list);
		}
	}
	free(v);
	return r;
}

static int cmd_cpus(struct cps_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = { { "strict", no_argument, 0, 's' },
					      { "parent", required_argument, 0, 'p' },
					      CLI_COUNT_OPTIONS,
					      { 0, 0, 0, 0 } };
	unsigned flags = 0;
	uint32_t parent = 0;
	int ch, r, at;
	while ((ch = getopt_long(argc, argv, "+", opts, &at)) != -1) {
		if (ch == 's')
			flags |= CPS_STRICT;
		else if (ch == 'p' && (r = cli_set(c, optarg, &parent)))
			return r;
		else if (ch == CLI_COUNT_OPTION && (r = cli_count_option(opts[at].name, optarg)))
			return r;
		else if (ch != 'p' && ch != CLI_COUNT_OPTION)
			return CLI_USAGE;
	}
	if (optind + 1 < argc || (optind < argc) == cli_counting())
		return bad_usage("cpus wants one LIST (a location such as package:0) or a count "
				 "(--cores N, --sockets N, --pus N)%s", "");
	return cpus_of(c, optind < argc ? argv[optind] : NULL, parent, flags);
}

static int cmd_repair(struct cps_ctx *c, int argc, char **argv)
{
	if (argc != 1)
		return bad_usage("repair: unexpected argument '%s'", argv[1]);
	int r = cps_repair(c);
	if (r < 0)
		return cli_refused(r, NULL, "repair");
	uint32_t moved = 0, groups = 0;
	int t = cps_repair_tree(c, &moved, &groups);
	if (t < 0)
		return cli_refused(t, c->why, "repair");
	if (moved)
		printf("repaired: %u set%s whose parents did not lead to the root put under the "
		       "root, every set's counts made again\n", moved, moved == 1 ? "" : "s");
	if (groups)
		printf("repaired: %u group%s of the registries' occupancy summaries made again "
		       "from their records\n", groups, groups == 1 ? "" : "s");
	if (r || !(moved || groups))
		printf("%s\n", r ? "repaired: a dead writer's transaction was rolled back"
				 : "nothing to repair");
	return CLI_OK;
}

static int cmd_sweep(struct cps_ctx *c, int argc, char **argv)
{
	if (argc != 1)
		return bad_usage("sweep: unexpected argument '%s'", argv[1]);
	int r = cps_sweep(c);
	if (r < 0)
		return cli_refused(r, NULL, "sweep");
	printf("%d\n", r);
	return CLI_OK;
}

/* The global options found after the command taken out of cargv (up to
 * a "--"): the number of arguments left, or -1 for a bad --table-owner. */
static int global_after(int cargc, char **cargv)
{
	int k = 1;
	for (int i = 1; i < cargc; i++) {
		if (!strcmp(cargv[i], "--")) {
			while (i < cargc)
				cargv[k++] = cargv[i++];
			break;
		}
		if (!strcmp(cargv[i], "--json")) {
			json = true;
		} else if (!strcmp(cargv[i], "--override")) {
			override = true;
		} else if (!strcmp(cargv[i], "--physical")) {
			cli_physical = true;
		} else if (!strcmp(cargv[i], "--table") && i + 1 < cargc) {
			table = cargv[++i];
		} else if (!strncmp(cargv[i], "--table=", 8)) {
			table = cargv[i] + 8;
		} else if (!strcmp(cargv[i], "--table-owner") && i + 1 < cargc) {
			if (cli_table_owner(cargv[++i]))
				return -1;
		} else if (!strncmp(cargv[i], "--table-owner=", 14)) {
			if (cli_table_owner(cargv[i] + 14))
				return -1;
		} else {
			cargv[k++] = cargv[i];
		}
	}
	cargv[k] = NULL;
	return k;
}

/* The command cmd (other than init) run on the table: its exit code, or
 * -1 if there is no such command. */
static int run_command(const char *cmd, int cargc, char **cargv)
{
	static const struct {
		const char *name;
		int how;
		int (*fn)(struct cps_ctx *, int, char **);
	} cmds[] = {
		/* only create makes a missing table (and init): a command that
		 * reads or joins a set finds none in a table that is not there */
		{ "create", CPS_OPEN_CREATE, cmd_create }, { "destroy", CPS_OPEN_WRITE, cmd_destroy },
		{ "alloc", CPS_OPEN_WRITE, cmd_alloc },    { "attach", CPS_OPEN_WRITE, cmd_attach },
		{ "free", CPS_OPEN_WRITE, cmd_free },      { "list", CPS_OPEN_WRITE, cmd_list },
		{ "cpus", CPS_OPEN_WRITE, cmd_cpus },
		{ "show", CPS_OPEN_WRITE, cmd_show },      { "which", CPS_OPEN_WRITE, cmd_which },
		{ "sweep", CPS_OPEN_WRITE, cmd_sweep },    { "repair", CPS_OPEN_WRITE, cmd_repair },
		{ "cgroup", CPS_OPEN_WRITE, cmd_cgroup },
	};
	for (size_t i = 0; i < CPS_ARRAY_SIZE(cmds); i++) {
		if (strcmp(cmd, cmds[i].name))
			continue;
		struct cps_ctx c;
		int r = cli_open(&c, table, cmds[i].how);
		if (r)
			return r;
		/* the caller's own numbers: for the commands that take or
		 * show CPUs (repair reports what it finds, not what a look-up
		 * of the caller's set would have repaired first) */
		if (cmds[i].fn != cmd_repair && cmds[i].fn != cmd_sweep && cmds[i].fn != cmd_cgroup &&
		    (r = cli_own_set(&c)) < 0) {
			r = cli_refused(r, c.why, "%s: looking up the caller's own set", cmd);
			cps_close(&c);
			return r;
		}
		r = cmds[i].fn(&c, cargc, cargv);
		cps_close(&c);
		fflush(stdout);
		return r;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "table", required_argument, 0, 'T' }, { "json", no_argument, 0, 'j' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' },
		{ "table-owner", required_argument, 0, 'O' },
		{ "override", no_argument, 0, 'X' }, { "physical", no_argument, 0, 'P' },
		{ 0, 0, 0, 0 }
	};
	int ch;
	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'T': table = optarg; break;
		case 'j': json = true; break;
		case 'O':
			if (cli_table_owner(optarg))
				return CLI_USAGE;
			break;
		case 'X': override = true; break;
		case 'P': cli_physical = true; break;
		case 'h': usage(stdout); return CLI_OK;
		case 'V': printf("cpuset (cpusetshim) %s\n", PACKAGE_VERSION); return CLI_OK;
		default: fprintf(stderr, "Try 'cpuset --help'.\n"); return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *cmd = argv[optind];
	int cargc = argc - optind;
	char **cargv = argv + optind;
	optind = 1; /* each command parses its own options */
	/* the global options are also taken after the command */
	if ((cargc = global_after(cargc, cargv)) < 0)
		return CLI_USAGE;
	if (override && cps_allowance_override(true) < 0)
		return cli_refused(-EPERM, "only root may go beyond the kernel's allowance",
				   "--override");
	if (!strcmp(cmd, "init"))
		return cmd_init(table, cargc, cargv);
	int r = run_command(cmd, cargc, cargv);
	if (r >= 0)
		return r;
	return bad_usage("unknown command '%s'", cmd);
}
