/* SPDX-License-Identifier: BSD-3-Clause */
/* The NUMA node family: /sys/devices/system/node (src/vsys.h). Nodes keep
 * their numbers and their memory; what they say of CPUs is the set's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vnodes.h"
#include "src/vsys.h"

int cps_vsys_node_name(const char *name, unsigned *num, const char **end)
{
	const char *p = name + 4;
	unsigned long v = 0;

	if (strncmp(name, "node", 4) || !cps_is_digit(*p))
		return 0;
	for (; cps_is_digit(*p); p++)
		if ((v = v * 10 + (unsigned)(*p - '0')) > 1u << 20)
			return 0;
	if (*p && *p != '/')
		return 0;
	*num = (unsigned)v;
	if (end)
		*end = p;
	return 1;
}

/* A list of physical nodes (text, NUL-terminated) as a mask. */
static int parse_nodes(const char *real, size_t len, uint64_t *m, size_t nw)
{
	struct cps_parse_error err;
	char t[1024];

	cps_mask_zero(m, nw);
	while (len && (real[len - 1] == '\n' || real[len - 1] == '\0'))
		len--;
	if (len >= sizeof(t))
		return -EINVAL;
	memcpy(t, real, len);
	t[len] = '\0';
	if (!len || !strcmp(t, "(null)"))
		return 0;
	return cps_cpulist_parse(t, m, nw, &err) ? -EINVAL : 0;
}

int cps_view_nodelist(struct cps_buf *out, const char *real, size_t len,
		      const struct cps_view_input *s)
{
	enum { NW = CPS_WORDS_FOR(4096) };
	uint64_t phys[NW], virt[NW];
	char small[1024];
	int r;

	if ((r = parse_nodes(real, len, phys, NW)))
		return r;
	cps_mask_zero(virt, NW);
	for (int p = cps_mask_next(phys, NW, -1); p >= 0; p = cps_mask_next(phys, NW, p)) {
		long v = cps_pnode_virt(s->mems, s->mnw, s->k, p);
		if (v >= 0 && (unsigned long)v < s->k)
			cps_mask_set(virt, NW, (unsigned)v);
	}
	size_t need = cps_cpulist_format(small, sizeof(small), virt, NW);
	if (need >= sizeof(small))
		return -EINVAL;
	if ((r = cps_buf_append(out, small, need)))
		return r;
	return cps_buf_append(out, "\n", 1);
}

int cps_view_node_distance(struct cps_buf *out, const char *real, size_t len, const char *online,
			   size_t olen, const struct cps_view_input *s)
{
	enum { NW = CPS_WORDS_FOR(4096) };
	uint64_t on[NW];
	size_t start = out->len, i = 0;
	int r, col, first = 1;

	if ((r = parse_nodes(online, olen, on, NW)))
		return r;
	col = cps_mask_next(on, NW, -1);
	/* the columns, one per online node: those of the set, in order (the
	 * set's nodes ascend, as the columns do) */
	while (i < len && col >= 0) {
		size_t b;
		while (i < len && (real[i] == ' ' || real[i] == '\n' || real[i] == '\0'))
			i++;
		if (i == len)
			break;
		for (b = i; i < len && real[i] != ' ' && real[i] != '\n' && real[i] != '\0'; i++)
			;
		if ((unsigned)col < s->mnw * 64 && cps_mask_test(s->mems, s->mnw, (unsigned)col)) {
			if ((!first && (r = cps_buf_append(out, " ", 1))) ||
			    (r = cps_buf_append(out, real + b, i - b)))
				goto fail;
			first = 0;
		}
		col = cps_mask_next(on, NW, col);
	}
	if (!(r = cps_buf_append(out, "\n", 1)))
		return 0;
fail:
	out->len = start;
	if (out->p)
		out->p[start] = '\0';
	return r;
}

int cps_view_node_info(struct cps_buf *out, const char *real, size_t len,
		       const struct cps_view_input *s)
{
	size_t start = out->len, i = 0;
	int r = 0;

	while (i < len && !r) {
		size_t e = i;
		while (e < len && real[e] != '\n')
			e++;
		if (e < len)
			e++;
		if (e - i > 5 && !memcmp(real + i, "Node ", 5) && cps_is_digit(real[i + 5])) {
			size_t d = i + 5;
			unsigned long p = 0;
			char num[CPS_DEC_MAX];
			while (d < e && cps_is_digit(real[d]) && p < 1ul << 30)
				p = p * 10 + (unsigned long)(real[d++] - '0');
			long v = cps_pnode_virt(s->mems, s->mnw, s->k, (long)p);
			size_t nl = cps_fmt_dec(num, (uint64_t)v);
			if (!(r = cps_buf_append(out, "Node ", 5)) && !(r = cps_buf_append(out, num, nl)))
				r = cps_buf_append(out, real + d, e - d);
		} else {
			r = cps_buf_append(out, real + i, e - i);
		}
		i = e;
	}
	if (r) {
		out->len = start;
		if (out->p)
			out->p[start] = '\0';
	}
	return r;
}

int cps_view_has_cpu(struct cps_buf *out, const char *real, size_t len, const char *const *maps,
		     const size_t *lens, unsigned nnodes, const struct cps_view_input *s)
{
	static const size_t nw = CPS_MAX_WORDS;
	struct cps_parse_error err;
	uint64_t *listed, *cpus, *keep;
	size_t start = out->len;
	char *t = NULL;
	int r = -ENOMEM;

	listed = calloc(3 * nw, sizeof(uint64_t));
	if (!listed || len > 65536)
		goto out;
	cpus = listed + nw;
	keep = cpus + nw;
	t = malloc(len + 1);
	if (!t)
		goto out;
	memcpy(t, real, len);
	t[len] = '\0';
	r = -EINVAL;
	if (strcmp(t, "\n") && *t && cps_cpulist_parse(t, listed, nw, &err))
		goto out;
	for (int k = cps_mask_next(listed, nw, -1); k >= 0; k = cps_mask_next(listed, nw, k)) {
		char *m;

		if ((unsigned)k >= nnodes || !maps[k] || lens[k] > 65536)
			continue;
		m = malloc(lens[k] + 1);
		if (!m) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(m, maps[k], lens[k]);
		m[lens[k]] = '\0';
		if (cps_hexmask_parse(m, cpus, nw, &err) == 0 &&
		    cps_mask_intersects(cpus, s->set, s->nw < nw ? s->nw : nw))
			cps_mask_set(keep, nw, (unsigned)k);
		free(m);
	}
	{
		char small[512];
		size_t need = cps_cpulist_format(small, sizeof(small), keep, nw);

		r = need < sizeof(small) ? cps_buf_append(out, small, need) : -EINVAL;
		if (!r)
			r = cps_buf_append(out, "\n", 1);
	}
out:
	free(t);
	free(listed);
	if (r) {
		out->len = start;
		if (out->p)
			out->p[start] = '\0';
	}
	return r;
}
