/* SPDX-License-Identifier: BSD-3-Clause */
/* Facts about processes, read from /proc. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"

/* Paths are put together by hand and directories read with getdents64
 * into the stack, not with snprintf, stdio or opendir: cpuset-run calls
 * these between its exec and the program's, where the first use of printf's
 * machinery costs more page faults than the /proc reads themselves, and
 * opendir a 32 KiB allocation. */
static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_uint(char *p, unsigned long v)
{
	return p + cps_fmt_dec(p, v);
}

/* "/proc/PID" then, when tid > 0, "/task/TID", then tail ("" or "/name").
 * buf holds PROC_PATH_MAX bytes. */
#define PROC_PATH_MAX 96
static void proc_path(char *buf, pid_t pid, pid_t tid, const char *tail)
{
	char *p = put_uint(put_str(buf, "/proc/"), (unsigned long)pid);
	if (tid > 0)
		p = put_uint(put_str(p, "/task/"), (unsigned long)tid);
	*put_str(p, tail) = 0;
}

/* A decimal number at *p (digits only), *p moved past it. */
static unsigned long long take_dec(const char **p)
{
	unsigned long long v = 0;
	while (cps_is_digit(**p))
		v = v * 10 + (unsigned)(*(*p)++ - '0');
	return v;
}

static int stat_at(pid_t pid, pid_t tid, struct cps_procinfo *pi)
{
	char path[PROC_PATH_MAX], buf[1024];

	proc_path(path, pid, tid, "/stat");
	int n = cps_sys_slurp(path, buf, sizeof(buf), true);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : n;
	/* comm may hold spaces and parentheses: fields start after the last ')'. */
	const char *p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	p++;
	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	pi->last_cpu = -1;
	/* field 3 is the state; count from there */
	while (*p == ' ')
		p++;
	pi->state = *p;
	for (int field = 3; field <= 39 && *p; field++) {
		while (*p == ' ')
			p++;
		if (field == 4)
			pi->ppid = (pid_t)take_dec(&p);
		else if (field == 6)
			pi->session = (pid_t)take_dec(&p);
		else if (field == 20)
			pi->nthreads = (int)take_dec(&p);
		else if (field == 22)
			pi->start = take_dec(&p);
		else if (field == 39)
			pi->last_cpu = (int)take_dec(&p);
		p = strchr(p, ' ');
		if (!p)
			break;
	}
	return pi->start ? 0 : -EIO;
}

int cps_proc_stat(pid_t pid, struct cps_procinfo *pi)
{
	return stat_at(pid, 0, pi);
}

uint64_t cps_thread_start(pid_t pid, pid_t tid)
{
	struct cps_procinfo pi;
	if (pid <= 0 || tid <= 0 || stat_at(pid, tid, &pi) < 0 || pi.state == 'Z' || pi.state == 'X')
		return 0;
	return pi.start;
}

int cps_proc_info(pid_t pid, struct cps_procinfo *pi)
{
	char path[PROC_PATH_MAX];
	uid_t uid = 0;

	int r = cps_proc_stat(pid, pi);
	if (r < 0)
		return r;
	proc_path(path, pid, 0, "");
	if (cps_sys_owner(path, &uid) < 0)
		return -ESRCH;
	pi->uid = uid;
	return 0;
}

bool cps_proc_alive(pid_t pid, uint64_t start)
{
	struct cps_procinfo pi;
	/* The stat file alone: a dead pid has none (no kill(pid, 0) first),
	 * and the owner is not needed. The sweep calls this for every member. */
	if (pid <= 0 || cps_proc_stat(pid, &pi) < 0 || pi.start != start)
		return false;
	/* a zombie whose threads have all gone counts one thread (itself);
	 * a first thread that ended before the others is a zombie too, but
	 * counts them */
	return !((pi.state == 'Z' || pi.state == 'X') && pi.nthreads <= 1);
}

bool cps_thread_alive(pid_t pid, pid_t tid)
{
	if (pid <= 0 || tid <= 0)
		return false;
	return cps_sys_tgkill(pid, tid, 0) != -ESRCH;
}

bool cps_proc_is_process(pid_t pid)
{
	if (pid <= 0)
		return false;
	/* tgkill checks that thread pid belongs to thread group pid: only a
	 * process's first thread does (EPERM: it does, another user's) */
	if (cps_sys_tgkill(pid, pid, 0) != -ESRCH)
		return true;
	/* no thread group pid: a thread of another one if pid exists */
	long r = cps_sys3(SYS_kill, pid, 0, 0);
	return !(r == 0 || r == -EPERM);
}

pid_t cps_proc_tgid(pid_t tid)
{
	char path[PROC_PATH_MAX], buf[2048];
	proc_path(path, tid, 0, "/status");
	int n = cps_sys_slurp(path, buf, sizeof(buf), true);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : n;
	const char *p = strstr(buf, "\nTgid:");
	if (!p)
		return -EIO;
	p += 6;
	while (*p == '\t' || *p == ' ')
		p++;
	unsigned long long v = take_dec(&p);
	return v > 0 && v < 0x7fffffff ? (pid_t)v : -EIO;
}

/* The value of the status line that starts with key (with its colon),
 * the text after it in buf; NULL if none. */
static const char *status_line(pid_t pid, const char *key, char *buf, size_t len, int *err)
{
	char path[PROC_PATH_MAX];
	proc_path(path, pid, 0, "/status");
	int n = cps_sys_slurp(path, buf, len, true);
	if (n < 0) {
		*err = n == -ENOENT ? -ESRCH : n;
		return NULL;
	}
	size_t kl = strlen(key);
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl))
			return p + kl;
	*err = -EIO;
	return NULL;
}

long cps_proc_real_uid(pid_t pid)
{
	char buf[2048];
	int err = 0;
	const char *p = status_line(pid, "Uid:", buf, sizeof(buf), &err);
	if (!p)
		return err;
	while (*p == '\t' || *p == ' ')
		p++;
	if (!cps_is_digit(*p))
		return -EIO;
	unsigned long long v = take_dec(&p);
	return v <= 0xffffffffull ? (long)v : -EIO;
}

bool cps_proc_is_ns_init(pid_t pid)
{
	if (pid == 1)
		return true;
	char buf[2048];
	int err = 0;
	const char *p = status_line(pid, "NSpid:", buf, sizeof(buf), &err);
	if (!p)
		return false; /* a kernel without NSpid: no nested namespaces told */
	unsigned long long last = 0;
	for (;;) {
		while (*p == '\t' || *p == ' ')
			p++;
		if (!cps_is_digit(*p))
			break;
		last = take_dec(&p);
	}
	return last == 1;
}

bool cps_self_has_children(void)
{
	siginfo_t si;
	/* WNOHANG: no waiting; WNOWAIT: nothing reaped or consumed; __WALL:
	 * clone children and tracees count too. ECHILD means none at all. */
	return !(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 &&
		 errno == ECHILD);
}

static int each_numeric(const char *dir, int (*fn)(pid_t, void *), void *arg)
{
	_Alignas(8) char buf[4096];
	int fd = cps_sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	int r = 0;
	for (;;) {
		long n = cps_sys_getdents64(fd, buf, sizeof(buf));
		if (n == -EINTR)
			continue;
		if (n < 0) {
			r = (int)n;
			break;
		}
		if (n == 0)
			break;
		for (long o = 0; o < n && r == 0;) {
			const struct cps_dent64 *e = (const struct cps_dent64 *)(buf + o);
			o += e->reclen;
			const char *q = e->name;
			unsigned long long v = take_dec(&q);
			if (*q || q == e->name || v == 0 || v > INT32_MAX)
				continue;
			r = fn((pid_t)v, arg);
		}
		if (r != 0)
			break;
	}
	cps_sys_close(fd);
	return r;
}

int cps_proc_each_thread(pid_t pid, int (*fn)(pid_t tid, void *arg), void *arg)
{
	char path[PROC_PATH_MAX];
	proc_path(path, pid, 0, "/task");
	return each_numeric(path, fn, arg);
}

int cps_proc_each_child(pid_t pid, pid_t tid, int (*fn)(pid_t child, void *arg), void *arg)
{
	char path[PROC_PATH_MAX], buf[4096];
	proc_path(path, pid, tid, "/children");
	int n = cps_sys_slurp(path, buf, sizeof(buf), true);
	if (n < 0)
		return n;
	for (char *p = buf, *end; *p; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		int r;
		if (v > 0 && (r = fn((pid_t)v, arg)) != 0)
			return r;
	}
	return 0;
}

int cps_list_file(const char *path, uint64_t *m, size_t nw)
{
	char buf[8192];
	int n = cps_sys_slurp(path, buf, sizeof(buf), false);
	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = 0;
	cps_mask_zero(m, nw);
	/* a number beyond the mask's width is refused by the parser */
	return !buf[0] || cps_cpulist_parse(buf, m, nw, NULL) == 0 ? 0 : -EINVAL;
}

/* A list file of the kernel's that is never empty. */
static int cpu_list_file(const char *path, uint64_t *m, size_t nw)
{
	int r = cps_list_file(path, m, nw);
	return r == 0 && cps_mask_empty(m, nw) ? -EINVAL : r;
}

int cps_online_cpus(uint64_t *m, size_t nw)
{
	return cpu_list_file("/sys/devices/system/cpu/online", m, nw);
}

int cps_present_cpus(uint64_t *m, size_t nw)
{
	return cpu_list_file("/sys/devices/system/cpu/present", m, nw);
}

int cps_proc_each(int (*fn)(pid_t pid, void *arg), void *arg)
{
	return each_numeric("/proc", fn, arg);
}
