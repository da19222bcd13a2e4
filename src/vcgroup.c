/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vcgroup.h"

static int fail(struct cps_buf *out, size_t start_len, int r)
{
	out->len = start_len;
	if (out->p)
		out->p[start_len] = '\0';
	return r;
}

/* A list file of members of set (nw words, n of them) as their ranks. */
static int list_through(struct cps_buf *out, const char *real, size_t len, const uint64_t *set,
			size_t nw, unsigned n)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	size_t start_len = out->len, tl = len, vnw;
	struct cps_parse_error err;
	char text[4096], list[4096];
	size_t need;
	int r;

	if (n == 0 || nw > CPS_MAX_WORDS)
		return -EINVAL;
	if (tl > 0 && real[tl - 1] == '\n')
		tl--;
	if (tl == 0)
		return cps_buf_append(out, real, len) ? fail(out, start_len, -ENOMEM) : 0;
	if (tl >= sizeof(text) || memchr(real, '\n', tl))
		return -EINVAL;
	memcpy(text, real, tl);
	text[tl] = '\0';
	/* the kernel prints lists; a hex mask is no cgroup file's text */
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		return -EINVAL;
	if (cps_cpulist_parse(text, phys, nw, &err) < 0)
		return -EINVAL;
	vnw = CPS_WORDS_FOR(n);
	cps_phys_to_virt(virt, vnw, set, nw, phys);
	need = cps_cpulist_format(list, sizeof(list), virt, vnw);
	if (need >= sizeof(list))
		return -EINVAL;
	r = cps_buf_append(out, list, need);
	if (!r)
		r = cps_buf_append(out, real + tl, len - tl);
	return r ? fail(out, start_len, r) : 0;
}

int cps_view_cgroup_cpus(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s)
{
	return list_through(out, real, len, s->set, s->nw, s->n);
}

int cps_view_cgroup_mems(struct cps_buf *out, const char *real, size_t len,
			 const struct cps_view_input *s)
{
	if (s->k == 0) /* no nodes of its own: the nodes' own numbers */
		return cps_buf_append(out, real, len);
	return list_through(out, real, len, s->mems, s->mnw, s->k);
}

/* ---- finding the caller's cgroup ---- */

/* The next line of s at *pos: [*b, *e), no newline. */
static bool line_at(const char *s, size_t len, size_t *pos, const char **b, const char **e)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*b = s + *pos;
	nl = memchr(*b, '\n', len - *pos);
	*e = nl ? nl : s + len;
	*pos = (size_t)(*e - s) + (nl ? 1 : 0);
	return true;
}

/* Whether the comma-separated list [b, e) holds the token tok. */
static bool has_token(const char *b, const char *e, const char *tok)
{
	size_t tl = strlen(tok);

	while (b < e) {
		const char *c = memchr(b, ',', (size_t)(e - b));
		const char *te = c ? c : e;

		if ((size_t)(te - b) == tl && memcmp(b, tok, tl) == 0)
			return true;
		b = te + 1;
	}
	return false;
}

/* The n-th (0-based) space-separated field of [b, e). */
static bool field(const char *b, const char *e, unsigned n, const char **fb, const char **fe)
{
	for (;;) {
		const char *sp = memchr(b, ' ', (size_t)(e - b));
		const char *end = sp ? sp : e;

		if (n == 0) {
			*fb = b;
			*fe = end;
			return true;
		}
		if (!sp)
			return false;
		b = sp + 1;
		n--;
	}
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static size_t unescape(char *dst, size_t dlen, const char *b, const char *e)
{
	size_t n = 0;

	while (b < e) {
		char c = *b++;

		if (c == '\\' && e - b >= 3 && b[0] >= '0' && b[0] <= '3' && b[1] >= '0' &&
		    b[1] <= '7' && b[2] >= '0' && b[2] <= '7') {
			c = (char)((b[0] - '0') * 64 + (b[1] - '0') * 8 + (b[2] - '0'));
			b += 3;
		}
		if (n + 1 >= dlen)
			return (size_t)-1;
		dst[n++] = c;
	}
	dst[n] = '\0';
	return n;
}

/* dir = mount point + the part of path below the mount's root. */
static bool join_below(char *dir, size_t dlen, const char *mp, const char *root,
		       const char *path, size_t pl)
{
	size_t rl = strlen(root), ml = strlen(mp);

	if (rl == 1 && root[0] == '/')
		rl = 0;
	if (pl < rl || memcmp(path, root, rl) != 0 || (pl > rl && path[rl] != '/'))
		return false;
	path += rl;
	pl -= rl;
	if (ml == 1 && mp[0] == '/')
		ml = 0;
	if (pl == 1 && path[0] == '/')
		pl = 0;
	if (ml + pl + 1 > dlen || (ml + pl == 0 && dlen < 2))
		return false;
	memcpy(dir, mp, ml);
	memcpy(dir + ml, path, pl);
	if (ml + pl == 0)
		dir[ml + pl++] = '/';
	dir[ml + pl] = '\0';
	return true;
}

/* The first mount of the wanted kind that shows path; dir is its directory. */
static bool find_mount(const char *mi, size_t milen, bool v2, const char *path, size_t pl,
		       char *dir, size_t dlen)
{
	size_t pos = 0;
	const char *b, *e;

	while (line_at(mi, milen, &pos, &b, &e)) {
		const char *sep = NULL, *fb, *fe, *ob, *oe;
		char root[4096], mp[4096];

		for (const char *p = b; p + 3 <= e; p++)
			if (p[0] == ' ' && p[1] == '-' && p[2] == ' ') {
				sep = p;
				break;
			}
		if (!sep || !field(sep + 3, e, 0, &fb, &fe))
			continue;
		/* v1: a cgroup mount with the cpuset controller, or the
		 * legacy cpuset filesystem */
		bool legacy = !v2 && (size_t)(fe - fb) == 6 && !memcmp(fb, "cpuset", 6);
		if (v2 ? !((size_t)(fe - fb) == 7 && !memcmp(fb, "cgroup2", 7))
		       : !((size_t)(fe - fb) == 6 && !memcmp(fb, "cgroup", 6)) && !legacy)
			continue;
		if (!v2 && !legacy &&
		    (!field(sep + 3, e, 2, &ob, &oe) || !has_token(ob, oe, "cpuset")))
			continue;
		if (!field(b, sep, 3, &fb, &fe) || unescape(root, sizeof(root), fb, fe) == (size_t)-1)
			continue;
		if (!field(b, sep, 4, &fb, &fe) || unescape(mp, sizeof(mp), fb, fe) == (size_t)-1)
			continue;
		if (join_below(dir, dlen, mp, root, path, pl))
			return true;
	}
	return false;
}

int cps_cgroup_cpuset_dirs(const char *cg, size_t cglen, const char *mi, size_t milen, char *v1,
			   size_t v1len, char *v2, size_t v2len)
{
	size_t pos = 0;
	const char *b, *e;
	int found = 0;

	if (v1len)
		v1[0] = '\0';
	if (v2len)
		v2[0] = '\0';
	/* "hierarchy-id:controllers:path" */
	while (line_at(cg, cglen, &pos, &b, &e)) {
		const char *c1 = memchr(b, ':', (size_t)(e - b)), *c2;

		if (!c1)
			continue;
		c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
		if (!c2 || c2 + 1 >= e || c2[1] != '/')
			continue;
		if (c1 - b == 1 && b[0] == '0' && c2 == c1 + 1) {
			if (!(found & 2) && v2len &&
			    find_mount(mi, milen, true, c2 + 1, (size_t)(e - c2 - 1), v2, v2len))
				found |= 2;
		} else if (has_token(c1 + 1, c2, "cpuset")) {
			if (!(found & 1) && v1len &&
			    find_mount(mi, milen, false, c2 + 1, (size_t)(e - c2 - 1), v1, v1len))
				found |= 1;
		}
	}
	return found;
}

/* The hierarchy a /proc/mounts line [b, e) mounts: 2 cgroup2, 1 a v1
 * cpuset one (a cgroup mount with the controller, or the legacy cpuset
 * filesystem), 0 other; its unescaped mount point into mp. */
static int mount_kind(const char *b, const char *e, char *mp, size_t mplen)
{
	const char *fb, *fe, *tb, *te, *ob, *oe;
	if (!field(b, e, 1, &fb, &fe) || !field(b, e, 2, &tb, &te) ||
	    unescape(mp, mplen, fb, fe) == (size_t)-1)
		return 0;
	size_t tl = (size_t)(te - tb);
	if (tl == 7 && !memcmp(tb, "cgroup2", 7))
		return 2;
	if (tl == 6 && !memcmp(tb, "cpuset", 6))
		return 1;
	return tl == 6 && !memcmp(tb, "cgroup", 6) && field(b, e, 3, &ob, &oe) &&
			       has_token(ob, oe, "cpuset")
		       ? 1
		       : 0;
}

int cps_cgroup_cpuset_dirs_mounts(const char *cpuset, size_t cslen, const char *mounts,
				  size_t mlen, char *v1, size_t v1len, char *v2, size_t v2len)
{
	size_t pos = 0, pl = cslen;
	const char *b, *e;
	int found = 0;

	if (v1len)
		v1[0] = '\0';
	if (v2len)
		v2[0] = '\0';
	while (pl > 0 && (cpuset[pl - 1] == '\n' || cpuset[pl - 1] == '\0'))
		pl--;
	if (pl == 0 || cpuset[0] != '/' || memchr(cpuset, '\n', pl))
		return 0;
	/* "device mountpoint fstype options dump pass" */
	while (line_at(mounts, mlen, &pos, &b, &e)) {
		char mp[4096];
		int kind = mount_kind(b, e, mp, sizeof(mp));
		if (kind == 2 && !(found & 2) && v2len && join_below(v2, v2len, mp, "/", cpuset, pl))
			found |= 2;
		if (kind == 1 && !(found & 1) && v1len && join_below(v1, v1len, mp, "/", cpuset, pl))
			found |= 1;
	}
	return found;
}

bool cps_cgroup_mems_file(const char *name, bool v2)
{
	if (!strcmp(name, "cpuset.mems"))
		return true;
	return v2 ? !strcmp(name, "cpuset.mems.effective")
		  : !strcmp(name, "cpuset.effective_mems") || !strcmp(name, "mems") ||
			    !strcmp(name, "effective_mems");
}

bool cps_cgroup_cpu_file(const char *name, bool v2)
{
	if (!strcmp(name, "cpuset.cpus"))
		return true;
	/* v1 with noprefix, or the legacy cpuset filesystem: no prefix */
	return v2 ? !strcmp(name, "cpuset.cpus.effective")
		  : !strcmp(name, "cpuset.effective_cpus") || !strcmp(name, "cpus") ||
			    !strcmp(name, "effective_cpus");
}
