/* SPDX-License-Identifier: BSD-3-Clause */
/* spell EXPECTED ROOT < PATHS: run under the shim with the test root ROOT
 * (CPUSETSHIM_TEST_ROOT) and a set (CPUSETSHIM_TEST_CPUS). EXPECTED is
 * the tree tests/topo/vtree made of the same machine and set with the
 * pure transforms; PATHS, one a line, are virtual paths of files in it.
 * For up to three paths of each row of the list of virtual files
 * (src/vfiles.h), every spelling must read the bytes of EXPECTED's file:
 *   abs        the path as it is
 *   dslash     "//" for one '/' (each in turn)
 *   dot        "/./" for one '/' (each in turn)
 *   sibling    "s/../d" for each directory d that has a sibling s
 *   chdir      relative to each parent, after chdir to it
 *   dirfd      relative to a directory descriptor of each parent (openat)
 *   bus        /sys/bus/cpu/devices/cpuN/... for a CPU's file
 *   rootabs    ROOT + path
 *   rootrel    relative to ROOT, after chdir to it and through its fd
 * Prints "fail ROW SPELLING PATH: WHY" per failure, "row ROW N" per row
 * read and "spellings N failures F" last. Exit 0, 1 on a failure, 2 on
 * bad arguments. EXPECTED is read with raw system calls, past the
 * shim. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vfiles.h"
#include "src/vcgroup.h"
#include "src/views.h"

enum { CAP = 1 << 16, PER_ROW = 3 };

static const char *expected, *root;
static unsigned long spellings, failures;

/* The whole of fd into buf; its length, or -1. */
static ssize_t drain(int fd, char *buf)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, buf + n, CAP - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0 || (n += (size_t)r) == CAP)
			return (ssize_t)n;
	}
}

/* EXPECTED's file of vpath, past the shim. */
static ssize_t want_of(const char *vpath, char *buf)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s%s", expected, vpath);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = drain(fd, buf);
	close(fd);
	return n;
}

/* Whether EXPECTED has a directory named by vpath (past the shim). */
static bool want_dir(const char *vpath)
{
	char p[2 * PATH_MAX];
	struct stat sb;
	snprintf(p, sizeof(p), "%s%s", expected, vpath);
	return syscall(SYS_newfstatat, AT_FDCWD, p, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(sb.st_mode);
}

static void check_fd(int fd, const char *row, const char *how, const char *spelt,
		     const char *want, ssize_t wlen)
{
	static char got[CAP];
	ssize_t n;

	spellings++;
	if (fd < 0) {
		printf("fail %s %s %s: open: %s\n", row, how, spelt, strerror(errno));
		failures++;
		return;
	}
	n = drain(fd, got);
	close(fd);
	if (n != wlen || memcmp(got, want, (size_t)n)) {
		printf("fail %s %s %s: %zd bytes \"%.*s\", want %zd \"%.*s\"\n", row, how, spelt, n,
		       (int)(n > 40 ? 40 : n < 0 ? 0 : n), got, wlen, (int)(wlen > 40 ? 40 : wlen),
		       want);
		failures++;
	}
}

static void check_abs(const char *row, const char *how, const char *spelt, const char *want,
		      ssize_t wlen)
{
	check_fd(open(spelt, O_RDONLY | O_CLOEXEC), row, how, spelt, want, wlen);
}

/* Relative to dir: after chdir to it, and through a descriptor of it. */
static void check_rel(const char *row, const char *what, const char *dir, const char *rel,
		      const char *want, ssize_t wlen)
{
	char spelt[2 * PATH_MAX + 16], how[32];
	int dfd;

	snprintf(spelt, sizeof(spelt), "%s : %s", dir, rel);
	snprintf(how, sizeof(how), "%s-chdir", what);
	if (chdir(dir) < 0) {
		printf("fail %s %s %s: chdir: %s\n", row, how, spelt, strerror(errno));
		failures++;
		spellings++;
	} else {
		check_fd(open(rel, O_RDONLY | O_CLOEXEC), row, how, spelt, want, wlen);
	}
	if (chdir("/") < 0)
		exit(1);
	snprintf(how, sizeof(how), "%s-dirfd", what);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		printf("fail %s %s %s: open of the directory: %s\n", row, how, spelt,
		       strerror(errno));
		failures++;
		spellings++;
		return;
	}
	check_fd(openat(dfd, rel, O_RDONLY | O_CLOEXEC), row, how, spelt, want, wlen);
	close(dfd);
}

/* A directory entry of EXPECTED's dir (virtual) other than name that is
 * a directory itself, into out; false if none. */
static bool sibling(const char *dir, const char *name, char *out, size_t len)
{
	char p[PATH_MAX], d[8192];
	long n;
	int fd;
	bool found = false;

	snprintf(p, sizeof(p), "%s%s", expected, dir);
	fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (!found && (n = syscall(SYS_getdents64, fd, d, sizeof(d))) > 0)
		for (long i = 0; i < n && !found;) {
			unsigned short rl;
			const char *e = d + i + 19;
			char v[PATH_MAX + 300];
			memcpy(&rl, d + i + 16, sizeof(rl));
			snprintf(v, sizeof(v), "%s/%s", dir, e);
			if (e[0] != '.' && strcmp(e, name) && want_dir(v)) {
				snprintf(out, len, "%s", e);
				found = true;
			}
			i += rl;
		}
	close(fd);
	return found;
}

/* The set's CPUs (CPUSETSHIM_TEST_CPUS) as the views' input. */
static struct cps_view_input set_input(void)
{
	static uint64_t m[CPS_MAX_WORDS];
	struct cps_parse_error err;
	const char *c = getenv("CPUSETSHIM_TEST_CPUS");
	struct cps_view_input in = { 0 };

	if (!c || cps_cpulist_parse(c, m, CPS_MAX_WORDS, &err))
		return in;
	in.set = m;
	in.nw = CPS_MAX_WORDS;
	in.n = cps_mask_count(m, CPS_MAX_WORDS);
	return in;
}

/* A cgroup CPU file: the view of the captured process's own cgroup's,
 * the real text of any other; which, the absolute spelling says. */
static ssize_t want_cgroup(const char *v, char *want)
{
	static char got[CAP];
	ssize_t wlen = want_of(v, want), n;
	struct cps_view_input in = set_input();
	struct cps_buf out = { 0 };
	int fd = open(v, O_RDONLY | O_CLOEXEC);

	if (wlen < 0 || fd < 0 || (n = drain(fd, got)) < 0 || !in.n ||
	    cps_view_cgroup_cpus(&out, want, (size_t)wlen, &in)) {
		if (fd >= 0)
			close(fd);
		cps_buf_free(&out);
		return wlen;
	}
	close(fd);
	if ((size_t)n == out.len && !memcmp(got, out.p, out.len)) {
		memcpy(want, out.p, out.len);
		wlen = (ssize_t)out.len;
	}
	cps_buf_free(&out);
	return wlen;
}

/* Whether ROOT has path p (past the shim). */
static bool root_has(const char *p)
{
	char rp[PATH_MAX];
	struct stat sb;
	snprintf(rp, sizeof(rp), "%s%s", root, p);
	return syscall(SYS_newfstatat, AT_FDCWD, rp, &sb, 0) == 0;
}

static void spell(const char *v, const struct cps_vfile *r)
{
	static char want[CAP];
	const char *row = r->path;
	ssize_t wlen = r->family == CPS_VF_CGROUP ? want_cgroup(v, want) : want_of(v, want);
	char s[2 * PATH_MAX + 64], dir[PATH_MAX], sib[NAME_MAX + 1];
	size_t vl = strlen(v);

	if (wlen < 0) {
		printf("fail %s expected %s: %s\n", row, v, strerror(errno));
		failures++;
		return;
	}
	check_abs(row, "abs", v, want, wlen);
	for (size_t i = 1; i < vl; i++) {
		if (v[i] != '/')
			continue;
		snprintf(s, sizeof(s), "%.*s//%s", (int)i, v, v + i + 1);
		check_abs(row, "dslash", s, want, wlen);
		snprintf(s, sizeof(s), "%.*s/./%s", (int)i, v, v + i + 1);
		check_abs(row, "dot", s, want, wlen);
		/* the directory ending at i, through a sibling of it */
		size_t b = i;
		while (b > 0 && v[b - 1] != '/')
			b--;
		snprintf(dir, sizeof(dir), "%.*s", (int)(b ? b - 1 : 0), v);
		char name[NAME_MAX + 1];
		snprintf(name, sizeof(name), "%.*s", (int)(i - b), v + b);
		if (b > 1 && sibling(dir, name, sib, sizeof(sib))) {
			snprintf(s, sizeof(s), "%s/%s/../%s", dir, sib, v + b);
			check_abs(row, "sibling", s, want, wlen);
		}
	}
	/* relative to each parent: "/", "/sys", ... */
	for (size_t i = 0; i < vl; i++) {
		if (v[i] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(i ? i : 1), v);
		check_rel(row, "rel", dir, v + i + 1, want, wlen);
	}
	unsigned cpu;
	const char *end;
	if (!strncmp(v, CPS_VFILE_CPU "/", sizeof(CPS_VFILE_CPU)) &&
	    cps_vsys_cpu_name(v + sizeof(CPS_VFILE_CPU), &cpu, &end)) {
		snprintf(s, sizeof(s), "/sys/bus/cpu/devices/%s", v + sizeof(CPS_VFILE_CPU));
		check_abs(row, "bus", s, want, wlen);
		/* (a capture may lack the directory; a kernel has it) */
		if (root_has("/sys/bus/cpu/devices"))
			check_rel(row, "bus", "/sys/bus/cpu/devices", v + sizeof(CPS_VFILE_CPU), want,
				  wlen);
	}
	snprintf(s, sizeof(s), "%s%s", root, v);
	check_abs(row, "rootabs", s, want, wlen);
	check_rel(row, "root", root, v + 1, want, wlen);
}

/* spell --rows: "PATH KIND FLAGS" for each row. */
static int rows(void)
{
	static const char *const kinds[] = {
		[CPS_VK_NONE] = "NONE", [CPS_VK_ABSENT] = "ABSENT", [CPS_VK_SAME] = "SAME",
		[CPS_VK_DIR] = "DIR", [CPS_VK_MASK] = "MASK", [CPS_VK_LIST] = "LIST",
		[CPS_VK_SPACELIST] = "SPACELIST", [CPS_VK_RANGE] = "RANGE",
		[CPS_VK_KERNEL_MAX] = "KERNEL_MAX", [CPS_VK_HAS_CPU] = "HAS_CPU",
		[CPS_VK_POSSIBLE] = "POSSIBLE", [CPS_VK_OFFLINE] = "OFFLINE", [CPS_VK_ONLINE] = "ONLINE",
		[CPS_VK_NODELIST] = "NODELIST", [CPS_VK_DISTANCE] = "DISTANCE",
		[CPS_VK_NODEINFO] = "NODEINFO",
	};

	for (size_t i = 0; i < cps_nvfiles; i++) {
		unsigned k = cps_vfiles[i].kind;
		printf("%s %s %u\n", cps_vfiles[i].path,
		       k < sizeof(kinds) / sizeof(kinds[0]) && kinds[k] ? kinds[k] : "?",
		       cps_vfiles[i].flags);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned count[512];
	char line[PATH_MAX];

	if (argc == 2 && !strcmp(argv[1], "--rows"))
		return rows();
	if (argc != 3 || cps_nvfiles > 512) {
		fprintf(stderr, "usage: spell EXPECTED ROOT < PATHS\n");
		return 2;
	}
	expected = argv[1];
	root = argv[2];
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		const struct cps_vfile *r = cps_vfile_find(line, false, NULL);
		/* the test root serves the machine's files; the caller's own
		 * /proc/stat, status and stat stay this process's */
		if (!r || count[r - cps_vfiles] >= PER_ROW || r->family == CPS_VF_STAT ||
		    r->family == CPS_VF_STATUS || r->family == CPS_VF_PIDSTAT)
			continue;
		count[r - cps_vfiles]++;
		spell(line, r);
	}
	for (size_t i = 0; i < cps_nvfiles; i++)
		if (count[i])
			printf("row %s %u\n", cps_vfiles[i].path, count[i]);
	printf("spellings %lu failures %lu\n", spellings, failures);
	return failures ? 1 : 0;
}
