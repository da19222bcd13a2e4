/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ — cpuset-oci-hook: the container's own cpuset (its config.json's
 * linux.resources.cpu.cpus and .mems, podman's --cpuset-cpus and
 * --cpuset-mems) named in virtual CPUs and memory nodes of the set it is
 * launched in. The runtime wrote those lists into the container's cpuset
 * cgroup as physical before the hook runs; the hook translates them
 * through the set (tools/oci_translate.c), refuses CPUs or nodes the set
 * does not have, and writes the physical lists into the same cgroup
 * (the CPUs into every thread's affinity too), so that the kernel
 * confines the container where the set's numbers say. doc/containers.md, "The container's own
 * cpuset", gives the reasons. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/allowance.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vcgroup.h"
#include "tools/cli.h"
#include "tools/oci_hook.h"

#define OC_TEXT_MAX 65536 /* a /proc cgroup or mountinfo file, at most */

/* The text of a /proc file, NUL-terminated, in a buffer of OC_TEXT_MAX. */
static int slurp_proc(const char *path, char *buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k = read(fd, buf + n, OC_TEXT_MAX - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return 0;
}

/* The cpuset cgroup directory (v1's, else v2's) of the process whose
 * /proc/PID/cgroup is at cgpath, as the hook's mount table shows it. */
static int cpuset_dir(const char *cgpath, char *dir, size_t len)
{
	static char cg[OC_TEXT_MAX], mi[OC_TEXT_MAX];
	char v1[PATH_MAX], v2[PATH_MAX];
	size_t cgl, mil;
	int r = slurp_proc(cgpath, cg, &cgl);
	if (r == 0)
		r = slurp_proc("/proc/self/mountinfo", mi, &mil);
	if (r < 0)
		return r;
	int found = cps_cgroup_cpuset_dirs(cg, cgl, mi, mil, v1, sizeof(v1), v2, sizeof(v2));
	const char *d = found & 1 ? v1 : found & 2 ? v2 : NULL;
	if (!d || snprintf(dir, len, "%s", d) >= (int)len)
		return -ENOENT;
	return 0;
}

/* What the container's own cpuset names: its CPUs or its memory nodes. */
struct kind {
	const char *key;  /* of linux.resources.cpu */
	const char *file; /* of its cpuset cgroup */
	const char *one;  /* a member */
	const char *all;  /* the members */
};
static const struct kind cpu_kind = { "cpus", "cpuset.cpus", "CPU", "CPUs" },
			 node_kind = { "mems", "cpuset.mems", "node", "memory nodes" };

/* The path of file k->file of the container's cpuset cgroup, which must
 * be its own (not its runtime's: that one holds the runtime, and the
 * hook). */
static int cgroup_file(const struct oh_container *c, const struct kind *k, char *path,
		       size_t len)
{
	char mine[PATH_MAX], dir[PATH_MAX], cg[64];
	snprintf(cg, sizeof(cg), "/proc/%d/cgroup", (int)c->pid);
	if (cpuset_dir(cg, dir, sizeof(dir)) < 0) {
		cli_err("container %d: its cpuset cgroup cannot be found: its cpuset is not "
			"changed; not started",
			(int)c->pid);
		return OH_REFUSED;
	}
	if (cpuset_dir("/proc/self/cgroup", mine, sizeof(mine)) == 0 && !strcmp(mine, dir)) {
		cli_err("container %d: its cpuset cgroup %s is its runtime's: its cpuset is not "
			"changed; not started",
			(int)c->pid, dir);
		return OH_REFUSED;
	}
	if (snprintf(path, len, "%s/%s", dir, k->file) >= (int)len)
		return OH_REFUSED;
	return OH_OK;
}

/* The list in file path: 0, or -errno. */
static int read_list(const char *path, char *text, size_t len, uint64_t *m, size_t nw)
{
	struct cps_parse_error pe;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, len - 1);
	int err = errno;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = 0;
	text[strcspn(text, "\n")] = 0;
	if (n < 0)
		return -err;
	return cps_cpulist_parse(text, m, nw, &pe) < 0 ? -EINVAL : 0;
}

/* The physical list into the container's cpuset cgroup, read back. */
static int write_cgroup(const struct oh_container *c, const struct kind *k, const uint64_t *phys)
{
	char path[PATH_MAX + 32], list[CPS_MAX_CPUS * 4], back[CPS_MAX_CPUS * 4];
	uint64_t got[CPS_MAX_WORDS] = { 0 };
	if (cgroup_file(c, k, path, sizeof(path)) != OH_OK)
		return OH_REFUSED;
	size_t n = cps_cpulist_format(list, sizeof(list) - 1, phys, c->nw);
	list[n] = '\n';
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t w = fd < 0 ? -1 : write(fd, list, n + 1);
	int err = errno;
	if (fd >= 0)
		close(fd);
	list[n] = 0;
	if (w != (ssize_t)(n + 1)) {
		cli_err("container %d: %s %s cannot be written to %s: %s; not started", (int)c->pid,
			k->all, list, path, strerror(err));
		return OH_REFUSED;
	}
	int r = read_list(path, back, sizeof(back), got, c->nw);
	if (r < 0 || !cps_mask_equal(got, phys, c->nw)) {
		cli_err("container %d: %s reads \"%s\" (%s), not the %s %s written: not started",
			(int)c->pid, path, back, r < 0 ? strerror(-r) : "other", k->all, list);
		return OH_REFUSED;
	}
	return OH_OK;
}

/* Every thread of the container's first process (a runtime's init, as
 * runc's, has several) onto the physical CPUs. */
static int set_threads(const struct oh_container *c, const uint64_t *phys)
{
	char path[64];
	static unsigned char cs[CPS_MAX_WORDS * 8];
	size_t size = c->nw * 8;
	int bad = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pid);
	DIR *d = opendir(path);
	if (!d)
		return -ESRCH;
	cps_mask_to_cpuset(cs, size, phys, c->nw); /* nothing lost: as wide */
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (e->d_name[0] == '.' || *end || tid <= 0)
			continue;
		if (sched_setaffinity((pid_t)tid, size, (cpu_set_t *)cs) < 0 && errno != ESRCH)
			bad = -errno;
	}
	closedir(d);
	return bad;
}

/* The container's list of kind k (a list of virtual members of frame)
 * made physical in phys: 0, or an OH_ exit code as a negative number,
 * said. */
static int translate(const struct oh_container *c, const struct kind *k, const char *list,
		     const uint64_t *frame, uint64_t *phys)
{
	struct cps_parse_error pe = { 0, "" };
	char fl[CPS_MAX_CPUS * 4], vr[32];
	int r = oh_translate(list, frame, c->nw, phys, &pe);
	if (r == -EINVAL) {
		cli_err("container %d: its config.json's linux.resources.cpu.%s \"%s\" is no %s "
			"list (%s)",
			(int)c->pid, k->key, list, k->one, pe.msg);
		return -OH_USAGE;
	}
	if (r < 0) {
		unsigned n = cps_mask_count(frame, c->nw);
		snprintf(fl, sizeof(fl), "%s", n ? cli_cpulist(frame, c->nw) : "none");
		snprintf(vr, sizeof(vr), n > 1 ? "0-%u" : n ? "0" : "none", n - 1);
		cli_err("container %d: its cpuset names %s %s of its set, whose %s are %s "
			"(virtual %s): not started",
			(int)c->pid, k->all, list, k->all, fl, vr);
		return -OH_REFUSED;
	}
	return 0;
}

/* The kernel runs every thread of the container's first process on phys:
 * 0, or an OH_ exit code as a negative number, said. */
static int apply_threads(const struct oh_container *c, const uint64_t *phys)
{
	uint64_t k[CPS_MAX_WORDS] = { 0 };
	char fl[CPS_MAX_CPUS * 4];
	int t = set_threads(c, phys);
	int a = t < 0 ? t : cps_kernel_affinity(c->pid, k, c->nw);
	if (a < 0 || !cps_mask_equal(k, phys, c->nw)) {
		snprintf(fl, sizeof(fl), "%s", cli_cpulist(phys, c->nw));
		cli_err("container %d: the kernel does not run it on CPUs %s (%s%s): not started",
			(int)c->pid, fl, a < 0 ? "" : "but on ",
			a < 0 ? strerror(-a) : cli_cpulist(k, c->nw));
		return -OH_REFUSED;
	}
	return 0;
}

/* The physical CPUs (unless NULL) and nodes (unless NULL) into the
 * container's cpuset cgroup, the CPUs into its threads' affinity unless
 * supervised: 0, or an OH_ exit code as a negative number, said. */
static int write_all(const struct oh_container *c, const uint64_t *cpus, const uint64_t *mems,
		     enum oh_cpuset_mode mode)
{
	int r = OH_OK;
	if (cpus)
		r = write_cgroup(c, &cpu_kind, cpus);
	if (r == OH_OK && mems)
		r = write_cgroup(c, &node_kind, mems);
	if (r != OH_OK)
		return -r;
	/* under cpuset-run's supervisor the hook's own affinity calls are
	 * answered in the set's numbers: the cgroup's write, which the
	 * kernel applies to every thread in it, is enough there */
	return cpus && mode == OH_CPUSET_APPLY ? apply_threads(c, cpus) : 0;
}

int oh_cpuset(struct oh_container *c, const uint64_t *frame, const uint64_t *nodes,
	      enum oh_cpuset_mode mode)
{
	uint64_t cpus[CPS_MAX_WORDS] = { 0 }, mems[CPS_MAX_WORDS] = { 0 };
	bool want_cpus = c->cpuset[0], want_mems = nodes && c->memlist[0];
	int r = 0;
	if (!want_cpus && !want_mems)
		return 0;
	/* both refused before anything is written */
	if (want_cpus)
		r = translate(c, &cpu_kind, c->cpuset, frame, cpus);
	if (r == 0 && want_mems)
		r = translate(c, &node_kind, c->memlist, nodes, mems);
	if (r == 0 && mode != OH_CPUSET_DRY)
		r = write_all(c, want_cpus ? cpus : NULL, want_mems ? mems : NULL, mode);
	if (r < 0)
		return r;
	if (want_cpus)
		memcpy(c->cpus, cpus, c->nw * 8);
	if (want_mems)
		memcpy(c->mems, mems, c->nw * 8);
	return 1;
}
