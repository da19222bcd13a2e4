/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "src/views.h"
#include "src/views_int.h"
#include "src/vsys.h"
#include "src/mask.h"
#include "src/cpulist.h"

/*
 * The views append to out. On failure they truncate out back to the length
 * it had on entry, so a caller that falls back to the real file never sends
 * half a view. The input is not NUL-terminated: every scan is bounded by len.
 */

#define BUF_MIN_CAP 256u

/* ---- growable buffer ---- */

void cps_buf_free(struct cps_buf *b)
{
	if (!b->borrowed)
		free(b->p);
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	b->borrowed = 0;
}

/* Room for extra more bytes plus the NUL. */
static int buf_reserve(struct cps_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - 1 - b->len)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (b->p && need <= b->cap)
		return 0;
	cap = b->cap >= BUF_MIN_CAP ? b->cap : BUF_MIN_CAP;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	if (b->borrowed) {
		/* the caller's storage is full: to the heap, with what it holds */
		p = malloc(cap);
		if (!p)
			return -ENOMEM;
		memcpy(p, b->p, b->len + 1);
		b->borrowed = 0;
	} else {
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		if (!b->p)
			p[b->len] = '\0';
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

int cps_buf_append(struct cps_buf *b, const char *s, size_t n)
{
	int r = buf_reserve(b, n);

	if (r)
		return r;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int cps_buf_printf(struct cps_buf *b, const char *fmt, ...)
{
	va_list ap, aq;
	size_t avail;
	int n, r;

	r = buf_reserve(b, 0);
	if (r)
		return r;
	avail = b->cap - b->len;
	va_start(ap, fmt);
	va_copy(aq, ap);
	n = vsnprintf(b->p + b->len, avail, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= avail) {
		r = buf_reserve(b, (size_t)n);
		if (!r)
			n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, aq);
	}
	va_end(aq);
	if (r || n < 0) {
		/* a truncated first attempt wrote over the NUL */
		b->p[b->len] = '\0';
		return r ? r : -EINVAL;
	}
	b->len += (size_t)n;
	return 0;
}

static void buf_truncate(struct cps_buf *b, size_t len)
{
	b->len = len;
	if (b->p)
		b->p[len] = '\0';
}

/*
 * The formatters of cpulist.h follow snprintf's convention: format straight
 * into the buffer's free space, grow once if that was too small.
 */
typedef size_t (*mask_fmt_fn)(char *buf, size_t len, const uint64_t *m, size_t nw,
			      unsigned ngroups);

static size_t fmt_list(char *buf, size_t len, const uint64_t *m, size_t nw, unsigned ngroups)
{
	(void)ngroups;
	return cps_cpulist_format(buf, len, m, nw);
}

static int buf_put_mask(struct cps_buf *b, mask_fmt_fn fn, const uint64_t *m, size_t nw,
			unsigned ngroups)
{
	size_t need;
	int r;

	r = buf_reserve(b, 64);
	if (r)
		return r;
	need = fn(b->p + b->len, b->cap - b->len, m, nw, ngroups);
	if (need >= b->cap - b->len) {
		r = buf_reserve(b, need);
		if (r) {
			b->p[b->len] = '\0';
			return r;
		}
		need = fn(b->p + b->len, b->cap - b->len, m, nw, ngroups);
		if (need >= b->cap - b->len) {
			b->p[b->len] = '\0';
			return -EINVAL;
		}
	}
	b->len += need;
	b->p[b->len] = '\0';
	return 0;
}

int cps_view_done(struct cps_buf *out, size_t start_len, int r)
{
	if (!r && !out->p)
		r = cps_buf_append(out, "", 0);
	if (r)
		buf_truncate(out, start_len);
	return r;
}

/* ---- /proc/cpuinfo ---- */

/*
 * "processor<blanks>:<blanks>N" alone on its line. Architectures print the
 * separator differently (x86 one tab, MIPS two), so blanks are free and the
 * original bytes around N are copied back. Returns 1 and the span of N for
 * such a line, 0 for any other line, -EINVAL when N does not fit.
 */
static int number_line(const char *s, const struct line *l, const char *name, unsigned *cpu,
		       size_t *num_start, size_t *num_end)
{
	size_t p = l->start;
	int r;

	if (!has_prefix(s, p, l->eol, name))
		return 0;
	p = skip_blanks(s, p + strlen(name), l->eol);
	if (p >= l->eol || s[p] != ':')
		return 0;
	p = skip_blanks(s, p + 1, l->eol);
	*num_start = p;
	r = parse_uint(s, p, l->eol, cpu, num_end);
	if (r == -2)
		return -EINVAL;
	if (r < 0 || !only_blanks(s, *num_end, l->eol))
		return 0;
	return 1;
}

static int processor_line(const char *s, const struct line *l, unsigned *cpu,
			  size_t *num_start, size_t *num_end)
{
	/* s390 opens each CPU's own section with "cpu number" (its
	 * "processor" lines are a summary: s390_summary_line) */
	int r = number_line(s, l, "processor", cpu, num_start, num_end);

	return r ? r : number_line(s, l, "cpu number", cpu, num_start, num_end);
}

/* s390's summary of one CPU, a line of its own: "processor N: version =
 * ...". 1 and the span of N, 0 for any other line, -EINVAL when N does
 * not fit. */
static int s390_summary_line(const char *s, const struct line *l, unsigned *cpu,
			     size_t *num_start, size_t *num_end)
{
	size_t p = l->start;
	int r;

	if (!has_prefix(s, p, l->eol, "processor"))
		return 0;
	p = skip_blanks(s, p + strlen("processor"), l->eol);
	if (p == l->start + strlen("processor"))
		return 0; /* "processor" then a blank, then N */
	*num_start = p;
	r = parse_uint(s, p, l->eol, cpu, num_end);
	if (r == -2)
		return -EINVAL;
	if (r < 0 || *num_end >= l->eol || s[*num_end] != ':')
		return 0;
	return 1;
}

/* SPARC's header names each CPU in a line of its own: "Cpu6ClkTck : ..."
 * and, under "State:", "CPU6:  online". 1 and the span of N, 0 for any
 * other line, -EINVAL when N does not fit. */
static int sparc_cpu_line(const char *s, const struct line *l, unsigned *cpu,
			  size_t *num_start, size_t *num_end)
{
	size_t p = l->start;
	int r;

	if (has_prefix(s, p, l->eol, "Cpu"))
		p += 3;
	else if (has_prefix(s, p, l->eol, "CPU"))
		p += 3;
	else
		return 0;
	*num_start = p;
	r = parse_uint(s, p, l->eol, cpu, num_end);
	if (r == -2)
		return -EINVAL;
	if (r < 0)
		return 0;
	p = *num_end;
	if (has_prefix(s, p, l->eol, "ClkTck"))
		p += strlen("ClkTck");
	p = skip_blanks(s, p, l->eol);
	return p < l->eol && s[p] == ':';
}

/* A line of the header before the CPUs' sections that names a CPU or
 * counts them: s390's summary lines and its "# processors", SPARC's
 * per-CPU lines and its "ncpus probed" and "ncpus active". 1: a CPU
 * (*cpu, its number's span), 2: a count (its span), 0: any other line,
 * -EINVAL when a number does not fit. */
static int header_line(const char *s, const struct line *l, unsigned *cpu,
		       size_t *num_start, size_t *num_end)
{
	static const char *const counts[] = { "# processors", "ncpus probed", "ncpus active" };
	int r = s390_summary_line(s, l, cpu, num_start, num_end);

	if (!r)
		r = sparc_cpu_line(s, l, cpu, num_start, num_end);
	for (size_t i = 0; !r && i < sizeof(counts) / sizeof(counts[0]); i++)
		r = number_line(s, l, counts[i], cpu, num_start, num_end) > 0 ? 2 : 0;
	return r;
}

static bool blank_line(const char *s, const struct line *l)
{
	return only_blanks(s, l->start, l->eol);
}

int cps_view_cpuinfo(struct cps_buf *out, const char *real, size_t len,
		     const struct cps_view_input *s)
{
	size_t start_len = out->len, pos = 0;
	bool in_block = false, keep = false, found = false;
	unsigned v = 0;
	struct line l;
	int r = 0;

	/*
	 * A processor line opens a block that runs to the next blank line or
	 * processor line; the blank line belongs to the block before it, so a
	 * dropped block takes its separator along. Lines outside any block
	 * (a header before the first processor, a trailer after the last blank
	 * line as on arm or powerpc) describe the whole machine and are kept.
	 */
	while (!r && next_line(real, len, pos, &l)) {
		unsigned cpu;
		size_t ns, ne;
		int pl = processor_line(real, &l, &cpu, &ns, &ne);

		pos = l.next;
		if (pl < 0) {
			r = pl;
			break;
		}
		if (pl == 0 && !in_block) {
			/* outside the CPUs' sections: a header that counts
			 * the CPUs or has a line per CPU (header_line) */
			unsigned c;
			int sl = header_line(real, &l, &c, &ns, &ne);

			if (sl < 0) {
				r = sl;
				break;
			}
			if (sl == 1) {
				found = true;
				if (!cps_mask_test(s->set, s->nw, c))
					continue;
				c = cps_mask_rank(s->set, s->nw, c);
			} else if (sl == 2) {
				c = s->n;
			}
			if (sl) {
				r = cps_buf_append(out, real + l.start, ns - l.start);
				if (!r)
					r = cps_buf_printf(out, "%u", c);
				if (!r)
					r = cps_buf_append(out, real + ne, l.next - ne);
				continue;
			}
		}
		if (pl > 0) {
			found = true;
			in_block = true;
			keep = cps_mask_test(s->set, s->nw, cpu);
			if (!keep)
				continue;
			r = cps_buf_append(out, real + l.start, ns - l.start);
			if (!r)
				r = cps_buf_printf(out, "%u", v++);
			if (!r)
				r = cps_buf_append(out, real + ne, l.next - ne);
			continue;
		}
		if (!in_block || keep)
			r = cps_buf_append(out, real + l.start, l.next - l.start);
		if (in_block && blank_line(real, &l))
			in_block = false;
	}
	if (!r && !found)
		r = -EINVAL;
	return cps_view_done(out, start_len, r);
}

/* ---- /proc/stat ---- */

enum stat_kind { STAT_OTHER, STAT_TOTAL, STAT_CPU };

struct stat_line {
	enum stat_kind kind;
	unsigned cpu;      /* STAT_CPU */
	size_t fields;     /* where the fields start (after the name) */
	unsigned nfields;
};

/*
 * Counts (and with sum, adds up the first nsum of) the blank-separated
 * unsigned fields in [pos, end). -EINVAL if anything else is there.
 */
static int stat_fields(const char *s, size_t pos, size_t end, unsigned *count,
		       unsigned long long *sum, unsigned nsum)
{
	unsigned n = 0;

	for (;;) {
		unsigned long long x = 0;
		size_t p = skip_blanks(s, pos, end);

		if (p == pos && n > 0)
			break;
		if (p >= end || !cps_is_digit(s[p])) {
			pos = p;
			break;
		}
		/* 19 digits always fit: the test for too large a number only
		 * from the 20th on */
		for (unsigned k = 0; p < end && cps_is_digit(s[p]); k++, p++) {
			unsigned d = (unsigned)(s[p] - '0');

			/* x * 10 + d > ULLONG_MAX, without a division */
			if (k >= 19 &&
			    (x > ULLONG_MAX / 10 || (x == ULLONG_MAX / 10 && d > ULLONG_MAX % 10)))
				return -EINVAL;
			x = x * 10 + d;
		}
		if (n == UINT_MAX)
			return -EINVAL;
		if (sum && n < nsum)
			sum[n] += x;
		n++;
		pos = p;
	}
	if (n == 0 || !only_blanks(s, pos, end))
		return -EINVAL;
	*count = n;
	return 0;
}

/* Classifies a line; -EINVAL for a cpu line whose fields do not parse.
 * With sum, a STAT_CPU line of a CPU in set has its fields added up
 * there (the first nsum of them) in the same pass. */
static int stat_classify(const char *s, const struct line *l, struct stat_line *sl,
			 unsigned long long *sum, unsigned nsum, const struct cps_view_input *in)
{
	size_t p = l->start + 3;
	int r;

	sl->kind = STAT_OTHER;
	if (!has_prefix(s, l->start, l->eol, "cpu") || p >= l->eol)
		return 0;
	if (is_blank(s[p])) {
		sl->kind = STAT_TOTAL;
	} else if (cps_is_digit(s[p])) {
		size_t e;

		r = parse_uint(s, p, l->eol, &sl->cpu, &e);
		if (r)
			return -EINVAL;
		if (e >= l->eol || !is_blank(s[e]))
			return 0;
		sl->kind = STAT_CPU;
		p = e;
	} else {
		return 0;
	}
	sl->fields = p;
	if (sum && sl->kind == STAT_CPU && cps_mask_test(in->set, in->nw, sl->cpu))
		return stat_fields(s, p, l->eol, &sl->nfields, sum, nsum);
	return stat_fields(s, p, l->eol, &sl->nfields, NULL, 0);
}

int cps_buf_put_list(struct cps_buf *b, const uint64_t *m, size_t nw)
{
	return buf_put_mask(b, fmt_list, m, nw, 0);
}

int cps_buf_reserve(struct cps_buf *b, size_t extra)
{
	return buf_reserve(b, extra);
}

int cps_buf_append_dec(struct cps_buf *b, unsigned long long n)
{
	char d[CPS_DEC_MAX];
	return cps_buf_append(b, d, cps_fmt_dec(d, n));
}

/* Fields of the cpu lines added up on the stack up to this many (the
 * kernel prints 10); a wider line takes a buffer from the heap. */
#define STAT_SUM_STACK 32

/* The total line: "cpu " and the nf sums, then the line's end as it was. */
static int stat_total(struct cps_buf *out, const unsigned long long *sum, unsigned nf,
		      const char *real, const struct line *l)
{
	int r = cps_buf_append(out, "cpu ", 4);
	for (unsigned i = 0; !r && i < nf; i++) {
		r = cps_buf_append(out, " ", 1);
		if (!r)
			r = cps_buf_append_dec(out, sum[i]);
	}
	return r ? r : cps_buf_append(out, real + l->eol, l->next - l->eol);
}

/* A CPU's line, kept as virtual CPU v when the set holds it (*kept). */
static int stat_cpu(struct cps_buf *out, const char *real, const struct line *l, size_t p,
		    const struct cps_view_input *s, unsigned v, bool *kept)
{
	unsigned cpu;
	size_t e;
	*kept = false;
	if (!cps_is_digit(real[p]) || parse_uint(real, p, l->eol, &cpu, &e) != 0 || e >= l->eol ||
	    !is_blank(real[e]))
		return cps_buf_append(out, real + l->start, l->next - l->start);
	if (!cps_mask_test(s->set, s->nw, cpu))
		return 0;
	*kept = true;
	int r = cps_buf_append(out, "cpu", 3);
	if (!r)
		r = cps_buf_append_dec(out, v);
	return r ? r : cps_buf_append(out, real + e, l->next - e);
}

int cps_view_stat(struct cps_buf *out, const char *real, size_t len,
		  const struct cps_view_input *s)
{
	size_t start_len = out->len, pos;
	unsigned long long stack_sum[STAT_SUM_STACK], *sum = stack_sum;
	unsigned maxf = 0, v = 0, total_nf = 0;
	bool found = false;
	struct stat_line sl;
	struct line l;
	int r = 0;

	/* The total comes first but is the sum of what follows: check and
	 * measure every cpu line, add up the kept ones (in the same pass
	 * while they fit on the stack), then write. The view is no longer
	 * than the file: room for it at once. */
	memset(stack_sum, 0, sizeof(stack_sum));
	if ((r = buf_reserve(out, len)) != 0)
		return r;
	for (pos = 0; next_line(real, len, pos, &l); pos = l.next) {
		r = stat_classify(real, &l, &sl, sum, STAT_SUM_STACK, s);
		if (r)
			return r;
		if (sl.kind == STAT_OTHER)
			continue;
		found = true;
		if (sl.nfields > maxf)
			maxf = sl.nfields;
		if (sl.kind == STAT_TOTAL)
			total_nf = sl.nfields;
	}
	if (!found)
		return -EINVAL;
	if (maxf > STAT_SUM_STACK) {
		/* wider than the stack's: added up again, all of them */
		sum = calloc(maxf, sizeof(*sum));
		if (!sum)
			return -ENOMEM;
		for (pos = 0; next_line(real, len, pos, &l); pos = l.next)
			stat_classify(real, &l, &sl, sum, maxf, s);
	}

	/* the lines checked above: what kind each is needs no more than
	 * its name here */
	for (pos = 0; !r && next_line(real, len, pos, &l); pos = l.next) {
		size_t p = l.start + 3;
		bool kept;
		if (!has_prefix(real, l.start, l.eol, "cpu") || p >= l.eol) {
			r = cps_buf_append(out, real + l.start, l.next - l.start);
		} else if (is_blank(real[p])) {
			/* the total: as many fields as it had (counted in the
			 * first pass) */
			r = stat_total(out, sum, total_nf, real, &l);
		} else {
			r = stat_cpu(out, real, &l, p, s, v, &kept);
			v += kept;
		}
	}
	if (sum != stack_sum)
		free(sum);
	return cps_view_done(out, start_len, r);
}

/* ---- /sys/devices/system/cpu/{online,possible,present} ---- */

bool cps_view_wide_possible;

unsigned cps_view_width(const struct cps_view_input *s)
{
	int last = s->set && cps_view_wide_possible ? cps_mask_last(s->set, s->nw) : -1;

	return last >= 0 && (unsigned)last >= s->n ? (unsigned)last + 1 : s->n;
}

static int put_range(struct cps_buf *out, unsigned n)
{
	size_t start_len = out->len;
	int r;

	if (n == 0)
		return -EINVAL;
	if (n == 1)
		r = cps_buf_append(out, "0\n", 2);
	else
		r = cps_buf_printf(out, "0-%u\n", n - 1);
	if (r)
		buf_truncate(out, start_len);
	return r;
}

int cps_view_cpurange(struct cps_buf *out, const struct cps_view_input *s)
{
	return put_range(out, s->n);
}

int cps_view_possible(struct cps_buf *out, const struct cps_view_input *s)
{
	return s->n ? put_range(out, cps_view_width(s)) : -EINVAL;
}
