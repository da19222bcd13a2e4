/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ — cpuset-oci-hook's mounts. Every source is opened on the host
 * and cloned as a detached mount made read-only, nosuid and nodev before
 * it is attached anywhere (open_tree, mount_setattr); the hook then
 * enters the container's mount namespace and attaches each one to a
 * target opened inside the container's root without following any
 * symbolic link (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS, then
 * move_mount onto that descriptor). doc/containers.md, "The OCI hook",
 * gives the argument. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/procfs.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "tools/oci_hook.h"

#define OH_PRELOAD_MAX 65536 /* the image's own /etc/ld.so.preload, at most */

struct mounts {
	const struct oh_container *c;
	int shim, table[2], preload; /* detached read-only trees, -1: none */
	int preload_fd;              /* the preload list's file, written by us */
	int shm;                     /* the host's /dev/shm, where both are made */
	char names[2][64];           /* their names there, removed at the end */
	struct stat host_dev, host_shm; /* the host's /dev and /dev/shm */
	int root;                    /* the container's root, in its namespace */
};

static int say(const struct mounts *m, int code, const char *fmt, const char *what, int err)
{
	char msg[PATH_MAX + 256];
	snprintf(msg, sizeof(msg), fmt, what);
	if (err)
		cli_err("container %d: %s: %s", (int)m->c->pid, msg, strerror(err));
	else
		cli_err("container %d: %s", (int)m->c->pid, msg);
	return code;
}

/* A detached clone of the file fd, read-only, nosuid, nodev (and noexec
 * unless exec), or -1 with errno. */
static int tree_of(int fd, bool exec)
{
	int t = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (t < 0)
		return -1;
	struct mount_attr a = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			    (exec ? 0 : MOUNT_ATTR_NOEXEC),
	};
	if (mount_setattr(t, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0) {
		int e = errno;
		close(t);
		errno = e;
		return -1;
	}
	return t;
}

/* The shim: the site's file, root's and written by no one else. */
static int shim_tree(struct mounts *m, const char *shim)
{
	struct stat st;
	int fd = open(shim, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return say(m, OH_REFUSED, "the shim %s cannot be opened", shim, errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return say(m, OH_REFUSED,
			   "the shim %s is not a regular file of root's that only root may write", shim,
			   0);
	}
	m->shim = tree_of(fd, true);
	close(fd);
	return m->shim < 0 ? say(m, OH_REFUSED, "the shim %s cannot be mounted", shim, errno) : OH_OK;
}

/* The private table: a root of the container's CPUs (and its set's
 * nodes), readable by every user, made under a name of its own, cloned,
 * and its name removed: nothing is left on the host but the mounts. */
static int table_trees(struct mounts *m)
{
	const struct oh_container *c = m->c;
	char name[64], path[128];
	struct cps_init_opts o;
	struct cps_ctx t;
	cps_init_opts_default(&o);
	o.caps = (struct shm_caps){ 4, 16, 16, c->mask_bits };
	o.mode = 0644;
	o.cpus = c->cpus;
	o.mems = c->mems_given ? c->mems : NULL;
	snprintf(name, sizeof(name), "cpusetshim-oci.%d.%d", (int)c->pid, (int)getpid());
	int r = cps_init(&t, name, &o);
	if (r < 0)
		return say(m, OH_TABLE, "its private table cannot be made (%s)",
			   t.why ? t.why : "cps_init", -r);
	cps_close(&t);
	snprintf(m->names[0], sizeof(m->names[0]), "%s", name);
	int fd = shm_table_path(path, sizeof(path), name) < 0
			 ? -1
			 : open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	if (fd < 0)
		return say(m, OH_TABLE, "its private table %s cannot be opened", path, e);
	m->table[0] = tree_of(fd, false);
	m->table[1] = c->uid ? tree_of(fd, false) : -1;
	e = errno;
	close(fd);
	if (m->table[0] < 0 || (c->uid && m->table[1] < 0))
		return say(m, OH_TABLE, "its private table %s cannot be mounted", path, e);
	return OH_OK;
}

/* The preload list: a file of ours on the host's /dev/shm, written once
 * the image's own list is read. (A mount's source must have a name while
 * it is attached: both names are removed once it is.) */
static int preload_tree(struct mounts *m)
{
	snprintf(m->names[1], sizeof(m->names[1]), "cpusetshim-oci.%d.%d.preload", (int)m->c->pid,
		 (int)getpid());
	m->preload_fd = openat(m->shm, m->names[1],
			       O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (m->preload_fd < 0)
		m->names[1][0] = 0;
	if (m->preload_fd < 0 || fchmod(m->preload_fd, 0644) < 0)
		return say(m, OH_REFUSED, "the preload list cannot be made in %s", "/dev/shm", errno);
	m->preload = tree_of(m->preload_fd, false);
	return m->preload < 0 ? say(m, OH_REFUSED, "the preload list cannot be %s", "mounted", errno)
			      : OH_OK;
}

/* Whether the mount namespace its (of the container's process) is one
 * of the host's: ours (the runtime's namespace, where the hook runs), its
 * parent's (the runtime), or pid 1's when we may see it. A pid that is
 * not the container's (runc gives a createContainer hook 1) is refused,
 * so nothing is ever mounted on the host. */
static bool host_ns(pid_t pid, const struct stat *its)
{
	struct cps_procinfo pi;
	char p[64];
	struct stat st;
	if (pid <= 1 || cps_proc_stat(pid, &pi) < 0 || pi.ppid < 1)
		return true;
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)pi.ppid);
	const char *paths[] = { "/proc/self/ns/mnt", p, "/proc/1/ns/mnt" };
	for (int i = 0; i < 3; i++) {
		if (stat(paths[i], &st) < 0) {
			if (i == 2)
				continue; /* pid 1 of another namespace: not ours to see */
			return true;
		}
		if (st.st_dev == its->st_dev && st.st_ino == its->st_ino)
			return true;
	}
	return false;
}

/* Enter the container's mount namespace and open its root there. */
static int enter(struct mounts *m)
{
	char p[64];
	struct stat its;
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)m->c->pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &its) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return say(m, OH_USAGE, "its mount namespace %s cannot be opened", p, e);
	}
	if (host_ns(m->c->pid, &its)) {
		close(fd);
		return say(m, OH_REFUSED,
			   "it has no mount namespace of its own (%s is the host's or its "
			   "runtime's): nothing is mounted; run the hook at createRuntime or prestart",
			   p, 0);
	}
	if (setns(fd, CLONE_NEWNS) < 0) {
		int e = errno;
		close(fd);
		return say(m, OH_REFUSED, "its mount namespace %s cannot be entered", p, e);
	}
	close(fd);
	m->root = open(m->c->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (m->root < 0)
		return say(m, OH_USAGE, "its root %s cannot be opened", m->c->root, errno);
	return OH_OK;
}

/* path inside the root, no symbolic link on the way or at its end. */
static int in_root(const struct mounts *m, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned)(flags | O_CLOEXEC | O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, m->root, path, &how, sizeof(how));
}

/* A directory of the container's for mount points: resolved inside its
 * root, and never the host's own /dev or /dev/shm (a container given the
 * host's /dev gets nothing made there). dir "dev/X" is made when missing. */
static int dir_of(const struct mounts *m, const char *dir, int *out)
{
	struct stat st;
	int fd = in_root(m, dir, O_PATH | O_DIRECTORY);
	if (fd < 0 && errno == ENOENT && !strncmp(dir, "dev/", 4)) {
		int dev = in_root(m, "dev", O_PATH | O_DIRECTORY);
		if (dev >= 0 && fstat(dev, &st) == 0 && st.st_dev != m->host_dev.st_dev)
			(void)mkdirat(dev, dir + 4, 0755);
		if (dev >= 0)
			close(dev);
		fd = in_root(m, dir, O_PATH | O_DIRECTORY);
	}
	if (fd < 0)
		return say(m, OH_REFUSED,
			   "/%s in its image cannot be used (a symbolic link on the way is never "
			   "followed)",
			   dir, errno);
	if (fstat(fd, &st) < 0 || (st.st_dev == m->host_dev.st_dev && st.st_ino == m->host_dev.st_ino) ||
	    (st.st_dev == m->host_shm.st_dev && st.st_ino == m->host_shm.st_ino)) {
		close(fd);
		return say(m, OH_REFUSED, "/%s is the host's own: nothing is mounted there", dir, 0);
	}
	*out = fd;
	return OH_OK;
}

/* Attach tree at dir/name, a regular file, made empty when missing, as a
 * runtime makes its mount points. */
static int attach(const struct mounts *m, int tree, const char *dir, const char *name)
{
	int d = -1, r = dir_of(m, dir, &d);
	if (r != OH_OK)
		return r;
	struct stat st;
	int fd = openat(d, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		int w = openat(d, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (w >= 0)
			close(w);
		fd = openat(d, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	close(d);
	char what[PATH_MAX + 64];
	snprintf(what, sizeof(what), "/%s/%s", dir, name);
	if (fd < 0)
		return say(m, OH_REFUSED, "%s cannot be made in its image", what, errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return say(m, OH_REFUSED,
			   "%s in its image is not a regular file (a symbolic link is never followed)",
			   what, 0);
	}
	r = move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	int e = errno;
	close(fd);
	return r < 0 ? say(m, OH_REFUSED, "%s cannot be mounted", what, e) : OH_OK;
}

/* The list: the shim first, then the image's own list's other lines. */
static int write_preload(const struct mounts *m)
{
	static char buf[OH_PRELOAD_MAX + sizeof(OH_SHIM_IN) + 2];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s\n", OH_SHIM_IN);
	struct stat st;
	int fd = in_root(m, OH_PRELOAD, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		ssize_t k = read(fd, buf + n, OH_PRELOAD_MAX);
		n += k > 0 ? (size_t)k : 0;
		if (n && buf[n - 1] != '\n')
			buf[n++] = '\n';
	}
	if (fd >= 0)
		close(fd);
	if (pwrite(m->preload_fd, buf, n, 0) != (ssize_t)n)
		return say(m, OH_REFUSED, "the preload list cannot be %s", "written", errno);
	return OH_OK;
}

static int attach_all(struct mounts *m)
{
	char name[32];
	int r = write_preload(m);
	if (r == OH_OK)
		r = attach(m, m->shim, OH_SHIM_DIR, "libcpusetshim.so");
	snprintf(name, sizeof(name), "cpusetshim.%lu", m->c->uid);
	if (r == OH_OK)
		r = attach(m, m->table[0], "dev/shm", name);
	if (r == OH_OK && m->table[1] >= 0)
		r = attach(m, m->table[1], "dev/shm", "cpusetshim.0");
	/* last: the list names the shim only once it is there */
	if (r == OH_OK)
		r = attach(m, m->preload, "etc", "ld.so.preload");
	return r;
}

int oh_mount(const struct oh_container *c, const char *shim)
{
	struct mounts m = { c, -1, { -1, -1 }, -1, -1, -1, { "", "" }, { 0 }, { 0 }, -1 };
	m.shm = open("/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (m.shm < 0 || stat("/dev", &m.host_dev) < 0 || fstat(m.shm, &m.host_shm) < 0)
		return say(&m, OH_REFUSED, "the host's %s cannot be read", "/dev/shm", errno);
	int r = shim_tree(&m, shim);
	if (r == OH_OK)
		r = table_trees(&m);
	if (r == OH_OK)
		r = preload_tree(&m);
	if (r == OH_OK)
		r = enter(&m);
	if (r == OH_OK)
		r = attach_all(&m);
	for (int i = 0; i < 2; i++)
		if (m.names[i][0])
			unlinkat(m.shm, m.names[i], 0);
	return r;
}
