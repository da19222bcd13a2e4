/* SPDX-License-Identifier: BSD-3-Clause */
/* SLURM_MEM_BIND's memory nodes for a task (slurm/membind.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "slurm/membind.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/sets.h"

/* An unsigned number of digits of base (10 or 16) at *p, up to the first
 * character that is not one: -1 when there is none or it overflows. */
static long number(const char **p, unsigned base)
{
	long v = 0;
	const char *s = *p;
	for (;; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (1L << 40))
			return -1;
		v = v * (long)base + d;
	}
	if (s == *p)
		return -1;
	*p = s;
	return v;
}

/* A hex mask of nodes ("0x5" or "5"), up to its end e. */
static int hex_nodes(const char *s, const char *e, uint64_t *nodes, size_t nw)
{
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s == e)
		return -EINVAL;
	cps_mask_zero(nodes, nw);
	unsigned bit = 0;
	for (const char *q = e; q > s; q--, bit += 4) {
		const char *d = q - 1;
		char one[2] = { *d, 0 };
		const char *o = one;
		long v = number(&o, 16);
		if (v < 0)
			return -EINVAL;
		for (unsigned b = 0; b < 4; b++)
			if (v >> b & 1) {
				if (bit + b >= nw * 64)
					return -ERANGE;
				cps_mask_set(nodes, nw, bit + b);
			}
	}
	return cps_mask_empty(nodes, nw) ? -EINVAL : 0;
}

/* One entry of a map_mem list ("1" or "0x1"), up to its end e. */
static int map_node(const char *s, const char *e, uint64_t *nodes, size_t nw)
{
	bool hex = e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;
	long v = number(&p, hex ? 16 : 10);
	if (v < 0 || p != e)
		return -EINVAL;
	if ((unsigned long)v >= nw * 64)
		return -ERANGE;
	cps_mask_zero(nodes, nw);
	cps_mask_set(nodes, nw, (unsigned)v);
	return 0;
}

/* The entry of the task in list (comma separated, each possibly "X*N",
 * repeated N times): its start and end. -EINVAL when malformed. */
static int entry_of(const char *list, unsigned local, const char **s, const char **e)
{
	unsigned long total = 0;
	/* first the list's length, counting repetitions */
	for (int pass = 0; pass < 2; pass++) {
		unsigned long at = 0, want = total ? local % total : 0;
		for (const char *p = list;;) {
			size_t l = strcspn(p, ",");
			const char *star = memchr(p, '*', l);
			const char *end = star ? star : p + l;
			unsigned long times = 1;
			if (star) {
				const char *q = star + 1;
				long n = number(&q, 10);
				if (n <= 0 || q != p + l)
					return -EINVAL;
				times = (unsigned long)n;
			}
			if (end == p)
				return -EINVAL;
			if (pass == 1 && want < at + times) {
				*s = p;
				*e = end;
				return 0;
			}
			at += times;
			if (!p[l])
				break;
			p += l + 1;
		}
		total = at;
	}
	return -EINVAL;
}

static int say(char *why, size_t wlen, int r, const char *fmt, const char *arg)
{
	if (why && wlen)
		snprintf(why, wlen, fmt, arg);
	return r;
}

static bool word_is(const char *p, size_t l, const char *w)
{
	return l == strlen(w) && !strncmp(p, w, l);
}

/* A word that changes how Slurm says or applies the binding, not which
 * nodes: passed over (an empty one too, of ",," or a trailing comma). */
static bool modifier_word(const char *p, size_t l)
{
	static const char *const words[] = { "quiet", "verbose", "q", "v", "prefer", "p", "sort", "" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (word_is(p, l, words[i]))
			return true;
	return false;
}

/* map_mem:LIST or mask_mem:LIST (map: true), LIST the rest of v from
 * list: the local task's entry, as nodes. */
static int parse_list(const char *v, const char *list, bool map, unsigned local, uint64_t *nodes,
		      size_t nw, char *why, size_t wlen)
{
	const char *s, *e;
	if (!*list || entry_of(list, local, &s, &e) < 0)
		return say(why, wlen, -EINVAL, "malformed list in '%s'", v);
	int r = map ? map_node(s, e, nodes, nw) : hex_nodes(s, e, nodes, nw);
	if (r == -ERANGE)
		return say(why, wlen, -EINVAL, "a node beyond this machine's width in '%s'", v);
	if (r < 0)
		return say(why, wlen, -EINVAL,
			   map ? "malformed node in '%s'" : "malformed or empty mask in '%s'", v);
	return CPS_MEMBIND_NODES;
}

int cps_membind_parse(const char *v, unsigned local, uint64_t *nodes, size_t nw, char *why,
		      size_t wlen)
{
	int kind = CPS_MEMBIND_UNSAID;
	if (!v)
		return kind;
	for (const char *p = v; *p;) {
		size_t l = strcspn(p, ",");
		bool map = !strncmp(p, "map_mem:", 8);
		if (map || !strncmp(p, "mask_mem:", 9))
			return parse_list(v, p + (map ? 8 : 9), map, local, nodes, nw, why, wlen);
		if (word_is(p, l, "rank")) {
			if (local >= nw * 64)
				return say(why, wlen, -EINVAL, "a node beyond this machine's width in '%s'", v);
			cps_mask_zero(nodes, nw);
			cps_mask_set(nodes, nw, local);
			kind = CPS_MEMBIND_NODES;
		} else if (word_is(p, l, "local")) {
			kind = CPS_MEMBIND_LOCAL;
		} else if (word_is(p, l, "none")) {
			kind = CPS_MEMBIND_UNSAID;
		} else if (!modifier_word(p, l)) {
			return say(why, wlen, -EINVAL, "unknown word in '%s'", v);
		}
		p += l + (p[l] != 0);
	}
	return kind;
}

int cps_membind_choose(int bind, const uint64_t *bnodes, const char *cg_path,
		       const uint64_t *cg_nodes, const uint64_t *machine, size_t nw, uint64_t *out,
		       const char **from, char *why, size_t wlen)
{
	if (bind == CPS_MEMBIND_NODES) {
		if (!cps_mask_subset(bnodes, machine, nw)) {
			char want[256], have[256];
			cps_cpulist_format(want, sizeof(want), bnodes, nw);
			cps_cpulist_format(have, sizeof(have), machine, nw);
			if (why && wlen)
				snprintf(why, wlen, "node(s) %s hold no memory here (the nodes with "
					 "memory: %s)", want, have);
			return -EINVAL;
		}
		memcpy(out, bnodes, nw * sizeof(*out));
		*from = "SLURM_MEM_BIND";
		return CPS_MEMS_LIST;
	}
	*from = "the nodes of its CPUs";
	if (bind == CPS_MEMBIND_LOCAL) {
		*from = "SLURM_MEM_BIND (local): the nodes of its CPUs";
		return CPS_MEMS_AUTO;
	}
	/* Slurm's cpuset cgroup of the job: its nodes that hold memory */
	if (cg_path && strstr(cg_path, "/job_")) {
		cps_mask_and(out, cg_nodes, machine, nw);
		if (!cps_mask_empty(out, nw)) {
			*from = "the job's cgroup";
			return CPS_MEMS_LIST;
		}
	}
	return CPS_MEMS_AUTO;
}
