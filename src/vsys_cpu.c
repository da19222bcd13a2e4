/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU directory family: /sys/devices/system/cpu and its alias
 * /sys/bus/cpu/devices (src/vsys.h); the physical path of every /sys view
 * by its row in the list of virtual files (src/vfiles.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vfiles.h"
#include "src/vnodes.h"
#include "src/vsys.h"

int cps_vsys_cpu_name(const char *s, unsigned *num, const char **end)
{
	unsigned v = 0;
	const char *p = s + 3;

	if (strncmp(s, "cpu", 3) || !cps_is_digit(*p))
		return 0;
	/* the kernel writes no leading zeros: "cpu01" is no CPU */
	if (*p == '0' && cps_is_digit(p[1]))
		return 0;
	for (; cps_is_digit(*p); p++) {
		if (v > 100000000u) /* far beyond any CPU: still a cpuN name */
			v = 100000000u;
		else
			v = v * 10 + (unsigned)(*p - '0');
	}
	if (*p && *p != '/')
		return 0;
	*num = v;
	if (end)
		*end = p;
	return 1;
}

/* The physical number of capture c of canon: 0 and *p, or -1 when the
 * virtual number is beyond the set's CPUs or nodes; 1: kept as it is (a
 * node without the set's nodes). */
static int phys_number(const char *canon, char what, size_t at, size_t len,
		       const struct cps_view_input *s, uint64_t *p)
{
	unsigned long v = 0;

	for (size_t i = 0; i < len; i++) /* far beyond any CPU or node: none */
		v = v > 100000000ul ? v : v * 10 + (unsigned long)(canon[at + i] - '0');
	if (what == 'c') {
		int q = v < s->n ? cps_mask_nth(s->set, s->nw, (unsigned)v) : -1;
		if (q < 0)
			return -1;
		*p = (uint64_t)q;
		return 0;
	}
	if (what != 'n' || !s->k)
		return 1;
	long q = cps_vnode_phys(s->mems, s->mnw, s->k, (long)v);
	if (q < 0)
		return -1;
	*p = (uint64_t)q;
	return 0;
}

int cps_vsys_resolve(const char *canon, const struct cps_view_input *s, char *phys, size_t len)
{
	struct cps_vmatch m;
	const struct cps_vfile *row = cps_vfile_find(canon, s->k > 0, &m);

	return cps_vsys_phys(row, &m, canon, s, phys, len);
}

int cps_vsys_phys(const struct cps_vfile *row, const struct cps_vmatch *m, const char *canon,
		  const struct cps_view_input *s, char *phys, size_t len)
{
	size_t from = 0, o = 0, rest;

	if (!row || (row->family != CPS_VF_CPUDIR && row->family != CPS_VF_NODE))
		return CPS_VK_NONE;
	/* canon with its virtual numbers made physical */
	for (unsigned i = 0; i < m->ncap; i++) {
		char num[CPS_DEC_MAX];
		uint64_t p;
		size_t at = m->cap[i].at, nl;
		int r = phys_number(canon, m->cap[i].what, at, m->cap[i].len, s, &p);

		if (r < 0)
			return CPS_VK_ABSENT;
		if (r > 0)
			continue;
		nl = cps_fmt_dec(num, p);
		if (o + (at - from) + nl >= len)
			return -ENAMETOOLONG;
		memcpy(phys + o, canon + from, at - from);
		o += at - from;
		memcpy(phys + o, num, nl);
		o += nl;
		from = at + m->cap[i].len;
	}
	rest = strlen(canon + from);
	if (o + rest + 1 > len)
		return -ENAMETOOLONG;
	memcpy(phys + o, canon + from, rest + 1);
	return row->kind;
}

int cps_vsys_dirent(const char *name, const struct cps_view_input *s, char *out)
{
	unsigned p;
	const char *end;

	if (s->k && cps_vsys_node_name(name, &p, &end) && !*end) {
		/* nodeP (the node directory, a CPU's node link): its virtual
		 * name, or none outside the set's nodes */
		if (p >= s->mnw * 64 || !cps_mask_test(s->mems, s->mnw, p))
			return -1;
		memcpy(out, "node", 4);
		cps_fmt_dec(out + 4, cps_mask_rank(s->mems, s->mnw, p));
		return 1;
	}
	if (!cps_vsys_cpu_name(name, &p, &end) || *end)
		return 0;
	if (!cps_mask_test(s->set, s->nw, p))
		return -1;
	memcpy(out, "cpu", 3);
	cps_fmt_dec(out + 3, cps_mask_rank(s->set, s->nw, p));
	return 1;
}

/* ---- the contents ---- */

int cps_buf_put_kmask(struct cps_buf *out, const uint64_t *m, size_t nw, unsigned nbits)
{
	size_t start = out->len;
	int r = cps_buf_put_kmask_bits(out, m, nw, nbits);

	if (!r && (r = cps_buf_append(out, "\n", 1))) {
		out->len = start;
		out->p[start] = '\0';
	}
	return r;
}

int cps_buf_put_kmask_bits(struct cps_buf *out, const uint64_t *m, size_t nw, unsigned nbits)
{
	unsigned groups = nbits ? (nbits + 31) / 32 : 1;
	unsigned first = nbits % 32 ? nbits % 32 : 32;
	/* "%0*x" of the first group's width, then ",%08x" a group: by hand,
	 * into room taken once */
	int r = cps_buf_reserve(out, (size_t)groups * 9);

	if (r)
		return r;
	char *d = out->p + out->len;
	for (unsigned g = groups; g-- > 0;) {
		unsigned bit = g * 32;
		uint32_t val = bit / 64 < nw ? (uint32_t)(m[bit / 64] >> (bit % 64)) : 0;
		unsigned w = 8;

		if (g == groups - 1) {
			if (first < 32)
				val &= (UINT32_C(1) << first) - 1;
			w = (first + 3) / 4;
		} else {
			*d++ = ',';
		}
		if (!val) { /* most groups of a wide mask */
			memcpy(d, "00000000", w);
			d += w;
			continue;
		}
		for (unsigned i = w; i-- > 0;)
			*d++ = "0123456789abcdef"[(val >> (4 * i)) & 15];
	}
	out->len = (size_t)(d - out->p);
	*d = '\0';
	return 0;
}

/* CPUs separated by blanks ("0 1 2 \n"). */
static int parse_spacelist(const char *t, uint64_t *m, size_t nw)
{
	const char *p = t;

	cps_mask_zero(m, nw);
	while (*p) {
		unsigned long v;
		char *e;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (!cps_is_digit(*p))
			return -EINVAL;
		v = strtoul(p, &e, 10);
		if (v >= nw * 64)
			return -EINVAL;
		cps_mask_set(m, nw, (unsigned)v);
		p = e;
	}
	return 0;
}

/* A mask or list file's text t (NUL-terminated) into phys, by its kind. */
static int cpumask_parse(int kind, const char *t, uint64_t *phys, size_t nw)
{
	struct cps_parse_error err;
	switch (kind) {
	case CPS_VK_MASK:
		return cps_hexmask_parse(t, phys, nw, &err) ? -EINVAL : 0;
	case CPS_VK_LIST:
	case CPS_VK_OFFLINE:
	case CPS_VK_ONLINE:
		/* an empty list is a line of its own (offline, isolated) */
		if (!strcmp(t, "\n") || !*t)
			return 0;
		/* nohz_full with none: "%*pbl" of no mask, padded to
		 * nr_cpu_ids columns when that is wider */
		if (!strcmp(t + strspn(t, " "), "(null)\n"))
			return 0;
		return cps_cpulist_parse(t, phys, nw, &err) ? -EINVAL : 0;
	case CPS_VK_SPACELIST:
		return parse_spacelist(t, phys, nw);
	default:
		return -EINVAL;
	}
}

/* A CPU list and its newline, however long. */
static int put_list(struct cps_buf *out, const uint64_t *virt, size_t nw)
{
	char small[256];
	size_t need = cps_cpulist_format(small, sizeof(small), virt, nw);
	int r;
	if (need < sizeof(small)) {
		r = cps_buf_append(out, small, need);
	} else {
		char *big = malloc(need + 1);
		r = big ? 0 : -ENOMEM;
		if (big) {
			cps_cpulist_format(big, need + 1, virt, nw);
			r = cps_buf_append(out, big, need);
			free(big);
		}
	}
	return r ? r : cps_buf_append(out, "\n", 1);
}

/* The virtual mask written in the kind's format. */
static int cpumask_put(struct cps_buf *out, int kind, const uint64_t *virt, size_t nw,
		       const struct cps_view_input *s)
{
	int r = 0;
	if (kind == CPS_VK_MASK)
		return cps_buf_put_kmask(out, virt, nw, cps_view_width(s));
	if (kind != CPS_VK_SPACELIST)
		return put_list(out, virt, nw);
	for (int c = cps_mask_next(virt, nw, -1); !r && c >= 0; c = cps_mask_next(virt, nw, c))
		r = cps_buf_printf(out, "%d ", c);
	return r ? r : cps_buf_append(out, "\n", 1);
}

int cps_view_cpumask_file(struct cps_buf *out, int kind, const char *real, size_t len,
			  const struct cps_view_input *s)
{
	static const size_t nw = CPS_MAX_WORDS;
	uint64_t *phys, *virt;
	size_t start = out->len;
	char *t;
	int r;

	if (len > 65536)
		return -EINVAL;
	t = malloc(len + 1);
	phys = calloc(2 * nw, sizeof(uint64_t));
	if (!t || !phys) {
		free(t);
		free(phys);
		return -ENOMEM;
	}
	virt = phys + nw;
	memcpy(t, real, len);
	t[len] = '\0';
	r = cpumask_parse(kind, t, phys, nw);
	if (!r) {
		cps_phys_to_virt(virt, nw, s->set, s->nw, phys);
		/* the possible CPUs past the online ones are offline */
		for (unsigned c = s->n; kind == CPS_VK_OFFLINE && c < cps_view_width(s) &&
					c < nw * 64; c++)
			cps_mask_set(virt, nw, c);
		r = cpumask_put(out, kind, virt, nw, s);
	}
	free(t);
	free(phys);
	if (r) {
		out->len = start;
		if (out->p)
			out->p[start] = '\0';
	}
	return r;
}

int cps_view_kernel_max(struct cps_buf *out, const struct cps_view_input *s)
{
	if (!s->n)
		return -EINVAL;
	return cps_buf_printf(out, "%u\n", cps_view_width(s) - 1);
}
