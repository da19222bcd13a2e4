/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of virtual files (src/vfiles.h) and what is derived from it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "src/path.h"
#include "src/vfiles.h"

#define ROW(a, dir, name, family, kind, delivery, flags) \
	{ dir "/" name, sizeof(dir), family, kind, delivery, flags, sizeof(name) - 1 },
const struct cps_vfile cps_vfiles[] = { CPS_VFILES(ROW, 0) };
const size_t cps_nvfiles = sizeof(cps_vfiles) / sizeof(cps_vfiles[0]);
#undef ROW
/* name and name_len are bytes: every row's directory and name fit */
#define ROW_FITS(a, dir, name, family, kind, delivery, flags) \
	_Static_assert(sizeof(dir) <= 255 && sizeof(name) <= 256, "a row's path is too long");
CPS_VFILES(ROW_FITS, 0)
#undef ROW_FITS

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
#define QP_ROW(c, dir, name, family, kind, delivery, flags) | QP(c, name)
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

	if (p[0] == '$' && pn == 4 && !memcmp(p, "$pid", 4)) {
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

/* ---- the rows as a tree of components, made at the first look-up ----
 * Rows that begin alike share their first components' nodes, so a path
 * is compared with each distinct component once: the look-up follows only
 * the children that match, and takes the first row (the least index) that
 * ends where the path does. Made once per process (a few microseconds);
 * until it is made (another thread making it), rows are tried in turn. */
enum { T_LIT, T_PAT, T_REST, T_MAX = 512, T_NONE = 0x7fff };
struct tnode {
	const char *pat;
	unsigned short len;
	unsigned char kind;
	short child, next; /* -1: none */
	short row;         /* the row ending here, or T_NONE */
	short least;       /* the least row at or below */
};
static struct tnode tree[T_MAX];
static bool numbered[512]; /* the row has numbers to capture ('#', "$pid") */
static int tree_state; /* 0 not made, 1 being made, 2 made, 3 too large */

static int tree_add(short *first, const char *pat, size_t len, int *n)
{
	short *at = first;
	unsigned char kind = len == 2 && pat[0] == '*' && pat[1] == '*'		  ? T_REST
			     : memchr(pat, '#', len) || memchr(pat, '*', len) || pat[0] == '$' ? T_PAT
											   : T_LIT;

	for (; *at >= 0; at = &tree[*at].next)
		if (tree[*at].len == len && !memcmp(tree[*at].pat, pat, len))
			return *at;
	if (*n >= T_MAX)
		return -1;
	tree[*n] = (struct tnode){ pat, (unsigned short)len, kind, -1, -1, T_NONE, T_NONE };
	*at = (short)*n;
	return (*n)++;
}

static bool tree_make(void)
{
	int n = 1;

	tree[0] = (struct tnode){ "", 0, T_LIT, -1, -1, T_NONE, T_NONE };
	if (cps_nvfiles > sizeof(numbered) / sizeof(numbered[0]))
		return false;
	for (size_t i = 0; i < cps_nvfiles; i++) {
		int at = 0;

		numbered[i] = strpbrk(cps_vfiles[i].path, "#$") != NULL;
		for (const char *p = cps_vfiles[i].path; *p;) {
			const char *e = comp_end(p + 1);
			if ((at = tree_add(&tree[at].child, p + 1, (size_t)(e - p - 1), &n)) < 0)
				return false;
			if (tree[at].least > (short)i)
				tree[at].least = (short)i;
			p = e;
		}
		if (tree[at].row == T_NONE)
			tree[at].row = (short)i;
	}
	return true;
}

/* Row r ending here into best: best[0] the least row of all, best[1]
 * the least that applies without nodes (so best[0] <= best[1]). */
static void take(int r, int best[2])
{
	if (r == T_NONE)
		return;
	if (r < best[0])
		best[0] = r;
	if (r < best[1] && !(cps_vfiles[r].flags & CPS_VFILE_NODES))
		best[1] = r;
}

/* The least rows below the children of node first that match s (at a
 * '/' or the end), with nodes and without, into best. */
static void tree_find(int first, const char *s, int best[2])
{
	for (int c = first; c >= 0; c = tree[c].next) {
		const struct tnode *t = &tree[c];

		if (t->least >= best[1])
			continue;
		if (t->kind == T_REST) {
			/* none or more components: ending here, or its children */
			take(t->row, best);
			for (const char *u = s; t->child >= 0; u = comp_end(u + 1)) {
				tree_find(t->child, u, best);
				if (!*u)
					break;
			}
			continue;
		}
		if (!*s)
			continue;
		const char *cs = s + 1, *ce = comp_end(cs);
		size_t cn = (size_t)(ce - cs);
		if (t->kind == T_LIT ? t->len != cn || memcmp(t->pat, cs, cn)
				     : !comp(t->pat, t->len, cs, cn, NULL, cs))
			continue;
		if (!*ce)
			take(t->row, best);
		tree_find(t->child, ce, best);
	}
}

/* Rows tried in turn (the tree not made yet): the same answer. */
static void rows_find(const char *canon, int best[2])
{
	for (size_t i = 0; i < cps_nvfiles && best[1] == T_NONE; i++)
		if (cps_vfiles[i].path[1] == canon[1] && (int)i < best[1] &&
		    match(cps_vfiles[i].path, canon, NULL, canon))
			take((int)i, best);
}

/* The rows of canon and where its numbers are in the first, uncached. */
static void lookup(const char *canon, int best[2], struct cps_vmatch *m)
{
	int st = __atomic_load_n(&tree_state, __ATOMIC_ACQUIRE), z = 0;

	if (st == 0 && __atomic_compare_exchange_n(&tree_state, &z, 1, false, __ATOMIC_ACQ_REL,
						   __ATOMIC_ACQUIRE))
		__atomic_store_n(&tree_state, st = tree_make() ? 2 : 3, __ATOMIC_RELEASE);
	if (st == 2)
		tree_find(tree[0].child, canon, best);
	else
		rows_find(canon, best);
	m->ncap = 0;
	if (best[0] != T_NONE)
		cps_vfile_captures(&cps_vfiles[best[0]], canon, m);
}

/* The thread's last path looked up. busy: a signal handler that looks up
 * meanwhile leaves it alone. */
struct last_path {
	bool busy;
	char canon[160];
	size_t len;
	int best[2];
	struct cps_vmatch m;
};
static __thread struct last_path last_path;

const struct cps_vfile *cps_vfile_lookup(const char *canon, const struct cps_vfile **plain,
					 struct cps_vmatch *m, size_t *len)
{
	int best[2] = { T_NONE, T_NONE };

	*plain = NULL;
	if (canon[0] != '/' || (canon[1] != 'p' && canon[1] != 's'))
		return NULL;
	/* a program opens one file again and again (a monitor's /proc/stat):
	 * the same path again is one compare */
	struct last_path *last = &last_path;
	/* its address kept, not asked of the dynamic linker again */
	__asm__("" : "+r"(last));
	bool cache = !last->busy;
	if (cache) {
		last->busy = true;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	if (cache && last->canon[0] && !strcmp(last->canon, canon)) {
		best[0] = last->best[0];
		best[1] = last->best[1];
		*m = last->m;
		*len = last->len;
	} else {
		lookup(canon, best, m);
		size_t cl = *len = strlen(canon);
		if (cache && cl < sizeof(last->canon)) {
			last->len = cl;
			last->best[0] = best[0];
			last->best[1] = best[1];
			last->m = *m;
			memcpy(last->canon, canon, cl + 1);
		}
	}
	if (cache) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		last->busy = false;
	}
	*plain = best[1] == T_NONE ? NULL : &cps_vfiles[best[1]];
	return best[0] == T_NONE ? NULL : &cps_vfiles[best[0]];
}

void cps_vfile_captures(const struct cps_vfile *row, const char *canon, struct cps_vmatch *m)
{
	size_t i = (size_t)(row - cps_vfiles);

	m->ncap = 0;
	if (__atomic_load_n(&tree_state, __ATOMIC_ACQUIRE) == 2 ? numbered[i]
								: strpbrk(row->path, "#$") != NULL)
		match(row->path, canon, m, canon);
}

const struct cps_vfile *cps_vfile_find(const char *canon, bool nodes, struct cps_vmatch *m)
{
	struct cps_vmatch mm;
	size_t len;
	const struct cps_vfile *plain, *row = cps_vfile_lookup(canon, &plain, &mm, &len);

	if (!nodes && plain != row) {
		row = plain;
		if (row)
			cps_vfile_captures(row, canon, &mm);
	}
	if (m)
		*m = mm;
	return row;
}

/* ---- the rows' names by their first byte, made at the first look-up ----
 * A relative path's last component is compared only with the names that
 * begin with its byte (and those that begin with a pattern, which may
 * begin with any), each distinct name once. Until the index is made
 * (another thread making it), rows are tried in turn. */
enum { NAMES_MAX = 256 };
static struct vname {
	const char *p;
	unsigned char len;
	bool pat; /* a pattern: compared by comp, else by its bytes */
} names[NAMES_MAX];
static unsigned short names_at[257]; /* first byte c: names_at[c] to names_at[c + 1] */
static bool names_pat_first;        /* some name begins with a pattern */
static int names_state;             /* as tree_state */

static bool is_rest(const char *p, size_t pn)
{
	return pn == 2 && p[0] == '*' && p[1] == '*';
}

static bool names_make(void)
{
	unsigned short count[256] = { 0 };
	size_t n = 0;

	if (cps_nvfiles > NAMES_MAX)
		return false;
	/* the distinct names, then placed by first byte (a counting sort) */
	struct vname all[NAMES_MAX];
	for (size_t i = 0; i < cps_nvfiles; i++) {
		const char *p = cps_vfiles[i].path + cps_vfiles[i].name;
		size_t pn = cps_vfiles[i].name_len, k = 0;

		while (k < n && !(all[k].len == pn && !memcmp(all[k].p, p, pn)))
			k++;
		if (k < n || is_rest(p, pn))
			continue;
		bool pat = memchr(p, '#', pn) || memchr(p, '*', pn) || memchr(p, '$', pn);
		all[n++] = (struct vname){ p, (unsigned char)pn, pat };
		count[(unsigned char)p[0]]++;
		names_pat_first |= QP_PAT(p[0]);
	}
	names_at[0] = 0;
	for (int c = 0; c < 256; c++)
		names_at[c + 1] = (unsigned short)(names_at[c] + count[c]);
	unsigned short fill[256];
	memcpy(fill, names_at, sizeof(fill));
	for (size_t k = 0; k < n; k++)
		names[fill[(unsigned char)all[k].p[0]]++] = all[k];
	return true;
}

/* name against the names that begin with byte c */
static bool names_of(unsigned char c, const char *name, size_t len)
{
	for (unsigned k = names_at[c]; k < names_at[c + 1]; k++) {
		const struct vname *v = &names[k];
		if (v->pat ? comp(v->p, v->len, name, len, NULL, name)
			   : v->len == len && !memcmp(v->p, name, len))
			return true;
	}
	return false;
}

bool cps_vfile_name(const char *name, size_t len)
{
	/* the two-byte table first, as the stubs test it (a name of one byte
	 * has its NUL second): most names are no view's */
	unsigned char c0 = (unsigned char)name[0], c1 = len > 1 ? (unsigned char)name[1] : 0;
	if (len == 0 || !(cps_path_second[c0] & (1ULL << (c1 & 63))))
		return false;
	int st = __atomic_load_n(&names_state, __ATOMIC_ACQUIRE), z = 0;
	if (st == 0 && __atomic_compare_exchange_n(&names_state, &z, 1, false, __ATOMIC_ACQ_REL,
						   __ATOMIC_ACQUIRE))
		__atomic_store_n(&names_state, st = names_make() ? 2 : 3, __ATOMIC_RELEASE);
	if (st == 2)
		return names_of(c0, name, len) ||
		       (names_pat_first && (names_of('#', name, len) || names_of('$', name, len) ||
					    names_of('*', name, len)));
	for (size_t i = 0; i < cps_nvfiles; i++) {
		const char *p = cps_vfiles[i].path + cps_vfiles[i].name;
		size_t pn = cps_vfiles[i].name_len;

		if ((p[0] == name[0] || QP_PAT(p[0])) && !is_rest(p, pn) &&
		    comp(p, pn, name, len, NULL, name))
			return true;
	}
	return false;
}

bool cps_vfile_renumbered(const char *c, size_t len)
{
	if (len >= 4 && c[0] == 'c')
		return comp("cpu#", 4, c, len, NULL, c);
	if (len >= 5 && c[0] == 'n')
		return comp("node#", 5, c, len, NULL, c);
	return false;
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
