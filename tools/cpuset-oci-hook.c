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
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "src/allowance.h"
#include "src/cpulist.h"
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

/* An optional string of config.json read (r, from oj_string): "" when
 * absent. */
static int optional(int r, char *s)
{
	if (r == -ENOENT)
		s[0] = 0;
	return r == -ENOENT ? 0 : r;
}

/* The bundle's config.json: the root's path (relative to the bundle
 * unless absolute), the process's uid and the container's own cpuset
 * (linux.resources.cpu.cpus and .mems). Read once. */
static int read_config(struct oh_container *c)
{
	static const char *const root_key[] = { "root", "path", NULL },
			  *const uid_key[] = { "process", "user", "uid", NULL },
			  *const cpus_key[] = { "linux", "resources", "cpu", "cpus", NULL },
			  *const mems_key[] = { "linux", "resources", "cpu", "mems", NULL };
	char rel[PATH_MAX];
	size_t len;
	if (c->config_read)
		return OH_OK;
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
	int k = optional(oj_string(js, len, cpus_key, c->cpuset, sizeof(c->cpuset)), c->cpuset);
	int m = optional(oj_string(js, len, mems_key, c->memlist, sizeof(c->memlist)), c->memlist);
	free(js);
	if (u == -ENOENT)
		c->uid = 0;
	if (r < 0 || !rel[0] || (u < 0 && u != -ENOENT) || k < 0 || m < 0) {
		cli_err("container %d: its config.json has no valid root.path, process.user.uid, "
			"linux.resources.cpu.cpus or linux.resources.cpu.mems",
			(int)c->pid);
		return OH_USAGE;
	}
	int n = rel[0] == '/' ? snprintf(c->root, sizeof(c->root), "%s", rel)
			      : snprintf(c->root, sizeof(c->root), "%s/%s", c->bundle, rel);
	if (n < 0 || (size_t)n >= sizeof(c->root)) {
		cli_err("container %d: its root's path is too long", (int)c->pid);
		return OH_USAGE;
	}
	c->config_read = true;
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

/* Its set's CPUs and nodes, or those its own cpuset names through them
 * (the runtime wrote those lists as physical: oh_cpuset makes them the
 * set's). */
static int set_cpus(struct oh_container *c, const struct cps_placement *pl,
		    enum oh_cpuset_mode mode)
{
	int r = mode == OH_CPUSET_DRY ? OH_OK : read_config(c); /* a dry run reads no bundle */
	if (r != OH_OK)
		return -r;
	memcpy(c->cpus, pl->cpus, c->nw * 8);
	memcpy(c->mems, pl->mems, c->nw * 8);
	c->mems_given = true;
	r = oh_cpuset(c, pl->cpus, pl->mems, mode);
	return r < 0 ? r : 0;
}

/* Its set and CPUs from the table (1: in a set; 0: in none), or an exit
 * code as a negative number. */
static int from_table(struct cps_ctx *t, struct oh_container *c, enum oh_cpuset_mode mode)
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
	if ((r = set_cpus(c, &pl, mode)) < 0)
		return r;
	if (mode != OH_CPUSET_APPLY)
		return 1; /* the supervisor answers the affinity calls; a dry run
			   * has not moved it */
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

/* The CPUs of process pid as its /proc status shows them: under
 * cpuset-run's supervisor the hook's own affinity calls are answered in
 * the set's numbers, another process's status is the kernel's. */
static int status_cpus(pid_t pid, uint64_t *m, size_t nw)
{
	char path[64], line[8192];
	struct cps_parse_error pe;
	int r = -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	while (f && r == -ENOENT && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			line[strcspn(line, "\n")] = 0;
			r = cps_cpulist_parse(line + 18 + strspn(line + 18, " \t"), m, nw, &pe);
		}
	if (f)
		fclose(f);
	return r < 0 ? r : 0;
}

/* A container in no set of the table: its own cpuset, when it names
 * one, is in the CPUs of its runtime, when they are fewer than the
 * machine's (podman's conmon, a daemon, is in no set: the CPUs of the
 * set podman was started in reach the hook as the runtime's affinity
 * only); 1 done. Else, with --cgroup-sets, a container whose kernel
 * affinity (its runtime's cpuset) is fewer CPUs than the machine's is a
 * set of them; 1 if so. Under the supervisor the first only. */
static int from_cgroup(struct cps_ctx *t, struct oh_container *c, enum oh_cpuset_mode mode)
{
	struct cps_placement root;
	struct cps_procinfo pi;
	uint64_t rt[CPS_MAX_WORDS] = { 0 };
	int r = cps_placement_read(&t->t, 0, 0, t->t.root_id, &root);
	if (r < 0)
		return 0;
	if (cps_proc_stat(c->pid, &pi) == 0 && pi.ppid > 1 &&
	    (mode == OH_CPUSET_SUPERVISED ? status_cpus(pi.ppid, rt, c->nw)
					  : cps_kernel_affinity(pi.ppid, rt, c->nw)) == 0 &&
	    !mask_empty(rt, c->nw) && mask_within(rt, root.cpus, c->nw) &&
	    memcmp(rt, root.cpus, c->nw * 8)) {
		if (mode != OH_CPUSET_DRY && (r = read_config(c)) != OH_OK)
			return -r;
		if ((r = oh_cpuset(c, rt, NULL, mode)) != 0) {
			c->set = 0;
			return r < 0 ? r : 1;
		}
	}
	if (mode == OH_CPUSET_SUPERVISED || cps_kernel_affinity(c->pid, c->cpus, c->nw) < 0)
		return 0;
	if (mask_empty(c->cpus, c->nw) || !mask_within(c->cpus, root.cpus, c->nw) ||
	    !memcmp(c->cpus, root.cpus, c->nw * 8))
		return 0;
	c->set = 0; /* no set of the table's: its own */
	return 1;
}

/* The container's process, or the runtime that started it (whose
 * environment it does not inherit: runc's init has one of its own), is
 * of cpuset-run's supervised tree; or the hook itself is, in a tree
 * whose environment its runtime dropped (podman gives conmon a few
 * variables of its own): a seccomp filter refuses it openat2 with
 * ENOSYS, as the supervisor's does (supervise/filter.c). */
static bool supervised(pid_t pid)
{
	struct cps_procinfo pi;
	if (sv_supervised(pid) || (cps_proc_stat(pid, &pi) == 0 && pi.ppid > 1 &&
				   sv_supervised(pi.ppid)))
		return true;
	char line[256];
	bool filtered = false;
	FILE *f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			filtered = strtol(line + 8, NULL, 10) == 2;
	if (f)
		fclose(f);
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };
	long fd = filtered ? syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how)) : 0;
	if (fd > 0)
		close((int)fd);
	return filtered && fd < 0 && errno == ENOSYS;
}

static int choose(const struct opts *o, struct oh_container *c, enum oh_cpuset_mode mode)
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
	r = from_table(&t, c, mode);
	if (r == 0 && (o->cgroup_sets || mode == OH_CPUSET_SUPERVISED))
		r = from_cgroup(&t, c, mode);
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
		 * under any outer supervisor. The container's own cpuset is
		 * still made the set's CPUs. */
		if (o.dry_run) {
			printf("container %d: supervised by cpuset-run: nothing to do\n", (int)c.pid);
			return OH_OK;
		}
		r = choose(&o, &c, OH_CPUSET_SUPERVISED);
		return r < 0 ? -r : OH_OK;
	}
	r = choose(&o, &c, o.dry_run ? OH_CPUSET_DRY : OH_CPUSET_APPLY);
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
