/* SPDX-License-Identifier: BSD-3-Clause */
/* cpusetshim.so — a SPANK plugin: each task of a Slurm job runs in a CPU
 * set of exactly the CPUs Slurm bound it to, and sees them as 0..n-1.
 *
 * Enabled by one line of plugstack.conf:
 *     required cpusetshim.so [table=NAME] [default=MODE] [shim=PATH]
 * MODE (also srun's --cpusetshim=MODE): on (the automatic choice: a static
 * or Go program supervised, any other preloaded), preload, supervise[=calls],
 * off.
 *
 * Who does what (doc/slurm.md):
 *   slurm_spank_user_init  slurmstepd, as the job's user, once per step:
 *                          makes the user's table if missing (root = the
 *                          node's online CPUs) and sweeps what crashed
 *                          steps of the user's earlier jobs left;
 *   slurm_spank_task_init  the task itself, as the user, after the task
 *                          plugin set its final mask: the step's parent
 *                          set (grown to hold the task's CPUs), the task's
 *                          set of exactly its CPUs and of the memory
 *                          nodes Slurm gives it, attach, environment;
 *                          a supervised task forks its supervisor here
 *                          (the task's process becomes it; the program
 *                          runs as its grandchild);
 *   slurm_spank_task_exit  slurmstepd, as root: the task's set goes;
 *   slurm_spank_exit       slurmstepd, as root: every set of the step goes,
 *                          busy ones retried and swept; then the user's
 *                          table too, when it holds nothing but the root
 *                          (the user's last job on the node has ended).
 * Every failure is logged through Slurm. A task that cannot be put in its
 * set fails (with "required", Slurm does not run it unvirtualised).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "slurm/membind.h"
#include "slurm/plugin.h"
#include "src/allowance.h"
#include "src/ldpreload.h"
#include "src/mask.h"
#include "src/nodes.h"
#include "src/sets.h"
#include "supervise/supervise.h"

#ifndef SLURM_EXTERN_CONT
#define SLURM_EXTERN_CONT 0xfffffffcu
#endif
#ifndef SLURM_BATCH_SCRIPT
#define SLURM_BATCH_SCRIPT 0xfffffffbu
#endif
#ifndef SLURM_INTERACTIVE_STEP
#define SLURM_INTERACTIVE_STEP 0xfffffffau
#endif

SPANK_PLUGIN(cpusetshim, 1);

/* What a task gets: nothing, the automatic choice (the supervisor for a
 * static or Go program, else the preload), the preload alone, or the
 * supervisor in files or calls mode */
enum { RM_OFF, RM_AUTO, RM_PRELOAD, RM_SUPERVISE, RM_SUPERVISE_CALLS };
static int default_mode = RM_AUTO;
static int chosen = -1; /* --cpusetshim: -1 not given, else an RM_ */
/* table=NAME: the tables are NAME.<uid>; by default each user's own
 * default table, cpusetshim.<uid>, which every process of the user finds
 * without CPUSETSHIM_TABLE (ranks that mpirun starts, daemons) */
static char table_base[64] = "cpusetshim";
static char shim_path[PATH_MAX] = CPS_PKGLIBDIR "/libcpusetshim.so";

#define MODES "on, off, preload, supervise or supervise=calls"

static int parse_mode(const char *v)
{
	if (!v || !strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "auto"))
		return RM_AUTO;
	if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "0"))
		return RM_OFF;
	if (!strcmp(v, "preload"))
		return RM_PRELOAD;
	if (!strcmp(v, "supervise") || !strcmp(v, "supervise=files"))
		return RM_SUPERVISE;
	if (!strcmp(v, "supervise=calls"))
		return RM_SUPERVISE_CALLS;
	return -1;
}

static int opt_cb(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	int v = parse_mode(arg);
	if (v < 0) {
		slurm_error(TAG "--cpusetshim=%s: say " MODES, arg);
		return -1;
	}
	chosen = v;
	return 0;
}

static struct spank_option opt_cpusetshim = {
	"cpusetshim", "on|off|preload|supervise[=calls]",
	"Run each task in a CPU set of exactly the CPUs Slurm gives it, numbered 0..n-1 "
	"(cpusetshim). on: a static or Go program under a supervisor, any other with the "
	"preload; preload, supervise: that way always; off: the tasks see the machine's "
	"CPU numbers.",
	1, 0, opt_cb
};

static int mode(void)
{
	return chosen >= 0 ? chosen : default_mode;
}

static bool enabled(void)
{
	return mode() != RM_OFF;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "table=", 6)) {
			const char *n = av[i] + 6;
			bool ok = *n && strlen(n) < sizeof(table_base) - 12;
			for (const char *p = n; ok && *p; p++)
				ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
			if (!ok) {
				slurm_error(TAG "table=%s: a name of letters, digits, '.', '_' and '-', "
					    "up to %zu characters", n, sizeof(table_base) - 13);
				return -1;
			}
			strcpy(table_base, n);
		} else if (!strncmp(av[i], "default=", 8)) {
			int v = parse_mode(av[i] + 8);
			if (v < 0) {
				slurm_error(TAG "%s: say default= " MODES, av[i]);
				return -1;
			}
			default_mode = v;
		} else if (!strncmp(av[i], "shim=", 5) && av[i][5] == '/' &&
			   strlen(av[i] + 5) < sizeof(shim_path)) {
			strcpy(shim_path, av[i] + 5);
		} else {
			slurm_error(TAG "unknown argument '%s' in plugstack.conf (table=NAME, "
				    "default=MODE, shim=/PATH)", av[i]);
			return -1;
		}
	}
	spank_context_t ctx = spank_context();
	if ((ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE) &&
	    spank_option_register(sp, &opt_cpusetshim) != ESPANK_SUCCESS) {
		slurm_error(TAG "cannot register the --cpusetshim option");
		return -1;
	}
	return 0;
}

/* ---- the job's facts and names ---- */

static void step_word(char *buf, size_t len, uint32_t step)
{
	if (step == SLURM_BATCH_SCRIPT)
		snprintf(buf, len, "batch");
	else if (step == SLURM_INTERACTIVE_STEP)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", step);
}

/* The step's facts; task ones only in a task context. 1: a step the
 * plugin leaves alone (the extern step), 0: go on, -1: failure. */
static int step_of(spank_t sp, struct step *s, bool task)
{
	char w[16];
	memset(s, 0, sizeof(*s));
	if (spank_get_item(sp, S_JOB_ID, &s->job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &s->step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &s->uid) != ESPANK_SUCCESS) {
		slurm_error(TAG "cannot get the job's id, step or user from Slurm");
		return -1;
	}
	if (s->step == SLURM_EXTERN_CONT)
		return 1;
	if (task && spank_get_item(sp, S_TASK_GLOBAL_ID, &s->task) != ESPANK_SUCCESS) {
		slurm_error(TAG "cannot get the task's id from Slurm");
		return -1;
	}
	/* one table per user: a shared writable table is one trust domain */
	snprintf(s->table, sizeof(s->table), "%s.%u", table_base, (unsigned)s->uid);
	step_word(w, sizeof(w), s->step);
	snprintf(s->parent, sizeof(s->parent), "slurm.%u.%s", s->job, w);
	snprintf(s->tname, sizeof(s->tname), "slurm.%u.%s.%u", s->job, w, s->task);
	return 0;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct step s;
	struct cps_ctx c;
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !enabled() || step_of(sp, &s, false) != 0)
		return 0;
	int r = plugin_table_open(&c, s.table, s.uid, true);
	if (r < 0) {
		slurm_error(TAG "cannot open or make table %s: %s", s.table, plugin_why(&c, r));
		return 0; /* each task fails on its own below */
	}
	plugin_sweep_stale(&c, s.job);
	cps_close(&c);
	return 0;
}

/* ---- the task's set ---- */

/* LD_PRELOAD of the task with the shim first, once (a sanitizer runtime
 * stays first, as cpuset-run keeps it). */
static int set_preload(spank_t sp)
{
	char old[4096], buf[8192];
	if (spank_getenv(sp, "LD_PRELOAD", old, sizeof(old)) != ESPANK_SUCCESS)
		old[0] = 0;
	if (cps_preload_build(buf, sizeof(buf), old, shim_path) < 0)
		return -1;
	return spank_setenv(sp, "LD_PRELOAD", buf, 1) == ESPANK_SUCCESS ? 0 : -1;
}

/* --cpusetshim=off: nothing of a set the submitter was in reaches the task. */
static void strip_env(spank_t sp)
{
	char old[4096], buf[4096];
	size_t n = 0;
	spank_unsetenv(sp, "CPUSETSHIM_SET");
	spank_unsetenv(sp, "CPUSETSHIM_RUN_SET");
	spank_unsetenv(sp, "CPUSETSHIM_SUPERVISED");
	if (spank_getenv(sp, "LD_PRELOAD", old, sizeof(old)) != ESPANK_SUCCESS)
		return;
	for (const char *p = old; *p;) {
		size_t l = strcspn(p, ": ");
		if (l && !cps_preload_is_shim(p, l, NULL)) {
			if (n)
				buf[n++] = ':';
			memcpy(buf + n, p, l);
			n += l;
		}
		p += l + (p[l] != 0);
	}
	buf[n] = 0;
	if (n)
		spank_setenv(sp, "LD_PRELOAD", buf, 1);
	else
		spank_unsetenv(sp, "LD_PRELOAD");
}

/* The step's parent set, holding at least cpus: made by the first task,
 * grown by the others. Returns its id, 0 to try again, or -errno. */
static long step_parent(struct cps_ctx *c, const struct step *s, const uint64_t *cpus)
{
	size_t nw = c->t.mask_words;
	uint32_t id;
	struct cps_setinfo si;
	int r = cps_find(c, s->parent, &id);
	if (r == -ENOENT) {
		r = cps_create(c, c->t.root_id, 0, s->parent, cpus, &id);
		if (r == -EEXIST || r == -EBUSY)
			return 0;
		return r < 0 ? r : (long)id;
	}
	if (r < 0)
		return r;
	if ((r = cps_set_get(c, id, &si)) < 0)
		return 0;
	if (cps_mask_subset(cpus, si.cpus, nw))
		return (long)id;
	uint64_t grown[CPS_MAX_WORDS];
	cps_mask_or(grown, si.cpus, cpus, nw);
	r = cps_alloc(c, id, grown);
	/* another task changed it meanwhile, or it went: look again */
	if (r == -EBUSY || r == -EINVAL)
		return 0;
	return r < 0 ? r : (long)id;
}

/* Whether the task's program gets the supervisor, and in which mode:
 * asked for, or chosen as cpuset-run chooses (*kind: why). The program is
 * looked for in the task's PATH, as Slurm's exec finds it. */
static enum sv_mode task_sv_mode(spank_t sp, const char **kind)
{
	int argc = 0;
	char **argv = NULL, path[4096];
	*kind = NULL;
	switch (mode()) {
	case RM_PRELOAD: return SV_OFF;
	case RM_SUPERVISE: return SV_FILES;
	case RM_SUPERVISE_CALLS: return SV_CALLS;
	default: break;
	}
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc < 1 || !argv ||
	    !argv[0])
		return SV_OFF;
	if (spank_getenv(sp, "PATH", path, sizeof(path)) != ESPANK_SUCCESS || !path[0])
		snprintf(path, sizeof(path), "/usr/local/bin:/usr/bin:/bin");
	*kind = sv_prog_kind(argv[0], path);
	return *kind ? SV_FILES : SV_OFF;
}

/* The task's environment, as cpuset-run leaves it: CPUSETSHIM_TABLE,
 * CPUSETSHIM_RUN_SET (the set of descendants that lose their ancestry:
 * daemons, reparented to init), no CPUSETSHIM_SET; the shim first in
 * LD_PRELOAD, or, supervised, CPUSETSHIM_SUPERVISED (a shim loaded below
 * the supervisor stands aside). */
static int task_env(spank_t sp, const struct cps_ctx *c, uint32_t id, enum sv_mode sv)
{
	char ids[16];
	snprintf(ids, sizeof(ids), "%u", id);
	if (spank_setenv(sp, "CPUSETSHIM_TABLE", c->t.name, 1) ||
	    spank_unsetenv(sp, "CPUSETSHIM_SET") || spank_setenv(sp, "CPUSETSHIM_RUN_SET", ids, 1))
		return -1;
	if (sv != SV_OFF)
		return spank_setenv(sp, "CPUSETSHIM_SUPERVISED", sv == SV_FILES ? "files" : "calls",
				    1) == ESPANK_SUCCESS ? 0 : -1;
	spank_unsetenv(sp, "CPUSETSHIM_SUPERVISED");
	return set_preload(sp);
}

static void say_slurm(const char *msg)
{
	slurm_error(TAG "%s", msg);
}

/* The task's process becomes the supervisor of its program: the program's
 * process returns (0: Slurm execs the program in it, under the filter);
 * the supervisor ends as the program did, never returning to Slurm, which
 * waits for it as the task. If it dies, its keeper kills the tree (and
 * the keeper's warden if the keeper dies). */
static int task_supervise(struct cps_ctx *c, const struct step *s, uint32_t id, enum sv_mode sv,
			  const char *kind)
{
	int status = 0, sig = 0;
	char name[64];
	snprintf(name, sizeof(name), "task %u", s->task);
	slurm_verbose(TAG "task %u: %s: supervised in %s mode", s->task, kind ? kind : "asked for",
		      sv == SV_FILES ? "files" : "calls");
	sv_set_say(say_slurm);
	int r = sv_start(c, id, sv, name, &status, &sig);
	if (r == 0) {
		cps_close(c);
		return 0;
	}
	if (r > 0) {
		/* the tree has ended: the supervisor leaves its set (made for
		 * the task alone, it goes) and ends as the program did */
		cps_leave(c);
		cps_close(c);
		sv_exit_as(status, sig);
	}
	slurm_error(TAG "task %u: cannot start its supervisor: %s", s->task, strerror(-r));
	cps_leave(c);
	cps_destroy(c, id);
	cps_close(c);
	return -1;
}

/* The task's memory nodes (cps_membind_choose): what Slurm binds it to
 * (SLURM_MEM_BIND), else its Slurm cgroup's nodes (task/cgroup), else the
 * nodes of its CPUs (auto). nodes: the list's storage; *from says which,
 * for the log. -1: refused, and logged. */
static int task_mems(spank_t sp, const struct step *s, size_t nw, uint64_t *nodes,
		     struct cps_mems *m, const char **from)
{
	char v[4096], why[300], path[4096];
	uint64_t machine[CPS_MAX_WORDS], bound[CPS_MAX_WORDS], cg[CPS_MAX_WORDS];
	uint32_t local = 0;
	spank_err_t e = spank_getenv(sp, "SLURM_MEM_BIND", v, sizeof(v));
	if (e != ESPANK_SUCCESS && e != ESPANK_ENV_NOEXIST) {
		slurm_error(TAG "task %u: cannot read SLURM_MEM_BIND: %s", s->task, spank_strerror(e));
		return -1;
	}
	spank_get_item(sp, S_TASK_ID, &local);
	cps_mask_zero(machine, CPS_MAX_WORDS);
	if (cps_machine_mems(machine, nw) < 0)
		cps_mask_set(machine, nw, 0); /* node 0 holds all memory without NUMA */
	cps_mask_zero(bound, CPS_MAX_WORDS);
	int r = cps_membind_parse(e == ESPANK_SUCCESS ? v : NULL, local, bound, nw, why, sizeof(why));
	cps_mask_zero(cg, CPS_MAX_WORDS);
	bool in_cg = r == CPS_MEMBIND_UNSAID && cps_cgroup_mems(cg, nw, path, sizeof(path)) == 0;
	if (r >= 0)
		r = cps_membind_choose(r, bound, in_cg ? path : NULL, cg, machine, nw, nodes, from, why,
				       sizeof(why));
	if (r < 0) {
		slurm_error(TAG "task %u: SLURM_MEM_BIND: %s", s->task, why);
		return -1;
	}
	*m = (struct cps_mems){ (unsigned)r, r == CPS_MEMS_LIST ? nodes : NULL };
	return 0;
}

/* The task's CPUs (the mask Slurm gave its process) in the step's table,
 * opened (made if need be) in c. -1: refused, and logged. */
static int task_open_cpus(const struct step *s, struct cps_ctx *c, uint64_t *cpus)
{
	size_t bytes = CPU_ALLOC_SIZE(CPS_MAX_CPUS);
	cpu_set_t *cs = CPU_ALLOC(CPS_MAX_CPUS);
	if (!cs || sched_getaffinity(0, bytes, cs) < 0) {
		slurm_error(TAG "task %u: cannot read its CPUs: %m", s->task);
		CPU_FREE(cs);
		return -1;
	}
	int r = plugin_table_open(c, s->table, s->uid, true);
	if (r < 0) {
		slurm_error(TAG "task %u: cannot open or make table %s: %s", s->task, s->table,
			    plugin_why(c, r));
		CPU_FREE(cs);
		return -1;
	}
	cps_mask_zero(cpus, CPS_MAX_WORDS);
	bool fits = cps_mask_from_cpuset(cpus, c->t.mask_words, cs, bytes) == 0;
	CPU_FREE(cs);
	if (!fits) {
		slurm_error(TAG "task %u: a CPU of its mask is beyond table %s's width", s->task,
			    s->table);
		cps_close(c);
		return -1;
	}
	return 0;
}

/* One round of the task's joining: the step's set, the task's set in it,
 * the task attached. 0 done; else the error, *stop set when another
 * round cannot help. *what names the step a failure was in. */
static int task_join_once(struct cps_ctx *c, const struct step *s, const uint64_t *cpus,
			  const struct cps_mems *mems, uint32_t *id, const char **what, bool *stop)
{
	*what = "make the step's set";
	long p = step_parent(c, s, cpus);
	if (p < 0) {
		*stop = p == -EACCES || p == -ENOSPC || p == -EPERM;
		return (int)p;
	}
	if (p == 0)
		return -EAGAIN;
	*what = "make the task's set";
	int r = cps_create_mems(c, (uint32_t)p, CPS_AUTOCLEAN, s->tname, cpus, mems, id);
	if (r == -EEXIST) {
		/* a set of that name left by a requeued run of the job */
		uint32_t old;
		if (cps_find(c, s->tname, &old) == 0)
			cps_destroy(c, old);
		return r;
	}
	if (r == -EACCES || r == -EINVAL || r == -EBUSY)
		return r; /* the parent moved under us */
	if (r < 0) {
		*stop = true;
		return r;
	}
	*what = "attach the task";
	r = cps_attach(c, *id, 0);
	if (r == 0 && !plugin_table_still_ours(s, *id)) {
		/* the user's last step ended meanwhile and removed the table
		 * we had open: again, in the table of that name */
		cps_close(c);
		r = plugin_table_open(c, s->table, s->uid, true);
		if (r < 0) {
			*stop = true;
			return r;
		}
		*what = "make the step's set";
		return -EAGAIN;
	}
	return r; /* -EINVAL: the set went (a sweep took it before we came) */
}

/* The task in a set of its own under the step's: tasks of the step race
 * for its parent set, and a few rounds settle it. 0, or -1 logged (c
 * closed). */
static int task_join(struct cps_ctx *c, const struct step *s, const uint64_t *cpus,
		     const struct cps_mems *mems, uint32_t *id)
{
	const char *what = "make the step's set";
	bool stop = false;
	int r = -EAGAIN;
	for (int tries = 0; tries < 200 && r < 0 && !stop; tries++) {
		if (tries)
			pause_ms(tries < 20 ? 1 : 10);
		r = task_join_once(c, s, cpus, mems, id, &what, &stop);
	}
	if (r < 0) {
		slurm_error(TAG "task %u: cannot %s in table %s: %s", s->task, what, s->table,
			    plugin_why(c, r));
		cps_close(c);
		return -1;
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct step s;
	struct cps_ctx c;
	uint64_t cpus[CPS_MAX_WORDS], nodes[CPS_MAX_WORDS];
	struct cps_mems mems;
	const char *mfrom;
	uint32_t id = 0;
	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return 0;
	if (!enabled()) {
		strip_env(sp);
		return 0;
	}
	int r = step_of(sp, &s, true);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (task_open_cpus(&s, &c, cpus) < 0)
		return -1;
	cps_mask_zero(nodes, CPS_MAX_WORDS);
	if (task_mems(sp, &s, c.t.mask_words, nodes, &mems, &mfrom) < 0) {
		cps_close(&c);
		return -1;
	}
	if (task_join(&c, &s, cpus, &mems, &id) < 0)
		return -1;
	const char *kind = NULL;
	enum sv_mode sv = task_sv_mode(sp, &kind);
	if (task_env(sp, &c, id, sv) < 0) {
		slurm_error(TAG "task %u: cannot set the task's environment", s.task);
		cps_leave(&c);
		cps_destroy(&c, id);
		cps_close(&c);
		return -1;
	}
	slurm_debug(TAG "task %u in set %s (id %u) of table %s, memory nodes from %s", s.task,
		    s.tname, id, s.table, mfrom);
	if (sv != SV_OFF)
		return task_supervise(&c, &s, id, sv, kind);
	cps_close(&c);
	return 0;
}

/* ---- cleanup (the sets and the table: slurm/user_table.c) ---- */

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	struct step s;
	struct cps_ctx c;
	uint32_t id;
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !enabled() || step_of(sp, &s, true) != 0)
		return 0;
	int r = plugin_table_open(&c, s.table, s.uid, false);
	if (r < 0)
		return 0; /* nothing was made */
	/* the task is dead and reaped: its set goes now, unless something it
	 * started lives on (then at the step's end) */
	if (cps_find(&c, s.tname, &id) == 0 && (r = cps_destroy(&c, id)) < 0 && r != -EBUSY &&
	    r != -EINVAL)
		slurm_error(TAG "task %u: cannot destroy set %s: %s", s.task, s.tname, plugin_why(&c, r));
	cps_close(&c);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	struct step s;
	struct cps_ctx c;
	(void)ac;
	(void)av;
	if (!spank_remote(sp) || !enabled() || step_of(sp, &s, false) != 0)
		return 0;
	if (plugin_table_open(&c, s.table, s.uid, false) < 0)
		return 0;
	/* processes the tasks left behind are being killed by Slurm: retry
	 * for a few seconds, sweeping the dead out each time */
	for (int tries = 0; tries < 60; tries++) {
		if (tries) {
			pause_ms(50);
			cps_sweep(&c);
		}
		if (plugin_step_destroy(&c, &s, tries == 59) == 0)
			break;
	}
	plugin_table_remove_unused(&c);
	cps_close(&c);
	return 0;
}
