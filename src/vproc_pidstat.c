/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "base/util.h"
#include "src/mask.h"
#include "src/vproc_pidstat.h"

#define PIDSTAT_CPU_FIELD 39

unsigned cps_pidstat_vcpu(unsigned p, const uint64_t *set, size_t nw, unsigned n)
{
	if (cps_mask_test(set, nw, p))
		return cps_mask_rank(set, nw, p);
	return p % n;
}

/* The index of the k-th (k >= 1) space at or after from, or len: eight
 * bytes at a time (this runs at every read of a stat file). */
static size_t nth_space(const char *s, size_t from, size_t len, unsigned k)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, sp = 0x2020202020202020ull;
	size_t i = from;

	for (; i + 8 <= len; i += 8) {
		uint64_t w, z;

		memcpy(&w, s + i, 8);
		w ^= sp;
		/* 0x80 in each byte of w that is zero, exactly */
		z = ~(((w & lo7) + lo7) | w | lo7);
		for (; z; z &= z - 1)
			if (--k == 0)
				return i + (size_t)__builtin_ctzll(z) / 8;
	}
	for (; i < len; i++)
		if (s[i] == ' ' && --k == 0)
			return i;
	return len;
}

int cps_view_pidstat(struct cps_buf *out, const char *real, size_t len,
		     const struct cps_view_input *s)
{
	size_t start_len = out->len, pos, num, end;
	const char *rp = NULL;
	unsigned p = 0;
	int r;

	if (s->n == 0)
		return -EINVAL;
	rp = memrchr(real, ')', len);
	if (!rp || (size_t)(rp - real) + 1 >= len || rp[1] != ' ')
		return -EINVAL;
	/* after ')': " S ppid pgrp ...", one space before each field, and no
	 * newline before the last field */
	pos = nth_space(real, (size_t)(rp - real) + 1, len, PIDSTAT_CPU_FIELD - 2);
	if (pos >= len || memchr(rp, '\n', pos - (size_t)(rp - real)))
		return -EINVAL;
	pos++;
	num = pos;
	for (end = pos; end < len && real[end] >= '0' && real[end] <= '9'; end++) {
		unsigned d = (unsigned)(real[end] - '0');

		if (p > (UINT_MAX - d) / 10)
			return -EINVAL;
		p = p * 10 + d;
	}
	if (end == num || (end < len && real[end] != ' ' && real[end] != '\n'))
		return -EINVAL;
	r = cps_buf_reserve(out, len - (end - num) + CPS_DEC_MAX);
	if (!r)
		r = cps_buf_append(out, real, num);
	if (!r)
		r = cps_buf_append_dec(out, cps_pidstat_vcpu(p, s->set, s->nw, s->n));
	if (!r)
		r = cps_buf_append(out, real + end, len - end);
	if (r) {
		out->len = start_len;
		if (out->p)
			out->p[start_len] = '\0';
	}
	return r;
}
