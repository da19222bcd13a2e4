/* SPDX-License-Identifier: BSD-3-Clause */
/* The redirects kept: a virtual CPU's file that is the physical CPU's own
 * (cpuV/topology/core_id is cpu<p(V)>'s: no view to make, only another
 * path) is opened again, by the same spelling, without canonicalising and
 * classifying the path anew. hwloc, lscpu and the MPI runtimes read the
 * same few files of every CPU, each of them more than once.
 *
 * The table (src/redirects.c) holds canonical spellings (an absolute path
 * already in its canonical form, so that a caller's raw path that equals
 * it is that path), the physical path each stood for, and V and p(V) at
 * the time. A hit is taken only while the set copy still maps V to that
 * p(V); a resize that moves V, or takes it away, misses, and the full
 * path decides.
 *
 * Not under the test root (its paths are another tree's).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/redirects.h"
#include "src/vsys.h"

static struct cps_redirects rc;

/* Flags a kept redirect serves: a plain read-only open of a file. */
static bool plain(int flags)
{
	return (flags & O_ACCMODE) == O_RDONLY &&
	       !(flags & (O_DIRECTORY | O_PATH | O_CREAT | O_NOFOLLOW | __O_TMPFILE));
}

int shim_redirect_open(const char *path, int flags)
{
	char phys[CPS_REDIRECT_PATH];
	uint32_t v, p;
	unsigned now;
	size_t n = strnlen(path, CPS_REDIRECT_PATH);
	/* (none is kept under the test root: view_sys.c keeps only physical
	 * paths that are no root's) */
	if (n >= CPS_REDIRECT_PATH || !plain(flags) ||
	    !cps_redirect_find(&rc, path, n, phys, &v, &p) || !setcopy_pcpu(v, &now) || now != p)
		return -1;
	int fd = shim_cpudir_open(phys, flags, 0);
	return fd >= 0 ? fd : -2;
}

void shim_redirect_keep(const char *canon, const char *phys)
{
	static const char dir[] = "/sys/devices/system/cpu/";
	const size_t dl = sizeof(dir) - 1;
	unsigned v, p;
	if (strncmp(canon, dir, dl) != 0 || strncmp(phys, dir, dl) != 0 ||
	    !cps_vsys_cpu_name(canon + dl, &v, NULL) || !cps_vsys_cpu_name(phys + dl, &p, NULL))
		return;
	cps_redirect_keep(&rc, canon, strlen(canon), phys, v, p);
}
