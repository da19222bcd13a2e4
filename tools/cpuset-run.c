/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-run — run a program inside a CPU set, with the shim preloaded.
 * It attaches itself and execs the program in place: no extra process. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "src/allowance.h"
#include "src/cpulist.h"
#include "src/ldpreload.h"
#include "src/mask.h"
#include "src/sets.h"
#include "supervise/supervise.h"
#include "tools/cli.h"
#include "tools/where.h"

/* Exit codes, as env(1): 125 our own trouble, 126 not executable,
 * 127 not found; 1 when the set rules refuse. */
enum { RUN_REFUSED = 1, RUN_FAIL = 125, RUN_NOEXEC = 126, RUN_NOTFOUND = 127 };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: cpuset-run [--table NAME] [--table-owner USER] [--override]\n"
"                  [--set SET | --cpus LIST [--mems NODES|auto] [--strict] [--name NAME]\n"
"                   [--physical]]\n"
"                  [--cores N] [--sockets N] [--pus N] [--free]\n"
"                  [--supervise[=files|calls] | --no-supervise]\n"
"                  [--] PROGRAM [ARGS...]\n"
"\n"
"Run PROGRAM inside a CPU set: it sees only the set's CPUs, numbered 0..n-1.\n"
"\n"
"  --set SET      run in this existing set (an id or a name)\n"
"  --cpus LIST    make a new set of these CPUs, a child of the caller's set,\n"
"                 destroyed when its last process ends; the caller's own\n"
"                 numbers: inside a set, its CPUs are 0..n-1\n"
"                 or a location: package:0 (socket:0), core:2-3, numa:1,\n"
"                 pu:0, package:0.core:1, 'core:0-3 ~core:1'\n"
"  --cores N, --sockets N, --pus N\n"
"                 instead of --cpus: N cores (N PUs), or N whole packages,\n"
"                 or N packages of that many cores (PUs) each\n"
"  --free         with a count: only CPUs no sibling set holds, whole cores\n"
"                 first, packed into one package where they fit\n"
"  --mems NODES|auto\n"
"                 with --cpus: the new set's memory nodes (its parent's by\n"
"                 default), in the caller's numbers as --cpus; auto: the\n"
"                 nodes of its CPUs\n"
"  --physical     with --cpus: the machine's CPU and node numbers\n"
"  --strict       with --cpus: the new set shares no CPU with its siblings\n"
"  --name NAME    with --cpus: name the new set\n"
"  --table NAME   the shared-memory table (default $CPUSETSHIM_TABLE, else\n"
"                 cpusetshim.<uid>)\n"
"  --table-owner USER\n"
"                 root only uses a table of another user when it is named\n"
"                 and this names its owner, by name or uid (kept for\n"
"                 PROGRAM's shim)\n"
"  --override     root only: the set may have CPUs outside the caller's\n"
"                 cgroup and affinity (refused otherwise)\n"
"  --supervise[=files|calls]\n"
"                 answer PROGRAM's affinity calls (calls) and also its opens\n"
"                 of the virtual files (files, the default) from a\n"
"                 supervisor: for programs the preload cannot reach; chosen\n"
"                 by itself for a static ELF or a Go binary\n"
"  --no-supervise never supervise: the preload alone\n"
"  -h, --help     this text\n"
"  -V, --version  the version\n"
"\n"
"With neither --set nor --cpus, PROGRAM runs in the caller's set.\n"
"cpuset-run attaches itself, prepends libcpusetshim.so to LD_PRELOAD (once),\n"
"sets CPUSETSHIM_RUN_SET and CPUSETSHIM_TABLE, and execs PROGRAM in its place;\n"
"a supervised PROGRAM runs as its grandchild, with CPUSETSHIM_SUPERVISED set.\n"
"\n"
"Only --cpus makes a table when there is none; with no table, --set finds\n"
"no set (exit 1) and neither option runs PROGRAM as it is.\n"
"\n"
"Exit status: PROGRAM's; 1 the set was refused (no such set), or the\n"
"kernel refused or narrowed its CPUs (the program is not run); 125\n"
"cpuset-run failed (bad usage, unusable table, shim not found); 126\n"
"PROGRAM is not executable; 127 PROGRAM was not found; 124 a location\n"
"names an object the caller's view lacks; 123 a count does not fit.\n");
}

/* out = a then b, or false if that does not fit in len bytes. Not
 * snprintf: everything between our exec and the program's is paid by every
 * run, and the first use of stdio alone costs page faults in the tens of
 * microseconds. */
static bool path_join(char *out, size_t len, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	if (al + bl >= len)
		return false;
	memcpy(out, a, al);
	memcpy(out + al, b, bl + 1);
	return true;
}

static bool file_ok(const char *p)
{
	return access(p, R_OK) == 0;
}

/* The shim: $CPUSETSHIM_LIB (the tests point it at the build tree's),
 * else the installed one. No path of the build tree is compiled in. */
static int find_shim(char *out, size_t len)
{
	const char *e = getenv("CPUSETSHIM_LIB");
	if (e && *e)
		return path_join(out, len, e, "") && file_ok(out) ? 0 : -1;
	return path_join(out, len, CPS_PKGLIBDIR, "/libcpusetshim.so") && file_ok(out) ? 0 : -1;
}

/* LD_PRELOAD with the shim first, once, keeping what is there. */
static int set_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(shim) + (old ? strlen(old) : 0) + 2;
	char *buf = malloc(len);
	if (!buf)
		return -1;
	int r = cps_preload_build(buf, len, old, shim) < 0 ? -1 : setenv("LD_PRELOAD", buf, 1);
	free(buf);
	return r;
}

/* LD_PRELOAD without the shim, for a container runtime: the host's path
 * may be missing in its image, where ld.so would print its error into
 * the program's output; the supervisor answers instead (shim: the path
 * found, or NULL). */
static int drop_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	if (!old)
		return 0;
	char *buf = malloc(strlen(old) + 1);
	ssize_t n = buf ? cps_preload_without(buf, strlen(old) + 1, old, shim) : -1;
	int r = n < 0 ? -1 : n == 0 ? unsetenv("LD_PRELOAD") : setenv("LD_PRELOAD", buf, 1);
	free(buf);
	return r;
}

/* launcher: why prog is a container runtime or a chroot-like launcher
 * (sv_launcher), else NULL. For one, LD_PRELOAD loses the shim, and
 * --no-supervise (asked_off) is said to leave the programs of its image
 * with the machine's numbers: never silently. 0, or -1 (said). */
static int launcher_env(const char *prog, bool asked_off, const char *shim, const char *launcher)
{
	if (!launcher)
		return 0;
	if (drop_preload(shim) < 0) {
		cli_err("cannot set the environment: %s", strerror(errno));
		return -1;
	}
	if (!strcmp(launcher, SV_CONTAINER_CLIENT))
		cli_err("%s is a %s: a container it hands to a daemon (dockerd, containerd) "
			"starts outside this set, neither confined to its CPUs nor numbered by it; "
			"run a runtime itself (runc, podman, ch-run) here instead", prog, launcher);
	if (asked_off && !sv_under_supervisor())
		cli_err("%s is a %s: with --no-supervise the programs it runs from an image see "
			"the machine's numbers (the shim is not preloaded: its path may be "
			"missing there)", prog, launcher);
	return 0;
}

/* The supervisor's messages, as cpuset-run's own. */
static void run_say(const char *msg)
{
	cli_err("%s", msg);
}

/* A user name's uid from /etc/passwd: NSS, which a static cpuset-run must
 * not pull in, is not asked (a user only another NSS source knows is
 * given by uid). */
int cli_uid_of(const char *name, uid_t *uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[1024];
	size_t l = strlen(name);
	int r = -1;
	if (!f)
		return -1;
	while (r < 0 && fgets(line, sizeof(line), f)) {
		unsigned long v;
		char *p = line + l, *e;
		/* name:password:uid: */
		if (l == 0 || strncmp(line, name, l) || *p != ':' || !(p = strchr(p + 1, ':')) ||
		    !(e = strchr(++p, ':')))
			continue;
		*e = '\0';
		if (cli_uint(p, 0xfffffffe, &v) == 0) {
			*uid = (uid_t)v;
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* The kernel mask we now have must be the set's CPUs: a cgroup, or a
 * kernel that refused or narrowed the affinity, would leave the program
 * shown a set it does not run in. Then it does not run: we leave the set
 * (an AUTOCLEAN set we made goes with us) and say why. A set's CPUs that
 * are present but offline are not asked for (cps_affinity_holds). */
static int enforced(struct cps_ctx *c, uint32_t id)
{
	struct cps_setinfo si;
	uint64_t k[CPS_MAX_WORDS];
	size_t nw = c->t.mask_words;
	char msg[700];
	bool holds = false;
	int r = 0;
	/* An alloc of the set between our move and this look changed its
	 * CPUs before its migration reached us: move again, onto the CPUs it
	 * has now; only a mask the kernel keeps different is refused. */
	for (int tries = 0; tries < 4; tries++) {
		if ((r = cps_set_get(c, id, &si)) == 0)
			r = cps_kernel_affinity(0, k, nw);
		if (r < 0 || (holds = cps_affinity_holds(id, si.cpus, k, nw, msg, sizeof(msg))))
			break;
		cps_migrate_process(c, c->self, id, false);
	}
	if (r == 0 && holds)
		return 0;
	if (r < 0)
		cli_err("set %u: cannot read the CPUs back: %s", id, strerror(-r));
	else
		cli_err("%s", msg);
	cps_leave(c);
	cps_close(c);
	return RUN_REFUSED;
}

/* cpuset-run's options. */
struct run_opts {
	const char *table, *set, *cpus, *mems, *name;
	bool strict;
	enum sv_mode sv;
};

/* One option of the command line into o: -1 to go on, else the exit code
 * (0 after --help or --version). */
static int take_option(int ch, struct run_opts *o)
{
	switch (ch) {
	case 'T': o->table = optarg; break;
	case 'O':
		if (cli_table_owner(optarg))
			return RUN_FAIL;
		break;
	case 's': o->set = optarg; break;
	case 'c': o->cpus = optarg; break;
	case 'M': o->mems = optarg; break;
	case 'S': o->strict = true; break;
	case 'n':
		if (cli_set_name(optarg))
			return RUN_FAIL;
		o->name = optarg;
		break;
	case 'P': cli_physical = true; break;
	case 'X':
		if (cps_allowance_override(true) < 0) {
			cli_err("--override: only root may go beyond the kernel's allowance");
			return RUN_REFUSED;
		}
		break;
	case 'U':
		if (!optarg || !strcmp(optarg, "files"))
			o->sv = SV_FILES;
		else if (!strcmp(optarg, "calls"))
			o->sv = SV_CALLS;
		else {
			cli_err("--supervise: '%s' is neither 'files' nor 'calls'", optarg);
			return RUN_FAIL;
		}
		break;
	case 'u': o->sv = SV_OFF; break;
	case 'h': usage(stdout); return 0;
	case 'V': printf("cpuset-run (cpusetshim) %s\n", PACKAGE_VERSION); return 0;
	default: fprintf(stderr, "Try 'cpuset-run --help'.\n"); return RUN_FAIL;
	}
	return -1;
}

/* The command line into o, optind left at the program: -1 to go on, else
 * the exit code. */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{ "table", required_argument, 0, 'T' }, { "set", required_argument, 0, 's' },
		{ "cpus", required_argument, 0, 'c' },  { "strict", no_argument, 0, 'S' },
		{ "name", required_argument, 0, 'n' },  { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },     { "table-owner", required_argument, 0, 'O' },
		{ "override", no_argument, 0, 'X' },     { "physical", no_argument, 0, 'P' },
		{ "supervise", optional_argument, 0, 'U' }, { "no-supervise", no_argument, 0, 'u' },
		{ "mems", required_argument, 0, 'M' },
		CLI_COUNT_OPTIONS,
		{ 0, 0, 0, 0 }
	};
	int ch, r, at;
	while ((ch = getopt_long(argc, argv, "+hV", opts, &at)) != -1) {
		/* --cores N and the like (tools/where.c): a set of a count */
		r = ch == CLI_COUNT_OPTION ? (cli_count_option(opts[at].name, optarg) ? RUN_FAIL : -1)
					   : take_option(ch, o);
		if (r >= 0)
			return r;
	}
	if (cli_counting() && (o->set || o->cpus)) {
		cli_err("a count (--cores, --sockets, --pus, --free) and %s exclude each other",
			o->set ? "--set" : "--cpus");
		return RUN_FAIL;
	}
	if (cli_counting())
		o->cpus = cli_count_text();
	if (optind >= argc) {
		cli_err("no program to run");
		fprintf(stderr, "Try 'cpuset-run --help'.\n");
		return RUN_FAIL;
	}
	if (o->set && o->cpus) {
		cli_err("--set and --cpus exclude each other");
		return RUN_FAIL;
	}
	if ((o->strict || o->name || o->mems || cli_physical) && !o->cpus) {
		cli_err("--mems, --strict, --name and --physical go with --cpus");
		return RUN_FAIL;
	}
	return -1;
}

/* Whether CPUSETSHIM_DEBUG is "1". */
static bool debug_1(void)
{
	const char *d = getenv("CPUSETSHIM_DEBUG");
	return d && !strcmp(d, "1");
}

/* o->sv settled for the program prog (launcher: sv_launcher's word on
 * it): off under an outer supervisor, which answers for this program too
 * by the set it is in; the automatic choice by the program's kind (*why:
 * the reason to supervise, or NULL). */
static void choose_supervision(struct run_opts *o, const char *prog, const char *launcher,
			       const char **why)
{
	*why = NULL;
	if (o->sv != SV_OFF && sv_under_supervisor()) {
		if (o->sv != SV_AUTO && debug_1())
			cli_err("--supervise: already supervised by an outer cpuset-run, which "
				"answers in this set");
		o->sv = SV_OFF;
	}
	if (o->sv == SV_AUTO) {
		*why = launcher ? launcher : sv_prog_sniff(prog, NULL);
		o->sv = *why ? SV_FILES : SV_OFF;
	}
}

/* The file execvp would run for prog into out: prog itself when it has a
 * '/', else the first regular executable file of PATH (its default when
 * unset); false if there is none. */
static bool prog_path(const char *prog, char *out, size_t len)
{
	if (strchr(prog, '/'))
		return path_join(out, len, prog, "");
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char dir[PATH_MAX];
		size_t dl = (size_t)(end - p);
		struct stat st;
		if (dl < sizeof(dir) - 1) {
			memcpy(dir, p, dl);
			strcpy(dir + dl, dl ? "/" : ""); /* an empty entry: the directory we are in */
			if (path_join(out, len, dir, prog) && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(out, X_OK) == 0)
				return true;
		}
		if (!*end)
			return false;
		p = end;
	}
}

/* Why the program at path runs in the loader's secure-execution mode
 * (AT_SECURE), where it ignores a preload path with a '/': set-user-id of
 * another user, set-group-id of another group, or file capabilities (for
 * a caller other than root); NULL if it does not (a nosuid mount ignores
 * the bits). */
static const char *privileged_kind(const char *path)
{
	struct stat st;
	struct statvfs fs;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	if (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID))
		return NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		return "set-user-id";
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && st.st_gid != getgid())
		return "set-group-id";
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		return "given file capabilities";
	return NULL;
}

/* A privileged program is never silently left with the machine's
 * numbers: one line, naming it and why (doc/limits.md). */
static void say_privileged(const char *prog, enum sv_mode sv)
{
	char path[PATH_MAX];
	const char *kind;
	if (!prog_path(prog, path, sizeof(path)) || !(kind = privileged_kind(path)))
		return;
	if (sv == SV_OFF)
		cli_err("%s is %s: the loader does not preload the shim into it, so it runs on the "
			"set's CPUs but sees the machine's numbers", path, kind);
	else
		cli_err("%s is %s: under the supervisor (no_new_privs) it runs in the set without "
			"its privilege", path, kind);
}

/* cli_refused's answer as cpuset-run's exit code. */
static int run_code(int e)
{
	return e == CLI_REFUSED ? RUN_REFUSED : RUN_FAIL;
}

/* A new AUTOCLEAN set of o->cpus (and o->mems), made and attached in
 * one transaction (killed at any point, no set is left without its
 * member): 0 with *id, else the exit code. */
static int new_set(struct cps_ctx *c, const struct run_opts *o, uint32_t *id)
{
	uint64_t m[CPS_MAX_WORDS], nm[CPS_MAX_WORDS];
	struct cps_mems how = { CPS_MEMS_PARENT, nm };
	int r;
	if ((r = cli_own_set(c)) < 0) {
		cli_refused(r, c->why, "looking up the caller's own set");
		return RUN_FAIL;
	}
	r = cli_counting() ? cli_count_cpus(c, 0, o->strict ? CPS_STRICT : 0, m)
			   : cli_cpus_own(o->cpus, m, c->t.mask_words);
	if (r != 0)
		return cli_where_run_code(r);
	if (o->mems && (r = cli_mems_own(o->mems, &how, c->t.mask_words)) != 0)
		return run_code(r);
	r = cps_create_attach(c, 0, CPS_AUTOCLEAN | (o->strict ? CPS_STRICT : 0), o->name, m,
			      o->mems ? &how : NULL, 0, id);
	if (r < 0 && !*id)
		return run_code(cli_refused(r, c->why, "new set of CPUs %s%s%s", o->cpus,
					    o->mems ? " and nodes " : "", o->mems ? o->mems : ""));
	/* the kernel refusing to move us is said by enforced() below */
	if (r < 0 && !c->unmoved)
		return run_code(cli_refused(r, c->why, "attach to set %u", *id));
	return 0;
}

/* The set the program runs in, *id: --set's (moved to, the root too),
 * a new one of --cpus, or with neither the caller's, where it stays,
 * mask and all. 0, or the exit code. */
static int enter_set(struct cps_ctx *c, const struct run_opts *o, uint32_t *id)
{
	int r;
	*id = 0;
	if (o->set) {
		if ((r = cli_set(c, o->set, id)) != 0)
			return run_code(r);
	} else if (o->cpus) {
		if ((r = new_set(c, o, id)) != 0)
			return r;
	} else {
		*id = cps_current(c);
		return 0;
	}
	if (o->set && (r = cps_attach(c, *id, 0)) < 0 && !c->unmoved)
		return run_code(cli_refused(r, c->why, "attach to set %u", *id));
	if ((r = enforced(c, *id)) != 0)
		return r;
	/* the set's nodes as the program's policy from its first page */
	uint64_t bound[CPS_MAX_WORDS];
	char blist[4096];
	if ((r = cps_bind_self_mems(c, *id, bound)) < 0 && getenv("CPUSETSHIM_DEBUG"))
		cli_err("cannot bind to the set's nodes: %s", strerror(-r));
	/* the shim takes that binding for its own, not the program's */
	if (r == 1 && cps_cpulist_format(blist, sizeof(blist), bound, c->t.mask_words) < sizeof(blist))
		setenv("CPUSETSHIM_MEMS_BOUND", blist, 1);
	return 0;
}

/* The program run under the supervisor, which answers for the whole tree:
 * a shim loaded below it stands aside (CPUSETSHIM_SUPERVISED). Its exit
 * code, or its death by the same signal. */
static int run_supervised(struct cps_ctx *c, const struct run_opts *o, uint32_t id,
			  const char *ids, const char *why, char **prog)
{
	if (unsetenv("CPUSETSHIM_SET") < 0 || setenv("CPUSETSHIM_RUN_SET", ids, 1) < 0 ||
	    setenv("CPUSETSHIM_TABLE", c->t.name, 1) < 0 ||
	    setenv("CPUSETSHIM_SUPERVISED", o->sv == SV_FILES ? "files" : "calls", 1) < 0) {
		cli_err("cannot set the environment: %s", strerror(errno));
		return RUN_FAIL;
	}
	if (why && debug_1())
		cli_err("%s: %s: supervised", prog[0], why);
	int sig = 0;
	int r = sv_run(c, id, o->sv, prog, &sig);
	if (o->cpus)
		cps_leave(c);
	cps_close(c);
	if (sig) {
		/* die as the program did, as the exec in place would */
		fflush(NULL);
		sv_exit_as(r, sig);
	}
	return r;
}

/* The program run in place with the shim preloaded (shim NULL: not, for
 * a container runtime): only its failure to start returns, as the exit
 * code. */
static int exec_preloaded(struct cps_ctx *c, const struct run_opts *o, const char *shim,
			  const char *ids, char **prog)
{
	if ((shim && set_preload(shim) < 0) || unsetenv("CPUSETSHIM_SET") < 0 ||
	    setenv("CPUSETSHIM_RUN_SET", ids, 1) < 0 ||
	    setenv("CPUSETSHIM_TABLE", c->t.name, 1) < 0) {
		cli_err("cannot set the environment: %s", strerror(errno));
		return RUN_FAIL;
	}
	execvp(prog[0], prog);
	int e = errno;
	cli_err("%s: %s", prog[0], strerror(e));
	/* leave a set we made, so the autoclean set goes now */
	if (o->cpus)
		cps_leave(c);
	cps_close(c);
	return e == ENOENT || e == ENOTDIR ? RUN_NOTFOUND : RUN_NOEXEC;
}

/* No table at all (cpuset-run never makes one but for --cpus): --set names
 * a set there is not; with neither option the caller is in no set, and
 * the program runs as it is, on the machine, as in the root set. */
static int no_table(const struct run_opts *o, char **prog)
{
	char name[SHM_TABLE_NAME_MAX];
	if (shm_table_name(name, sizeof(name), o->table) < 0)
		name[0] = 0;
	if (o->set) {
		cli_err("set '%s': no such set (there is no table %s: make one with 'cpuset "
			"init' or 'cpuset create')", o->set, name);
		return RUN_REFUSED;
	}
	unsetenv("CPUSETSHIM_SET");
	execvp(prog[0], prog);
	int e = errno;
	cli_err("%s: %s", prog[0], strerror(e));
	return e == ENOENT || e == ENOTDIR ? RUN_NOTFOUND : RUN_NOEXEC;
}

int main(int argc, char **argv)
{
	struct run_opts o = { .sv = SV_AUTO };
	const char *why;
	int r;
	cli_init(argv[0]);
	if ((r = parse_args(argc, argv, &o)) >= 0)
		return r;
	sv_set_say(run_say);
	bool asked_off = o.sv == SV_OFF;
	/* found and resolved once, for both questions */
	const char *launcher = sv_launcher(argv[optind], NULL);
	choose_supervision(&o, argv[optind], launcher, &why);
	char shim[PATH_MAX];
	bool have_shim = find_shim(shim, sizeof(shim)) == 0;
	if (launcher_env(argv[optind], asked_off, have_shim ? shim : NULL, launcher) < 0)
		return RUN_FAIL;
	if (o.sv == SV_OFF && !launcher && !have_shim) {
		cli_err("cannot find libcpusetshim.so (looked in %s; set CPUSETSHIM_LIB, "
			"as a build tree's run needs)", CPS_PKGLIBDIR);
		return RUN_FAIL;
	}
	struct cps_ctx c;
	/* only --cpus, which makes a set, makes a missing table */
	r = cli_open_existing(&c, o.table, o.cpus ? CPS_OPEN_CREATE : CPS_OPEN_WRITE);
	if (r == -ENOENT)
		return no_table(&o, argv + optind);
	if (r != 0)
		return RUN_FAIL;
	uint32_t id;
	if ((r = enter_set(&c, &o, &id)) != 0)
		return r;
	char ids[CPS_DEC_MAX];
	cps_fmt_dec(ids, id);
	say_privileged(argv[optind], o.sv);
	/* CPUSETSHIM_RUN_SET: for descendants that lose their ancestry. Not
	 * CPUSETSHIM_SET, which makes every process that loads the shim set
	 * up and confine itself at load, where the program and its children
	 * already have their set by record or ancestry and the kernel mask. */
	if (o.sv != SV_OFF)
		return run_supervised(&c, &o, id, ids, why, argv + optind);
	return exec_preloaded(&c, &o, launcher ? NULL : shim, ids, argv + optind);
}
