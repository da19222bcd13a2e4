/* SPDX-License-Identifier: BSD-3-Clause */
/* vtree ROOT CPULIST OUT [VPATH...]: writes to OUT (below each VPATH
 * only, if given) the machine a program in the set
 * CPULIST (physical CPUs of the captured machine under ROOT) sees through
 * the views of src/vsys.h and src/vcpuinfo.h, as a directory tree that
 * hwloc (HWLOC_FSROOT) and lscpu (--sysroot) can read. It walks the
 * virtual names exactly as the shim serves them: a directory's entries
 * through cps_vsys_dirent, each path through cps_vsys_resolve, each file
 * through its view. Exit 0, 1 on a failed view, 2 on bad arguments. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vcpuinfo.h"
#include "src/vsys.h"

static const char *root, *outdir;
static struct cps_view_input snap;
static int failed;
static bool live; /* below VPATHs of a live machine */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			b = realloc(b, cap);
			if (!b)
				exit(1);
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return b;
}

static void put(const char *vpath, const char *data, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", outdir, vpath);
	f = fopen(p, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "vtree: writing %s: %s\n", p, strerror(errno));
		exit(1);
	}
}

/* has_cpu needs every node's cpumap */
static int has_cpu(const char *real, size_t len, struct cps_buf *out)
{
	enum { MAXN = 1024 };
	static char *maps[MAXN];
	static size_t lens[MAXN];
	char p[PATH_MAX];
	int r;

	for (unsigned k = 0; k < MAXN; k++) {
		snprintf(p, sizeof(p), "%s/sys/devices/system/node/node%u/cpumap", root, k);
		maps[k] = slurp(p, &lens[k]);
	}
	r = cps_view_has_cpu(out, real, len, (const char *const *)maps, lens, MAXN, &snap);
	for (unsigned k = 0; k < MAXN; k++)
		free(maps[k]);
	return r;
}

static void walk(const char *vpath);

static void file(const char *vpath)
{
	char phys[PATH_MAX], rp[PATH_MAX];
	struct cps_buf out = { 0 };
	size_t len = 0;
	char *real;
	int k = cps_vsys_resolve(vpath, &snap, phys, sizeof(phys)), r;

	if (k == CPS_VK_NONE)
		snprintf(phys, sizeof(phys), "%s", vpath);
	if (k == CPS_VK_ABSENT || k < 0) {
		fprintf(stderr, "vtree: %s listed but %s\n", vpath, k < 0 ? "too long" : "absent");
		failed = 1;
		return;
	}
	snprintf(rp, sizeof(rp), "%s%s", root, phys);
	real = slurp(rp, &len);
	if (!real && live && (errno == EACCES || errno == EPERM))
		return; /* a live machine's write-only file */
	if (!real) {
		fprintf(stderr, "vtree: %s: %s\n", rp, strerror(errno));
		failed = 1;
		return;
	}
	switch (k) {
	case CPS_VK_MASK:
	case CPS_VK_LIST:
	case CPS_VK_SPACELIST:
	case CPS_VK_OFFLINE:
	case CPS_VK_ONLINE:
		r = cps_view_cpumask_file(&out, k, real, len, &snap);
		break;
	case CPS_VK_RANGE:
		r = cps_view_cpurange(&out, &snap);
		break;
	case CPS_VK_POSSIBLE:
		r = cps_view_possible(&out, &snap);
		break;
	case CPS_VK_KERNEL_MAX:
		r = cps_view_kernel_max(&out, &snap);
		break;
	case CPS_VK_HAS_CPU:
		r = has_cpu(real, len, &out);
		break;
	default:
		r = cps_buf_append(&out, real, len);
	}
	if (r) {
		fprintf(stderr, "vtree: view of %s (%s, kind %d): %s\n", vpath, phys, k, strerror(-r));
		failed = 1;
	} else {
		put(vpath, out.p, out.len);
	}
	cps_buf_free(&out);
	free(real);
}

static void walk(const char *vpath)
{
	char phys[PATH_MAX], rp[PATH_MAX], child[PATH_MAX], vname[NAME_MAX + 1];
	struct dirent *de;
	struct stat sb;
	int k = cps_vsys_resolve(vpath, &snap, phys, sizeof(phys));
	DIR *d;

	if (k == CPS_VK_NONE)
		snprintf(phys, sizeof(phys), "%s", vpath);
	snprintf(rp, sizeof(rp), "%s%s", root, phys);
	if (lstat(rp, &sb) < 0)
		return;
	if (S_ISLNK(sb.st_mode)) {
		ssize_t n = readlink(rp, child, sizeof(child) - 1);

		if (n > 0) {
			child[n] = 0;
			snprintf(rp, sizeof(rp), "%s%s", outdir, vpath);
			if (symlink(child, rp) < 0)
				failed = 1;
		}
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		if (strcmp(vpath, "/proc/cpuinfo")) /* below, with its own view */
			file(vpath);
		return;
	}
	snprintf(child, sizeof(child), "%s%s", outdir, vpath);
	mkdir(child, 0755);
	d = opendir(rp);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *name = de->d_name;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (k == CPS_VK_DIR) {
			int e = cps_vsys_dirent(name, &snap, vname);

			if (e < 0)
				continue;
			if (e > 0)
				name = vname;
		}
		snprintf(child, sizeof(child), "%s/%s", vpath, name);
		walk(child);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	static uint64_t set[CPS_MAX_WORDS];
	struct cps_parse_error err;
	struct cps_buf out = { 0 };
	char p[PATH_MAX];
	size_t len;
	char *real;

	if (argc < 4) {
		fprintf(stderr, "usage: vtree ROOT CPULIST OUT [VPATH...]\n");
		return 2;
	}
	root = argv[1];
	outdir = argv[3];
	if (cps_cpulist_parse(argv[2], set, CPS_MAX_WORDS, &err)) {
		fprintf(stderr, "vtree: %s at byte %zu of %s\n", err.msg, err.pos, argv[2]);
		return 2;
	}
	snap.set = set;
	snap.nw = CPS_MAX_WORDS;
	snap.n = cps_mask_count(set, CPS_MAX_WORDS);
	/* everything the captured machine has, the views through them; or
	 * only below the VPATHs given (a live machine's /sys/devices/system/cpu) */
	live = argc > 4;
	if (!live)
		walk("");
	for (int i = 4; i < argc; i++) {
		for (char *c = argv[i] + 1; (c = strchr(c, '/')); c++) {
			snprintf(p, sizeof(p), "%s%.*s", outdir, (int)(c - argv[i]), argv[i]);
			mkdir(p, 0755);
		}
		walk(argv[i]);
	}
	snprintf(p, sizeof(p), "%s/proc/cpuinfo", root);
	real = live ? NULL : slurp(p, &len);
	if (real) {
		if (cps_view_cpuinfo_set(&out, real, len, &snap)) {
			fprintf(stderr, "vtree: cpuinfo view failed\n");
			failed = 1;
		} else {
			put("/proc/cpuinfo", out.p, out.len);
		}
		free(real);
		cps_buf_free(&out);
	}
	return failed;
}
