/* SPDX-License-Identifier: BSD-3-Clause */
/* Kept views: the virtual files whose contents do not change at every
 * read (the CPU ranges of /sys/devices/system/cpu, /proc/cpuinfo), kept
 * as ordinary files beside the table so that each open is one open(2) of
 * a tmpfs file instead of a new memfd. One directory per table and user,
 * made by that user's first process to need it:
 *
 *     /dev/shm/<table>.views.<uid>/<kind>-<key>
 *
 * Beside them, each process that opens /proc/stat or a status file has a
 * pool of a few files for those views (made at each open): p.<pid>/<n>,
 * mode 0700, removed at its exit (preload/view_pool.c).
 *
 * A process trusts the directory only if it is a real directory owned by
 * its effective uid and writable by nobody else, so no other user can
 * put contents there; the files in it are replaced with rename(2), so an
 * open always gets a whole file. */
#ifndef CPS_KEPT_VIEWS_H
#define CPS_KEPT_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The directory of a table's kept views for uid. 0, -EINVAL (bad table
 * name) or -ENAMETOOLONG. */
int cps_kept_dir(char *buf, size_t len, const char *table, uid_t uid);

/* Removes the kept views of every user of a table (when the table is
 * made again or removed); returns the number of directories removed, or
 * a negative errno. Directories of other users need root to remove. */
int cps_kept_remove(const char *table);

/* A key for contents that depend on a set's CPUs (FNV-1a, 64 bits). */
uint64_t cps_kept_key(const uint64_t *cpus, size_t nw, unsigned n);

#endif
