/* SPDX-License-Identifier: BSD-3-Clause */
/* The cpuinfo family's topology fields (src/vcpuinfo.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "src/vcpuinfo.h"

struct blk {
	/* -1: no such line */
	long pkg, core, apicid, siblings, cores;
};

/* "name<blanks>:" at the start of [p, eol): where the value starts, or NULL. */
static const char *field(const char *p, const char *eol, const char *name)
{
	size_t n = strlen(name);

	if ((size_t)(eol - p) <= n || memcmp(p, name, n) || (p[n] != ' ' && p[n] != '\t' && p[n] != ':'))
		return NULL;
	p += n;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= eol || *p != ':')
		return NULL;
	p++;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* A line that opens a CPU's section: "processor : N", or s390's
 * "cpu number : N" (its "processor N: ..." summary lines open none). */
static bool opens_cpu(const char *p, const char *eol)
{
	return field(p, eol, "processor") || field(p, eol, "cpu number");
}

static long number(const char *p, const char *eol)
{
	long v = 0;

	if (p >= eol || *p < '0' || *p > '9')
		return -1;
	for (; p < eol && *p >= '0' && *p <= '9'; p++) {
		if (v > 100000000L)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The end of the line at p: its '\n', or end. */
static const char *line_end(const char *p, const char *end)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));

	return eol ? eol : end;
}

/* The CPU sections' fields, in the order of the sections. */
struct blocks {
	struct blk *b;
	size_t n, cap;
};

/* A new section, its fields not seen yet: 0 or -ENOMEM. */
static int block_open(struct blocks *bs)
{
	struct blk *b;

	if (bs->n == bs->cap) {
		size_t cap = bs->cap ? bs->cap * 2 : 64;
		struct blk *nb = realloc(bs->b, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		bs->b = nb;
		bs->cap = cap;
	}
	b = &bs->b[bs->n++];
	b->pkg = b->core = b->apicid = -1;
	b->siblings = b->cores = -1;
	return 0;
}

/* A line of a section: the field it gives, if it is one of these five
 * (the first that matches). */
static void block_field(struct blk *b, const char *p, const char *eol)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "physical id", offsetof(struct blk, pkg) },
		{ "core id", offsetof(struct blk, core) },
		{ "apicid", offsetof(struct blk, apicid) },
		{ "siblings", offsetof(struct blk, siblings) },
		{ "cpu cores", offsetof(struct blk, cores) },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *v = field(p, eol, fields[i].name);

		if (v) {
			*(long *)((char *)b + fields[i].off) = number(v, eol);
			return;
		}
	}
}

/* Pass 1: each section's package, core, APIC id, siblings and cpu cores
 * (lines before the first section belong to none). */
static int read_blocks(struct blocks *bs, const char *in, const char *end)
{
	for (const char *p = in; p < end;) {
		const char *eol = line_end(p, end);

		if (opens_cpu(p, eol)) {
			int r = block_open(bs);

			if (r)
				return r;
		} else if (bs->n) {
			block_field(&bs->b[bs->n - 1], p, eol);
		}
		p = eol < end ? eol + 1 : end;
	}
	return 0;
}

/* Which core a CPU is on: "core id" is unique only within a die (two dies
 * of a package may both have a core 0), the APIC id without its thread
 * bits is unique in the machine. The thread bits are those of the most
 * threads a core has, read from what the file said of the whole machine:
 * siblings / cpu cores rounded up, since that is an average that falls
 * below the most where some cores have fewer threads (a hybrid's
 * efficient cores, a thread taken offline) and the APIC id keeps the
 * bits all the same. */
static void cores_by_apicid(struct blk *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++) {
		long tpc = b[i].siblings > 0 && b[i].cores > 0
				   ? (b[i].siblings + b[i].cores - 1) / b[i].cores
				   : 1;
		unsigned shift = 0;

		while (tpc > 1 && (1L << shift) < tpc)
			shift++;
		if (b[i].apicid >= 0)
			b[i].core = b[i].apicid >> shift;
	}
}

/* Package pkg's sections: their number in *cpus; returns how many
 * distinct cores they are on (tmp: room for every section's core). */
static size_t package_cores(const struct blocks *bs, long pkg, long *tmp, size_t *cpus)
{
	size_t k = 0, distinct = 0;

	for (size_t i = 0; i < bs->n; i++)
		if (bs->b[i].pkg == pkg)
			tmp[k++] = bs->b[i].core;
	qsort(tmp, k, sizeof(*tmp), cmp_long);
	for (size_t i = 0; i < k; i++)
		if (i == 0 || tmp[i] != tmp[i - 1])
			distinct++;
	*cpus = k;
	return distinct;
}

/* A "siblings" or "cpu cores" line that holds a number: where the number
 * starts (*sib: which of the two), else NULL. */
static const char *count_field(const char *p, const char *eol, bool *sib)
{
	const char *v = field(p, eol, "siblings");

	*sib = v != NULL;
	if (!v)
		v = field(p, eol, "cpu cores");
	return v && number(v, eol) >= 0 ? v : NULL;
}

/* The line [p, next) with the number at v replaced by n. */
static int replace_number(struct cps_buf *out, const char *p, const char *v, const char *eol,
			  const char *next, size_t n)
{
	int r = cps_buf_append(out, p, (size_t)(v - p));

	if (!r)
		r = cps_buf_printf(out, "%zu", n);
	while (v < eol && *v >= '0' && *v <= '9')
		v++;
	if (!r)
		r = cps_buf_append(out, v, (size_t)(next - v));
	return r;
}

/* Pass 2: the text again, with each section's siblings counted over the
 * sections of its package, and its cpu cores as their distinct cores. */
static int write_counts(struct cps_buf *out, const char *in, const char *end,
			const struct blocks *bs, long *tmp)
{
	const struct blk *cur = NULL;
	int r = 0;

	for (const char *p = in; !r && p < end;) {
		const char *eol = line_end(p, end);
		const char *next = eol < end ? eol + 1 : end, *v;
		bool sib;

		if (opens_cpu(p, eol))
			cur = cur ? cur + 1 : bs->b;
		if (cur && cur->pkg >= 0 && (v = count_field(p, eol, &sib))) {
			size_t cpus, cores = package_cores(bs, cur->pkg, tmp, &cpus);

			r = replace_number(out, p, v, eol, next, sib ? cpus : cores);
		} else {
			r = cps_buf_append(out, p, (size_t)(next - p));
		}
		p = next;
	}
	return r;
}

int cps_view_cpuinfo_shape(struct cps_buf *out, const char *in, size_t len)
{
	struct blocks bs = { 0 };
	size_t start = out->len;
	long *tmp = NULL;
	int r = read_blocks(&bs, in, in + len);

	if (!r) {
		tmp = malloc((bs.n ? bs.n : 1) * sizeof(*tmp));
		r = tmp ? 0 : -ENOMEM;
	}
	if (!r) {
		cores_by_apicid(bs.b, bs.n);
		r = write_counts(out, in, in + len, &bs, tmp);
	}
	if (!r && !out->p)
		r = cps_buf_append(out, "", 0);
	free(bs.b);
	free(tmp);
	if (r) {
		out->len = start;
		if (out->p)
			out->p[start] = '\0';
	}
	return r;
}

int cps_view_cpuinfo_set(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s)
{
	struct cps_buf sel = { 0 };
	int r = cps_view_cpuinfo(&sel, real, len, s);

	if (!r)
		r = cps_view_cpuinfo_shape(out, sel.p, sel.len);
	cps_buf_free(&sel);
	return r;
}
