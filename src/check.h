/* SPDX-License-Identifier: BSD-3-Clause */
/* The tools' read side of a whole table (src/check.c). */
#ifndef CPS_CHECK_H
#define CPS_CHECK_H

#include "src/sets.h"

/* A private copy of c's table taken between two reads of its sequence
 * counter, as a table of its own (read-only): 0, 1 when a writer stayed
 * inside past the readers' wait (the copy is what was there, maybe torn),
 * or -ENOMEM. Free it with cps_table_copy_free. */
int cps_table_copy(struct cps_ctx *c, struct shm_table *copy);
void cps_table_copy_free(struct shm_table *copy);

/* The table's invariants (DESIGN.md): where each set sits, its parent,
 * flags and name, the reserved masks and counts, strict exclusivity,
 * unique names, and the registries' records, indexes and counts. Checked
 * on a consistent copy; report (may be NULL) gets each violation as an
 * English sentence. Returns the number of violations. Dead members are
 * not violations: the sweep removes them. */
typedef void (*cps_check_report)(void *arg, const char *violation);
int cps_check(const struct shm_table *t, cps_check_report report, void *arg);

#endif
