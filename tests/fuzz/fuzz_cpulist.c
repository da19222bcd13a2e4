/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the CPU-list and hex-mask parsers (src/cpulist.c).
 *
 * Each input is parsed at two widths. The verdict and the mask must equal
 * those of a plain reference parser written here from the syntax in
 * src/cpulist.h; an accepted mask must print and parse back to itself, as
 * a list and as a hex mask; a refusal must point inside the input. Run by
 * tests/fuzz.sh. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"

#define MAXW 16

static void check(bool ok, const char *what, const char *in)
{
	if (!ok) {
		fprintf(stderr, "fuzz_cpulist: %s for input [%s]\n", what, in);
		abort();
	}
}

/* digits at *p into *v: -1 if there are none or they exceed 64 bits */
static int ref_num(const char **p, const char *end, unsigned long long *v)
{
	int n = 0;
	bool big = false;
	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9') {
		unsigned d = (unsigned)(**p - '0');
		if (*v > (~0ull - d) / 10)
			big = true;
		else
			*v = *v * 10 + d;
		(*p)++;
		n++;
	}
	return n && !big ? 0 : -1;
}

/* 0 accepted (m filled), -1 refused, -2 not a list (a hex mask) */
static int ref_parse(const char *s, uint64_t *m, size_t nw)
{
	size_t len = strlen(s);
	unsigned long long width = (unsigned long long)nw * 64;
	memset(m, 0, nw * 8);
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -2;
	if (len && s[len - 1] == '\n')
		len--;
	const char *p = s, *end = s + len;
	for (;;) {
		unsigned long long a, b, stride = 1;
		if (ref_num(&p, end, &a) < 0 || a >= width)
			return -1;
		b = a;
		if (p < end && *p == '-') {
			p++;
			if (ref_num(&p, end, &b) < 0 || b >= width || b < a)
				return -1;
			if (p < end && *p == ':') {
				p++;
				if (ref_num(&p, end, &stride) < 0 || stride < 1)
					return -1;
			}
		}
		for (unsigned long long c = a;; c += stride) {
			m[c / 64] |= 1ull << (c % 64);
			if (b - c < stride)
				break;
		}
		if (p == end)
			return 0;
		if (*p != ',')
			return -1;
		p++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[1024];
	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = 0;
	if (strlen(in) != size)
		return 0; /* NUL inside: C strings end there */
	static const size_t widths[] = { 1, MAXW };
	for (size_t w = 0; w < 2; w++) {
		size_t nw = widths[w];
		uint64_t m[MAXW], ref[MAXW], back[MAXW];
		struct cps_parse_error e = { 0, NULL };
		int r = cps_cpulist_parse(in, m, nw, &e);
		int want = ref_parse(in, ref, nw);
		if (want != -2) {
			check((r == 0) == (want == 0), r == 0 ? "accepted, the reference refuses"
							     : "refused, the reference accepts",
			      in);
			if (r == 0)
				check(!memcmp(m, ref, nw * 8), "a mask other than the reference's", in);
		}
		if (r < 0) {
			check(e.msg != NULL && e.pos <= size, "a refusal without a place", in);
			continue;
		}
		char buf[MAXW * 64 * 6];
		size_t need = cps_cpulist_format(buf, sizeof(buf), m, nw);
		check(need < sizeof(buf) && strlen(buf) == need, "a list that does not fit", in);
		if (buf[0]) {
			check(cps_cpulist_parse(buf, back, nw, &e) == 0, "its own list refused", in);
			check(!memcmp(m, back, nw * 8), "its own list reads back otherwise", in);
		}
		need = cps_hexmask_format(buf, sizeof(buf), m, nw, 0);
		check(need < sizeof(buf), "a hex mask that does not fit", in);
		check(cps_hexmask_parse(buf, back, nw, &e) == 0, "its own hex mask refused", in);
		check(!memcmp(m, back, nw * 8), "its own hex mask reads back otherwise", in);
	}
	/* the hex parser alone, on anything */
	uint64_t m[MAXW];
	struct cps_parse_error e;
	if (cps_hexmask_parse(in, m, MAXW, &e) < 0)
		check(e.msg != NULL && e.pos <= size, "a hex refusal without a place", in);
	return 0;
}
