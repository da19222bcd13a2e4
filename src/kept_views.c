/* SPDX-License-Identifier: BSD-3-Clause */
/* Kept views: names and removal (see vcache.h). The shim makes and reads
 * them (preload/kept_views.c); the tools only remove them with their table. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/table.h"
#include "src/kept_views.h"

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

/* Empties and removes one directory of kept views: files, and the pools
 * of views made at each open (p.<pid>, files only) one level down. */
static int remove_dir(int parent, const char *name, int depth)
{
	int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = errno;
		close(dfd);
		return -e;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dirfd(d), de->d_name, 0) < 0 && errno == EISDIR && depth == 0)
			remove_dir(dirfd(d), de->d_name, 1);
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

int cps_kept_remove(const char *table)
{
	char path[SHM_TABLE_NAME_MAX + 16];
	int r = shm_table_path(path, sizeof(path), table);
	if (r < 0)
		return r;
	char *slash = strrchr(path, '/');
	*slash = 0;
	const char *base = slash + 1;
	size_t bl = strlen(base), vl = strlen(VIEWS);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		/* <table>.views.<digits> */
		if (strncmp(nm, base, bl) || strncmp(nm + bl, VIEWS, vl) || !nm[bl + vl] ||
		    strspn(nm + bl + vl, "0123456789") != strlen(nm + bl + vl))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
		    remove_dir(dirfd(d), nm, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
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
