/* The cpuinfo family's topology fields (src/vcpuinfo.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
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

int cps_view_cpuinfo_shape(struct cps_buf *out, const char *in, size_t len)
{
	const char *p, *end = in + len;
	struct blk *b = NULL;
	size_t nb = 0, cap = 0, start = out->len;
	long *tmp = NULL;
	int r = 0, cur = -1;

	/* pass 1: each block's package and core */
	for (p = in; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *v;

		if (!eol)
			eol = end;
		if (opens_cpu(p, eol)) {
			if (nb == cap) {
				struct blk *nbk = realloc(b, (cap ? cap * 2 : 64) * sizeof(*b));

				if (!nbk) {
					r = -ENOMEM;
					goto out;
				}
				b = nbk;
				cap = cap ? cap * 2 : 64;
			}
			cur = (int)nb++;
			b[cur].pkg = b[cur].core = b[cur].apicid = -1;
			b[cur].siblings = b[cur].cores = -1;
		} else if (cur >= 0 && (v = field(p, eol, "physical id"))) {
			b[cur].pkg = number(v, eol);
		} else if (cur >= 0 && (v = field(p, eol, "core id"))) {
			b[cur].core = number(v, eol);
		} else if (cur >= 0 && (v = field(p, eol, "apicid"))) {
			b[cur].apicid = number(v, eol);
		} else if (cur >= 0 && (v = field(p, eol, "siblings"))) {
			b[cur].siblings = number(v, eol);
		} else if (cur >= 0 && (v = field(p, eol, "cpu cores"))) {
			b[cur].cores = number(v, eol);
		}
		p = eol < end ? eol + 1 : end;
	}
	tmp = malloc((nb ? nb : 1) * sizeof(*tmp));
	if (!tmp) {
		r = -ENOMEM;
		goto out;
	}
	/* Which core a CPU is on: "core id" is unique only within a die
	 * (two dies of a package may both have a core 0), the APIC id without
	 * its thread bits is unique in the machine. The threads per core are
	 * what the file said of the whole machine (siblings / cpu cores). */
	for (size_t i = 0; i < nb; i++) {
		long tpc = b[i].siblings > 0 && b[i].cores > 0 ? b[i].siblings / b[i].cores : 1;
		unsigned shift = 0;

		while (tpc > 1 && (1L << shift) < tpc)
			shift++;
		if (b[i].apicid >= 0)
			b[i].core = b[i].apicid >> shift;
	}
	/* pass 2: copy, with each block's siblings and cpu cores counted
	 * over the blocks of its package */
	cur = -1;
	for (p = in; !r && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next, *v = NULL;
		bool sib = false;

		if (!eol)
			eol = end;
		next = eol < end ? eol + 1 : end;
		if (opens_cpu(p, eol))
			cur++;
		if (cur >= 0 && b[cur].pkg >= 0 &&
		    ((v = field(p, eol, "siblings")) ? (sib = true) : !!(v = field(p, eol, "cpu cores"))) &&
		    number(v, eol) >= 0) {
			size_t k = 0, distinct = 0;

			for (size_t i = 0; i < nb; i++)
				if (b[i].pkg == b[cur].pkg)
					tmp[k++] = b[i].core;
			qsort(tmp, k, sizeof(*tmp), cmp_long);
			for (size_t i = 0; i < k; i++)
				if (i == 0 || tmp[i] != tmp[i - 1])
					distinct++;
			r = cps_buf_append(out, p, (size_t)(v - p));
			if (!r)
				r = cps_buf_printf(out, "%zu", sib ? k : distinct);
			while (v < eol && *v >= '0' && *v <= '9')
				v++;
			if (!r)
				r = cps_buf_append(out, v, (size_t)(next - v));
		} else {
			r = cps_buf_append(out, p, (size_t)(next - p));
		}
		p = next;
	}
	if (!r && !out->p)
		r = cps_buf_append(out, "", 0);
out:
	free(b);
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
