/* SPDX-License-Identifier: BSD-3-Clause */
/* Set-up, fork and ancestry: the shim's state (the open table, its own
 * pid and start time, the set it falls back to), made at the first call
 * that needs the table (shim_ready), again in a forked child, and the
 * walk up the ancestry that finds the set of a process with no record. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/setcopy.h"
#include "src/allowance.h"
#include "src/cpulist.h"
#include "preload/shim.h"
#include "src/rawsys.h"
#include "src/views.h"
#include "src/procfs.h"

int shim_state;               /* ST_* */
static bool debug;
bool shim_wrap = true;
struct cps_ctx shim_ctx;      /* the table, writable if we may */
pid_t shim_self_pid;
uint64_t shim_self_start;
uint32_t shim_fallback_set;   /* parent's or $CPUSETSHIM_SET */
long shim_tid_offset = -1;    /* of the tid inside struct pthread, if found */
static pid_t setup_pid;         /* process whose thread runs setup() */
/* The thread running setup(), so that it passes its own calls through. */
static __thread __attribute__((tls_model("initial-exec"))) bool in_setup;

void shim_debug(const char *fmt, ...)
{
	if (!debug)
		return;
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "cpusetshim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	ssize_t w = write(2, buf, (size_t)n);
	(void)w;
}


/* glibc has no pthread_t -> tid call before 2.42; its struct pthread holds
 * the tid at a fixed offset that we find by looking for our own tid. Only
 * an unambiguous single match is trusted. */
static void find_tid_offset(void)
{
	const pid_t *p = (const pid_t *)(void *)pthread_self();
	pid_t tid = shim_gettid();
	long found = -1;
	for (long i = 0; i < 1024 / (long)sizeof(pid_t); i++) {
		if (p[i] == tid) {
			if (found >= 0)
				return;
			found = i;
		}
	}
	shim_tid_offset = found;
}

pid_t shim_tid_of(pthread_t th)
{
	if (pthread_equal(th, pthread_self()))
		return shim_gettid();
	if (shim_tid_offset < 0)
		return 0;
	return ((const pid_t *)(void *)th)[shim_tid_offset];
}

static void after_fork_child(void)
{
	shim_affinity_forked();
	if (shim_state != ST_READY)
		return;
	struct cps_procinfo pi;
	uint32_t set = shim_setcopy.valid ? shim_setcopy.s.set : 0;
	shim_self_pid = getpid();
	shim_ctx.self = shim_self_pid;
	if (cps_proc_stat(shim_self_pid, &pi) == 0)
		shim_self_start = pi.start;
	shim_fallback_set = set;
	pthread_mutex_init(&shim_refresh_lock, NULL);
	/* A table truncated under the parent reads zeros: the child keeps the
	 * parent's set copy, as the parent does (nothing to register in) */
	if (shm_table_lost(&shim_ctx.t))
		return;
	int was_valid = shim_setcopy.valid;
	uint64_t one_phys = shim_setcopy.one_phys;
	shim_setcopy.valid = 0;
	shim_setcopy.one_phys = 0; /* the fast case waits for a copy of its own */
	if (shim_ctx.t.writable && set && set != shim_ctx.t.root_id) {
		shim_ctx.t.lock_wait_ms = 0; /* never wait: see setup() */
		cps_register(&shim_ctx, shim_self_pid, set);
		shim_ctx.t.lock_wait_ms = SHIM_RECORD_WAIT_MS;
	shim_ctx.t.lock_queue_ms = 0; /* its waits stay bounded in all */
	}
	/* the table lost meanwhile (truncated while we registered), or not
	 * readable now: the parent's copy, the same set, stays */
	if (!shim_refresh(false) && was_valid) {
		shim_setcopy.one_phys = one_phys;
		__atomic_store_n(&shim_setcopy.valid, was_valid, __ATOMIC_RELEASE);
	}
}

/* A writer died inside the table: repair it if we may write the table
 * (the lock is the dead writer's, so this never waits), else say so once.
 * True if the table was repaired. */
bool shim_repair_dead_writer(void)
{
	if (shim_ctx.t.writable && cps_repair(&shim_ctx) >= 0)
		return true;
	shim_debug("a writer died inside table %s: run 'cpuset repair'%s", shim_ctx.t.name,
		   shim_ctx.why ? "" : " (this process may not write the table)");
	return false;
}

/* cps_placement_read for set-up. A live writer inside the table does not
 * make it wait: what that writer has not committed is read through the
 * undo journal (so a process started in a set by $CPUSETSHIM_SET is
 * confined to it even while a writer is stopped inside). A dead writer
 * is seen at once: repaired (then read again) when we may write the
 * table, else read through the same way, and reported. -EAGAIN (a journal
 * that keeps moving) is retried for up to about two seconds. */
int shim_placement_wait(pid_t pid, uint64_t start, uint32_t fallback, struct cps_placement *s)
{
	struct timespec ts = { 0, 1000000 };
	int r;
	bool repaired = false;
	for (int i = 0; i < 2000; i++) {
		r = cps_placement_read(&shim_ctx.t, pid, start, fallback, s);
		if (r == -EOWNERDEAD && !repaired) {
			repaired = true;
			if (shim_repair_dead_writer())
				continue;
		}
		if (r == -EOWNERDEAD) /* may not repair: what was committed */
			r = cps_placement_read_committed(&shim_ctx.t, pid, start, fallback, s);
		if (r != -EAGAIN)
			break;
		nanosleep(&ts, NULL);
	}
	return r;
}

/* Set of pid by its record, else its nearest ancestor's: the rule of
 * cps_which() (through processes of our session, an ancestor whose record
 * is of our user), without the owner checks it makes. 0: no record
 * matched (the root). Each process without a record costs one read of
 * its /proc/PID/stat, so a table with no members answers at once. */
static uint32_t ancestry_set(pid_t pid)
{
	if (__atomic_load_n(&shim_ctx.t.h->nprocs, __ATOMIC_RELAXED) == 0)
		return 0;
	pid_t sid = getsid(0);
	for (int depth = 0; pid > 1 && depth < 256; depth++) {
		struct cps_procinfo pi;
		if (cps_proc_stat(pid, &pi) < 0 || pi.session != sid)
			return 0;
		/* a record of pid with this start time, in a set that exists:
		 * cps_placement_read answers the root otherwise (no record is ever
		 * kept for the root itself) */
		struct cps_placement tmp;
		long k = shm_proc_find(&shim_ctx.t, pid);
		if (k >= 0 && shim_placement_wait(pid, pi.start, 0, &tmp) == 0 &&
		    tmp.set != shim_ctx.t.root_id) {
			uint32_t uid = __atomic_load_n(&shm_proc_at(&shim_ctx.t, (uint32_t)k)->uid,
						       __ATOMIC_RELAXED);
			return uid == (uint32_t)getuid() || uid == (uint32_t)geteuid() ? tmp.set : 0;
		}
		pid = pi.ppid;
	}
	return 0;
}

/* Set-up runs at the first call that needs the table, not at load: a
 * program that never asks about CPUs (most commands a job script runs)
 * pays only for loading the library. The set of a process is its own
 * record, else its nearest registered ancestor's (as the tools see it),
 * else $CPUSETSHIM_SET, else $CPUSETSHIM_RUN_SET, else the root. */
/* May the set named by the environment be adopted? confine: the set came
 * from CPUSETSHIM_SET, which puts the process in it (as attach would, but
 * only ever narrowing its kernel mask). True when the kernel mask now lies
 * inside the set's CPUs; else CPUSETSHIM_DEBUG says why. */
static bool adopt_checked(uint32_t set, bool confine)
{
	struct cps_setinfo si;
	uint64_t k[CPS_MAX_WORDS], both[CPS_MAX_WORDS];
	char lk[128], ls[128];
	size_t nw = shim_ctx.t.mask_words;
	if (cps_set_get(&shim_ctx, set, &si) < 0 || cps_kernel_affinity(0, k, nw) < 0) {
		shim_debug("passing through: cannot read set %u or the kernel mask", set);
		return false;
	}
	if (confine) {
		cps_mask_and(both, si.cpus, k, nw);
		if (!cps_mask_empty(both, nw) && !cps_mask_equal(both, k, nw)) {
			SHIM_KEEP_ERRNO;
			if (shim_real.sched_setaffinity(0, nw * 8, (const cpu_set_t *)(void *)both) < 0)
				shim_debug("cannot confine to set %u: %s", set, strerror(errno));
			cps_kernel_affinity(0, k, nw);
		}
	}
	if (cps_mask_subset(k, si.cpus, nw))
		return true;
	if (debug) {
		cps_cpulist_format(lk, sizeof(lk), k, nw);
		cps_cpulist_format(ls, sizeof(ls), si.cpus, nw);
		shim_debug("passing through: the kernel lets this process run on CPUs %s, not "
			   "inside set %u (CPUs %s) that %s names", lk, set, ls,
			   confine ? "CPUSETSHIM_SET" : "CPUSETSHIM_RUN_SET");
	}
	return false;
}

/* A program started with $CPUSETSHIM_SET names its set as cpuset-run --set
 * does, and must never run outside it in silence: when the set cannot be
 * had, set-up keeps cpuset-run's message and exit status here, and the
 * constructor stops the program with them before main (the one time the
 * shim prints or exits in its host). */
#define RUN_REFUSED 1
#define RUN_FAIL 125
static char env_refusal[480];
static int env_refusal_status;

static void env_refuse(int status, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(env_refusal, sizeof(env_refusal), "cpusetshim: CPUSETSHIM_SET: ");
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(env_refusal))
		vsnprintf(env_refusal + n, sizeof(env_refusal) - (size_t)n, fmt, ap);
	va_end(ap);
	env_refusal_status = status;
}

/* cpuset-run's words for a refusal of the rules (cli_refused): the
 * table's own trouble (its lock, a damaged journal) is 125, the rules' 1. */
static void env_refuse_err(int err, const char *why, const char *what)
{
	bool table = shim_ctx.t.why[0] && (!why || why == shim_ctx.t.why);
	if (table)
		why = shim_ctx.t.why;
	if (err < 0)
		err = -err;
	bool rules = !table && (err == EINVAL || err == EPERM || err == EBUSY || err == EACCES ||
				err == ENOSPC || err == ESRCH || err == EEXIST || err == ENOENT);
	env_refuse(rules ? RUN_REFUSED : RUN_FAIL, "%s: %s (%s)\n", what,
		   why ? why : strerror(err), cps_errname(err));
}

/* The set $CPUSETSHIM_SET names, as cpuset-run --set takes it: found,
 * with CPUs, all of them CPUs the kernel lets this process run on; then
 * the process's mask becomes the set's CPUs, and the kernel must keep it
 * so. False (the refusal kept for the constructor) otherwise. */
static bool adopt_env(const char *name, uint32_t set)
{
	struct cps_setinfo si;
	const char *why = NULL;
	uint64_t k[CPS_MAX_WORDS];
	size_t nw = shim_ctx.t.mask_words;
	char what[160];
	int r;
	snprintf(what, sizeof(what), "set '%s'", name);
	if ((r = cps_set_get(&shim_ctx, set, &si)) < 0) {
		env_refuse_err(r == -EINVAL ? -EINVAL : r, r == -EINVAL ? "no such set" : shim_ctx.why,
			       what);
		return false;
	}
	snprintf(what, sizeof(what), "attach to set %u", set);
	if (cps_mask_empty(si.cpus, nw)) {
		env_refuse_err(-EINVAL, "the set has no CPUs", what);
		return false;
	}
	if ((r = cps_allowance_check(si.cpus, nw, &why)) < 0) {
		env_refuse_err(r, why, what);
		return false;
	}
	{
		SHIM_KEEP_ERRNO;
		shim_real.sched_setaffinity(0, nw * 8, (const cpu_set_t *)(void *)si.cpus);
	}
	if ((r = cps_kernel_affinity(0, k, nw)) < 0) {
		env_refuse(RUN_REFUSED, "set %u: cannot read the CPUs back: %s\n", set, strerror(-r));
		return false;
	}
	char msg[700];
	if (!cps_affinity_holds(set, si.cpus, k, nw, msg, sizeof(msg))) {
		env_refuse(RUN_REFUSED, "%s\n", msg);
		return false;
	}
	return true;
}

/* Two copies of the shim in one process (under two file names, say one
 * in LD_PRELOAD and one a program loads) would translate twice: the copy
 * found first in the global search order translates, every other one
 * stands aside and passes each call to the next definition. Each copy
 * exports cpusetshim_copy, whose value is the address of an object of its
 * own (hidden, so this copy's reference to it is its own): the value found
 * by a global look-up says which copy comes first. */
static const char copy_self = 0;
EXPORT const void *const cpusetshim_copy = &copy_self;

static bool another_copy_first(void)
{
	const void *const *first = dlsym(RTLD_DEFAULT, "cpusetshim_copy");
	return first && *first != &copy_self;
}

/* cpuset-run's supervisor answers this process's affinity calls (and in
 * its files mode its views): translating them again here would number
 * CPUs twice. Believed when the environment says so and the kernel shows
 * a seccomp filter on us (an environment copied out of the supervised
 * tree is not). */
static bool under_supervisor(void)
{
	const char *e = shim_getenv("CPUSETSHIM_SUPERVISED");
	if (!e || !*e)
		return false;
	char b[4096];
	if (cps_sys_slurp("/proc/self/status", b, sizeof(b), true) <= 0)
		return false;
	const char *s = strstr(b, "\nSeccomp:");
	return s && strtol(s + 9, NULL, 10) == 2;
}

/* Whether this copy stands aside: a privileged program (it loads the
 * shim only from /etc/ld.so.preload, cpuset-oci-hook's in a container:
 * its environment and table are its unprivileged caller's, so the shim
 * reads neither, says nothing and passes everything through;
 * doc/limits.md, set-user-id), another copy of the shim comes first in
 * the process, or cpuset-run's supervisor answers for it. */
static bool stands_aside(void)
{
	if (shim_secure())
		return true;
	if (another_copy_first()) {
		Dl_info self = { 0 }, other = { 0 };
		dladdr(&copy_self, &self);
		dladdr(*(const void *const *)dlsym(RTLD_DEFAULT, "cpusetshim_copy"), &other);
		shim_debug("another copy of the shim (%s) comes first: this one (%s) stands aside",
			   other.dli_fname ? other.dli_fname : "?",
			   self.dli_fname ? self.dli_fname : "?");
		return true;
	}
	if (under_supervisor()) {
		shim_debug("standing aside: cpuset-run's supervisor answers for this process");
		return true;
	}
	return false;
}

/* The table opened (for writing if we may), the shim's waits set; false
 * (CPUSETSHIM_SET's refusal made) when it cannot be. */
static bool table_opened(void)
{
	int r = cps_open(&shim_ctx, NULL, CPS_OPEN_WRITE);
	if (r == -EACCES || r == -EROFS)
		r = cps_open(&shim_ctx, NULL, CPS_OPEN_READ);
	if (r < 0) {
		shim_debug("passing through: table %s: %s", shim_ctx.t.name[0] ? shim_ctx.t.name : "?",
			   shim_ctx.why ? shim_ctx.why : strerror(-r));
		const char *env = shim_getenv("CPUSETSHIM_SET");
		/* cpuset-run makes a missing table, then finds no such set */
		char what[160];
		snprintf(what, sizeof(what), "set '%s'", env ? env : "");
		if (env && *env && r == -ENOENT)
			env_refuse_err(-EINVAL, "no such set", what);
		else if (env && *env)
			env_refuse(RUN_FAIL, "table %s: %s; refusing to use it\n",
				   shim_ctx.t.name[0] ? shim_ctx.t.name : "?",
				   shim_ctx.why ? shim_ctx.why : strerror(-r));
		return false;
	}
	shim_ctx.patient = false; /* the shim never waits for a writer */
	/* Nor for the writers' lock, for its registrations (here and after
	 * fork): they are dropped when the lock is taken, and ancestry finds
	 * an unregistered process. A thread's wanted mask, which nothing else
	 * keeps, waits for a running writer up to SHIM_RECORD_WAIT_MS, for a
	 * stopped one not at all (shm_write_begin). */
	shim_ctx.t.lock_wait_ms = SHIM_RECORD_WAIT_MS;
	shim_ctx.t.lock_queue_ms = 0; /* its waits stay bounded in all */
	return true;
}

/* Our own record's set into *own (0: none, or the root). Our start time
 * tells our record from a dead process's with our pid; with no record
 * under our pid it is not needed (a record made later can only be ours),
 * and /proc is not read. False: /proc/self/stat unreadable. */
static bool own_record(uint32_t *own)
{
	struct cps_placement tmp;
	*own = 0;
	shim_self_pid = getpid();
	shim_self_start = 0;
	if (shm_proc_find(&shim_ctx.t, shim_self_pid) < 0)
		return true;
	struct cps_procinfo pi;
	if (cps_proc_stat(shim_self_pid, &pi) < 0) {
		shim_debug("passing through: cannot read /proc/self/stat");
		return false;
	}
	shim_self_start = pi.start;
	if (shim_placement_wait(shim_self_pid, shim_self_start, 0, &tmp) == 0 &&
	    tmp.set != shim_ctx.t.root_id)
		*own = tmp.set;
	return true;
}

/* CPUSETSHIM_SET's set into *set; false (its refusal made) when there is
 * no such set. */
static bool env_set_found(const char *env, uint32_t *set)
{
	int r = cps_find(&shim_ctx, env, set);
	if (r == 0)
		return true;
	char what[160];
	snprintf(what, sizeof(what), "set '%s'", env);
	if (r == -ENOENT)
		env_refuse_err(-EINVAL, "no such set", what);
	else if (r == -EINVAL)
		env_refuse(RUN_FAIL, "'%s' is neither a set id nor a set name\n", env);
	else
		env_refuse_err(r, shim_ctx.why, what);
	shim_debug("CPUSETSHIM_SET=%s: %s", env, env_refusal);
	return false;
}

/* Registered in set (named by the environment or found by ancestry), the
 * fork handler and the first set copy in place: READY, else PASS. */
static void setup_finish(uint32_t own, uint32_t set, const char *env, bool set_from_env)
{
	int r;
	shim_fallback_set = own ? own : set;
	shim_ctx.t.lock_wait_ms = 0;
	if (!own && set && shim_ctx.t.writable && (r = cps_register(&shim_ctx, shim_self_pid, set)) < 0)
		shim_debug("cannot register in set %u: %s", set,
			   shim_ctx.why ? shim_ctx.why : strerror(-r));
	shim_ctx.t.lock_wait_ms = SHIM_RECORD_WAIT_MS;
	shim_ctx.t.lock_queue_ms = 0; /* its waits stay bounded in all */
	find_tid_offset();
	pthread_atfork(NULL, NULL, after_fork_child);
	/* The first set copy before READY: the other threads take READY
	 * for "the set copy is there" and would pass through without it. */
	if (!shim_refresh(true)) {
		shim_debug("passing through: no usable set in table %s", shim_ctx.t.name);
		if (set_from_env)
			env_refuse(RUN_FAIL, "set '%s': no usable set in table %s\n", env,
				   shim_ctx.t.name);
		shim_state = ST_PASS;
		return;
	}
	shim_state = ST_READY;
}

static void setup(void)
{
	/* (none of the caller's variables in a privileged program, which
	 * stands aside) */
	const char *e = shim_secure_getenv("CPUSETSHIM_DEBUG");
	debug = e && *e == '1';
	e = shim_secure_getenv("CPUSETSHIM_WIDE_POSSIBLE");
	cps_view_wide_possible = e && e[0] == '1' && !e[1];
	if (stands_aside()) {
		shim_state = ST_PASS;
		return;
	}
	shim_wrap = cps_wrap_enabled();
	if (!table_opened()) {
		shim_state = ST_PASS;
		return;
	}
	uint32_t own = 0, set = 0;
	if (!own_record(&own))
		goto pass;
	if (!own)
		set = ancestry_set(getppid());
	const char *env = shim_getenv("CPUSETSHIM_SET");
	bool set_from_env = false, inherited_from_run = false;
	if (!own && !set && env && *env) {
		if (!env_set_found(env, &set))
			goto pass;
		set_from_env = true;
	}
	/* Left by cpuset-run for its descendants: the set of one that lost
	 * its ancestry (an orphan, reparented). Its kernel mask came from
	 * that set already, so it is not confined again. */
	const char *run = shim_getenv("CPUSETSHIM_RUN_SET");
	if (!own && !set && run && *run) {
		if (cps_find(&shim_ctx, run, &set) < 0)
			set = 0;
		inherited_from_run = set != 0;
	}
	/* A set named by the environment is adopted only if the kernel
	 * keeps us inside it: CPUSETSHIM_SET first confines (narrowing only:
	 * never onto a CPU the kernel mask lacks), then, for both variables,
	 * the kernel mask must lie inside the set's CPUs. Otherwise the set
	 * would be shown while the program runs elsewhere (a cgroup that
	 * forbids its CPUs, a task Slurm bound to other CPUs, taskset). */
	if (!own && set_from_env && !adopt_env(env, set))
		goto pass;
	if (!own && set && inherited_from_run && !adopt_checked(set, false))
		goto pass;
	setup_finish(own, set, env, set_from_env);
	return;
pass:
	cps_close(&shim_ctx);
	shim_state = ST_PASS;
}

static void wait_for_setup(void)
{
	/* Set-up takes microseconds; a writer dead inside the table's lock
	 * is repaired by the robust mutex. Past two seconds something is
	 * wrong: pass through rather than hang the program. */
	struct timespec ts = { 0, 50000 };
	pid_t owner = __atomic_load_n(&setup_pid, __ATOMIC_ACQUIRE);
	if (owner && owner != getpid()) {
		/* forked while a thread of the parent was setting up: that
		 * thread is not here; start again */
		int busy = ST_BUSY;
		__atomic_compare_exchange_n(&shim_state, &busy, ST_NEW, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		return;
	}
	for (int i = 0; i < 40000 && __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_BUSY; i++) {
		if (i < 200)
			sched_yield();
		else
			nanosleep(&ts, NULL);
	}
}

bool shim_ready(void)
{
	int s = __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE);
	if (CPS_LIKELY(s == ST_READY))
		return true;
	if (s == ST_PASS)
		return false;
	shim_resolve_all();
	/* before libc is up: pass through, decide nothing (preload/env.c) */
	if (!shim_libc_up())
		return false;
	if (shim_resolving || in_setup)
		return false;
	int expect = ST_NEW;
	if (__atomic_compare_exchange_n(&shim_state, &expect, ST_BUSY, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		{
			SHIM_KEEP_ERRNO;
			__atomic_store_n(&setup_pid, getpid(), __ATOMIC_RELEASE);
			in_setup = true;
			shim_resolving++; /* our own set-up calls pass straight through */
			setup();
			shim_resolving--;
			in_setup = false;
		}
		__atomic_store_n(&shim_state, shim_state == ST_BUSY ? ST_PASS : shim_state, __ATOMIC_RELEASE);
		return shim_state == ST_READY;
	}
	/* Another thread is setting up: wait for it, so that no call answers
	 * with physical numbers while the others answer with virtual ones. */
	{
		SHIM_KEEP_ERRNO;
		wait_for_setup();
	}
	if (__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_NEW)
		return shim_ready(); /* the fork case above: set up here */
	return __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY;
}

const char *shim_table_name(void)
{
	return shim_ctx.t.name;
}

/* At load, only what must happen before main: a process put in a set by
 * $CPUSETSHIM_SET alone confines itself at once. Everything else waits
 * for the first call that needs the table (shim_ready). */
__attribute__((constructor)) static void shim_ctor(void)
{
	if (!shim_env_ctor())
		return;
	shim_ready();
	if (env_refusal_status) {
		/* cpuset-run --set would not have run the program: nor do we */
		size_t n = strlen(env_refusal);
		ssize_t w = write(2, env_refusal, n);
		(void)w;
		_exit(env_refusal_status);
	}
}
