/* SPDX-License-Identifier: BSD-3-Clause */
/* /proc/PID/numa_maps through a set's memory nodes (src/views.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/views.h"
#include "src/vnodes.h"

/* The kernel prints at most one N<node>= field per node it has: a line
 * with more runs than this keeps its order. */
#define RUN_MAX 256

struct nfield {
	long v;		   /* virtual node */
	const char *count; /* "=..." up to the field's end */
	size_t clen;
};

static long virt_of(const struct cps_view_input *s, long p)
{
	return cps_pnode_virt(s->mems, s->mnw, s->k, p);
}

/* A node list (the policy's) as virtual nodes; as it is when it is none. */
static int put_nodelist(struct cps_buf *out, const char *b, size_t n,
			const struct cps_view_input *s)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	struct cps_parse_error err;
	char text[1024], list[4096];
	size_t need;

	if (n >= sizeof(text))
		return cps_buf_append(out, b, n);
	memcpy(text, b, n);
	text[n] = '\0';
	if (cps_cpulist_parse(text, phys, CPS_MAX_WORDS, &err) < 0)
		return cps_buf_append(out, b, n);
	cps_mask_zero(virt, CPS_MAX_WORDS);
	for (int p = cps_mask_next(phys, CPS_MAX_WORDS, -1); p >= 0;
	     p = cps_mask_next(phys, CPS_MAX_WORDS, p)) {
		long v = virt_of(s, p);
		if (v < 0 || (unsigned long)v >= CPS_MAX_WORDS * 64)
			return cps_buf_append(out, b, n);
		cps_mask_set(virt, CPS_MAX_WORDS, (unsigned)v);
	}
	need = cps_cpulist_format(list, sizeof(list), virt, CPS_MAX_WORDS);
	return need >= sizeof(list) ? cps_buf_append(out, b, n) : cps_buf_append(out, list, need);
}

/* The policy field at the start of [b, e): "mode[=flags][:nodes]", where
 * two modes hold a space. Its nodes are the policy's physical nodes, with
 * either flag (static and relative name what the program asked, the
 * kernel prints what it made of it). */
static int put_policy(struct cps_buf *out, const char *b, const char *e, const char **next,
		      const struct cps_view_input *s)
{
	static const char *const spaced[] = { "prefer (many)", "weighted interleave" };
	const char *p = b, *pe, *colon;

	for (size_t i = 0; i < sizeof(spaced) / sizeof(spaced[0]); i++) {
		size_t l = strlen(spaced[i]);
		if ((size_t)(e - b) >= l && memcmp(b, spaced[i], l) == 0)
			p = b + l;
	}
	pe = memchr(p, ' ', (size_t)(e - p));
	pe = pe ? pe : e;
	*next = pe;
	colon = memchr(b, ':', (size_t)(pe - b));
	if (!colon)
		return cps_buf_append(out, b, (size_t)(pe - b));
	int r = cps_buf_append(out, b, (size_t)(colon + 1 - b));
	return r ? r : put_nodelist(out, colon + 1, (size_t)(pe - colon - 1), s);
}

/* Whether [b, e) is N<digits>=...: its node in *p. */
static bool nfield_at(const char *b, const char *e, long *p, const char **eq)
{
	const char *d = b + 1;
	long v = 0;

	if (e - b < 3 || b[0] != 'N' || d[0] < '0' || d[0] > '9')
		return false;
	for (; d < e && *d >= '0' && *d <= '9'; d++)
		if ((v = v * 10 + (*d - '0')) > (long)CPS_MAX_WORDS * 64)
			return false;
	if (d == e || *d != '=')
		return false;
	*p = v;
	*eq = d;
	return true;
}

static int cmp_nfield(const void *a, const void *b)
{
	long x = ((const struct nfield *)a)->v, y = ((const struct nfield *)b)->v;
	return (x > y) - (x < y);
}

/* A run of N<node>= fields, renumbered and in the order of their new
 * numbers, as the kernel orders them. */
static int put_run(struct cps_buf *out, struct nfield *run, size_t n)
{
	int r = 0;

	qsort(run, n, sizeof(*run), cmp_nfield);
	for (size_t i = 0; !r && i < n; i++) {
		r = cps_buf_append(out, " N", 2);
		if (!r)
			r = cps_buf_append_dec(out, (unsigned long long)run[i].v);
		if (!r)
			r = cps_buf_append(out, run[i].count, run[i].clen);
	}
	return r;
}

/* The fields after the policy: " f f f", each N<node>= renumbered. */
static int put_fields(struct cps_buf *out, const char *p, const char *e,
		      const struct cps_view_input *s)
{
	struct nfield run[RUN_MAX];
	size_t nrun = 0;
	int r = 0;

	while (!r && p < e) {
		const char *fb = p + (*p == ' '), *fe = memchr(fb, ' ', (size_t)(e - fb)), *eq;
		long node;

		fe = fe ? fe : e;
		if (*p == ' ' && nfield_at(fb, fe, &node, &eq) && nrun < RUN_MAX) {
			run[nrun++] = (struct nfield){ virt_of(s, node), eq, (size_t)(fe - eq) };
		} else {
			r = put_run(out, run, nrun);
			nrun = 0;
			if (!r)
				r = cps_buf_append(out, p, (size_t)(fe - p));
		}
		p = fe;
	}
	return r ? r : put_run(out, run, nrun);
}

static int put_line(struct cps_buf *out, const char *b, const char *e,
		    const struct cps_view_input *s)
{
	const char *sp = memchr(b, ' ', (size_t)(e - b)), *next;
	int r;

	if (!sp) /* no policy: as it is */
		return cps_buf_append(out, b, (size_t)(e - b));
	r = cps_buf_append(out, b, (size_t)(sp + 1 - b));
	if (!r)
		r = put_policy(out, sp + 1, e, &next, s);
	return r ? r : put_fields(out, next, e, s);
}

int cps_view_numa_maps(struct cps_buf *out, const char *real, size_t len,
		       const struct cps_view_input *s)
{
	size_t start_len = out->len, pos = 0;
	int r;

	if (s->k == 0 || s->mnw > CPS_MAX_WORDS) /* the nodes' own numbers */
		return cps_buf_append(out, real, len);
	r = cps_buf_reserve(out, len + len / 8 + 64);
	while (!r && pos < len) {
		const char *b = real + pos, *nl = memchr(b, '\n', len - pos);
		const char *e = nl ? nl : real + len;

		r = put_line(out, b, e, s);
		if (!r && nl)
			r = cps_buf_append(out, "\n", 1);
		pos = (size_t)(e - real) + (nl ? 1 : 0);
	}
	if (r) {
		out->len = start_len;
		if (out->p)
			out->p[start_len] = '\0';
	}
	return r;
}
