/* SPDX-License-Identifier: BSD-3-Clause */
/* The view of /proc/<pid>/stat and /proc/<pid>/task/<tid>/stat: field 39,
 * the CPU the task last ran on, in the caller's virtual numbers.
 *
 * The rule, the same for every process so that no table look-up is made
 * per pid: a physical CPU p in the caller's set is shown as its virtual
 * number (its rank in the set); a CPU outside the set, which only a
 * process outside the set can have run on, as p mod n. So every CPU named
 * exists in the caller's view, members of the set are exact, and a
 * process outside keeps a stable, spread-out number (doc/shim.md, "Views
 * of other processes").
 */
#ifndef CPS_VPROC_PIDSTAT_H
#define CPS_VPROC_PIDSTAT_H

#include "src/views.h"

/* Field 39 of the real file rewritten by the rule above; every other byte
 * kept. -EINVAL when the file has no field 39 (the caller passes it
 * through), -ENOMEM. The command name (field 2) may hold any byte,
 * parentheses and spaces included: fields are counted from its last ')'. */
int cps_view_pidstat(struct cps_buf *out, const char *real, size_t len,
		     const struct cps_view_input *s);

/* The rule alone: the virtual number shown for physical CPU p (n > 0). */
unsigned cps_pidstat_vcpu(unsigned p, const uint64_t *set, size_t nw, unsigned n);

#endif
