/* SPDX-License-Identifier: BSD-3-Clause */
/* A view's bytes as a descriptor: the one way the shim (preload/view_open.c)
 * and the supervisor (supervise/files.c) hand made bytes to a reader.
 *
 * The bytes go into a new unnamed file, which is then opened again
 * read-only through /proc/self/fd: the reader gets an open file of its
 * own (its own offset), which cannot write the bytes, as it could not
 * write the real file.
 *
 * Raw system calls (src/rawsys.h): the shim's own interposers are never
 * met, and errno is never touched. Returns a descriptor or a negative
 * errno.
 */
#ifndef CPS_VFD_H
#define CPS_VFD_H

#include <stddef.h>
#include <sys/types.h>

/* How the file is made (bits). */
enum {
	/* sealed against every change (a memfd: F_SEAL_SHRINK, _GROW,
	 * _WRITE, _SEAL), for a file shared by many readers */
	CPS_VFD_SEAL = 1,
	/* an unlinked O_TMPFILE of tmpfs first (/dev/shm, else the
	 * directory given), a memfd only where none takes one: a program's
	 * seccomp filter may kill on memfd_create, a call it never makes
	 * itself, and never on open; on tmpfs the two cost the same. Such a
	 * file is never sealed (tmpfs files cannot be) */
	CPS_VFD_TMPFILE = 2,
};

/* A new file holding data (len bytes), read-write and close-on-exec, by
 * how (above), given mode (0: as made); tmpdir: CPS_VFD_TMPFILE's second
 * directory (NULL: /tmp). */
int cps_vfd_write(const char *data, size_t len, unsigned how, const char *tmpdir, mode_t mode);

/* A new read-only open file of fd (an offset of its own), opened with
 * flags (O_RDONLY and the status flags the reader keeps). */
int cps_vfd_reopen(int fd, int flags);

/* Both: a read-only descriptor on data, opened with flags; the file made
 * for it is closed. */
int cps_vfd(const char *data, size_t len, unsigned how, const char *tmpdir, mode_t mode,
	    int flags);

#endif
