/* SPDX-License-Identifier: BSD-3-Clause */
/* The LD_PRELOAD value that loads the shim: its path first, once.
 *
 * ld.so separates entries by colons or spaces; the value made separates
 * them by colons. An entry already naming the shim (its exact path, or any
 * file named libcpusetshim.so) is dropped; a sanitizer runtime (libasan.so,
 * libtsan.so) that comes first stays first, since it must load before
 * anything else. cpuset-run's and the Slurm plugin's (pure).
 */
#ifndef CPS_LDPRELOAD_H
#define CPS_LDPRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whether the entry e (l bytes, not terminated) names the shim: shim's own
 * path (shim may be NULL) or a file named libcpusetshim.so. */
bool cps_preload_is_shim(const char *e, size_t l, const char *shim);

/* Writes into out (len bytes) the value of LD_PRELOAD with shim first, from
 * old (NULL or empty: shim alone). Returns its length, or -1 with errno
 * ERANGE when it does not fit (out then holds nothing usable). A buffer of
 * strlen(shim) + strlen(old) + 2 bytes always suffices. */
ssize_t cps_preload_build(char *out, size_t len, const char *old, const char *shim);

/* Writes into out (len bytes) the value of LD_PRELOAD old without any
 * entry naming the shim (cps_preload_is_shim), colon-separated: for a
 * tree the supervisor answers, which may run programs from an image where
 * the shim's path is missing. Returns its length (0: nothing is left, the
 * variable is best unset), or -1 with errno ERANGE when it does not fit.
 * A buffer of strlen(old) + 1 bytes always suffices. */
ssize_t cps_preload_without(char *out, size_t len, const char *old, const char *shim);

#endif
