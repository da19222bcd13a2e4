/* SPDX-License-Identifier: BSD-3-Clause */
/* What the text transforms of src/ share (views.c, vstatus.c): bounded
 * scanning of a file's lines, and the buffer steps that are not public.
 * Not for the shim or the tools. */
#ifndef CPS_VIEWS_INT_H
#define CPS_VIEWS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "src/views.h"

/* ---- bounded scanning ---- */

/* A line is [start, eol); next is where the following one starts. */
struct line {
	size_t start, eol, next;
};

static inline bool next_line(const char *s, size_t len, size_t pos, struct line *l)
{
	const char *nl;

	if (pos >= len)
		return false;
	nl = memchr(s + pos, '\n', len - pos);
	l->start = pos;
	l->eol = nl ? (size_t)(nl - s) : len;
	l->next = nl ? l->eol + 1 : len;
	return true;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool has_prefix(const char *s, size_t pos, size_t end, const char *lit)
{
	size_t n = strlen(lit);

	return end - pos >= n && memcmp(s + pos, lit, n) == 0;
}

static inline size_t skip_blanks(const char *s, size_t pos, size_t end)
{
	while (pos < end && is_blank(s[pos]))
		pos++;
	return pos;
}

/* Trailing spaces and a CR are tolerated at the end of a line. */
static inline bool only_blanks(const char *s, size_t pos, size_t end)
{
	while (pos < end && (is_blank(s[pos]) || s[pos] == '\r'))
		pos++;
	return pos == end;
}

/* Decimal digits at pos; *end_pos is past them. Returns -1 when there are
 * none, -2 on overflow. */
static inline int parse_uint(const char *s, size_t pos, size_t end, unsigned *v, size_t *end_pos)
{
	unsigned x = 0;
	size_t p = pos;

	while (p < end && cps_is_digit(s[p])) {
		unsigned d = (unsigned)(s[p] - '0');

		/* x * 10 + d > UINT_MAX, without a division per digit */
		if (x > UINT_MAX / 10 || (x == UINT_MAX / 10 && d > UINT_MAX % 10))
			return -2;
		x = x * 10 + d;
		p++;
	}
	if (p == pos)
		return -1;
	*v = x;
	*end_pos = p;
	return 0;
}

/* A view that produced nothing still hands back a valid, empty string;
 * a failed one leaves out as it found it. */
int cps_view_done(struct cps_buf *out, size_t start_len, int r);
/* A CPU list (cps_cpulist_format) appended. */
int cps_buf_put_list(struct cps_buf *b, const uint64_t *m, size_t nw);

#endif
