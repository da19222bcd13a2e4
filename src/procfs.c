/* Facts about processes, read from /proc. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/procfs.h"

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = 0;
	return (int)n;
}

int cps_proc_info(pid_t pid, struct cps_procinfo *pi)
{
	char path[64], buf[1024];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : n;
	/* comm may hold spaces and parentheses: fields start after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	p++;
	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	pi->last_cpu = -1;
	/* field 3 is the state; count from there */
	for (int field = 3; field <= 39 && *p; field++) {
		while (*p == ' ')
			p++;
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		if (field == 4)
			pi->ppid = (pid_t)v;
		else if (field == 22)
			pi->start = v;
		else if (field == 39)
			pi->last_cpu = (int)v;
		p = strchr(p, ' ');
		if (!p)
			break;
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return -ESRCH;
	pi->uid = st.st_uid;
	return pi->start ? 0 : -EIO;
}

bool cps_proc_alive(pid_t pid, uint64_t start)
{
	struct cps_procinfo pi;
	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	return cps_proc_info(pid, &pi) == 0 && pi.start == start;
}

bool cps_thread_alive(pid_t pid, pid_t tid)
{
	if (pid <= 0 || tid <= 0)
		return false;
	return !(syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH);
}

static int each_numeric(const char *dir, int (*fn)(pid_t, void *), void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	struct dirent *e;
	int r = 0;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (*end || v <= 0)
			continue;
		if ((r = fn((pid_t)v, arg)) != 0)
			break;
	}
	closedir(d);
	return r;
}

int cps_proc_each_thread(pid_t pid, int (*fn)(pid_t tid, void *arg), void *arg)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return each_numeric(path, fn, arg);
}

int cps_proc_each(int (*fn)(pid_t pid, void *arg), void *arg)
{
	return each_numeric("/proc", fn, arg);
}
