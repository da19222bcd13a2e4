/* SPDX-License-Identifier: BSD-3-Clause */
/* CPUs chosen by topology (pure): src/topo.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/topo.h"

#define TOPO_WALKED CPS_TOPO_NODE /* the kinds before NODE are walked */

static const struct {
	const char *name, *plural;
} kind_names[CPS_TOPO_NKINDS] = {
	[CPS_TOPO_DRAWER] = { "drawer", "drawers" },    [CPS_TOPO_BOOK] = { "book", "books" },
	[CPS_TOPO_PACKAGE] = { "package", "packages" }, [CPS_TOPO_DIE] = { "die", "dies" },
	[CPS_TOPO_L3] = { "l3cache", "L3 caches" },     [CPS_TOPO_CLUSTER] = { "cluster", "clusters" },
	[CPS_TOPO_L2] = { "l2cache", "L2 caches" },     [CPS_TOPO_L1] = { "l1cache", "L1 caches" },
	[CPS_TOPO_CORE] = { "core", "cores" },          [CPS_TOPO_PU] = { "pu", "PUs" },
	[CPS_TOPO_NODE] = { "numa", "NUMA nodes" },
};

/* Every name a kind is known by (hwloc's and the usual aliases). */
static const struct {
	const char *name;
	enum cps_topo_kind kind;
} aliases[] = {
	{ "package", CPS_TOPO_PACKAGE }, { "socket", CPS_TOPO_PACKAGE }, { "die", CPS_TOPO_DIE },
	{ "l3cache", CPS_TOPO_L3 },      { "l3", CPS_TOPO_L3 },          { "cluster", CPS_TOPO_CLUSTER },
	{ "l2cache", CPS_TOPO_L2 },      { "l2", CPS_TOPO_L2 },          { "l1cache", CPS_TOPO_L1 },
	{ "l1", CPS_TOPO_L1 },           { "l1dcache", CPS_TOPO_L1 },    { "core", CPS_TOPO_CORE },
	{ "pu", CPS_TOPO_PU },           { "numa", CPS_TOPO_NODE },      { "node", CPS_TOPO_NODE },
	{ "numanode", CPS_TOPO_NODE },   { "drawer", CPS_TOPO_DRAWER },  { "book", CPS_TOPO_BOOK },
};

const char *cps_topo_kind_name(enum cps_topo_kind k)
{
	return (unsigned)k < CPS_TOPO_NKINDS ? kind_names[k].name : "?";
}

int cps_topo_kind_of(const char *name, size_t len)
{
	for (size_t i = 0; i < CPS_ARRAY_SIZE(aliases); i++)
		if (strlen(aliases[i].name) == len && !strncmp(aliases[i].name, name, len))
			return (int)aliases[i].kind;
	return -1;
}

/* ---- the description made ready ---- */

struct idcpu {
	int id;
	unsigned cpu;
};

static int by_id_cpu(const void *a, const void *b)
{
	const struct idcpu *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* first[k][c]: the first CPU of c's object of kind k (-1: none). */
static int fill_first(struct cps_topo *t, enum cps_topo_kind k)
{
	struct idcpu *v = malloc(t->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned c = 0; c < t->n; c++)
		v[c] = (struct idcpu){ t->obj[CPS_TOPO_PU][c] < 0 ? -1 : t->obj[k][c], c };
	qsort(v, t->n, sizeof(*v), by_id_cpu);
	for (unsigned i = 0, head = 0; i < t->n; i++) {
		if (i == 0 || v[i].id != v[i - 1].id)
			head = v[i].cpu;
		t->first[k][v[i].cpu] = v[i].id < 0 ? -1 : (int)head;
	}
	/* a CPU with no core is a core of its own; no CPU, no object */
	for (unsigned c = 0; c < t->n; c++) {
		if (t->obj[CPS_TOPO_PU][c] < 0)
			t->first[k][c] = -1;
		else if (k == CPS_TOPO_PU || (k == CPS_TOPO_CORE && t->first[k][c] < 0))
			t->first[k][c] = (int)c;
	}
	free(v);
	return 0;
}

/* A CPU's place in the walk: the first CPUs of its objects, outermost
 * first, then the CPU itself. */
struct walk_key {
	int k[TOPO_WALKED];
};

static int by_walk(const void *a, const void *b)
{
	const struct walk_key *x = a, *y = b;
	for (int i = 0; i < TOPO_WALKED; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return 0;
}

int cps_topo_finish(struct cps_topo *t)
{
	int r;
	if (t->n == 0 || t->n > CPS_MAX_CPUS)
		return -EINVAL;
	for (int k = 0; k < CPS_TOPO_NKINDS; k++)
		if ((r = fill_first(t, (enum cps_topo_kind)k)) < 0)
			return r;
	cps_mask_zero(t->present, CPS_MAX_WORDS);
	t->norder = 0;
	for (unsigned c = 0; c < t->n; c++) {
		bool here = t->obj[CPS_TOPO_PU][c] >= 0;
		t->first[CPS_TOPO_NODE][c] = here && t->obj[CPS_TOPO_NODE][c] >= 0 ? t->obj[CPS_TOPO_NODE][c] : -1;
		if (here)
			cps_mask_set(t->present, CPS_MAX_WORDS, c);
	}
	struct walk_key *w = malloc(t->n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (unsigned c = 0; c < t->n; c++) {
		if (t->obj[CPS_TOPO_PU][c] < 0)
			continue;
		/* a level the CPU has no object of sorts it by the next
		 * object down, as hwloc sorts a tree's children by their
		 * first CPU whatever their kind */
		for (int k = TOPO_WALKED - 1; k >= 0; k--)
			w[t->norder].k[k] = t->first[k][c] >= 0 || k == TOPO_WALKED - 1
						    ? t->first[k][c]
						    : w[t->norder].k[k + 1];
		t->norder++;
	}
	qsort(w, t->norder, sizeof(*w), by_walk);
	for (unsigned i = 0; i < t->norder; i++)
		t->order[i] = (unsigned)w[i].k[CPS_TOPO_PU];
	free(w);
	return 0;
}

/* ---- objects ---- */

unsigned cps_topo_objects(const struct cps_topo *t, enum cps_topo_kind k, const uint64_t *scope,
			  size_t nw, int *keys)
{
	unsigned n = 0;
	if (k == CPS_TOPO_NODE) {
		for (unsigned node = 0; node < t->nnodes; node++)
			for (unsigned c = 0; c < t->n; c++)
				if (t->first[k][c] == (int)node && (!scope || cps_mask_test(scope, nw, c))) {
					keys[n++] = (int)node;
					break;
				}
		return n;
	}
	uint64_t seen[CPS_MAX_WORDS];
	cps_mask_zero(seen, CPS_MAX_WORDS);
	for (unsigned i = 0; i < t->norder; i++) {
		unsigned c = t->order[i];
		int f = t->first[k][c];
		if (f < 0 || (scope && !cps_mask_test(scope, nw, c)) ||
		    cps_mask_test(seen, CPS_MAX_WORDS, (unsigned)f))
			continue;
		cps_mask_set(seen, CPS_MAX_WORDS, (unsigned)f);
		keys[n++] = f;
	}
	return n;
}

void cps_topo_cpus_of(const struct cps_topo *t, enum cps_topo_kind k, int key, uint64_t *out,
		      size_t nw)
{
	for (unsigned c = 0; c < t->n && c < nw * 64; c++)
		if (t->first[k][c] == key)
			cps_mask_set(out, nw, c);
}

/* ---- locations ---- */

/* "0-3" or "0,2" or "none" of a count of objects, for messages. */
static const char *range_text(char *buf, size_t len, unsigned n)
{
	if (n == 0)
		snprintf(buf, len, "none");
	else if (n == 1)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "0-%u", n - 1);
	return buf;
}

/* An index's selection among n objects: sel[i] for object i. */
struct index_sel {
	enum { SEL_RANGE, SEL_ODD, SEL_EVEN, SEL_WRAP } how;
	unsigned a, b; /* RANGE: a..b (b UINT32_MAX: to the end); WRAP: a, count b */
};

static int parse_uint(const char **p, unsigned *v)
{
	const char *s = *p;
	unsigned long x = 0;
	if (!cps_is_digit(*s))
		return -1;
	while (cps_is_digit(*s)) {
		x = x * 10 + (unsigned)(*s++ - '0');
		if (x > CPS_MAX_CPUS * 4ul)
			return -1;
	}
	*p = s;
	*v = (unsigned)x;
	return 0;
}

/* s..end: "X", "X-Y", "X-", "X:N", "all", "odd", "even". */
static int parse_index(const char *s, const char *end, struct index_sel *sel)
{
	size_t len = (size_t)(end - s);
	if ((len == 3 && !strncmp(s, "all", 3)) || (len == 0))
		return len ? (*sel = (struct index_sel){ SEL_RANGE, 0, UINT32_MAX }, 0) : -1;
	if (len == 3 && !strncmp(s, "odd", 3))
		return *sel = (struct index_sel){ SEL_ODD, 0, 0 }, 0;
	if (len == 4 && !strncmp(s, "even", 4))
		return *sel = (struct index_sel){ SEL_EVEN, 0, 0 }, 0;
	const char *p = s;
	unsigned a, b;
	if (parse_uint(&p, &a) < 0)
		return -1;
	if (p == end)
		return *sel = (struct index_sel){ SEL_RANGE, a, a }, 0;
	if (*p == '-' && p + 1 == end)
		return *sel = (struct index_sel){ SEL_RANGE, a, UINT32_MAX }, 0;
	char sep = *p++;
	if ((sep != '-' && sep != ':') || parse_uint(&p, &b) < 0 || p != end)
		return -1;
	if (sep == '-')
		return b < a ? -1 : (*sel = (struct index_sel){ SEL_RANGE, a, b }, 0);
	return b == 0 ? -1 : (*sel = (struct index_sel){ SEL_WRAP, a, b }, 0);
}

/* Whether object i of n is selected. */
static int selected(const struct index_sel *sel, unsigned i, unsigned n)
{
	switch (sel->how) {
	case SEL_ODD: return i % 2 == 1;
	case SEL_EVEN: return i % 2 == 0;
	case SEL_WRAP: return (i + n - sel->a % n) % n < sel->b;
	default: return i >= sel->a && i <= sel->b;
	}
}

/* The first index a selection names that n objects lack; -1 if none. */
static long missing_index(const struct index_sel *sel, unsigned n)
{
	if (sel->how == SEL_RANGE && sel->a >= n)
		return sel->a;
	if (sel->how == SEL_RANGE && sel->b != UINT32_MAX && sel->b >= n)
		return sel->b;
	if (sel->how == SEL_WRAP && (sel->a >= n || sel->b > n))
		return sel->a >= n ? sel->a : (long)sel->b;
	if (n == 0 || (sel->how == SEL_ODD && n < 2))
		return sel->how == SEL_ODD ? 1 : 0;
	return -1;
}

/* One tuple of a chain, parsed. */
struct step {
	enum cps_topo_kind kind;
	struct index_sel sel;
};

#define CHAIN_MAX 12

/* The resolver's state along one chain. */
struct chain {
	const struct cps_topo *t;
	size_t nw;
	const char *loc; /* the whole token, for messages */
	struct cps_topo_err *err;
	struct step steps[CHAIN_MAX];
	unsigned nsteps;
	uint64_t *out;
};

static int chain_err(struct chain *ch, int e, const char *fmt, const char *a, const char *b)
{
	int n = snprintf(ch->err->msg, sizeof(ch->err->msg), "%s: ", ch->loc);
	if (n > 0 && (size_t)n < sizeof(ch->err->msg))
		snprintf(ch->err->msg + n, sizeof(ch->err->msg) - (size_t)n, fmt, a, b);
	return e;
}

/* Steps i.. within scope (the CPUs of parent, "" for the view), each
 * selected object in turn, their CPUs or'ed into ch->out. */
static int chain_apply(struct chain *ch, unsigned i, const uint64_t *scope, const char *parent)
{
	if (i == ch->nsteps) {
		cps_mask_or(ch->out, ch->out, scope, ch->nw);
		return 0;
	}
	const struct cps_topo *t = ch->t;
	const struct step *st = &ch->steps[i];
	int *keys = malloc(CPS_MAX_CPUS * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	unsigned n = cps_topo_objects(t, st->kind, scope, ch->nw, keys);
	long miss = missing_index(&st->sel, n);
	int r = 0;
	if (miss >= 0) {
		char have[32];
		snprintf(ch->err->msg, sizeof(ch->err->msg), "%s: %s%s%s has %s %s", ch->loc,
			 parent[0] ? parent : t->where, parent[0] ? " of " : "", parent[0] ? t->where : "",
			 kind_names[st->kind].plural, range_text(have, sizeof(have), n));
		r = -ENOENT;
	}
	for (unsigned o = 0; o < n && r == 0; o++) {
		uint64_t sub[CPS_MAX_WORDS];
		char name[48];
		if (!selected(&st->sel, o, n))
			continue;
		cps_mask_zero(sub, CPS_MAX_WORDS);
		cps_topo_cpus_of(t, st->kind, keys[o], sub, ch->nw);
		cps_mask_and(sub, sub, scope, ch->nw);
		snprintf(name, sizeof(name), "%s:%u", kind_names[st->kind].name, o);
		r = chain_apply(ch, i + 1, sub, name);
	}
	free(keys);
	return r;
}

/* One tuple "kind:index" (s..end) parsed into the chain's next step. */
static int chain_step(struct chain *ch, const char *s, const char *end)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	int k = colon ? cps_topo_kind_of(s, (size_t)(colon - s)) : -1;
	struct step *st = &ch->steps[ch->nsteps];
	if (!colon) {
		snprintf(ch->err->msg, sizeof(ch->err->msg),
			 "%s: '%.*s' is not TYPE:INDEX (package:0, core:2-3, numa:1, pu:0)", ch->loc,
			 (int)(end - s), s);
		return -EINVAL;
	}
	if (k < 0) {
		snprintf(ch->err->msg, sizeof(ch->err->msg),
			 "%s: unknown type '%.*s' (package or socket, die, numa or node, l3cache, "
			 "cluster, l2cache, l1cache, core, pu)",
			 ch->loc, (int)(colon - s), s);
		return -EINVAL;
	}
	if (parse_index(colon + 1, end, &st->sel) < 0) {
		snprintf(ch->err->msg, sizeof(ch->err->msg),
			 "%s: bad index '%.*s' (N, N-M, N-, N:COUNT, all, odd, even)", ch->loc,
			 (int)(end - colon - 1), colon + 1);
		return -EINVAL;
	}
	for (unsigned i = 0; i < ch->nsteps; i++) {
		enum cps_topo_kind before = ch->steps[i].kind;
		if (k == (int)before || (k != CPS_TOPO_NODE && before != CPS_TOPO_NODE && k < (int)before)) {
			snprintf(ch->err->msg, sizeof(ch->err->msg),
				 "%s: %s is not inside %s (each type of a chain goes deeper)", ch->loc,
				 cps_topo_kind_name((enum cps_topo_kind)k), cps_topo_kind_name(before));
			return -EINVAL;
		}
	}
	st->kind = (enum cps_topo_kind)k;
	ch->nsteps++;
	return 0;
}

/* A CPU list of the view (s, len bytes) into ch->out. */
static int list_cpus(struct chain *ch, const char *s, size_t len)
{
	const struct cps_topo *t = ch->t;
	struct cps_topo_err *err = ch->err;
	uint64_t *out = ch->out;
	size_t nw = ch->nw;
	const char *loc = ch->loc;
	struct cps_parse_error pe;
	int last, r;
	char *list = malloc(len + 1);
	if (!list)
		return -ENOMEM;
	memcpy(list, s, len);
	list[len] = 0;
	r = cps_cpulist_parse(list, out, nw, &pe);
	free(list);
	if (r < 0)
		return chain_err(ch, -EINVAL, "bad CPU list: %s%s", pe.msg, "");
	uint64_t beyond[CPS_MAX_WORDS];
	cps_mask_andnot(beyond, out, t->present, nw);
	if ((last = cps_mask_next(beyond, nw, -1)) >= 0) {
		char have[64];
		cps_cpulist_format(have, sizeof(have), t->present, nw);
		snprintf(err->msg, sizeof(err->msg), "%s: CPU %d: %s has CPUs %s", loc, last,
			 t->where, have);
		return -ENOENT;
	}
	return 0;
}

/* One token (s..end, no prefix) into out: "all", "root", a CPU list of
 * the view, or a chain of tuples. */
static int token_cpus(const struct cps_topo *t, const char *s, const char *end, uint64_t *out,
		      size_t nw, struct cps_topo_err *err)
{
	struct chain ch;
	size_t len = (size_t)(end - s);
	char loc[128];
	ch = (struct chain){ .t = t, .nw = nw, .err = err, .out = out, .loc = loc };
	snprintf(loc, sizeof(loc), "%.*s", (int)len, s);
	cps_mask_zero(out, nw);
	if ((len == 3 && !strncmp(s, "all", 3)) || (len == 4 && !strncmp(s, "root", 4)) ||
	    (len == 9 && !strncmp(s, "machine:0", 9))) {
		cps_mask_copy(out, t->present, nw);
		return 0;
	}
	if (cps_is_digit(*s))
		return list_cpus(&ch, s, len);
	for (const char *p = s; p < end;) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		const char *e = dot ? dot : end;
		int r;
		if (ch.nsteps == CHAIN_MAX)
			return chain_err(&ch, -EINVAL, "a chain of more than %s%s types", "12", "");
		if ((r = chain_step(&ch, p, e)) < 0)
			return r;
		p = dot ? dot + 1 : end;
		if (dot && p == end)
			return chain_err(&ch, -EINVAL, "a chain ends in '.'%s%s", "", "");
	}
	return chain_apply(&ch, 0, t->present, "");
}

int cps_topo_is_location(const char *s)
{
	if (!s || !*s)
		return 0;
	if ((*s >= 'a' && *s <= 'z') || *s == '~' || *s == '^')
		return 1;
	return strpbrk(s, " \t") != NULL;
}

int cps_topo_resolve(const struct cps_topo *t, const char *loc, uint64_t *out, size_t nw,
		     struct cps_topo_err *err)
{
	uint64_t one[CPS_MAX_WORDS];
	int any = 0;
	cps_mask_zero(out, nw);
	for (const char *p = loc; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *e = p + strcspn(p, " \t");
		/* hwloc's prefixes: ~ clears, x ands, ^ xors; none adds */
		char op = (*p == '~' || *p == '^' || (*p == 'x' && e - p > 1 && p[1] != ':')) ? *p : '+';
		const char *s = op == '+' ? p : p + 1;
		int r = token_cpus(t, s, e, one, nw, err);
		if (r < 0)
			return r;
		if (op == '+')
			cps_mask_or(out, out, one, nw);
		else if (op == '~')
			cps_mask_andnot(out, out, one, nw);
		else if (op == 'x')
			cps_mask_and(out, out, one, nw);
		else
			for (size_t w = 0; w < nw; w++)
				out[w] ^= one[w];
		any = 1;
		p = e;
	}
	if (!any) {
		snprintf(err->msg, sizeof(err->msg), "an empty location");
		return -EINVAL;
	}
	if (cps_mask_empty(out, nw)) {
		snprintf(err->msg, sizeof(err->msg), "%s: names no CPU of %s", loc, t->where);
		return -ENOENT;
	}
	return 0;
}

/* ---- counts ---- */

/* One unit a count takes (a core, or a PU): its CPUs available. */
struct unit {
	int pkg;       /* its package's key (-1: the machine has none) */
	unsigned have; /* its CPUs available */
	bool whole;    /* all of its CPUs available */
	uint64_t cpus[CPS_MAX_WORDS];
};

struct pick {
	const struct cps_topo *t;
	size_t nw;
	const uint64_t *avail;
	enum cps_topo_kind kind; /* CORE or PU */
	unsigned n;
	struct unit *u;          /* in logical order */
	int pkgs[CPS_MAX_CPUS];  /* the packages, in logical order */
	unsigned npkgs;
};

/* The units of p->kind, in logical order, with what is available of
 * each; those with nothing available left out. */
static int pick_units(struct pick *p)
{
	int keys[CPS_MAX_CPUS];
	const struct cps_topo *t = p->t;
	unsigned n = cps_topo_objects(t, p->kind, NULL, p->nw, keys);
	p->u = calloc(n ? n : 1, sizeof(*p->u));
	if (!p->u)
		return -ENOMEM;
	p->n = 0;
	for (unsigned i = 0; i < n; i++) {
		struct unit *u = &p->u[p->n];
		uint64_t all[CPS_MAX_WORDS];
		cps_mask_zero(all, CPS_MAX_WORDS);
		cps_topo_cpus_of(t, p->kind, keys[i], all, p->nw);
		cps_mask_copy(u->cpus, all, p->nw);
		if (p->avail)
			cps_mask_and(u->cpus, all, p->avail, p->nw);
		u->have = cps_mask_count(u->cpus, p->nw);
		u->whole = cps_mask_equal(u->cpus, all, p->nw);
		u->pkg = t->first[CPS_TOPO_PACKAGE][keys[i]];
		if (u->have)
			p->n++;
	}
	p->npkgs = cps_topo_objects(t, CPS_TOPO_PACKAGE, NULL, p->nw, p->pkgs);
	if (p->npkgs == 0) {
		p->pkgs[0] = -1; /* no package: the machine is one */
		p->npkgs = 1;
	}
	return 0;
}

/* Up to want units of package pkg (any: -2) into out, whole ones only
 * when whole; how many were taken. */
static unsigned take_units(const struct pick *p, int pkg, unsigned want, bool whole,
			   uint64_t *out, uint64_t *taken)
{
	unsigned got = 0;
	for (unsigned i = 0; i < p->n && got < want; i++) {
		const struct unit *u = &p->u[i];
		if ((pkg != -2 && u->pkg != pkg) || (whole && !u->whole) ||
		    cps_mask_test(taken, CPS_MAX_WORDS, i))
			continue;
		cps_mask_set(taken, CPS_MAX_WORDS, i);
		cps_mask_or(out, out, u->cpus, p->nw);
		got++;
	}
	return got;
}

static unsigned count_units(const struct pick *p, int pkg, bool whole)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->n; i++)
		n += (pkg == -2 || p->u[i].pkg == pkg) && (!whole || p->u[i].whole);
	return n;
}

/* want units anywhere: in the one package they fit most tightly as
 * whole units, else whole units in order, then partial ones. */
static unsigned pick_anywhere(const struct pick *p, unsigned want, uint64_t *out)
{
	uint64_t taken[CPS_MAX_WORDS];
	int best = -2;
	unsigned best_n = 0;
	cps_mask_zero(taken, CPS_MAX_WORDS);
	for (unsigned i = 0; i < p->npkgs; i++) {
		unsigned n = count_units(p, p->pkgs[i], true);
		if (n >= want && (best == -2 || n < best_n))
			best = p->pkgs[i], best_n = n;
	}
	if (best != -2)
		return take_units(p, best, want, true, out, taken);
	unsigned got = take_units(p, -2, want, true, out, taken);
	return got + take_units(p, -2, want - got, false, out, taken);
}

/* Whether every CPU of package pkg (-1: the machine) is available. */
static bool package_whole(const struct pick *p, int pkg)
{
	uint64_t all[CPS_MAX_WORDS];
	cps_mask_zero(all, CPS_MAX_WORDS);
	if (pkg < 0)
		cps_mask_copy(all, p->t->present, p->nw);
	else
		cps_topo_cpus_of(p->t, CPS_TOPO_PACKAGE, pkg, all, p->nw);
	return !p->avail || cps_mask_subset(all, p->avail, p->nw);
}

/* packages packages in order, each whole (per 0) or with per of its
 * units whole; how many packages were taken. */
static unsigned pick_packages(const struct pick *p, unsigned packages, unsigned per, uint64_t *out)
{
	unsigned got = 0;
	for (unsigned i = 0; i < p->npkgs && got < packages; i++) {
		int pkg = p->pkgs[i];
		uint64_t taken[CPS_MAX_WORDS];
		bool fits = per ? count_units(p, pkg, true) >= per : package_whole(p, pkg);
		if (!fits)
			continue;
		cps_mask_zero(taken, CPS_MAX_WORDS);
		take_units(p, pkg, per ? per : p->n, !per ? false : true, out, taken);
		got++;
	}
	return got;
}

/* "4 cores", "2 packages of 3 cores" for messages. */
static void count_text(char *buf, size_t len, const struct cps_topo_count *w)
{
	unsigned per = w->cores ? w->cores : w->pus;
	const char *what = w->cores ? (per == 1 ? "core" : "cores") : (per == 1 ? "PU" : "PUs");
	if (w->packages && per)
		snprintf(buf, len, "%u package%s of %u %s each", w->packages,
			 w->packages == 1 ? "" : "s", per, what);
	else if (w->packages)
		snprintf(buf, len, "%u package%s", w->packages, w->packages == 1 ? "" : "s");
	else
		snprintf(buf, len, "%u %s", per, what);
}

/* What the view has, for a count that did not fit. */
static void fit_err(const struct pick *p, const struct cps_topo_count *w, struct cps_topo_err *err)
{
	char want[96];
	unsigned whole = 0, total = 0;
	count_text(want, sizeof(want), w);
	for (unsigned i = 0; i < p->npkgs; i++)
		whole += package_whole(p, p->pkgs[i]);
	total = count_units(p, -2, false);
	if (w->packages)
		snprintf(err->msg, sizeof(err->msg),
			 "%s: %s has %u package%s%s, %u of them %s; %u %s %s", want,
			 p->t->where, p->npkgs, p->npkgs == 1 ? "" : "s",
			 p->pkgs[0] < 0 ? " (none named: the machine is one)" : "", whole,
			 p->avail ? "wholly free" : "whole", count_units(p, -2, true),
			 p->kind == CPS_TOPO_CORE ? "cores" : "PUs", p->avail ? "wholly free" : "in all");
	else
		snprintf(err->msg, sizeof(err->msg), "%s: %s has %u %s%s", want, p->t->where, total,
			 p->kind == CPS_TOPO_CORE ? "cores" : "PUs",
			 p->avail ? " with a free CPU" : "");
}

int cps_topo_pick(const struct cps_topo *t, const struct cps_topo_count *want,
		  const uint64_t *avail, uint64_t *out, size_t nw, struct cps_topo_err *err)
{
	struct pick *p = calloc(1, sizeof(*p));
	int r;
	if (!p)
		return -ENOMEM;
	*p = (struct pick){ .t = t, .nw = nw, .avail = avail,
			    .kind = want->pus ? CPS_TOPO_PU : CPS_TOPO_CORE };
	cps_mask_zero(out, nw);
	if ((want->cores && want->pus) || (!want->cores && !want->pus && !want->packages)) {
		snprintf(err->msg, sizeof(err->msg), "a count of cores or of PUs, with or without "
			 "packages (not both, not none)");
		free(p);
		return -EINVAL;
	}
	if ((r = pick_units(p)) < 0) {
		free(p);
		return r;
	}
	unsigned per = want->cores ? want->cores : want->pus;
	bool fits = want->packages ? pick_packages(p, want->packages, per, out) == want->packages
				   : pick_anywhere(p, per, out) == per;
	if (!fits) {
		fit_err(p, want, err);
		cps_mask_zero(out, nw);
		r = -ENOSPC;
	}
	free(p->u);
	free(p);
	return r;
}
