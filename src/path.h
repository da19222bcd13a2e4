/* SPDX-License-Identifier: BSD-3-Clause */
/* Paths as the kernel would resolve them, told from the bytes alone.
 *
 * A program may name a view in any spelling the kernel accepts: repeated
 * slashes, ".", "..", relative to its working directory or to a directory
 * fd, through the symlinks of /proc and /sys. The shim turns each spelling
 * into one canonical absolute path before it asks which view (if any) the
 * path is; these functions do that on text alone, with no system call and
 * no allocation, so they are tested without a machine.
 *
 * Canonical form: absolute, no "//", no "." or ".." components, no
 * trailing '/', and the known symlinks of /proc and /sys expanded:
 *     /proc/self                        -> /proc/<pid>
 *     /proc/thread-self                 -> /proc/<pid>/task/<tid>
 *     /sys/bus/cpu/devices/cpuN         -> /sys/devices/system/cpu/cpuN
 *     /sys/bus/node/devices/nodeK       -> /sys/devices/system/node/nodeK
 *     /sys/devices/system/cpu/cpuN/nodeK -> /sys/devices/system/node/nodeK
 *     /sys/devices/system/node/nodeK/cpuN -> /sys/devices/system/cpu/cpuN
 *     /sys/devices/system/cpu/cpuN/subsystem  -> /sys/bus/cpu
 *     /sys/devices/system/node/nodeK/subsystem -> /sys/bus/node
 * Names below /sys/devices/system/{cpu,node} are the program's, that is
 * virtual: they are never resolved by the kernel, which would read them as
 * physical numbers.
 *
 * A ".." after a component that may be a symlink we do not know (in /proc
 * or /sys: /proc/<pid>/cwd, .../cpuN/cpufreq, ...) cannot be decided on
 * text: the answer then says how much of the path the kernel must resolve
 * first. Components outside /proc and /sys are taken as the directories
 * they are spelled as: a symlink outside /proc and /sys that leads into
 * them is not followed (doc/limits.md).
 */
#ifndef CPS_PATH_H
#define CPS_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* flags */
#define CPS_CANON_NOFOLLOW 1 /* the last component is not expanded (lstat, O_NOFOLLOW) */

enum cps_canon {
	CPS_CANON_VIEWLESS = 0, /* names no view: pass the call through */
	CPS_CANON_OK,           /* out holds the canonical path */
	CPS_CANON_DIR,          /* same, but the spelling ends in '/', "." or "..":
				 * the kernel accepts only a directory there */
	CPS_CANON_KERNEL,       /* path[0..*consumed) must be resolved by the kernel,
				 * then the rest canonicalised against that */
};

/*
 * Canonical form of path (relative to base when it does not start with
 * '/'; base must then be absolute and canonical: a working directory or a
 * directory fd's path). pid and tid expand /proc/self and
 * /proc/thread-self. out has outlen bytes; a result that does not fit (the
 * kernel would say ENAMETOOLONG) is VIEWLESS, as is an empty path and any
 * path whose canonical form lies outside /proc and /sys. consumed is set
 * only for CPS_CANON_KERNEL.
 */
enum cps_canon cps_path_canon(char *out, size_t outlen, const char *base, const char *path,
			      pid_t pid, pid_t tid, int flags, size_t *consumed);
/* The same by the general walk alone, component by component: what
 * cps_path_canon does for any path that is not already its own canonical
 * form. For the tests, which check that the two agree. */
enum cps_canon cps_path_canon_walk(char *out, size_t outlen, const char *base, const char *path,
				   pid_t pid, pid_t tid, int flags, size_t *consumed);

/*
 * First test of a path relative to a directory fd, before anything asks
 * where the fd points: false when no directory could make it a view. True
 * when a component is "..", cpuN, nodeK (cps_vfile_renumbered), or when
 * its first component, followed by more, is a root of the list of virtual
 * files (proc, sys), or its last is the name of a file or directory that has a view
 * (cps_path_view_name).
 */
bool cps_path_rel_may_view(const char *rel);

/*
 * A cheaper first test of the same, for one name with no '/' and no '.'
 * (what most openat(dirfd, name) calls give): true when its first two
 * bytes begin no name that cps_path_rel_may_view could take.
 * cps_path_second[c] holds a bit per second byte ('@'..DEL, taken modulo
 * 64 for any other byte) that a view's name beginning with byte c has:
 * the compiler makes it from the names of the list of virtual files
 * (src/vfiles.c). The x86-64 open stubs test the same table, with no
 * frame; check_path checks that it never passes a name the full test
 * takes.
 */
extern const uint64_t cps_path_second[256];
bool cps_path_rel_quick_pass(const char *rel);

/* Whether name (len bytes, no '/') is "." or the name of a file or
 * directory of the list of virtual files (src/vfiles.h: cps_vfile_name). */
bool cps_path_view_name(const char *name, size_t len);

/* Whether a relative path has a ".." component. */
bool cps_path_has_dotdot(const char *rel);

/* Whether a canonical path lies in /proc or /sys (or is one of them). */
bool cps_path_in_views(const char *canon);

#endif
