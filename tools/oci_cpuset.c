/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ — cpuset-oci-hook: the container's own cpuset (its config.json's
 * linux.resources.cpu.cpus, podman's --cpuset-cpus) named in virtual
 * CPUs of the set it is launched in. The runtime wrote that list into
 * the container's cpuset cgroup as physical CPUs before the hook runs;
 * the hook translates it through the set, refuses CPUs the set does not
 * have, and writes the physical list into the same cgroup and every
 * thread's affinity, so that the kernel confines the container where
 * the set's numbers say. doc/containers.md, "The container's own
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

/* The physical list into the container's cpuset cgroup, which must be
 * its own (not its runtime's: that one holds the runtime, and the hook). */
static int write_cgroup(const struct oh_container *c, const uint64_t *phys)
{
	char mine[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32], cg[64], list[CPS_MAX_CPUS * 4];
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
	snprintf(path, sizeof(path), "%s/cpuset.cpus", dir);
	size_t n = cps_cpulist_format(list, sizeof(list) - 1, phys, c->nw);
	list[n] = '\n';
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t w = fd < 0 ? -1 : write(fd, list, n + 1);
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (w != (ssize_t)(n + 1)) {
		list[n] = 0;
		cli_err("container %d: CPUs %s cannot be written to %s: %s; not started", (int)c->pid,
			list, path, strerror(err));
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

int oh_cpuset(struct oh_container *c, const uint64_t *frame, enum oh_cpuset_mode mode)
{
	uint64_t virt[CPS_MAX_WORDS] = { 0 }, phys[CPS_MAX_WORDS] = { 0 }, k[CPS_MAX_WORDS] = { 0 };
	struct cps_parse_error pe;
	char fl[CPS_MAX_CPUS * 4];
	if (!c->cpuset[0])
		return 0;
	if (cps_cpulist_parse(c->cpuset, virt, c->nw, &pe) < 0) {
		cli_err("container %d: its config.json's linux.resources.cpu.cpus \"%s\" is no CPU "
			"list (%s)",
			(int)c->pid, c->cpuset, pe.msg);
		return -OH_USAGE;
	}
	unsigned n = cps_mask_count(frame, c->nw);
	snprintf(fl, sizeof(fl), "%s", cli_cpulist(frame, c->nw));
	if (cps_mask_last(virt, c->nw) >= (int)n) {
		char vr[32];
		snprintf(vr, sizeof(vr), n > 1 ? "0-%u" : "0", n - 1);
		cli_err("container %d: its cpuset names CPUs %s of its set, whose CPUs are %s "
			"(virtual %s): not started",
			(int)c->pid, c->cpuset, fl, vr);
		return -OH_REFUSED;
	}
	cps_virt_to_phys(phys, frame, c->nw, virt, c->nw, false);
	int r = mode == OH_CPUSET_DRY ? OH_OK : write_cgroup(c, phys);
	if (r != OH_OK)
		return -r;
	/* under cpuset-run's supervisor the hook's own affinity calls are
	 * answered in the set's numbers: the cgroup's write, which the
	 * kernel applies to every thread in it, is enough there */
	if (mode == OH_CPUSET_APPLY) {
		int t = set_threads(c, phys);
		int a = t < 0 ? t : cps_kernel_affinity(c->pid, k, c->nw);
		if (a < 0 || !cps_mask_equal(k, phys, c->nw)) {
			snprintf(fl, sizeof(fl), "%s", cli_cpulist(phys, c->nw));
			cli_err("container %d: the kernel does not run it on CPUs %s (%s%s): not "
				"started",
				(int)c->pid, fl, a < 0 ? "" : "but on ",
				a < 0 ? strerror(-a) : cli_cpulist(k, c->nw));
			return -OH_REFUSED;
		}
	}
	memcpy(c->cpus, phys, c->nw * 8);
	return 1;
}
