/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU lists and hex masks, parsed strictly and printed. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"

#include <stdbool.h>
#include <string.h>

static int fail(struct cps_parse_error *err, size_t pos, const char *msg)
{
	if (err) {
		err->pos = pos;
		err->msg = msg;
	}
	return -1;
}

/*
 * The length that counts: one trailing newline is what a read of a /sys or
 * /proc file leaves, anything more is the caller's junk and stays in.
 */
static size_t text_len(const char *s)
{
	size_t len = strlen(s);
	if (len && s[len - 1] == '\n')
		len--;
	return len;
}

/* CPUs a..b inclusive, b below the width. */
static void set_range(uint64_t *m, uint64_t a, uint64_t b)
{
	size_t wa = a / CPS_WORD_BITS, wb = b / CPS_WORD_BITS;
	uint64_t first = ~cps_low_bits(a % CPS_WORD_BITS);
	uint64_t last = cps_low_bits(b % CPS_WORD_BITS + 1);
	if (wa == wb) {
		m[wa] |= first & last;
		return;
	}
	m[wa] |= first;
	for (size_t i = wa + 1; i < wb; i++)
		m[i] = ~(uint64_t)0;
	m[wb] |= last;
}

static int parse_num(const char *s, size_t end, size_t *i, uint64_t *out,
		     struct cps_parse_error *err)
{
	size_t start = *i;
	uint64_t v = 0;

	if (*i >= end || !cps_is_digit(s[*i]))
		return fail(err, *i, "expected a CPU number");
	for (; *i < end && cps_is_digit(s[*i]); (*i)++) {
		unsigned d = (unsigned)(s[*i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return fail(err, start, "number too large");
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A CPU number that must fit the mask. */
static int parse_cpu(const char *s, size_t end, size_t *i, uint64_t width, uint64_t *out,
		     struct cps_parse_error *err)
{
	size_t start = *i;
	if (parse_num(s, end, i, out, err) < 0)
		return -1;
	if (*out >= width)
		return fail(err, start, "CPU beyond the width");
	return 0;
}

static int parse_list(const char *s, size_t end, uint64_t *m, size_t nw,
		      struct cps_parse_error *err)
{
	uint64_t width = (uint64_t)nw * CPS_WORD_BITS;
	size_t i = 0;

	for (;;) {
		size_t item = i;
		uint64_t a, b, stride = 1;

		if (i == end || s[i] == ',')
			return fail(err, i, "empty item");
		if (parse_cpu(s, end, &i, width, &a, err) < 0)
			return -1;
		b = a;
		if (i < end && s[i] == '-') {
			i++;
			if (parse_cpu(s, end, &i, width, &b, err) < 0)
				return -1;
			if (b < a)
				return fail(err, item, "reversed range");
			if (i < end && s[i] == ':') {
				size_t at = ++i;
				if (parse_num(s, end, &i, &stride, err) < 0)
					return -1;
				if (stride == 0)
					return fail(err, at, "stride must be at least 1");
			}
		}
		if (stride == 1) {
			set_range(m, a, b);
		} else {
			for (uint64_t c = a;; c += stride) {
				m[c / CPS_WORD_BITS] |= (uint64_t)1 << (c % CPS_WORD_BITS);
				if (b - c < stride)
					break;
			}
		}
		if (i == end)
			return 0;
		if (s[i] != ',')
			return fail(err, i, "trailing characters");
		i++;
	}
}

/*
 * Hex digits in s[start..end). grouped: comma-separated 32-bit groups of up
 * to 8 digits, most significant first; otherwise one plain number of any
 * length. Zero digits above the width are fine (a mask printed by a kernel
 * with more CPUs), set bits there are not. The syntax is checked all through
 * before any value: where a digit lands depends on the groups after it.
 */
static int parse_hex(const char *s, size_t start, size_t end, bool grouped, uint64_t *m,
		     size_t nw, struct cps_parse_error *err)
{
	uint64_t width = (uint64_t)nw * CPS_WORD_BITS;
	size_t ngroups = 1, gs = start;

	for (size_t i = start;; i++) {
		if (i == end || (grouped && s[i] == ',')) {
			if (i == gs)
				return fail(err, i, "empty item");
			if (i == end)
				break;
			ngroups++;
			gs = i + 1;
		} else if (cps_hex_value(s[i]) < 0) {
			return fail(err, i, "bad hex digit");
		} else if (grouped && i - gs >= 8) {
			return fail(err, i, "hex group longer than 8 digits");
		}
	}

	gs = start;
	for (size_t g = 0; g < ngroups; g++) {
		size_t ge = gs;
		while (ge < end && s[ge] != ',')
			ge++;
		uint64_t gbase = (uint64_t)32 * (ngroups - 1 - g);
		for (size_t q = gs; q < ge; q++) {
			uint64_t v = (uint64_t)cps_hex_value(s[q]);
			uint64_t bit = gbase + (uint64_t)4 * (ge - 1 - q);
			if (!v)
				continue;
			/* the width is a multiple of 64: a digit is all in or all out */
			if (bit >= width)
				return fail(err, q, "hex mask wider than the width");
			m[bit / CPS_WORD_BITS] |= v << (bit % CPS_WORD_BITS);
		}
		gs = ge + 1;
	}
	return 0;
}

/* Both parsers' start: m cleared, the text's length in *end; -1 (err
 * set) for no text. */
static int parse_start(const char *s, uint64_t *m, size_t nw, struct cps_parse_error *err,
		       size_t *end)
{
	cps_mask_zero(m, nw);
	*end = s ? text_len(s) : 0;
	return *end ? 0 : fail(err, 0, "empty CPU list");
}

int cps_cpulist_parse(const char *s, uint64_t *m, size_t nw, struct cps_parse_error *err)
{
	size_t end;
	if (parse_start(s, m, nw, err, &end) < 0)
		return -1;
	if (end >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_hex(s, 2, end, memchr(s + 2, ',', end - 2) != NULL, m, nw, err);
	return parse_list(s, end, m, nw, err);
}

int cps_hexmask_parse(const char *s, uint64_t *m, size_t nw, struct cps_parse_error *err)
{
	size_t end;
	if (parse_start(s, m, nw, err, &end) < 0)
		return -1;
	return parse_hex(s, 0, end, true, m, nw, err);
}

/* snprintf-like output: count everything, store what fits. */
struct out {
	char *buf;
	size_t len;
	size_t n;
};

static void put_char(struct out *o, char c)
{
	if (o->n + 1 < o->len)
		o->buf[o->n] = c;
	o->n++;
}

static void put_uint(struct out *o, uint64_t v)
{
	char tmp[CPS_DEC_MAX];
	size_t k = cps_fmt_dec(tmp, v);
	for (size_t i = 0; i < k; i++)
		put_char(o, tmp[i]);
}

static size_t finish(struct out *o)
{
	if (o->len)
		o->buf[o->n < o->len ? o->n : o->len - 1] = '\0';
	return o->n;
}

/* First bit at or after from that equals want; the width when none. */
static size_t find_bit(const uint64_t *m, size_t nw, size_t from, bool want)
{
	size_t i = from / CPS_WORD_BITS;
	if (i >= nw)
		return nw * CPS_WORD_BITS;
	uint64_t w = (want ? m[i] : ~m[i]) & ~cps_low_bits(from % CPS_WORD_BITS);
	for (;;) {
		if (w)
			return i * CPS_WORD_BITS + (unsigned)__builtin_ctzll(w);
		if (++i >= nw)
			return nw * CPS_WORD_BITS;
		w = want ? m[i] : ~m[i];
	}
}

size_t cps_cpulist_format(char *buf, size_t len, const uint64_t *m, size_t nw)
{
	struct out o = { buf, len, 0 };
	size_t width = nw * CPS_WORD_BITS;

	for (size_t a = find_bit(m, nw, 0, true); a < width;) {
		size_t b = find_bit(m, nw, a, false); /* one past the run */
		if (o.n)
			put_char(&o, ',');
		put_uint(&o, a);
		if (b - 1 > a) {
			put_char(&o, '-');
			put_uint(&o, b - 1);
		}
		a = b < width ? find_bit(m, nw, b, true) : width;
	}
	return finish(&o);
}

size_t cps_hexmask_format(char *buf, size_t len, const uint64_t *m, size_t nw, unsigned ngroups)
{
	static const char digits[] = "0123456789abcdef";
	struct out o = { buf, len, 0 };
	size_t groups = ngroups;

	if (!groups) {
		int last = cps_mask_last(m, nw);
		groups = last < 0 ? 1 : (size_t)last / 32 + 1;
	}
	for (size_t g = groups; g-- > 0;) {
		uint32_t v = g / 2 < nw ? (uint32_t)(m[g / 2] >> (32 * (g % 2))) : 0;
		for (int shift = 28; shift >= 0; shift -= 4)
			put_char(&o, digits[(v >> shift) & 0xf]);
		if (g)
			put_char(&o, ',');
	}
	return finish(&o);
}
