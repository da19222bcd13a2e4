/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-oci-hook: an OCI createRuntime hook. A container whose first
 * process is in a set of the table (or, with --cgroup-sets, whose runtime
 * gave it fewer CPUs than the machine's) is given the shim, read-only at a
 * fixed path, /etc/ld.so.preload naming it, and a private table whose root
 * is its CPUs: its programs see those CPUs numbered from 0. Outside any set
 * it does nothing. Its reasons: doc/containers.md, "The OCI hook". */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "supervise/supervise.h"
#include "tools/cli.h"
#include "tools/oci_hook.h"
#include "tools/oci_json.h"

#ifndef CPS_PKGLIBDIR
#define CPS_PKGLIBDIR "/usr/local/lib/cpusetshim"
#endif

#define OH_JSON_MAX (4u << 20) /* a state or config.json, at most */

static const char usage_text[] =
"Usage: cpuset-oci-hook [--table NAME] [--table-owner USER] [--shim PATH]\n"
"                       [--cgroup-sets] [--dry-run] < STATE\n"
"An OCI createRuntime hook: STATE is the container's state (JSON). A\n"
"container whose first process is in a set of the table is given the shim\n"
"(" OH_SHIM_IN "), /etc/ld.so.preload naming it and a private\n"
"table of its set's CPUs, all read-only: its programs see those CPUs\n"
"numbered from 0. Outside any set it does nothing.\n"
"\n"
"  --table NAME        the table to read (default cpusetshim.<uid>); no\n"
"                      other is read, and no CPUSETSHIM_ variable\n"
"  --table-owner USER  confirm the owner of another user's table (root)\n"
"  --shim PATH         the shim to mount (default " CPS_PKGLIBDIR "/libcpusetshim.so)\n"
"  --cgroup-sets       a container in no set whose runtime gave it fewer CPUs\n"
"                      than the machine's (a cpuset) is made a set of them\n"
"  --dry-run           say what would be done; mount nothing\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 done (or nothing to do), 1 refused (the image or the host\n"
"is not what it may be), 2 bad usage or state, 3 the table cannot be used.\n";

struct opts {
	const char *table;
	const char *shim;
	bool cgroup_sets;
	bool dry_run;
};

/* The hook's environment is its runtime's, which its caller may have
 * chosen: no variable of ours is taken from it (the table, its owner's
 * confirmation, the test seams). Only the options say. */
static void forget_env(void)
{
	extern char **environ;
	char name[64];
	for (size_t i = 0; environ && environ[i];) {
		const char *eq = strchr(environ[i], '=');
		size_t n = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		if (strncmp(environ[i], "CPUSETSHIM_", 11) || n >= sizeof(name)) {
			i++;
			continue;
		}
		memcpy(name, environ[i], n);
		name[n] = 0;
		unsetenv(name); /* environ moves down: i stays */
	}
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "table", required_argument, 0, 't' }, { "table-owner", required_argument, 0, 'O' },
		{ "shim", required_argument, 0, 's' },  { "cgroup-sets", no_argument, 0, 'g' },
		{ "dry-run", no_argument, 0, 'n' },     { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int ch;
	o->shim = CPS_PKGLIBDIR "/libcpusetshim.so";
	while ((ch = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		switch (ch) {
		case 't': o->table = optarg; break;
		case 's': o->shim = optarg; break;
		case 'g': o->cgroup_sets = true; break;
		case 'n': o->dry_run = true; break;
		case 'O':
			if (cli_table_owner(optarg))
				return OH_USAGE;
			break;
		case 'h': fputs(usage_text, stdout); exit(OH_OK);
		default: fputs("Try 'cpuset-oci-hook --help'.\n", stderr); return OH_USAGE;
		}
	}
	if (optind != argc) {
		cli_err("no arguments after the options (the state is on standard input)");
		return OH_USAGE;
	}
	return OH_OK;
}

/* All of fd, at most OH_JSON_MAX bytes, NUL-terminated; NULL if more. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap + 1);
	while (b) {
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k < 0)
				break;
			b[n] = 0;
			*len = n;
			return b;
		}
		n += (size_t)k;
		if (n == cap) {
			char *nb = cap < OH_JSON_MAX ? realloc(b, 2 * cap + 1) : NULL;
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
	}
	free(b);
	return NULL;
}

/* The state's pid and bundle. */
static int read_state(struct oh_container *c)
{
	static const char *const pid_key[] = { "pid", NULL }, *const bundle_key[] = { "bundle", NULL };
	size_t len;
	unsigned long pid;
	char *js = slurp(0, &len);
	if (!js) {
		cli_err("the state on standard input cannot be read (or is over %u bytes)", OH_JSON_MAX);
		return OH_USAGE;
	}
	int r = oj_uint(js, len, pid_key, 0x7fffffff, &pid);
	if (r == 0 && pid == 0)
		r = -EINVAL;
	if (r < 0) {
		cli_err("the state has no valid \"pid\" (%s): an OCI hook reads the container's state "
			"on standard input",
			r == -ENOENT ? "none" : strerror(-r));
		free(js);
		return OH_USAGE;
	}
	c->pid = (pid_t)pid;
	r = oj_string(js, len, bundle_key, c->bundle, sizeof(c->bundle));
	free(js);
	if (r < 0 && r != -ENOENT) {
		cli_err("the state's \"bundle\" is not a valid path (%s)", strerror(-r));
		return OH_USAGE;
	}
	return OH_OK;
}

/* The bundle's config.json: the root's path (relative to the bundle
 * unless absolute) and the process's uid. */
static int read_config(struct oh_container *c)
{
	static const char *const root_key[] = { "root", "path", NULL },
			  *const uid_key[] = { "process", "user", "uid", NULL };
	char rel[PATH_MAX];
	size_t len;
	if (!c->bundle[0]) {
		cli_err("container %d: the state names no bundle", (int)c->pid);
		return OH_USAGE;
	}
	int dfd = open(c->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : openat(dfd, "config.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *js = fd < 0 ? NULL : slurp(fd, &len);
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (!js) {
		cli_err("container %d: %s/config.json cannot be read: %s", (int)c->pid, c->bundle,
			strerror(err));
		return OH_USAGE;
	}
	int r = oj_string(js, len, root_key, rel, sizeof(rel));
	int u = oj_uint(js, len, uid_key, 0xfffffffeul, &c->uid);
	free(js);
	if (u == -ENOENT)
		c->uid = 0;
	if (r < 0 || !rel[0] || (u < 0 && u != -ENOENT)) {
		cli_err("container %d: its config.json has no valid root.path or process.user.uid",
			(int)c->pid);
		return OH_USAGE;
	}
	int n = rel[0] == '/' ? snprintf(c->root, sizeof(c->root), "%s", rel)
			      : snprintf(c->root, sizeof(c->root), "%s/%s", c->bundle, rel);
	if (n < 0 || (size_t)n >= sizeof(c->root)) {
		cli_err("container %d: its root's path is too long", (int)c->pid);
		return OH_USAGE;
	}
	return OH_OK;
}

/* The set of the container's first process: its own (registered, or by
 * ancestry in its session), else, when it leads a session of its own (a
 * runtime calls setsid for it), the set of the runtime that started it. */
static int which(struct cps_ctx *t, pid_t pid, uint32_t *set)
{
	struct cps_procinfo pi;
	int r = cps_which(t, pid, set);
	if (r < 0 || *set != t->t.root_id)
		return r;
	if (cps_proc_stat(pid, &pi) < 0 || pi.session != pid || pi.ppid <= 1)
		return 0;
	return cps_which(t, pi.ppid, set);
}

static bool mask_within(const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

static bool mask_empty(const uint64_t *a, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (a[i])
			return false;
	return true;
}

/* Its set and CPUs from the table (1: in a set; 0: in none), or an exit
 * code as a negative number. */
static int from_table(struct cps_ctx *t, struct oh_container *c)
{
	struct cps_placement pl;
	uint64_t aff[CPS_MAX_WORDS] = { 0 };
	int r = which(t, c->pid, &c->set);
	if (r == -ESRCH) {
		cli_err("container %d: no such process", (int)c->pid);
		return -OH_USAGE;
	}
	if (r == 0 && c->set == t->t.root_id)
		return 0;
	if (r == 0)
		r = cps_placement_read(&t->t, 0, 0, c->set, &pl);
	if (r < 0) {
		cli_err("container %d: its set cannot be read: %s", (int)c->pid,
			t->why ? t->why : strerror(-r));
		return -OH_TABLE;
	}
	memcpy(c->cpus, pl.cpus, c->nw * 8);
	memcpy(c->mems, pl.mems, c->nw * 8);
	c->mems_given = true;
	if (cps_kernel_affinity(c->pid, aff, c->nw) < 0 || !mask_within(aff, c->cpus, c->nw)) {
		/* the runtime put it elsewhere (a cpuset of its own): the set's
		 * numbers would name CPUs it does not run on */
		cli_err("container %d: in set %u (CPUs %s), but the kernel runs it on CPUs %s: not "
			"made a set",
			(int)c->pid, c->set, cli_cpulist(c->cpus, c->nw), cli_cpulist(aff, c->nw));
		return -OH_REFUSED;
	}
	return 1;
}

/* --cgroup-sets: a container in no set whose kernel affinity (its
 * runtime's cpuset) is fewer CPUs than the machine's; 1 if so. */
static int from_cgroup(struct cps_ctx *t, struct oh_container *c)
{
	struct cps_placement root;
	int r = cps_placement_read(&t->t, 0, 0, t->t.root_id, &root);
	if (r < 0 || cps_kernel_affinity(c->pid, c->cpus, c->nw) < 0)
		return 0;
	if (mask_empty(c->cpus, c->nw) || !mask_within(c->cpus, root.cpus, c->nw) ||
	    !memcmp(c->cpus, root.cpus, c->nw * 8))
		return 0;
	c->set = 0; /* no set of the table's: its own */
	return 1;
}

/* The container's process, or the runtime that started it (whose
 * environment it does not inherit: runc's init has one of its own), is
 * of cpuset-run's supervised tree. */
static bool supervised(pid_t pid)
{
	struct cps_procinfo pi;
	return sv_supervised(pid) || (cps_proc_stat(pid, &pi) == 0 && pi.ppid > 1 &&
				      sv_supervised(pi.ppid));
}

static int choose(const struct opts *o, struct oh_container *c)
{
	struct cps_ctx t;
	int r = cps_open(&t, o->table, CPS_OPEN_READ);
	if (r == -ENOENT && !o->cgroup_sets)
		return 0; /* no table: no set */
	if (r < 0 && r != -ENOENT) {
		cli_err("the table cannot be used: %s; refusing to start the container",
			t.why ? t.why : strerror(-r));
		return -OH_TABLE;
	}
	if (r == -ENOENT) {
		/* the machine's CPUs are the table's root's */
		cli_err("table %s: no such table: --cgroup-sets needs one ('cpuset init')", t.t.name);
		return -OH_TABLE;
	}
	c->nw = t.t.mask_words < CPS_MAX_WORDS ? t.t.mask_words : CPS_MAX_WORDS;
	c->mask_bits = (unsigned)c->nw * 64;
	r = from_table(&t, c);
	if (r == 0 && o->cgroup_sets)
		r = from_cgroup(&t, c);
	cps_close(&t);
	return r;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	static struct oh_container c;
	cli_init(argv[0]);
	forget_env();
	int r = parse(argc, argv, &o);
	if (r == OH_OK)
		r = read_state(&c);
	if (r != OH_OK)
		return r;
	if (supervised(c.pid)) {
		/* cpuset-run's supervisor answers for the runtime's whole tree:
		 * a shim inside would number the CPUs twice; nothing said, as
		 * under any outer supervisor */
		if (o.dry_run)
			printf("container %d: supervised by cpuset-run: nothing to do\n", (int)c.pid);
		return OH_OK;
	}
	r = choose(&o, &c);
	if (r <= 0) {
		if (r == 0 && o.dry_run)
			printf("container %d: in no set: nothing to do\n", (int)c.pid);
		return -r;
	}
	if (o.dry_run) {
		if (c.set)
			printf("container %d: in a set, CPUs %s: they would be its CPUs, numbered "
			       "from 0\n", (int)c.pid, cli_cpulist(c.cpus, c.nw));
		else
			printf("container %d: its runtime's cpuset, CPUs %s: they would be its CPUs, "
			       "numbered from 0\n", (int)c.pid, cli_cpulist(c.cpus, c.nw));
		return OH_OK;
	}
	if ((r = read_config(&c)) != OH_OK)
		return r;
	return oh_mount(&c, o.shim);
}
