/* SPDX-License-Identifier: BSD-3-Clause */
/* prog_entry DIR: the shim's entry points that are frameless stubs where
 * the architecture has them (preload/stubs.h: syscall, open, open64,
 * openat, openat64), called as a program calls them, under the shim in a
 * set of one CPU whose physical CPU is not 0. DIR: an empty directory of
 * its own, far from /proc and /sys. Checks, one line each ("ok - WHAT" or
 * "not ok - WHAT: DETAIL"), exit 1 if one failed:
 *   - syscall(2) passed through: its value, errno on failure (EBADF,
 *     ENOSYS for an unknown and a negative number), all six arguments
 *     (mmap of a file's second page: the fifth and sixth arguments);
 *   - syscall(2) of the numbers the shim translates: sched_getaffinity's
 *     byte count and virtual mask, getcpu's virtual CPU, chdir (the
 *     working directory the stubs trust, forgotten);
 *   - the open family passed through (errno, the mode of a created file
 *     in both open's and openat's register) and a view taken by each
 *     spelling a stub tells apart: absolute, relative to the working
 *     directory ("far", "/", with ".."), relative to a directory fd. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CPUREL "sys/devices/system/cpu"
#define CPU "/" CPUREL

static int failed;

static void check(int ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check(int ok, const char *what, const char *fmt, ...)
{
	va_list ap;
	if (ok) {
		printf("ok - %s\n", what);
		return;
	}
	failed = 1;
	printf("not ok - %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The first line of fd's file (closed), "" on failure */
static const char *line_of(int fd)
{
	static char buf[256];
	buf[0] = 0;
	if (fd < 0)
		return buf;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* a view's line: the set's one CPU is virtual CPU 0 */
#define VIEW(what, fd) \
	do { \
		const char *l_ = line_of(fd); \
		check(strcmp(l_, "0") == 0, what, "read [%s], want [0] (the set's view)", l_); \
	} while (0)

static void syscall_through(const char *dir)
{
	errno = 0;
	long r = syscall(SYS_getppid);
	check(r == getppid() && errno == 0, "syscall(SYS_getppid) passes through", "%ld, want %d",
	      r, (int)getppid());
	errno = 0;
	r = syscall(SYS_close, -1);
	check(r == -1 && errno == EBADF, "syscall(SYS_close, -1): -1 and errno EBADF",
	      "%ld errno %d", r, errno);
	errno = 0;
	r = syscall(0x7ffff);
	check(r == -1 && errno == ENOSYS, "syscall of an unknown number: ENOSYS", "%ld errno %d", r,
	      errno);
	errno = 0;
	r = syscall(-1L);
	check(r == -1 && errno == ENOSYS, "syscall(-1): ENOSYS", "%ld errno %d", r, errno);
#if defined(SYS_mmap) && !defined(__s390x__) /* s390x's mmap takes one argument */
	char path[4096];
	snprintf(path, sizeof(path), "%s/pages", dir);
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *b = malloc((size_t)pg * 2);
	if (fd < 0 || !b) {
		check(0, "syscall(SYS_mmap, six arguments)", "cannot make %s", path);
		return;
	}
	memset(b, 'A', (size_t)pg);
	memset(b + pg, 'B', (size_t)pg);
	int w = write(fd, b, (size_t)pg * 2) == pg * 2;
	free(b);
	errno = 0;
	r = syscall(SYS_mmap, 0L, pg, (long)PROT_READ, (long)MAP_PRIVATE, (long)fd, pg);
	const char *m = (const char *)r;
	check(w && r != -1 && m[0] == 'B' && m[pg - 1] == 'B',
	      "syscall(SYS_mmap, six arguments): the file's second page", "%ld errno %d first %c", r,
	      errno, r != -1 ? m[0] : '-');
	if (r != -1)
		munmap((void *)r, (size_t)pg);
	errno = 0;
	r = syscall(SYS_mmap, 0L, pg, (long)PROT_READ, (long)MAP_PRIVATE, -1L, pg);
	check(r == -1 && errno == EBADF, "syscall(SYS_mmap) of fd -1 (its fifth argument): EBADF",
	      "%ld errno %d", r, errno);
	close(fd);
	unlink(path);
#else
	(void)dir;
	printf("# no six-argument mmap system call here\n");
#endif
}

static void syscall_shimmed(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	long r = syscall(SYS_sched_getaffinity, 0L, (long)sizeof(s), &s);
	check(r > 0 && r % (long)sizeof(long) == 0 && CPU_COUNT(&s) == 1 && CPU_ISSET(0, &s),
	      "syscall(SYS_sched_getaffinity): the kernel's byte count, the set's mask {0}",
	      "%ld, %d CPUs, CPU 0 %s", r, CPU_COUNT(&s), CPU_ISSET(0, &s) ? "in" : "out");
	cpu_set_t l;
	CPU_ZERO(&l);
	int lr = sched_getaffinity(0, sizeof(l), &l);
	check(lr == 0 && CPU_EQUAL(&s, &l), "sched_getaffinity agrees", "%d", lr);
	unsigned cpu = 99;
	r = syscall(SYS_getcpu, &cpu, NULL, NULL);
	check(r == 0 && cpu == 0, "syscall(SYS_getcpu): virtual CPU 0", "%ld cpu %u", r, cpu);
	errno = 0;
	r = syscall(SYS_sched_setaffinity, 0L, (long)sizeof(s), &s);
	check(r == 0, "syscall(SYS_sched_setaffinity) of the set's mask {0}", "%ld errno %d", r, errno);
	CPU_ZERO(&l);
	r = syscall(SYS_sched_getaffinity, 0L, (long)sizeof(l), &l);
	check(r > 0 && CPU_EQUAL(&s, &l), "and the mask is still {0} (the set's CPU, made physical)",
	      "%ld, %d CPUs", r, CPU_COUNT(&l));
}

static void open_through(const char *dir)
{
	const char *volatile nul = NULL;
	errno = 0;
	int fd = open(nul, O_RDONLY);
	check(fd == -1 && errno == EFAULT, "open(NULL): -1 and errno EFAULT", "%d errno %d", fd, errno);
	errno = 0;
	fd = open("/nonexistent-dir/x", O_RDONLY);
	check(fd == -1 && errno == ENOENT, "open of a missing file: errno ENOENT", "%d errno %d", fd,
	      errno);
	fd = open64("/dev/null", O_RDONLY);
	check(fd >= 0, "open64(\"/dev/null\")", "errno %d", errno);
	close(fd);
	char path[4096];
	struct stat st;
	umask(0);
	static const int modes[4] = { 0640, 0604, 0614, 0446 };
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/created%d", dir, i);
		int dfd = open(dir, O_RDONLY | O_DIRECTORY);
		char rel[32];
		snprintf(rel, sizeof(rel), "created%d", i);
		switch (i) {
		case 0: fd = open(path, O_WRONLY | O_CREAT | O_EXCL, modes[i]); break;
		case 1: fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, modes[i]); break;
		case 2: fd = openat(dfd, rel, O_WRONLY | O_CREAT | O_EXCL, modes[i]); break;
		default: fd = openat64(dfd, rel, O_WRONLY | O_CREAT | O_EXCL, modes[i]); break;
		}
		int ok = fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == (unsigned)modes[i];
		check(ok, i == 0 ? "open(O_CREAT, mode)" : i == 1 ? "openat(AT_FDCWD, O_CREAT, mode)" :
			  i == 2 ? "openat(dirfd, O_CREAT, mode)" : "openat64(dirfd, O_CREAT, mode)",
		      "fd %d mode %o, want %o", fd, fd >= 0 ? (unsigned)st.st_mode & 07777 : 0,
		      modes[i]);
		if (fd >= 0)
			close(fd);
		if (dfd >= 0)
			close(dfd);
		unlink(path);
	}
}

static void open_views(const char *dir)
{
	VIEW("open(\"" CPU "/online\"): the view", open(CPU "/online", O_RDONLY));
	VIEW("open64 of it", open64(CPU "/online", O_RDONLY));
	VIEW("openat(AT_FDCWD) of it", openat(AT_FDCWD, CPU "/online", O_RDONLY));
	VIEW("open(\"//sys/...\")", open("/" CPU "/online", O_RDONLY));
	int dfd = open(CPU, O_RDONLY | O_DIRECTORY);
	VIEW("openat(a directory fd, \"online\")", openat(dfd, "online", O_RDONLY));
	VIEW("openat64 of it", openat64(dfd, "online", O_RDONLY));
	close(dfd);
	/* relative to the working directory: far (learnt at the first
	 * relative open), then a path with "..", then "/", then moved into
	 * the cpu directory by syscall(SYS_chdir), which the shim must see */
	char rel[4096] = "";
	if (chdir(dir) != 0) {
		check(0, "chdir to DIR", "%s", strerror(errno));
		return;
	}
	line_of(open("no-such-file", O_RDONLY));
	for (const char *p = dir; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			strcat(rel, "../");
	strcat(rel, CPUREL "/online");
	VIEW("open of a relative path with \"..\"", open(rel, O_RDONLY));
	VIEW("openat(AT_FDCWD) of it", openat(AT_FDCWD, rel, O_RDONLY));
	long r = syscall(SYS_chdir, CPU);
	check(r == 0, "syscall(SYS_chdir, \"" CPU "\")", "%ld errno %d", r, errno);
	VIEW("open(\"online\") after it", open("online", O_RDONLY));
	VIEW("openat64(AT_FDCWD, \"online\") after it", openat64(AT_FDCWD, "online", O_RDONLY));
	if (chdir("/") != 0)
		return;
	VIEW("open(\"" CPUREL "/online\") in \"/\"", open(CPUREL "/online", O_RDONLY));
}

int main(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] != '/') {
		fprintf(stderr, "usage: prog_entry DIR (absolute)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	syscall_through(argv[1]);
	syscall_shimmed();
	open_through(argv[1]);
	open_views(argv[1]);
	return failed;
}
