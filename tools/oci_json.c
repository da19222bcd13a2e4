/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/ — a strict, bounded JSON reader for cpuset-oci-hook: the value
 * at a path of object keys. Depth, lengths and every byte are checked. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/util.h"
#include "tools/oci_json.h"

#define OJ_DEPTH 64

struct oj {
	const char *s, *end;
	const char *const *path; /* keys still to match; NULL: not on the way */
	const char *hit;         /* the value at the path's end */
};

static void ws(struct oj *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r'))
		j->s++;
}

/* One \uXXXX's code unit at p (4 hex digits), or -1. */
static long hex4(const char *p, const char *end)
{
	long v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = cps_hex_value(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t utf8(unsigned long c, char *b)
{
	if (c < 0x80) {
		b[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | (c >> 18));
	b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	b[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* An escape after the backslash at *pp: its code point, or -1. */
static long escape(const char **pp, const char *end)
{
	const char *p = *pp;
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = p < end && *p ? strchr(from, *p) : NULL;
	if (k) {
		*pp = p + 1;
		return (unsigned char)to[k - from];
	}
	if (p >= end || *p != 'u')
		return -1;
	long c = hex4(p + 1, end);
	p += 5;
	if (c >= 0xd800 && c < 0xdc00) { /* a surrogate pair */
		long lo = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return -1;
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	} else if (c >= 0xdc00 && c <= 0xdfff) {
		return -1;
	}
	*pp = p;
	return c;
}

/* A string at j->s (its opening quote); unescaped into out when out. */
static int string(struct oj *j, char *out, size_t size)
{
	size_t n = 0;
	int r = 0;
	j->s++;
	while (j->s < j->end && *j->s != '"') {
		char b[4];
		size_t k = 1;
		unsigned char c = (unsigned char)*j->s++;
		if (c < 0x20)
			return -EINVAL;
		b[0] = (char)c;
		if (c == '\\') {
			long u = escape(&j->s, j->end);
			if (u < 0)
				return -EINVAL;
			if (u == 0)
				r = -EINVAL; /* a NUL: no path or name holds one */
			k = utf8((unsigned long)u, b);
		}
		if (out && n + k < size)
			memcpy(out + n, b, k);
		else if (out)
			r = r ? r : -ENAMETOOLONG;
		n += k;
	}
	if (j->s >= j->end)
		return -EINVAL;
	j->s++;
	if (out && size)
		out[n < size ? n : size - 1] = 0;
	return r;
}

static int value(struct oj *j, int depth);

static bool lit(struct oj *j, const char *w)
{
	size_t l = strlen(w);
	if ((size_t)(j->end - j->s) < l || memcmp(j->s, w, l))
		return false;
	j->s += l;
	return true;
}

static int number(struct oj *j)
{
	const char *p = j->s;
	if (p < j->end && *p == '-')
		p++;
	const char *d = p;
	while (p < j->end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
			      *p == '+' || *p == '-'))
		p++;
	if (p == d)
		return -EINVAL;
	j->s = p;
	return 0;
}

/* An object's members; the one named by the path's next key is followed. */
static int object(struct oj *j, int depth)
{
	const char *const *path = j->path;
	j->s++;
	ws(j);
	if (j->s < j->end && *j->s == '}') {
		j->s++;
		return 0;
	}
	for (;;) {
		char key[256];
		ws(j);
		if (j->s >= j->end || *j->s != '"')
			return -EINVAL;
		int r = string(j, key, sizeof(key));
		if (r < 0 && r != -ENAMETOOLONG)
			return r;
		ws(j);
		if (j->s >= j->end || *j->s++ != ':')
			return -EINVAL;
		bool on = path && *path && r == 0 && !strcmp(key, *path);
		j->path = on ? path + 1 : NULL;
		if ((r = value(j, depth + 1)) < 0)
			return r;
		ws(j);
		if (j->s < j->end && *j->s == ',') {
			j->s++;
			continue;
		}
		if (j->s < j->end && *j->s == '}') {
			j->s++;
			return 0;
		}
		return -EINVAL;
	}
}

static int array(struct oj *j, int depth)
{
	j->s++;
	ws(j);
	if (j->s < j->end && *j->s == ']') {
		j->s++;
		return 0;
	}
	for (;;) {
		j->path = NULL;
		int r = value(j, depth + 1);
		if (r < 0)
			return r;
		ws(j);
		if (j->s < j->end && *j->s == ',') {
			j->s++;
			continue;
		}
		if (j->s < j->end && *j->s == ']') {
			j->s++;
			return 0;
		}
		return -EINVAL;
	}
}

static int value(struct oj *j, int depth)
{
	if (depth > OJ_DEPTH)
		return -EINVAL;
	ws(j);
	if (j->s >= j->end)
		return -EINVAL;
	if (j->path && !*j->path && !j->hit)
		j->hit = j->s;
	switch (*j->s) {
	case '{': return object(j, depth);
	case '[': return array(j, depth);
	case '"': return string(j, NULL, 0);
	case 't': return lit(j, "true") ? 0 : -EINVAL;
	case 'f': return lit(j, "false") ? 0 : -EINVAL;
	case 'n': return lit(j, "null") ? 0 : -EINVAL;
	default: return number(j);
	}
}

/* The whole text checked; the value at path found (j->hit), or -ENOENT. */
static int find(struct oj *j, const char *js, size_t len, const char *const *path)
{
	*j = (struct oj){ js, js + len, path, NULL };
	int r = value(j, 0);
	if (r < 0)
		return r;
	ws(j);
	if (j->s != j->end)
		return -EINVAL;
	if (!j->hit)
		return -ENOENT;
	j->s = j->hit;
	return 0;
}

int oj_string(const char *js, size_t len, const char *const *path, char *out, size_t size)
{
	struct oj j;
	int r = find(&j, js, len, path);
	if (r < 0)
		return r;
	if (*j.s != '"')
		return -EINVAL;
	return string(&j, out, size);
}

int oj_uint(const char *js, size_t len, const char *const *path, unsigned long max,
	    unsigned long *out)
{
	struct oj j;
	int r = find(&j, js, len, path);
	if (r < 0)
		return r;
	unsigned long v = 0;
	const char *p = j.s;
	if (p >= j.end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < j.end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -ERANGE;
	}
	if (p < j.end && (*p == '.' || *p == 'e' || *p == 'E'))
		return -EINVAL;
	*out = v;
	return 0;
}
