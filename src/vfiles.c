/* The list of virtual files (src/vfiles.h) and what is derived from it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "src/path.h"
#include "src/vfiles.h"

#define ROW(a, dir, name, family, kind, flags) \
	{ dir "/" name, sizeof(dir), family, kind, flags },
const struct cps_vfile cps_vfiles[] = { CPS_VFILES(ROW, 0) };
const size_t cps_nvfiles = sizeof(cps_vfiles) / sizeof(cps_vfiles[0]);
#undef ROW

/* ---- the stubs' two-byte table, made by the compiler ----
 * cps_path_second[c]: a bit per second byte (taken modulo 64) of the
 * names of rows that begin with byte c (src/path.h). A name that begins
 * with a pattern ('#', '$', '*') could begin with any byte: every word is
 * then full; a pattern second byte fills its first byte's word. The rests
 * ("**") name no view. */
#define QP_PAT(ch) ((ch) == '#' || (ch) == '$' || (ch) == '*')
#define QP(c, name)                                                                  \
	((name)[0] == '*' && (name)[1] == '*' ? 0ULL                                  \
	 : QP_PAT((name)[0])                  ? ~0ULL                                 \
	 : (unsigned char)(name)[0] != (c)    ? 0ULL                                  \
	 : QP_PAT((name)[1])                  ? ~0ULL                                 \
					      : 1ULL << ((unsigned char)(name)[1] & 63))
#define QP_ROW(c, dir, name, family, kind, flags) | QP(c, name)
#define QP_E(c) [c] = 0 CPS_VFILES(QP_ROW, c),
#define QP_E4(c) QP_E(c) QP_E(c + 1) QP_E(c + 2) QP_E(c + 3)
#define QP_E16(c) QP_E4(c) QP_E4(c + 4) QP_E4(c + 8) QP_E4(c + 12)
#define QP_E64(c) QP_E16(c) QP_E16(c + 16) QP_E16(c + 32) QP_E16(c + 48)
const uint64_t cps_path_second[256] = { QP_E64(0) QP_E64(64) QP_E64(128) QP_E64(192) };

/* ---- matching ---- */

/* A number as the kernel writes one: digits, no leading zero but "0"
 * (a number too large for any CPU or node is still one, of none). Its
 * length at s (up to end), or 0. */
static size_t number(const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && s[n] >= '0' && s[n] <= '9')
		n++;
	if (n == 0 || n > 60000 || (n > 1 && s[0] == '0'))
		return 0;
	return n;
}

static bool lit(const char *s, size_t n, const char *l)
{
	return strlen(l) == n && !memcmp(s, l, n);
}

static void capture(struct cps_vmatch *m, char what, const char *canon, const char *at,
		    size_t len)
{
	if (!m || !what || m->ncap >= sizeof(m->cap) / sizeof(m->cap[0]))
		return;
	m->cap[m->ncap].what = what;
	m->cap[m->ncap].at = (unsigned short)(at - canon);
	m->cap[m->ncap].len = (unsigned short)len;
	m->ncap++;
}

/* One component: pattern p (pn bytes) against c (cn bytes). */
static bool comp(const char *p, size_t pn, const char *c, size_t cn, struct cps_vmatch *m,
		 const char *canon)
{
	const char *ce = c + cn;
	size_t i = 0;

	if (pn == 4 && !memcmp(p, "$pid", 4)) {
		size_t n = number(c, ce);

		if (!(n && n == cn) && !lit(c, cn, "self") && !lit(c, cn, "thread-self"))
			return false;
		capture(m, 'p', canon, c, cn);
		return true;
	}
	for (; i < pn; i++) {
		if (p[i] == '*' && i == pn - 1)
			return true;
		if (p[i] == '#') {
			size_t n = number(c, ce);
			char what = lit(p, pn, "cpu#") ? 'c' : lit(p, pn, "node#") ? 'n'
						 : pn == 1	       ? 't'
								       : 0;
			if (!n)
				return false;
			capture(m, what, canon, c, n);
			c += n;
			continue;
		}
		if (c == ce || *c != p[i])
			return false;
		c++;
	}
	return c == ce;
}

static const char *comp_end(const char *s)
{
	while (*s && *s != '/')
		s++;
	return s;
}

/* Pattern p against path s, both at a '/' or at their end. */
static bool match(const char *p, const char *s, struct cps_vmatch *m, const char *canon)
{
	for (;;) {
		if (!*p)
			return !*s;
		if (!*s)
			return !strcmp(p, "/**");
		p++;
		s++;
		const char *pe = comp_end(p), *se = comp_end(s);
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			unsigned nc = m ? m->ncap : 0;

			if (!*pe)
				return true;
			/* none, one, ... of the path's components */
			for (const char *t = s - 1;; t = comp_end(t + 1)) {
				if (match(pe, t, m, canon))
					return true;
				if (m)
					m->ncap = nc;
				if (!*t)
					return false;
			}
		}
		if (!comp(p, (size_t)(pe - p), s, (size_t)(se - s), m, canon))
			return false;
		p = pe;
		s = se;
	}
}

const struct cps_vfile *cps_vfile_find(const char *canon, bool nodes, struct cps_vmatch *m)
{
	if (canon[0] != '/' || (canon[1] != 'p' && canon[1] != 's'))
		return NULL;
	for (size_t i = 0; i < cps_nvfiles; i++) {
		const struct cps_vfile *r = &cps_vfiles[i];

		if (r->path[1] != canon[1] || (!nodes && (r->flags & CPS_VFILE_NODES)))
			continue;
		if (m)
			m->ncap = 0;
		if (match(r->path, canon, m, canon))
			return r;
	}
	return NULL;
}

bool cps_vfile_name(const char *name, size_t len)
{
	for (size_t i = 0; i < cps_nvfiles; i++) {
		const char *p = cps_vfiles[i].path + cps_vfiles[i].name;
		size_t pn = strlen(p);

		if ((p[0] == name[0] || QP_PAT(p[0])) && !(pn == 2 && p[0] == '*' && p[1] == '*') &&
		    comp(p, pn, name, len, NULL, name))
			return true;
	}
	return false;
}

bool cps_vfile_renumbered(const char *c, size_t len)
{
	return comp("cpu#", 4, c, len, NULL, c) || comp("node#", 5, c, len, NULL, c);
}

bool cps_vfile_root(const char *c, size_t len)
{
	for (size_t i = 0; i < cps_nvfiles; i++) {
		const char *p = cps_vfiles[i].path + 1;

		if ((size_t)(comp_end(p) - p) == len && !memcmp(p, c, len))
			return true;
	}
	return false;
}
