/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor of cpuset-run and of the Slurm plugin (doc/supervisor.md).
 *
 * Four processes: cpuset-run itself (or the Slurm task) is the
 * supervisor S (a member of the set, so pinned to its CPUs and moved by
 * its resizes, and a child subreaper); its child the keeper K, K's child
 * the warden W (in a process group of its own), both subreapers outside
 * the filter; and the program P (W's child, with PR_SET_PDEATHSIG, in
 * the caller's process group again), which installs the filter and
 * execs. S answers the notifications; W waits for the program's tree;
 * each guardian watches the one above it by a pidfd and kills the tree
 * when it is gone (K for S, W for K); if W dies, P dies of its death
 * signal and K kills what is left (orphans come to it). So the tree
 * never runs on with its calls unanswered while one guardian lives.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "supervise/filter.h"
#include "supervise/supervise.h"
#include "supervise/sv.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS /* Linux 6.6 */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif

/* ---- messages -------------------------------------------------------- */

static void say_stderr(const char *msg)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, msg);
}

static void (*say_fn)(const char *msg) = say_stderr;

void sv_set_say(void (*fn)(const char *msg))
{
	say_fn = fn ? fn : say_stderr;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char b[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	say_fn(b);
}

/* ---- the filter -------------------------------------------------------- */

static int install_filter(enum sv_mode mode, bool *killable)
{
	const struct cps_arch *arch = cps_arch_host();
	struct sv_rule rules[SV_RULES_MAX];
	struct sock_filter f[SV_FILTER_MAX];
	if (!arch)
		return -ENOSYS; /* a port without its base/arch_<cpu>.c */
	int len = sv_filter_build(rules, sv_filter_rules(arch, mode == SV_FILES, rules), f,
				  SV_FILTER_MAX);
	if (len < 0)
		return len;
	struct sock_fprog prog = { (unsigned short)len, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			  &prog);
	*killable = fd >= 0;
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     &prog);
	return fd < 0 ? -errno : (int)fd;
}

/* ---- the tree -------------------------------------------------------- */

static int kill_one(pid_t child, void *arg)
{
	kill(child, SIGKILL);
	++*(int *)arg;
	return 0;
}

/* Kill every child of the caller (a subreaper: orphans of the tree come
 * back to it) and reap them, until none is left. */
static void kill_children(void)
{
	pid_t self = getpid();
	for (int round = 0; round < 100000; round++) {
		int killed = 0, st;
		cps_proc_each_child(self, self, kill_one, &killed);
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			;
		if (w < 0 && errno == ECHILD)
			return;
		struct timespec ts = { 0, killed ? 100000 : 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* ---- the processes ----------------------------------------------------- */

static sigset_t fwd_set(void)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGCHLD);
	sigaddset(&m, SIGTERM);
	sigaddset(&m, SIGHUP);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGUSR2);
	return m;
}

/* An exit status as the shell reports it; *sig for a signal's death. */
static int status_of(int st, int *sig)
{
	if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		return 128 + WTERMSIG(st);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}

static int send_fd(int sock, int fd, pid_t prog, int killable)
{
	int hdr[3] = { prog, killable, getppid() };
	struct iovec iov = { hdr, sizeof(hdr) };
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int recv_fd(int sock, pid_t *prog, int *killable, pid_t *warden)
{
	int hdr[3] = { 0, 0, 0 }, fd = -1;
	struct iovec iov = { hdr, sizeof(hdr) };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	ssize_t n;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(hdr))
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	*prog = hdr[0];
	*killable = hdr[1];
	*warden = hdr[2];
	return fd;
}

/* The caller's, for the program. */
static struct sigaction old_int, old_quit;
static sigset_t old_mask;

/* The program: filtered, then exec'd; with argv NULL it returns, filtered,
 * for its caller's exec (the Slurm task). */
static void program(enum sv_mode mode, char **argv, int sock, pid_t warden, pid_t pgrp)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != warden)
		_exit(125); /* the warden died before we could watch it */
	/* the caller's process group: its terminal's signals reach us */
	if (setpgid(0, pgrp) < 0)
		_exit(125);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	bool killable = false;
	int fd = install_filter(mode, &killable);
	if (fd < 0) {
		say("cannot install the supervisor's filter: %s", strerror(-fd));
		send_fd(sock, -1, getpid(), 0);
		_exit(125);
	}
	if (send_fd(sock, fd, getpid(), killable) < 0)
		_exit(125);
	close(fd);
	close(sock);
	if (!argv)
		return;
	execvp(argv[0], argv);
	int e = errno;
	say("%s: %s", argv[0], strerror(e));
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* The watch of the keeper and of the warden: until their child has
 * ended, or the process watched (pfd) is gone, which ends the tree. The
 * warden (tree: the program's subreaper) then waits for the rest of the
 * tree; for the keeper whatever came to it after its child (the warden)
 * ended is an orphan of a warden killed, and is killed. Exits as the
 * child did. */
static void keep(pid_t child, int pfd, bool tree)
{
	sigset_t m = fwd_set();
	int sfd = signalfd(-1, &m, SFD_CLOEXEC | SFD_NONBLOCK);
	int status = 125, sig = 0;
	bool child_done = false;
	for (;;) {
		struct pollfd p[2] = { { pfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		if (poll(p, 2, -1) < 0)
			continue;
		int st;
		pid_t w;
		if (p[0].revents) {
			/* the process watched is gone: so is the tree. A keeper
			 * whose warden lives leaves the kill to it, by ending:
			 * the warden watches it and is the tree's subreaper. A
			 * keeper that killed the warden itself and was killed in
			 * the middle of the tree's kill (the supervisor and the
			 * keeper killed together) would leave the orphans of the
			 * warden's tree to init. */
			while (!tree && (w = waitpid(-1, &st, WNOHANG)) > 0)
				child_done |= w == child;
			if (!tree && !child_done)
				_exit(125);
			kill_children();
			_exit(125);
		}
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == child) {
				status = status_of(st, &sig);
				child_done = true;
			}
		if (child_done && !tree)
			kill_children();
		if (w < 0 && errno == ECHILD && child_done)
			break;
	}
	sv_exit_as(status, sig);
}

/* A guardian's start: a subreaper, watching the process pid (its
 * parent) by a pidfd; -1 if that one is gone already. */
static int guard(pid_t watched)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	int pfd = (int)syscall(SYS_pidfd_open, watched, 0);
	if (pfd >= 0 && getppid() != watched) {
		close(pfd);
		return -1;
	}
	return pfd;
}

/* The warden: in a process group of its own (a kill of the caller's
 * group leaves it), starts the program and keeps its tree, which it
 * kills if the keeper is gone. Returns only in the program's process,
 * when argv is NULL. */
static void warden(enum sv_mode mode, char **argv, int sock, pid_t kp, pid_t pgrp)
{
	int pfd = guard(kp);
	if (pfd < 0 || setpgid(0, 0) < 0)
		_exit(125);
	pid_t me = getpid(), prog = fork();
	if (prog < 0)
		_exit(125);
	if (prog == 0) {
		close(pfd);
		program(mode, argv, sock, me, pgrp);
		return;
	}
	close(sock);
	keep(prog, pfd, true);
}

/* The keeper: starts the warden, kills the tree if the supervisor is
 * gone. Returns only in the program's process, when argv is NULL. */
static void keeper(enum sv_mode mode, char **argv, int sock, pid_t sup)
{
	int pfd = guard(sup);
	if (pfd < 0)
		_exit(125);
	pid_t me = getpid(), pgrp = getpgrp(), w = fork();
	if (w < 0)
		_exit(125);
	if (w == 0) {
		close(pfd);
		warden(mode, argv, sock, me, pgrp);
		return;
	}
	close(sock);
	keep(w, pfd, false);
}

void sv_exit_as(int status, int sig)
{
	if (sig) {
		/* die as the program did, as an exec in place would */
		signal(sig, SIG_DFL);
		sigset_t u;
		sigemptyset(&u);
		sigaddset(&u, sig);
		sigprocmask(SIG_UNBLOCK, &u, NULL);
		prctl(PR_SET_DUMPABLE, 0); /* no second core file */
		kill(getpid(), sig);
	}
	_exit(status);
}

/* The answers taken by a thread of their own that waits in the listener
 * itself: with synchronous wake-ups the caller and the supervisor then
 * wake each other on the caller's CPU, where a wait in poll() is woken
 * the ordinary way. A kernel that has them (Linux 6.6) ends the wait as
 * soon as nobody is left under the filter: the thread ends then. */
static void *answerer(void *arg)
{
	struct sv *s = arg;
	for (;;) {
		if (sv_answer(s) == 0)
			continue;
		struct pollfd p = { s->listener, POLLIN, 0 };
		if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
			return NULL;
	}
}

/* The signals: forwarded to the program; the keeper's end reaped (its
 * status into *status, *sig). True once nothing is left to wait for. */
static bool take_signals(struct sv *s, int sfd, bool *keeper_done, int *status, int *sig)
{
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD && s->prog > 0 && !*keeper_done)
			kill(s->prog, (int)si.ssi_signo);
	int st;
	pid_t w;
	while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
		if (w != s->keeper)
			continue;
		*keeper_done = true;
		*sig = 0;
		*status = status_of(st, sig);
		/* a keeper that ended had no child left, unless it was
		 * killed: then its orphans came to us, and end */
		kill_children();
	}
	return w < 0 && errno == ECHILD;
}

/* The supervisor's loop: answers the tree's calls (here, or in the
 * answerer thread when sync says the kernel wakes synchronously), passes
 * signals to the program, until the keeper has ended. Its status. */
static int supervise(struct sv *s, bool sync, int *sig)
{
	sigset_t m = fwd_set();
	int sfd = signalfd(-1, &m, SFD_CLOEXEC | SFD_NONBLOCK);
	int status = 125;
	bool keeper_done = false;
	pthread_t th;
	bool threaded = s->listener >= 0 && sync && pthread_create(&th, NULL, answerer, s) == 0;
	for (;;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { s->listener, POLLIN, 0 } };
		if (poll(p, s->listener >= 0 && !threaded ? 2 : 1, -1) < 0)
			continue;
		if (!threaded && s->listener >= 0 && (p[1].revents & POLLIN))
			sv_answer(s);
		else if (!threaded && s->listener >= 0 &&
			 (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
			close(s->listener); /* nobody left under the filter */
			s->listener = -1;
		}
		if ((p[0].revents & POLLIN) && take_signals(s, sfd, &keeper_done, &status, sig))
			break;
	}
	if (threaded)
		pthread_join(th, NULL); /* nobody is left under the filter */
	if (sfd >= 0)
		close(sfd);
	if (s->listener >= 0)
		close(s->listener);
	return status;
}

/* In the program's process (argv NULL only). */
#define IN_PROGRAM (-100000)

/* The processes started, then supervise(): the status, -errno when they
 * could not be started (said), or IN_PROGRAM in the program's process. */
static int run(struct cps_ctx *c, uint32_t set, enum sv_mode mode, char **argv, const char *name,
	       int *sig)
{
	struct sv s = { .c = c, .set = set, .mode = mode, .listener = -1, .nw = c->t.mask_words };
	s.self = getpid();
	*sig = 0;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigset_t m = fwd_set();
	sigprocmask(SIG_BLOCK, &m, &old_mask);
	/* terminal signals reach the program's process group directly */
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		int e = errno;
		say("cannot start the supervisor: %s", strerror(e));
		return -e;
	}
	fflush(NULL);
	s.keeper = fork();
	if (s.keeper < 0) {
		int e = errno;
		say("cannot start the supervisor: %s", strerror(e));
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (s.keeper == 0) {
		close(sv[0]);
		keeper(mode, argv, sv[1], s.self);
		return IN_PROGRAM;
	}
	close(sv[1]);
	int killable = 0;
	s.listener = recv_fd(sv[0], &s.prog, &killable, &s.warden);
	close(sv[0]);
	/* the caller waits while we answer, and we wait while it runs: each
	 * wakes the other on its own CPU (a kernel without it: as before) */
	bool sync = s.listener >= 0 && ioctl(s.listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
					     SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
	if (s.listener >= 0 && !killable)
		say("note: this kernel lacks SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV: a signal "
		    "may make a supervised call start again");
	if (getenv("CPUSETSHIM_DEBUG") && !strcmp(getenv("CPUSETSHIM_DEBUG"), "1"))
		say("supervising %s (pid %d) in %s mode, set %u", name, (int)s.prog,
		    mode == SV_FILES ? "files" : "calls", set);
	int status = supervise(&s, sync, sig);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return status;
}

int sv_run(struct cps_ctx *c, uint32_t set, enum sv_mode mode, char **argv, int *sig)
{
	int r = run(c, set, mode, argv, argv[0], sig);
	return r < 0 ? 125 : r;
}

int sv_start(struct cps_ctx *c, uint32_t set, enum sv_mode mode, const char *name, int *status,
	     int *sig)
{
	int r = run(c, set, mode, NULL, name, sig);
	if (r == IN_PROGRAM)
		return 0;
	if (r < 0)
		return r;
	*status = r;
	return 1;
}
