/* SPDX-License-Identifier: BSD-3-Clause */
/* Kept views: names and removal (see vcache.h). The shim makes and reads
 * them (preload/kept_views.c); the tools only remove them with their table. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/table.h"
#include "src/kept_views.h"
#include "src/rawsys.h"

#define VIEWS ".views."

int cps_kept_dir(char *buf, size_t len, const char *table, uid_t uid)
{
	char path[SHM_TABLE_NAME_MAX + 16];
	int r = shm_table_path(path, sizeof(path), table);
	if (r < 0)
		return r;
	int n = snprintf(buf, len, "%s" VIEWS "%u", path, (unsigned)uid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int remove_dir(int parent, const char *name, int depth);

/* One entry of a directory of kept views: a file, or at depth 0 a pool
 * (a directory of files) emptied and removed too. */
static int remove_entry(int dir, const char *name, void *depth)
{
	if (cps_sys3(SYS_unlinkat, dir, (long)name, 0) == -EISDIR && *(int *)depth == 0)
		remove_dir(dir, name, 1);
	return 0;
}

/* Empties and removes one directory of kept views: files, and the pools
 * of views made at each open (p.<pid>, files only) one level down. Raw
 * calls throughout: this file is linked into the shim, whose opendir,
 * readdir and openat are interposers. */
static int remove_dir(int parent, const char *name, int depth)
{
	int dfd = cps_sys_openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (dfd < 0)
		return dfd;
	cps_sys_each_entry(dfd, remove_entry, &depth);
	cps_sys_close(dfd);
	return (int)cps_sys3(SYS_unlinkat, parent, (long)name, AT_REMOVEDIR);
}

struct views_of {
	const char *base; /* the table's file name */
	size_t bl;
	int removed;
};

/* <table>.views.<digits>, a directory (O_NOFOLLOW | O_DIRECTORY leave
 * anything else alone), removed. */
static int remove_views_of(int dir, const char *nm, void *arg)
{
	struct views_of *v = arg;
	size_t vl = strlen(VIEWS);
	if (strncmp(nm, v->base, v->bl) || strncmp(nm + v->bl, VIEWS, vl) || !nm[v->bl + vl] ||
	    strspn(nm + v->bl + vl, "0123456789") != strlen(nm + v->bl + vl))
		return 0;
	if (remove_dir(dir, nm, 0) == 0)
		v->removed++;
	return 0;
}

int cps_kept_remove(const char *table)
{
	char path[SHM_TABLE_NAME_MAX + 16];
	int r = shm_table_path(path, sizeof(path), table);
	if (r < 0)
		return r;
	char *slash = strrchr(path, '/');
	*slash = 0;
	struct views_of v = {slash + 1, strlen(slash + 1), 0};
	int fd = cps_sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	cps_sys_each_entry(fd, remove_views_of, &v);
	cps_sys_close(fd);
	return v.removed;
}

uint64_t cps_kept_key(const uint64_t *cpus, size_t nw, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t top = nw;
	while (top && !cpus[top - 1])
		top--;
	for (size_t i = 0; i < top; i++)
		for (int b = 0; b < 64; b += 8) {
			h ^= (cpus[i] >> b) & 0xff;
			h *= 0x100000001b3ull;
		}
	h ^= n;
	h *= 0x100000001b3ull;
	return h;
}
