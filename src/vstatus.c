/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the text transform of /proc/<pid>/status: the lines of CPUs and
 * nodes (their masks and lists) by the set's numbers (pure). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/views.h"
#include "src/views_int.h"
#include "src/vsys.h"

/* ---- /proc/<pid>/status ---- */

/* Groups in a "ffffffff,ffffffff" value; 0 if it is not one. */
static unsigned hex_groups(const char *s, size_t pos, size_t end)
{
	unsigned groups = 1, digits = 0;

	if (pos >= end)
		return 0;
	for (; pos < end; pos++) {
		char c = s[pos];

		/* a group of zeros and its comma at once: most of a node mask */
		if (!digits && end - pos > 9 && !memcmp(s + pos, "00000000,", 9)) {
			groups++;
			pos += 8;
			continue;
		}
		if (c == ',') {
			if (!digits)
				return 0;
			groups++;
			digits = 0;
		} else if ((unsigned)(c - '0') < 10u || (unsigned)((c | 0x20) - 'a') < 6u) {
			if (++digits > 8)
				return 0;
		} else {
			break;
		}
	}
	if (!digits || !only_blanks(s, pos, end))
		return 0;
	return groups;
}

/* Where the value of "Name:<blanks>value" starts. */
static size_t status_value(const char *s, const struct line *l, const char *name)
{
	return skip_blanks(s, l->start + strlen(name), l->eol);
}

/* The start of the line of s that begins with name (a line's start: 0 or
 * after a newline), or len. The lines are looked at from the end, where
 * the kernel prints the CPU and node lines (this is on every open of a
 * status file); a name on two lines (no kernel's) gives the last. */
static size_t line_starting(const char *s, size_t len, const char *name)
{
	size_t n = strlen(name), q = len;

	for (;;) {
		const char *nl = q ? memrchr(s, '\n', q) : NULL;
		size_t st = nl ? (size_t)(nl - s) + 1 : 0;

		if (len - st >= n && memcmp(s + st, name, n) == 0)
			return st;
		if (!nl)
			return len;
		q = (size_t)(nl - s);
	}
}

static const char cpus_hex[] = "Cpus_allowed:";
static const char cpus_list[] = "Cpus_allowed_list:";

/* The task's own mask, from its Cpus_allowed_list line (at: where it
 * starts): what the kernel printed in this same reading, by virtual CPU
 * into vm, as t's allowed mask (t: s with it). */
static int own_mask(const char *real, size_t len, size_t at, const struct cps_view_input *s,
		    struct cps_view_input *t, uint64_t *vm)
{
	uint64_t phys[CPS_MAX_WORDS];
	char text[4096];
	struct cps_parse_error err;
	struct line l;

	if (s->n == 0 || s->nw > CPS_MAX_WORDS || at >= len || !next_line(real, len, at, &l))
		return -EINVAL;
	size_t v = status_value(real, &l, cpus_list);
	if (l.eol - v >= sizeof(text))
		return -EINVAL;
	memcpy(text, real + v, l.eol - v);
	text[l.eol - v] = '\0';
	if (cps_cpulist_parse(text, phys, CPS_MAX_WORDS, &err) < 0)
		return -EINVAL;
	*t = *s;
	t->vnw = CPS_WORDS_FOR(s->n);
	cps_mask_zero(vm, t->vnw);
	/* a mask that shares no CPU with the set: all of them (as the
	 * affinity calls answer it) */
	if (cps_phys_to_virt(vm, t->vnw, s->set, s->nw, phys) == 0)
		cps_mask_fill(vm, t->vnw, s->n);
	t->vallowed = vm;
	return 0;
}

int cps_view_status(struct cps_buf *out, const char *real, size_t len,
		    const struct cps_view_input *s)
{
	size_t start_len = out->len, val, kept = 0; /* real[kept, l.start): lines as they are */
	size_t at[2] = { line_starting(real, len, cpus_hex), line_starting(real, len, cpus_list) };
	struct line l;
	struct cps_view_input t;
	uint64_t vm[CPS_MAX_WORDS];
	int r;

	if (!s->vallowed) {
		if (own_mask(real, len, at[1], s, &t, vm) < 0)
			return -EINVAL;
		s = &t;
	}
	r = cps_buf_reserve(out, len + 64); /* about as long as the file */

	/* only the two mask lines change, in the order they come: the
	 * others go out in runs */
	for (int k = 0; !r && k < 2; k++) {
		int i = (at[0] <= at[1]) == (k == 0) ? 0 : 1;

		if (at[i] >= len || !next_line(real, len, at[i], &l))
			continue;
		r = cps_buf_append(out, real + kept, l.start - kept);
		kept = l.next;
		if (r)
			break;
		if (i == 0) {
			unsigned groups;

			val = status_value(real, &l, cpus_hex);
			groups = hex_groups(real, val, l.eol);
			/* a line that is no mask is not the kernel's: leave the
			 * file alone */
			if (!groups) {
				r = -EINVAL;
				break;
			}
			/* as the kernel prints it on a machine of n CPUs: n bits,
			 * the first 32-bit group only as wide as its bits */
			r = cps_buf_append(out, real + l.start, val - l.start);
			if (!r)
				r = cps_buf_put_kmask_bits(out, s->vallowed, s->vnw, cps_view_width(s));
		} else {
			val = status_value(real, &l, cpus_list);
			r = cps_buf_append(out, real + l.start, val - l.start);
			if (!r)
				r = cps_buf_put_list(out, s->vallowed, s->vnw);
		}
		if (!r)
			r = cps_buf_append(out, real + l.eol, l.next - l.eol);
	}
	if (!r)
		r = cps_buf_append(out, real + kept, len - kept);
	return cps_view_done(out, start_len, r);
}

int cps_view_status_mems(struct cps_buf *out, const char *real, size_t len, const uint64_t *mems,
			 size_t nw, unsigned k)
{
	static const char hex_name[] = "Mems_allowed:";
	static const char list_name[] = "Mems_allowed_list:";
	size_t start_len = out->len, kept = 0, val;
	size_t at[2] = { line_starting(real, len, hex_name), line_starting(real, len, list_name) };
	uint64_t phys[CPS_MAX_WORDS], vm[CPS_MAX_WORDS];
	size_t vnw = CPS_WORDS_FOR(k ? k : 1);
	char text[4096];
	struct cps_parse_error err;
	struct line l;
	int r;

	if (k == 0 || nw > CPS_MAX_WORDS || at[1] >= len || !next_line(real, len, at[1], &l))
		return cps_buf_append(out, real, len); /* nothing of ours: as it is */
	val = status_value(real, &l, list_name);
	if (l.eol - val >= sizeof(text))
		return -EINVAL;
	memcpy(text, real + val, l.eol - val);
	text[l.eol - val] = '\0';
	if (cps_cpulist_parse(text, phys, CPS_MAX_WORDS, &err) < 0)
		return -EINVAL;
	cps_mask_zero(vm, vnw);
	cps_phys_to_virt(vm, vnw, mems, nw, phys);
	r = cps_buf_reserve(out, len + 64);
	for (int j = 0; !r && j < 2; j++) {
		int i = (at[0] <= at[1]) == (j == 0) ? 0 : 1;

		if (at[i] >= len || !next_line(real, len, at[i], &l))
			continue;
		r = cps_buf_append(out, real + kept, l.start - kept);
		kept = l.next;
		if (r)
			break;
		val = status_value(real, &l, i == 0 ? hex_name : list_name);
		/* the kernel prints every node id it could have (MAX_NUMNODES
		 * bits): the same width, the set's nodes first */
		unsigned groups = i == 0 ? hex_groups(real, val, l.eol) : 1;
		if (!groups) {
			r = -EINVAL;
			break;
		}
		r = cps_buf_append(out, real + l.start, val - l.start);
		if (!r)
			r = i == 0 ? cps_buf_put_kmask_bits(out, vm, vnw, 32 * groups > k ? 32 * groups : k)
				   : cps_buf_put_list(out, vm, vnw);
		if (!r)
			r = cps_buf_append(out, real + l.eol, l.next - l.eol);
	}
	if (!r)
		r = cps_buf_append(out, real + kept, len - kept);
	return cps_view_done(out, start_len, r);
}

