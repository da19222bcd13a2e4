/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "src/path.h"
#include "src/vfiles.h"

/*
 * The canonical path is built in out, one component at a time, the way
 * the kernel walks: "." is dropped, ".." removes the last component, and
 * each new component is looked at in the light of the directory it is
 * in: a directory we know (trusted: ".." after it is lexical), a symlink
 * we know (expanded: the path becomes its target), or a name that may be
 * a symlink (untrusted: ".." after it, or after anything below it, needs
 * the kernel). out holds "" for the root while building.
 */

enum comp_kind { C_TRUSTED, C_UNTRUSTED, C_EXPAND };

static bool lit(const char *s, size_t n, const char *l)
{
	size_t ln = strlen(l);

	return n == ln && memcmp(s, l, n) == 0;
}

/* A decimal number as the kernel's /proc and sysfs name them: no sign, no
 * leading zero (but "0"), no more digits than fit an int. */
static bool is_num(const char *s, size_t n)
{
	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* prefix followed by a number: "cpu12", "node0", "index3" */
static bool is_prefnum(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n > pl && memcmp(s, prefix, pl) == 0 && is_num(s + pl, n - pl);
}

/* Whether out[0..ol) is the directory l. */
static bool dir_is(const char *out, size_t ol, const char *l)
{
	return lit(out, ol, l);
}

/* out[0..ol) is l + "/" + one component matching prefix+number */
static bool dir_is_prefnum(const char *out, size_t ol, const char *l, const char *prefix)
{
	size_t n = strlen(l);

	if (ol <= n + 1 || memcmp(out, l, n) != 0 || out[n] != '/')
		return false;
	if (memchr(out + n + 1, '/', ol - n - 1))
		return false;
	return is_prefnum(out + n + 1, ol - n - 1, prefix);
}

static bool starts_dir(const char *out, size_t ol, const char *l)
{
	size_t n = strlen(l);

	return ol >= n && memcmp(out, l, n) == 0 && (ol == n || out[n] == '/');
}

/* The target of a known symlink, written to tgt (tgtlen bytes). */
struct expand {
	char *tgt;
	size_t tgtlen;
	size_t len;
};

/* pre, then al bytes of a, then mid, then bl bytes of b (no stdio: this
 * is on every open of /proc/self/...) */
static enum comp_kind expand_to(struct expand *e, const char *pre, const char *a, size_t al,
				const char *mid, const char *b, size_t bl)
{
	size_t pl = strlen(pre), ml = strlen(mid), n = pl + al + ml + bl;

	if (n >= e->tgtlen)
		return C_UNTRUSTED;
	memcpy(e->tgt, pre, pl);
	memcpy(e->tgt + pl, a, al);
	memcpy(e->tgt + pl + al, mid, ml);
	memcpy(e->tgt + pl + al + ml, b, bl);
	e->tgt[n] = '\0';
	e->len = n;
	return C_EXPAND;
}

/* /proc/self and /proc/thread-self (c, cl bytes): links to the caller's
 * /proc/<pid> and /proc/<pid>/task/<tid>, untrusted without those ids */
static enum comp_kind self_kind(const char *c, size_t cl, pid_t pid, pid_t tid, struct expand *e)
{
	char ids[2][CPS_DEC_MAX];
	size_t il[2];

	if (pid <= 0 || (cl != 4 && tid <= 0))
		return C_UNTRUSTED;
	il[0] = cps_fmt_dec(ids[0], (uint64_t)pid);
	if (cl == 4)
		return expand_to(e, "/proc/", ids[0], il[0], "", "", 0);
	il[1] = cps_fmt_dec(ids[1], (uint64_t)tid);
	return expand_to(e, "/proc/", ids[0], il[0], "/task/", ids[1], il[1]);
}

/* A component in out, which is /proc or below it: a pid, its task
 * directory and the task's ids are directories, self and thread-self are
 * links, anything else may be a link. */
static enum comp_kind proc_kind(const char *out, size_t ol, const char *c, size_t cl, pid_t pid,
				pid_t tid, struct expand *e)
{
	if (dir_is(out, ol, "/proc")) {
		if (is_num(c, cl))
			return C_TRUSTED;
		if (lit(c, cl, "self") || lit(c, cl, "thread-self"))
			return self_kind(c, cl, pid, tid, e);
		return C_UNTRUSTED;
	}
	if (dir_is_prefnum(out, ol, "/proc", ""))
		return lit(c, cl, "task") ? C_TRUSTED : C_UNTRUSTED;
	/* /proc/<pid>/task */
	const char *p = out + 6, *sl = memchr(p, '/', ol - 6);

	if (sl && is_num(p, (size_t)(sl - p)) && lit(sl, ol - (size_t)(sl - out), "/task") &&
	    is_num(c, cl))
		return C_TRUSTED;
	return C_UNTRUSTED;
}

/* A component in out, which is /sys/devices/system/cpu or below it: the
 * CPUs, their topology and cache directories and the caches' indexes are
 * directories; a CPU's node and subsystem are links. */
static enum comp_kind cpu_kind(const char *out, size_t ol, const char *c, size_t cl,
			       struct expand *e)
{
	if (dir_is(out, ol, "/sys/devices/system/cpu"))
		return is_prefnum(c, cl, "cpu") ? C_TRUSTED : C_UNTRUSTED;
	if (dir_is_prefnum(out, ol, "/sys/devices/system/cpu", "cpu")) {
		if (lit(c, cl, "topology") || lit(c, cl, "cache"))
			return C_TRUSTED;
		if (is_prefnum(c, cl, "node"))
			return expand_to(e, "/sys/devices/system/node/", c, cl, "", "", 0);
		if (lit(c, cl, "subsystem"))
			return expand_to(e, "/sys/bus/cpu", "", 0, "", "", 0);
		return C_UNTRUSTED;
	}
	/* /sys/devices/system/cpu/cpuN/cache */
	const char *p = out + 24, *sl = memchr(p, '/', ol - 24);

	if (sl && is_prefnum(p, (size_t)(sl - p), "cpu") &&
	    lit(sl, ol - (size_t)(sl - out), "/cache") && is_prefnum(c, cl, "index"))
		return C_TRUSTED;
	return C_UNTRUSTED;
}

/* A component in out, which is /sys/devices/system or below it: cpu and
 * node and what is below them (cpu_kind); the nodes are directories, a
 * node's CPUs and subsystem are links. */
static enum comp_kind system_kind(const char *out, size_t ol, const char *c, size_t cl,
				  struct expand *e)
{
	if (dir_is(out, ol, "/sys/devices/system"))
		return lit(c, cl, "cpu") || lit(c, cl, "node") ? C_TRUSTED : C_UNTRUSTED;
	if (starts_dir(out, ol, "/sys/devices/system/cpu"))
		return cpu_kind(out, ol, c, cl, e);
	if (dir_is(out, ol, "/sys/devices/system/node"))
		return is_prefnum(c, cl, "node") ? C_TRUSTED : C_UNTRUSTED;
	if (dir_is_prefnum(out, ol, "/sys/devices/system/node", "node")) {
		if (is_prefnum(c, cl, "cpu"))
			return expand_to(e, "/sys/devices/system/cpu/", c, cl, "", "", 0);
		if (lit(c, cl, "subsystem"))
			return expand_to(e, "/sys/bus/node", "", 0, "", "", 0);
	}
	return C_UNTRUSTED;
}

/* A component in out, which is /sys/bus or below it: cpu, node and their
 * devices are directories, the devices' entries links to
 * /sys/devices/system. */
static enum comp_kind bus_kind(const char *out, size_t ol, const char *c, size_t cl,
			       struct expand *e)
{
	if (dir_is(out, ol, "/sys/bus"))
		return lit(c, cl, "cpu") || lit(c, cl, "node") ? C_TRUSTED : C_UNTRUSTED;
	if (dir_is(out, ol, "/sys/bus/cpu") || dir_is(out, ol, "/sys/bus/node"))
		return lit(c, cl, "devices") ? C_TRUSTED : C_UNTRUSTED;
	if (dir_is(out, ol, "/sys/bus/cpu/devices") && is_prefnum(c, cl, "cpu"))
		return expand_to(e, "/sys/devices/system/cpu/", c, cl, "", "", 0);
	if (dir_is(out, ol, "/sys/bus/node/devices") && is_prefnum(c, cl, "node"))
		return expand_to(e, "/sys/devices/system/node/", c, cl, "", "", 0);
	return C_UNTRUSTED;
}

/* A component in out, which is /sys or below it: the CPUs' and nodes'
 * directories of the kernel (system_kind, bus_kind) and the cgroup
 * hierarchies. */
static enum comp_kind sys_kind(const char *out, size_t ol, const char *c, size_t cl,
			       struct expand *e)
{
	if (dir_is(out, ol, "/sys"))
		return C_TRUSTED; /* its entries are all directories */
	if (dir_is(out, ol, "/sys/devices"))
		return lit(c, cl, "system") ? C_TRUSTED : C_UNTRUSTED;
	if (starts_dir(out, ol, "/sys/devices/system"))
		return system_kind(out, ol, c, cl, e);
	if (starts_dir(out, ol, "/sys/bus"))
		return bus_kind(out, ol, c, cl, e);
	if (dir_is(out, ol, "/sys/fs"))
		return lit(c, cl, "cgroup") ? C_TRUSTED : C_UNTRUSTED;
	/* below a cgroup hierarchy's root every directory is a cgroup; the
	 * roots themselves may be symlinks (cpu -> cpu,cpuacct) */
	if (starts_dir(out, ol, "/sys/fs/cgroup") && ol > 15 && memchr(out + 15, '/', ol - 15))
		return C_TRUSTED;
	return C_UNTRUSTED;
}

/* What the component c (cl bytes) is in the directory out (ol bytes):
 * outside /proc and /sys taken as spelled (see path.h), inside them as
 * proc_kind and sys_kind know it. */
static enum comp_kind comp_kind(const char *out, size_t ol, const char *c, size_t cl, pid_t pid,
				pid_t tid, struct expand *e)
{
	if (starts_dir(out, ol, "/proc"))
		return proc_kind(out, ol, c, cl, pid, tid, e);
	if (starts_dir(out, ol, "/sys"))
		return sys_kind(out, ol, c, cl, e);
	return C_TRUSTED;
}

static unsigned count_comps(const char *s, size_t n)
{
	unsigned d = 0;

	for (size_t i = 0; i < n; i++)
		d += s[i] == '/';
	return d;
}

/* s starts with lit; a NUL in s is a mismatch, never read past. Inline:
 * these run on every path that may be a view. */
static inline bool pfx(const char *s, const char *lit)
{
	while (*lit)
		if (*s++ != *lit++)
			return false;
	return true;
}

bool cps_path_in_views(const char *canon)
{
	return (pfx(canon, "/proc") && (canon[5] == '/' || canon[5] == 0)) ||
	       (pfx(canon, "/sys") && (canon[4] == '/' || canon[4] == 0));
}

/* The length of an absolute path that is its own canonical form, or 0:
 * no empty, "." or ".." component, no trailing '/', and none of the links
 * comp_kind expands on the way (/proc/self, /proc/thread-self, /sys/bus,
 * and below /sys/devices/system/{cpu/cpuN,node/nodeK} a name that starts
 * with "node", "cpu" or "subsystem"). Without "..", a name that may be a
 * link of the kernel's changes nothing: the walk would copy it too. One
 * pass over the bytes, no comparison of directories; the walk stays for
 * the rest (and for the tests, as cps_path_canon_walk). */
static size_t already_canonical(const char *p, size_t outlen)
{
	size_t i = 0;
	unsigned comp = 0;
	const char *c5 = NULL;

	if (p[0] != '/')
		return 0;
	if (pfx(p, "/proc/")) {
		if (pfx(p + 6, "self") || pfx(p + 6, "thread-self"))
			return 0;
	} else if (pfx(p, "/sys/")) {
		if (pfx(p + 5, "bus"))
			return 0;
	} else {
		return 0; /* outside both: the walk says VIEWLESS */
	}
	for (; p[i]; i++) {
		if (p[i] != '/')
			continue;
		if (p[i + 1] == '/' || p[i + 1] == '.' || p[i + 1] == 0)
			return 0;
		if (++comp == 6)
			c5 = p + i + 1;
	}
	if (i >= outlen)
		return 0;
	/* /sys/devices/system/{cpu,node}/X/<c5> */
	if (c5 && pfx(p, "/sys/devices/system/") &&
	    (c5[0] == 'n' || c5[0] == 'c' || c5[0] == 's'))
		return 0;
	return i;
}

/* The length of r if every '/' in it begins a component that is neither
 * empty, "." nor "..", and it does not end in '/'; else 0. */
static size_t canonical_rest(const char *r)
{
	size_t i = 0;

	for (; r[i]; i++)
		if (r[i] == '/' && (r[i + 1] == '/' || r[i + 1] == '.' || r[i + 1] == 0))
			return 0;
	return i;
}

/* /proc/self/R and /proc/thread-self/R, R canonical: /proc/<pid>/R and
 * /proc/<pid>/task/<tid>/R (below a process's directory the walk
 * expands no link), in out; false: the walk decides. */
static bool proc_self_canonical(char *out, size_t outlen, const char *p, pid_t pid, pid_t tid)
{
	char ids[2][CPS_DEC_MAX];
	size_t il[2] = { 0, 0 }, rl, n;
	const char *r;
	bool thread;

	if (pfx(p, "/proc/self/"))
		thread = false, r = p + 10;
	else if (pfx(p, "/proc/thread-self/"))
		thread = true, r = p + 17;
	else
		return false;
	if (pid <= 0 || (thread && tid <= 0) || (rl = canonical_rest(r)) == 0)
		return false;
	il[0] = cps_fmt_dec(ids[0], (uint64_t)pid);
	if (thread)
		il[1] = cps_fmt_dec(ids[1], (uint64_t)tid);
	n = 6 + il[0] + (thread ? 6 + il[1] : 0) + rl;
	if (n >= outlen)
		return false;
	memcpy(out, "/proc/", 6);
	memcpy(out + 6, ids[0], il[0]);
	n = 6 + il[0];
	if (thread) {
		memcpy(out + n, "/task/", 6);
		memcpy(out + n + 6, ids[1], il[1]);
		n += 6 + il[1];
	}
	memcpy(out + n, r, rl + 1);
	return true;
}

enum cps_canon cps_path_canon(char *out, size_t outlen, const char *base, const char *path,
			      pid_t pid, pid_t tid, int flags, size_t *consumed)
{
	size_t n = path && outlen >= 2 ? already_canonical(path, outlen) : 0;

	if (n) {
		/* it starts with "/proc/" or "/sys/": in the views */
		memcpy(out, path, n + 1);
		return CPS_CANON_OK;
	}
	if (path && outlen >= 2 && proc_self_canonical(out, outlen, path, pid, tid))
		return CPS_CANON_OK;
	return cps_path_canon_walk(out, outlen, base, path, pid, tid, flags, consumed);
}

/* The walk's state: the canonical path so far (ol bytes of out), its
 * depth in components (from 1), and the depth of the first component whose
 * ".." only the kernel can resolve (0: none) */
struct canon_walk {
	char *out;
	size_t outlen, ol;
	unsigned depth, first_untrusted;
};

/* A relative path starts from base, its trailing slashes left out: false
 * if base is not absolute or does not fit */
static bool walk_from_base(struct canon_walk *w, const char *base)
{
	if (!base || base[0] != '/')
		return false;
	size_t bl = strlen(base);
	while (bl > 0 && base[bl - 1] == '/')
		bl--;
	if (bl >= w->outlen)
		return false;
	memcpy(w->out, base, bl);
	w->ol = bl;
	w->depth = count_comps(w->out, w->ol);
	return true;
}

/* "..": one component up ("/.." is "/"); false when it would climb out of
 * a component only the kernel can resolve */
static bool walk_up(struct canon_walk *w)
{
	if (w->depth == 0)
		return true;
	if (w->first_untrusted && w->depth >= w->first_untrusted)
		return false;
	while (w->ol > 0 && w->out[w->ol - 1] != '/')
		w->ol--;
	if (w->ol > 0)
		w->ol--;
	w->depth--;
	return true;
}

/* Any other component, cl bytes at comp: appended, or, a link of /proc or
 * /sys, replaced by the link's target (the whole path so far); as itself
 * when it is the last and the caller follows no link. False: out is too
 * short. */
static bool walk_down(struct canon_walk *w, const char *comp, size_t cl, bool link_itself,
		      pid_t pid, pid_t tid)
{
	char tgt[96];
	struct expand e = { tgt, sizeof(tgt), 0 };
	enum comp_kind k = comp_kind(w->out, w->ol, comp, cl, pid, tid, &e);

	if (k == C_EXPAND && link_itself)
		k = C_TRUSTED;
	if (k == C_EXPAND) {
		if (e.len >= w->outlen)
			return false;
		memcpy(w->out, tgt, e.len);
		w->ol = e.len;
		w->depth = count_comps(w->out, w->ol);
		w->first_untrusted = 0;
		return true;
	}
	if (w->ol + 1 + cl >= w->outlen)
		return false;
	w->out[w->ol++] = '/';
	memcpy(w->out + w->ol, comp, cl);
	w->ol += cl;
	w->depth++;
	if (k == C_UNTRUSTED && !w->first_untrusted)
		w->first_untrusted = w->depth;
	return true;
}

enum cps_canon cps_path_canon_walk(char *out, size_t outlen, const char *base, const char *path,
				   pid_t pid, pid_t tid, int flags, size_t *consumed)
{
	struct canon_walk w = { out, outlen, 0, 0, 0 };
	size_t i = 0;
	bool dir = false; /* the path names a directory: it ends in "/", "." or ".." */

	if (!path || !path[0] || outlen < 2)
		return CPS_CANON_VIEWLESS;
	if (path[0] != '/' && !walk_from_base(&w, base))
		return CPS_CANON_VIEWLESS;
	while (path[i]) {
		while (path[i] == '/')
			i++;
		if (!path[i]) {
			dir = true; /* a trailing slash */
			break;
		}
		size_t s = i;
		while (path[i] && path[i] != '/')
			i++;
		size_t cl = i - s;
		bool dot = cl == 1 && path[s] == '.';
		bool dotdot = cl == 2 && path[s] == '.' && path[s + 1] == '.';
		dir = dot || dotdot;
		if (dotdot && !walk_up(&w)) {
			if (consumed)
				*consumed = s;
			return CPS_CANON_KERNEL;
		}
		if (!dot && !dotdot &&
		    !walk_down(&w, path + s, cl, (flags & CPS_CANON_NOFOLLOW) && !path[i], pid, tid))
			return CPS_CANON_VIEWLESS;
	}
	if (w.ol == 0)
		out[w.ol++] = '/';
	out[w.ol] = '\0';
	if (!cps_path_in_views(out))
		return CPS_CANON_VIEWLESS;
	return dir ? CPS_CANON_DIR : CPS_CANON_OK;
}

/* These three run on paths that are mostly no view at all (every path a
 * program opens relative to a directory fd): each looks at a byte or two
 * before it compares anything. */


bool cps_path_view_name(const char *s, size_t n)
{
	if (n == 0)
		return false;
	return (n == 1 && s[0] == '.') || cps_vfile_name(s, n);
}

bool cps_path_has_dotdot(const char *rel)
{
	for (const char *p = rel; *p; p++)
		if (p[0] == '.' && p[1] == '.' && (p == rel || p[-1] == '/') &&
		    (p[2] == '/' || p[2] == 0))
			return true;
	return false;
}

bool cps_path_rel_quick_pass(const char *rel)
{
	const unsigned char *p = (const unsigned char *)rel;

	for (size_t i = 0; p[i]; i++)
		if (p[i] == '/' || p[i] == '.')
			return false;
	uint64_t m = cps_path_second[p[0]]; /* 0 from 0x80 on: no view's name starts so */
	if (!m)
		return true;
	/* the second byte's bit, modulo 64 as the stubs' bt takes it: '@'..DEL
	 * are bits 0..63, and every other byte falls on one of them, which
	 * can only send a name the slow way, never let a view's through (no
	 * view's name has such a second byte) */
	return !(m & (1ULL << (p[1] & 63)));
}

bool cps_path_rel_may_view(const char *rel)
{
	size_t i = 0;
	bool first = true;

	if (!rel || !rel[0])
		return false;
	while (rel[i]) {
		size_t s, n;

		while (rel[i] == '/')
			i++;
		if (!rel[i])
			break;
		s = i;
		while (rel[i] && rel[i] != '/')
			i++;
		n = i - s;
		size_t j = i;
		while (rel[j] == '/')
			j++;
		if (n == 2 && rel[s] == '.' && rel[s + 1] == '.')
			return true;
		/* a root ("proc", "sys") alone is a directory, no view */
		if (cps_vfile_renumbered(rel + s, n) || (first && rel[j] && cps_vfile_root(rel + s, n)))
			return true;
		first = false;
		if (!rel[j])
			return cps_path_view_name(rel + s, n);
	}
	return false;
}
