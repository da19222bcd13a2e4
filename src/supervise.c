/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor of cpuset-run and of the Slurm plugin (DESIGN.md, "The
 * supervisor").
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

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/supervise.h"
#include "src/supervise_int.h"
#include "src/sv_filter.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
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

/* ---- which programs need it ---------------------------------------- */

static int find_prog(const char *prog, const char *path, char *out, size_t len)
{
	if (strchr(prog, '/'))
		return snprintf(out, len, "%s", prog) < (int)len ? 0 : -1;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; ) {
		size_t l = strcspn(p, ":");
		if (snprintf(out, len, "%.*s%s%s", (int)l, p, l ? "/" : "", prog) < (int)len &&
		    access(out, X_OK) == 0)
			return 0;
		if (!p[l])
			return -1;
		p += l + 1;
	}
}

static bool note_is_go(const unsigned char *b, size_t len)
{
	/* notes: namesz, descsz, type, name (4-aligned), desc */
	size_t o = 0;
	while (o + 12 <= len) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, b + o, 4);
		memcpy(&dsz, b + o + 4, 4);
		memcpy(&type, b + o + 8, 4);
		size_t na = (nsz + 3u) & ~3u, da = (dsz + 3u) & ~3u;
		if (o + 12 + na + da > len || na < nsz || da < dsz)
			break;
		if (nsz == 3 && !memcmp(b + o + 12, "Go", 3))
			return true;
		o += 12 + na + da;
	}
	return false;
}

static ssize_t pread_all(int fd, void *b, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)b + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -1 : (ssize_t)got;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* A 64-bit little-endian ELF (this tool's own kind): its reason or NULL. */
/* Whether one of the section headers is named .go.buildinfo: every Go
 * binary since 1.13, also without the note. */
static bool has_go_buildinfo(int fd, const Elf64_Ehdr *eh)
{
	bool go = false;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum || eh->e_shnum >= 4096 ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	Elf64_Shdr *sh = malloc(eh->e_shnum * sizeof(*sh));
	if (sh && pread_all(fd, sh, eh->e_shnum * sizeof(*sh), (off_t)eh->e_shoff) ==
			  (ssize_t)(eh->e_shnum * sizeof(*sh))) {
		Elf64_Shdr *st = &sh[eh->e_shstrndx];
		char *names = st->sh_size <= 65536 ? malloc(st->sh_size + 1) : NULL;
		if (names && pread_all(fd, names, st->sh_size, (off_t)st->sh_offset) ==
				     (ssize_t)st->sh_size) {
			names[st->sh_size] = 0;
			for (unsigned i = 0; i < eh->e_shnum && !go; i++)
				go = sh[i].sh_name < st->sh_size &&
				     !strcmp(names + sh[i].sh_name, ".go.buildinfo");
		}
		free(names);
	}
	free(sh);
	return go;
}

/* A program header's note, read: whether it is Go's build id. */
static bool note_header_is_go(int fd, const Elf64_Phdr *ph)
{
	if (ph->p_type != PT_NOTE || ph->p_filesz > 65536)
		return false;
	unsigned char *b = malloc(ph->p_filesz + 1);
	bool go = b && pread_all(fd, b, ph->p_filesz, (off_t)ph->p_offset) == (ssize_t)ph->p_filesz &&
		  note_is_go(b, ph->p_filesz);
	free(b);
	return go;
}

static const char *elf_kind(int fd)
{
	Elf64_Ehdr eh;
	if (pread_all(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 256)
		return NULL;
	Elf64_Phdr ph[256];
	if (pread_all(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr)))
		return NULL;
	bool interp = false, go = false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP)
			interp = true;
		if (!go)
			go = note_header_is_go(fd, &ph[i]);
	}
	if (go || has_go_buildinfo(fd, &eh))
		return "Go binary";
	return interp ? NULL : "static ELF";
}

const char *sv_prog_kind(const char *prog, const char *search)
{
	if (!search)
		search = getenv("PATH");
	char path[PATH_MAX];
	for (int depth = 0; depth < 4; depth++) {
		if (find_prog(prog, search, path, sizeof(path)) < 0)
			return NULL;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		char head[PATH_MAX + 2];
		ssize_t n = pread_all(fd, head, sizeof(head) - 1, 0);
		if (n >= 2 && head[0] == '#' && head[1] == '!') {
			/* a script: what its interpreter is */
			close(fd);
			head[n] = 0;
			char *p = head + 2;
			while (*p == ' ' || *p == '\t')
				p++;
			p[strcspn(p, " \t\n")] = 0;
			if (!*p)
				return NULL;
			static char interp[PATH_MAX];
			snprintf(interp, sizeof(interp), "%s", p);
			prog = interp;
			continue;
		}
		/* cpuset-run itself (static, its affinity calls physical by the
		 * marker) decides for the program it runs */
		struct stat a, b;
		if (fstat(fd, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			close(fd);
			return NULL;
		}
		const char *k = elf_kind(fd);
		close(fd);
		return k;
	}
	return NULL;
}

bool sv_under_supervisor(void)
{
	const char *e = getenv("CPUSETSHIM_SUPERVISED");
	if (!e || !*e)
		return false;
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool yes = false;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			yes = strtol(line + 8, NULL, 10) == 2;
	if (f)
		fclose(f);
	return yes;
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

/* True if process tgid descends from the supervisor other than through
 * being the keeper or the warden: every process of the tree does (the
 * three are subreapers, so orphans come back to them), and nothing else
 * does. */
static bool in_tree(struct sv *s, pid_t tgid)
{
	if (tgid <= 0 || tgid == s->self || tgid == s->keeper || tgid == s->warden)
		return false;
	pid_t p = tgid;
	for (int depth = 0; depth < 65536; depth++) {
		struct cps_procinfo pi;
		if (cps_proc_stat(p, &pi) < 0)
			return false;
		if (pi.ppid == s->self || pi.ppid == s->keeper || pi.ppid == s->warden)
			return true;
		if (pi.ppid <= 1)
			return false;
		p = pi.ppid;
	}
	return false;
}

/* ---- memory of the caller ------------------------------------------- */

int sv_peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

static int poke(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_writev(tid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

int sv_peek_str(pid_t tid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;
	const size_t page = 4096;
	while (got < len - 1) {
		uint64_t a = addr + got;
		size_t chunk = page - (size_t)(a % page);
		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		int r = sv_peek(tid, a, buf + got, chunk);
		if (r < 0)
			return r;
		char *z = memchr(buf + got, 0, chunk);
		if (z)
			return 0;
		got += chunk;
	}
	buf[len - 1] = 0;
	return -ENAMETOOLONG;
}

bool sv_id_valid(struct sv *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* ---- the set a caller sees ------------------------------------------- */

/* Which set a caller is in: its process's record, else its nearest
 * registered ancestor's (a nested cpuset-run registers itself), else the
 * launched set. Kept per thread while the table's counter does not move
 * (a set's records change it): a caller's answer then costs no /proc
 * read. Numbering only: what is set on a thread is checked afresh. */
struct set_memo {
	pid_t tid, tgid;
	uint32_t set;
	uint64_t seq;
};
static struct set_memo memo[256];

static int caller_fallback(struct sv *s, pid_t tid, pid_t *tgid, uint32_t *set)
{
	uint64_t seq = __atomic_load_n(&s->c->t.h->seq, __ATOMIC_ACQUIRE);
	struct set_memo *m = &memo[(unsigned)tid % 256];
	if (m->tid == tid && m->seq == seq && !(seq & 1) && (!*tgid || *tgid == m->tgid)) {
		*tgid = m->tgid;
		*set = m->set;
		return 0;
	}
	if (!*tgid) {
		pid_t g = cps_proc_tgid(tid);
		if (g < 0)
			return g;
		*tgid = g;
	}
	/* cps_which: the record, else the nearest registered ancestor's;
	 * the root means neither (the tree's processes descend from the
	 * supervisor, a member of the launched set) */
	uint32_t id = s->set;
	if (cps_which(s->c, *tgid, &id) < 0 || !id || id == s->c->t.root_id)
		id = s->set;
	*m = (struct set_memo){ tid, *tgid, id, seq };
	*set = id;
	return 0;
}

int sv_caller_set(struct sv *s, pid_t tid, pid_t *tgid, struct cps_placement *pl)
{
	uint32_t fallback;
	int e = caller_fallback(s, tid, tgid, &fallback);
	if (e < 0)
		return e;
	int r = -EAGAIN;
	for (int i = 0; i < 100 && r == -EAGAIN; i++)
		r = cps_placement_read(&s->c->t, *tgid, 0, fallback, pl);
	if (r == -EAGAIN || r == -EOWNERDEAD)
		r = cps_placement_read_committed(&s->c->t, *tgid, 0, fallback, pl);
	if (r < 0)
		return r;
	/* the tree's confinement: the CPUs the kernel lets the supervisor
	 * run on (its set's, moved with the set by a resize) */
	uint64_t own[CPS_MAX_WORDS];
	cps_mask_zero(own, s->nw);
	long k = cps_sys_getaffinity(0, s->nw * 8, own);
	if (k < 0)
		return (int)k;
	cps_mask_and(pl->cpus, pl->cpus, own, pl->nw);
	pl->n = cps_mask_count(pl->cpus, pl->nw);
	return pl->n ? 0 : -EINVAL;
}

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
	if ((r = poke((pid_t)q->pid, addr, out, (size_t)n)) < 0) {
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
	return in_tree(s, *tgid) ? 0 : -EPERM;
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
 * call between the last look and the call (DESIGN.md, The supervisor). */
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
	if ((q->data.args[0] && poke((pid_t)q->pid, q->data.args[0], &v, 4) < 0) ||
	    (q->data.args[1] && poke((pid_t)q->pid, q->data.args[1], &node, 4) < 0)) {
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
		 poke((pid_t)q->pid, addr + offsetof(struct io_uring_params, sq_thread_cpu), &phys,
		      sizeof(p.sq_thread_cpu)) < 0)
		a->error = -EFAULT;
	else
		a->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
}

static void answer(struct sv *s)
{
	struct seccomp_notif q;
	struct seccomp_notif_resp a;
	memset(&q, 0, sizeof(q));
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &q) < 0)
		return; /* the caller was interrupted before we took it */
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
			return; /* answered by the descriptor sent */
	} else {
		a.error = -ENOSYS; /* never passed through */
	}
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &a);
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
		if (p[0].revents) {
			/* the process watched is gone: so is the tree */
			kill_children();
			_exit(125);
		}
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		int st;
		pid_t w;
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

/* The supervisor's loop: answers the tree's calls, passes signals to the
 * program, until the keeper has ended. Its status. */
static int supervise(struct sv *s, int *sig)
{
	sigset_t m = fwd_set();
	int sfd = signalfd(-1, &m, SFD_CLOEXEC | SFD_NONBLOCK);
	int status = 125;
	bool keeper_done = false;
	for (;;) {
		struct pollfd p[2] = { { sfd, POLLIN, 0 }, { s->listener, POLLIN, 0 } };
		if (poll(p, s->listener >= 0 ? 2 : 1, -1) < 0)
			continue;
		if (s->listener >= 0 && (p[1].revents & POLLIN))
			answer(s);
		else if (s->listener >= 0 && (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
			close(s->listener); /* nobody left under the filter */
			s->listener = -1;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD && s->prog > 0 && !keeper_done)
				kill(s->prog, (int)si.ssi_signo);
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			if (w != s->keeper)
				continue;
			keeper_done = true;
			*sig = 0;
			status = status_of(st, sig);
			/* a keeper that ended had no child left, unless it was
			 * killed: then its orphans came to us, and end */
			kill_children();
		}
		if (w < 0 && errno == ECHILD)
			break;
	}
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
	if (s.listener >= 0 && !killable)
		say("note: this kernel lacks SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV: a signal "
		    "may make a supervised call start again");
	if (getenv("CPUSETSHIM_DEBUG") && !strcmp(getenv("CPUSETSHIM_DEBUG"), "1"))
		say("supervising %s (pid %d) in %s mode, set %u", name, (int)s.prog,
		    mode == SV_FILES ? "files" : "calls", set);
	int status = supervise(&s, sig);
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
