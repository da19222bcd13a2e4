/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers written once for every layer (shm/, src/, preload/,
 * tools/): no libc beyond the compiler's, so the shim and cpuset-run can
 * use them where the first call of a libc routine costs page faults. */
#ifndef CPS_BASE_UTIL_H
#define CPS_BASE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool cps_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of a hexadecimal digit (either case), or -1. */
static inline int cps_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A 64-bit word with its n lowest bits set (n >= 64: all). */
static inline uint64_t cps_low_bits(unsigned n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Bytes cps_fmt_dec may write: the digits of a uint64_t and a NUL. */
#define CPS_DEC_MAX 21

/* v in decimal at buf (CPS_DEC_MAX bytes), NUL-terminated; returns the
 * number of digits. */
static inline size_t cps_fmt_dec(char *buf, uint64_t v)
{
	char d[CPS_DEC_MAX];
	size_t n = 0, k = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		buf[k++] = d[--n];
	buf[k] = 0;
	return k;
}

#endif
