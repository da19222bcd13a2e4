/* SPDX-License-Identifier: BSD-3-Clause */
/* The LD_PRELOAD value that loads the shim: its path first, once. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "src/ldpreload.h"

#include <errno.h>
#include <string.h>

#define SHIM_NAME "libcpusetshim.so"
#define SEPS ": "

bool cps_preload_is_shim(const char *e, size_t l, const char *shim)
{
	size_t nl = sizeof(SHIM_NAME) - 1;
	if (!l)
		return false;
	if (shim && strlen(shim) == l && !memcmp(e, shim, l))
		return true;
	return l >= nl && !memcmp(e + l - nl, SHIM_NAME, nl);
}

/* Whether the first entry (fl bytes) is a sanitizer runtime. */
static bool is_sanitizer(const char *e, size_t fl)
{
	return fl && (memmem(e, fl, "libasan.so", 10) || memmem(e, fl, "libtsan.so", 10));
}

/* Appends l bytes of s at *n, a colon first when sep; false if out is full
 * (room kept for the terminating NUL). */
static bool put(char *out, size_t len, size_t *n, const char *s, size_t l, bool sep)
{
	if (*n + l + sep + 1 > len)
		return false;
	if (sep)
		out[(*n)++] = ':';
	memcpy(out + *n, s, l);
	*n += l;
	return true;
}

/* Appends the entries of p that do not name the shim, colon-separated
 * after what out holds (*n bytes); false if out is full. */
static bool put_others(char *out, size_t len, size_t *n, const char *p, const char *shim)
{
	while (*p) {
		size_t l = strcspn(p, SEPS);
		if (l && !cps_preload_is_shim(p, l, shim) && !put(out, len, n, p, l, *n > 0))
			return false;
		p += l + (p[l] != 0);
	}
	return true;
}

ssize_t cps_preload_build(char *out, size_t len, const char *old, const char *shim)
{
	size_t n = 0;
	const char *p = old ? old : "";
	size_t fl = strcspn(p, SEPS);
	if (is_sanitizer(p, fl)) {
		if (!put(out, len, &n, p, fl, false))
			goto full;
		p += fl + (p[fl] != 0);
	}
	if (!put(out, len, &n, shim, strlen(shim), n > 0))
		goto full;
	if (!put_others(out, len, &n, p, shim))
		goto full;
	out[n] = 0;
	return (ssize_t)n;
full:
	if (len)
		out[0] = 0;
	errno = ERANGE;
	return -1;
}

ssize_t cps_preload_without(char *out, size_t len, const char *old, const char *shim)
{
	size_t n = 0;
	if (len && put_others(out, len, &n, old ? old : "", shim)) {
		out[n] = 0;
		return (ssize_t)n;
	}
	if (len)
		out[0] = 0;
	errno = ERANGE;
	return -1;
}
