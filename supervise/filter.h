/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor's seccomp filter, built from a table of {architecture,
 * system call, action} (pure: supervise/filter.c). */
#ifndef CPS_SUPERVISE_FILTER_H
#define CPS_SUPERVISE_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arch.h"

enum sv_act {
	SV_ALLOW,
	SV_NOTIFY,          /* the supervisor answers */
	SV_NOTIFY_UNMARKED, /* answers, but a read marked physical passes */
	SV_ENOSYS,          /* fails closed */
};

struct sv_rule {
	uint32_t arch;    /* AUDIT_ARCH_* */
	uint32_t nr_mask; /* bits of the number ignored on this arch */
	bool le;          /* little-endian (where an argument's high half is) */
	int nr;
	enum sv_act act;
};

#define SV_RULES_MAX 16
#define SV_FILTER_MAX 64

/* The rules for programs of architecture a (and of its 32-bit ABI), in
 * files mode (the open family answered) or not: their count (at most
 * SV_RULES_MAX). */
size_t sv_filter_rules(const struct cps_arch *a, bool files, struct sv_rule *out);

/* The filter for n rules: calls the rules do not name are allowed, on
 * every architecture. The rules of one architecture are consecutive.
 * Returns its length, or -E2BIG when it does not fit cap or a jump is
 * too far. */
int sv_filter_build(const struct sv_rule *r, size_t n, struct sock_filter *out, size_t cap);

#endif
