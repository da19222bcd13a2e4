#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "src/mask.h"
#include "src/vproc_pidstat.h"

#define PIDSTAT_CPU_FIELD 39

unsigned cps_pidstat_vcpu(unsigned p, const uint64_t *set, size_t nw, unsigned n)
{
	if (cps_mask_test(set, nw, p))
		return cps_mask_rank(set, nw, p);
	return p % n;
}

int cps_view_pidstat(struct cps_buf *out, const char *real, size_t len,
		     const struct cps_view_input *s)
{
	size_t start_len = out->len, pos, num, end;
	const char *rp = NULL;
	unsigned field = 2, p = 0;
	int r;

	if (s->n == 0)
		return -EINVAL;
	for (size_t i = len; i > 0; i--)
		if (real[i - 1] == ')') {
			rp = real + i - 1;
			break;
		}
	if (!rp)
		return -EINVAL;
	/* after ')': " S ppid pgrp ...", one space before each field */
	pos = (size_t)(rp - real) + 1;
	for (;;) {
		if (pos >= len || real[pos] != ' ')
			return -EINVAL;
		pos++;
		field++;
		if (field == PIDSTAT_CPU_FIELD)
			break;
		while (pos < len && real[pos] != ' ' && real[pos] != '\n')
			pos++;
	}
	num = pos;
	for (end = pos; end < len && real[end] >= '0' && real[end] <= '9'; end++) {
		unsigned d = (unsigned)(real[end] - '0');

		if (p > (UINT_MAX - d) / 10)
			return -EINVAL;
		p = p * 10 + d;
	}
	if (end == num || (end < len && real[end] != ' ' && real[end] != '\n'))
		return -EINVAL;
	r = cps_buf_append(out, real, num);
	if (!r)
		r = cps_buf_printf(out, "%u", cps_pidstat_vcpu(p, s->set, s->nw, s->n));
	if (!r)
		r = cps_buf_append(out, real + end, len - end);
	if (r) {
		out->len = start_len;
		if (out->p)
			out->p[start_len] = '\0';
	}
	return r;
}
