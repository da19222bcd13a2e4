/* SPDX-License-Identifier: BSD-3-Clause */
/* Between the files of shm/ (table.c, guard.c, journal.c, lock.c);
 * nothing else includes this. */
#ifndef CPS_SHM_TABLE_INTERNAL_H
#define CPS_SHM_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "shm/table.h"

#define SHM_DIR "/dev/shm/"
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* The fuzz target builds with a small journal, to restore it fast. */
#ifndef SHM_JOURNAL_BYTES
#define SHM_JOURNAL_BYTES (4u << 20)
#endif
#define JOURNAL_BYTES SHM_JOURNAL_BYTES

/* One undo entry: len bytes that stood at off, followed by the bytes. prev
 * is the journal offset of the previous entry, so rollback walks back. */
struct jentry {
	uint64_t off;
	uint32_t len;
	uint32_t prev;
	unsigned char data[];
};

/* Only on a table opened with SHM_OPEN_FAULTS (the tools, when a test
 * asks): the shim links this layer too and never does. */
#define FAULT()                         \
	do {                            \
		if (t->faults)          \
			shm_fault_point(); \
	} while (0)

/* guard.c: the guard of the tables' mappings. A mapping is added before
 * its first read (its file may shrink from then on) and removed before
 * it is unmapped. */
void shm_guard_add(const void *base, size_t size);
void shm_guard_remove(const void *base);
/* The mapping at base is not lost (its file did not shrink under us). */
bool shm_guard_ok(const void *base);

/* journal.c: roll the journal back, newest entry first, after checking it
 * whole (0, or -EUCLEAN with the reason in why). */
int shm_rollback(struct shm_table *t, char *why, size_t len);

#endif
