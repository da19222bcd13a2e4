/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor's answers: one notification taken, answered by its call
 * (the affinity calls, getcpu, io_uring_setup's polling CPU; in files
 * mode the opens, supervise/files.c), and the answer sent
 * (doc/supervisor.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "supervise/sv.h"

/* ---- the calls ------------------------------------------------------- */

enum { MAXB = CPS_MAX_WORDS * 8 };

static void do_getaffinity(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a)
{
	pid_t target = (pid_t)q->data.args[0], tgid = 0;
	uint32_t len = (uint32_t)q->data.args[1];
	uint64_t addr = q->data.args[2];
	struct cps_placement pl;
	int r = sv_caller_set(s, (pid_t)q->pid, &tgid, &pl);
	if (r < 0) {
		a->error = r == -ESRCH ? -ESRCH : -EAGAIN;
		return;
	}
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	memset(phys, 0, sizeof(phys));
	/* the kernel's answer for the caller's size (its EINVAL for one too
	 * small), from the supervisor: our own call is not filtered */
	long n = (len & (sizeof(long) - 1))
			 ? -EINVAL /* as the kernel, also for a size beyond ours */
			 : cps_sys_getaffinity(target ? target : (pid_t)q->pid, len < MAXB ? len : MAXB,
					       phys);
	if (n < 0) {
		a->error = (int)n;
		return;
	}
	cps_mask_zero(virt, CPS_MAX_WORDS);
	cps_phys_to_virt(virt, CPS_MAX_WORDS, pl.cpus, pl.nw, phys);
	unsigned char out[MAXB];
	cps_mask_to_cpuset(out, (size_t)n, virt, CPS_MAX_WORDS);
	if (!sv_id_valid(s, q->id))
		return;
	if ((r = sv_poke((pid_t)q->pid, addr, out, (size_t)n)) < 0) {
		a->error = -EFAULT;
		return;
	}
	a->val = n;
}

/* Start time of thread tid (its /proc/TID/stat), 0 if it is gone. */
static uint64_t tid_start(pid_t tid)
{
	struct cps_procinfo pi;
	return cps_proc_stat(tid, &pi) == 0 && pi.state != 'Z' && pi.state != 'X' ? pi.start : 0;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* The target thread held: a pidfd of the thread (Linux 6.9 on; of the
 * process for its leader before), else its start time alone. A thread
 * whose pidfd still names a live task has kept its id since the pidfd
 * was taken: the kernel frees an id only after the task is gone from
 * it. */
struct target {
	pid_t tid;
	int pidfd;      /* -1: the start time alone */
	uint64_t start; /* its start time when taken */
};

static void target_take(struct target *t, pid_t tid)
{
	t->tid = tid;
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t->pidfd < 0) /* before 6.9: a leader's only */
		t->pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	t->start = tid_start(tid);
}

/* Still the thread taken, alive: one system call with a pidfd. */
static bool target_same(const struct target *t)
{
	if (t->pidfd >= 0)
		return syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0) == 0;
	return tid_start(t->tid) == t->start;
}

/* A test's pause between the checks and the call (the window a reused
 * thread id would need): DIR/paused is made, DIR/go awaited (60 s). */
static void test_pause(pid_t tid)
{
	const char *d = getenv("CPUSETSHIM_TEST_SV_PAUSE");
	char p[PATH_MAX], g[PATH_MAX];
	if (!d || !*d || snprintf(p, sizeof(p), "%s/paused", d) >= (int)sizeof(p) ||
	    snprintf(g, sizeof(g), "%s/go", d) >= (int)sizeof(g))
		return;
	FILE *f = fopen(p, "we");
	if (f) {
		fprintf(f, "%d\n", (int)tid);
		fclose(f);
	}
	struct timespec ts = { 0, 1000000 };
	for (int i = 0; i < 60000 && access(g, F_OK) < 0; i++)
		nanosleep(&ts, NULL);
	unlink(g);
	unlink(p);
}
/* The target of a set: a thread of the supervised tree, alive, taken
 * (pidfd) before anything of it is read. 0, or the caller's errno. */
static int target_check(struct sv *s, pid_t tid, struct target *t, pid_t *tgid)
{
	target_take(t, tid);
	*tgid = cps_proc_tgid(tid);
	if (*tgid < 0 || !t->start)
		return -ESRCH;
	return sv_in_tree(s, *tgid) ? 0 : -EPERM;
}

/* The physical mask a set asks for: the caller's set's CPUs; 0 or the
 * caller's errno. */
static int set_mask(struct sv *s, const struct seccomp_notif *q, const unsigned char *in, size_t rl,
		    struct cps_placement *pl, uint64_t *phys)
{
	pid_t caller = 0;
	int r = sv_caller_set(s, (pid_t)q->pid, &caller, pl);
	if (r < 0)
		return r == -ESRCH ? -ESRCH : -EINVAL;
	uint64_t want[CPS_MAX_WORDS];
	cps_mask_zero(want, CPS_MAX_WORDS);
	cps_mask_from_cpuset(want, CPS_MAX_WORDS, in, rl);
	long wrapped = -1;
	if (SV_MARKED(q->data.args[1]))
		cps_mask_and(phys, want, pl->cpus, pl->nw);
	else
		cps_virt_to_phys_w(phys, pl->cpus, pl->nw, want, CPS_MAX_WORDS, cps_wrap_enabled(),
				   &wrapped);
	if (cps_mask_empty(phys, pl->nw))
		return -EINVAL;
	if (wrapped >= 0) /* said where someone looks: the set's count */
		cps_count_wrapped(&s->c->t, pl->set);
	return 0;
}

/* The set itself, by thread id, bracketed by two looks at the thread
 * taken: the call cannot have reached another process unless the
 * thread ended and its id was given to another within the one system
 * call between the last look and the call (doc/supervisor.md). */
static int set_target(const struct target *t, const struct cps_placement *pl, const uint64_t *phys)
{
	if (!target_same(t))
		return -ESRCH;
	int r = cps_sys_setaffinity(t->tid, pl->nw * 8, phys);
	if (r < 0)
		return r;
	/* ended since: nothing is undone (a second call could only reach
	 * whoever holds the id now); the caller hears ESRCH */
	return target_same(t) ? 0 : -ESRCH;
}

static void do_setaffinity(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a)
{
	pid_t tid = (pid_t)q->data.args[0] ? (pid_t)q->data.args[0] : (pid_t)q->pid;
	uint32_t len = (uint32_t)q->data.args[1];
	unsigned char in[MAXB];
	size_t rl = len < MAXB ? len : MAXB;
	memset(in, 0, sizeof(in));
	if (sv_peek((pid_t)q->pid, q->data.args[2], in, rl) < 0) {
		a->error = -EFAULT;
		return;
	}
	if (!sv_id_valid(s, q->id))
		return;
	struct target t = { .pidfd = -1 };
	struct cps_placement pl;
	uint64_t phys[CPS_MAX_WORDS];
	pid_t tgid;
	int r = target_check(s, tid, &t, &tgid);
	if (!r)
		r = set_mask(s, q, in, rl, &pl, phys);
	if (!r) {
		test_pause(tid);
		r = set_target(&t, &pl, phys);
	}
	if (t.pidfd >= 0)
		close(t.pidfd);
	if (r < 0) {
		a->error = r;
		return;
	}
	/* the wish kept for resizes, as the shim keeps it (virtual) */
	if (!SV_MARKED(q->data.args[1]) && s->c->t.writable) {
		uint64_t v[CPS_MAX_WORDS];
		cps_mask_zero(v, CPS_MAX_WORDS);
		cps_phys_to_virt(v, s->nw, pl.cpus, pl.nw, phys);
		cps_thread_record(s->c, tgid, tid, t.start, v, s->nw);
	}
	a->val = 0;
}

/* The node of a CPU: the nodeK entry of its sysfs directory; 0 without. */
static unsigned cpu_node(unsigned cpu)
{
	char p[96];
	for (unsigned k = 0; k < 1024; k++) {
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/node%u", cpu, k);
		if (access(p, F_OK) == 0)
			return k;
		if (k == 0 && access("/sys/devices/system/node/node0", F_OK) < 0)
			return 0;
	}
	return 0;
}

static void do_getcpu(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a)
{
	struct cps_placement pl;
	struct cps_procinfo pi;
	pid_t tgid = 0;
	int r = sv_caller_set(s, (pid_t)q->pid, &tgid, &pl);
	if (r < 0 || cps_proc_stat((pid_t)q->pid, &pi) < 0) {
		a->error = -EAGAIN;
		return;
	}
	/* where the caller last ran: it waits for us, so that is where it
	 * was when it asked */
	unsigned p = (unsigned)pi.last_cpu, v;
	v = cps_mask_test(pl.cpus, pl.nw, p) ? cps_mask_rank(pl.cpus, pl.nw, p) : p % pl.n;
	unsigned node = cpu_node(p);
	if (!sv_id_valid(s, q->id))
		return;
	if ((q->data.args[0] && sv_poke((pid_t)q->pid, q->data.args[0], &v, 4) < 0) ||
	    (q->data.args[1] && sv_poke((pid_t)q->pid, q->data.args[1], &node, 4) < 0)) {
		a->error = -EFAULT;
		return;
	}
	a->val = 0;
}

/* io_uring_setup(entries, params): the polling thread's CPU
 * (IORING_SETUP_SQPOLL with IORING_SETUP_SQ_AFF) is a virtual one. The
 * ring is the caller's own (its memory, its thread), so the kernel makes
 * it: the CPU is rewritten in the caller's params and the call goes on
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE). A CPU past the set: EINVAL, the
 * kernel's answer for a CPU outside the caller's cpuset. */
static void do_uring(struct sv *s, const struct seccomp_notif *q, struct seccomp_notif_resp *a)
{
	const uint32_t aff = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	uint64_t addr = q->data.args[1];
	struct io_uring_params p;
	a->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* what the kernel checks first (the params readable), its own */
	if (!addr || sv_peek((pid_t)q->pid, addr, &p, sizeof(p)) < 0 || (p.flags & aff) != aff)
		return;
	struct cps_placement pl;
	pid_t tgid = 0;
	int r = sv_caller_set(s, (pid_t)q->pid, &tgid, &pl), phys;
	a->flags = 0;
	if (r < 0)
		a->error = r == -ESRCH ? -ESRCH : -EAGAIN;
	else if (p.sq_thread_cpu >= pl.n || (phys = cps_mask_nth(pl.cpus, pl.nw, p.sq_thread_cpu)) < 0)
		a->error = -EINVAL;
	else if (!sv_id_valid(s, q->id))
		a->error = -ESRCH;
	else if ((unsigned)phys != p.sq_thread_cpu &&
		 sv_poke((pid_t)q->pid, addr + offsetof(struct io_uring_params, sq_thread_cpu),
			 &phys, sizeof(p.sq_thread_cpu)) < 0)
		a->error = -EFAULT;
	else
		a->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
}

int sv_answer(struct sv *s)
{
	struct seccomp_notif q;
	struct seccomp_notif_resp a;
	memset(&q, 0, sizeof(q));
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &q) < 0)
		return -errno; /* the caller was interrupted before we took it */
	memset(&a, 0, sizeof(a));
	a.id = q.id;
	unsigned nr = sv_call_nr(&q);
	if (nr == SYS_sched_getaffinity)
		do_getaffinity(s, &q, &a);
	else if (nr == SYS_sched_setaffinity)
		do_setaffinity(s, &q, &a);
	else if (nr == SYS_getcpu)
		do_getcpu(s, &q, &a);
	else if (nr == SYS_io_uring_setup)
		do_uring(s, &q, &a);
	else if (sv_is_open(nr) && s->mode == SV_FILES) {
		if (sv_files_open(s, &q, &a))
			return 0; /* answered by the descriptor sent */
	} else {
		a.error = -ENOSYS; /* never passed through */
	}
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &a);
	return 0;
}
