/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU lists and hex masks, parsed strictly and printed.
 *
 * List syntax (as the kernel's cpulist): comma-separated items, each "N",
 * "A-B" or "A-B:S" (every S-th CPU from A to B, S >= 1). A string starting
 * with "0x" is taken as a hex mask instead. Whitespace is allowed only as a
 * single trailing newline (as read from /sys). Hex masks are the format of
 * /proc/self/status Cpus_allowed: comma-separated groups of up to 8 hex
 * digits, most significant group first.
 *
 * Parsers return 0, or -1 with *err describing the first problem (never
 * NULL messages); the mask is zeroed first and holds garbage on failure.
 */
#ifndef CPS_CPULIST_H
#define CPS_CPULIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cps_parse_error {
	size_t pos;      /* byte offset of the problem in the input */
	const char *msg; /* static English text, e.g. "reversed range" */
};

/* A list, or a hex mask when it starts with 0x. CPUs must be < nw*64
 * ("CPU beyond the width"). Empty input is an error. */
int cps_cpulist_parse(const char *s, uint64_t *m, size_t nw, struct cps_parse_error *err);
/* A /proc-style hex mask ("ff,ffffffff"), no 0x prefix. */
int cps_hexmask_parse(const char *s, uint64_t *m, size_t nw, struct cps_parse_error *err);

/* Print as a compact list ("0-3,8,10-11"; "" for an empty mask). Returns the
 * length the full text needs (excluding NUL), like snprintf; the output is
 * always NUL-terminated when len > 0. */
size_t cps_cpulist_format(char *buf, size_t len, const uint64_t *m, size_t nw);
/* Print as a /proc/self/status hex mask with exactly ngroups 32-bit groups
 * ("00000000,00000003"); ngroups 0 means as many as the highest set bit needs
 * (at least one). Same return convention as cps_cpulist_format. */
size_t cps_hexmask_format(char *buf, size_t len, const uint64_t *m, size_t nw, unsigned ngroups);

#endif
