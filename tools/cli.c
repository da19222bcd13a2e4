/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared helpers of the command-line tools. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "src/cpulist.h"
#include "src/mask.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "tools/where.h"

const char *cli_prog = "cpuset";
/* The table the tool opened: its writers' reasons (a held lock, a damaged
 * journal) complete the messages of refusals that have none of their own. */
static struct cps_ctx *cli_ctx;

void cli_init(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	cli_prog = s ? s + 1 : argv0;
	/* strip libtool's wrapper prefix in the build tree */
	if (!strncmp(cli_prog, "lt-", 3))
		cli_prog += 3;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *cli_errname(int err)
{
	return cps_errname(err);
}

int cli_refused(int err, const char *why, const char *fmt, ...)
{
	va_list ap;
	if (err < 0)
		err = -err;
	/* the table's own trouble (its lock, its journal): exit 3, not 1 */
	bool table = cli_ctx && cli_ctx->t.why[0] && (!why || why == cli_ctx->t.why);
	if (table)
		why = cli_ctx->t.why;
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* a reason may quote what a process or the table holds (a lock
	 * holder's name) */
	char safe[1024];
	cli_escape(safe, sizeof(safe), why ? why : strerror(err), sizeof(safe));
	fprintf(stderr, ": %s (%s)\n", safe, cli_errname(err));
	if (table)
		return CLI_TABLE;
	switch (err) {
	case EINVAL: case EPERM: case EBUSY: case EACCES: case ENOSPC: case ESRCH:
	case EEXIST: case ENOENT:
		return CLI_REFUSED;
	default:
		return CLI_TABLE;
	}
}

/* What a failed open says, and its exit code. */
static int cli_open_failed(const struct cps_ctx *c, const char *table, int r)
{
	char name[SHM_TABLE_NAME_MAX];
	if (shm_table_name(name, sizeof(name), table) < 0) {
		cli_err("invalid table name '%s' (a name without '/')", table ? table : "");
		return CLI_USAGE;
	}
	if (r == -ENOENT)
		cli_err("table %s: no such table (make one with '%s init' or '%s create')", name,
			"cpuset", "cpuset");
	else
		cli_err("table %s: %s; refusing to use it", name, c->why ? c->why : strerror(-r));
	return CLI_TABLE;
}

int cli_open_existing(struct cps_ctx *c, const char *table, int how)
{
	/* test-only fault points (only honoured when compiled in) */
	if (getenv("CPUSETSHIM_FAULT_STEP") || getenv("CPUSETSHIM_FAULT_REPORT"))
		how |= CPS_OPEN_FAULTS;
	char name[SHM_TABLE_NAME_MAX];
	int r = cps_open(c, table, how);
	if (r == 0) {
		cli_ctx = c;
		return CLI_OK;
	}
	if (r == -ENOENT && shm_table_name(name, sizeof(name), table) == 0)
		return -ENOENT;
	return cli_open_failed(c, table, r);
}

int cli_open(struct cps_ctx *c, const char *table, int how)
{
	int r = cli_open_existing(c, table, how);
	return r == -ENOENT ? cli_open_failed(c, table, r) : r;
}

int cli_table_owner(const char *s)
{
	unsigned long v;
	if (cli_uint(s, 0xfffffffe, &v) < 0) {
		uid_t u;
		if (cli_uid_of(s, &u) < 0) {
			cli_err("--table-owner: no such user '%s'", s);
			return CLI_USAGE;
		}
		v = u;
	}
	char buf[16];
	snprintf(buf, sizeof(buf), "%lu", v);
	setenv("CPUSETSHIM_TABLE_OWNER", buf, 1);
	return CLI_OK;
}

/* A CPU or node list (what: its noun) into m, or the message pointing at
 * the fault. */
static int list_arg(const char *what, const char *s, uint64_t *m, size_t nw)
{
	struct cps_parse_error e;
	if (cps_cpulist_parse(s, m, nw, &e) == 0)
		return CLI_OK;
	cli_err("bad %s list '%s': %s at position %zu", what, s, e.msg, e.pos + 1);
	fprintf(stderr, "%*s%s\n%*s^\n", (int)strlen(cli_prog) + 2, "", s,
		(int)(strlen(cli_prog) + 2 + e.pos), "");
	return CLI_USAGE;
}

int cli_cpus(const char *s, uint64_t *m, size_t nw)
{
	return list_arg("CPU", s, m, nw);
}

int cli_nodes(const char *s, uint64_t *m, size_t nw)
{
	return list_arg("node", s, m, nw);
}

int cli_mems(const char *s, struct cps_mems *how, size_t nw)
{
	if (!strcmp(s, "auto")) {
		how->how = CPS_MEMS_AUTO;
		return CLI_OK;
	}
	how->how = CPS_MEMS_LIST;
	return cli_nodes(s, (uint64_t *)how->nodes, nw);
}

const char *cli_mems_from(unsigned how)
{
	return how == CPS_MEMS_LIST ? "list" : how == CPS_MEMS_AUTO ? "auto" : "parent";
}

/* Digits only, in base (no sign, space or prefix: "010" is ten in base
 * 10, "0x10" is no number). */
static int parse_uint(const char *s, int base, unsigned long max, unsigned long *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p >= '0' + base)
			return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, base);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_uint(const char *s, unsigned long max, unsigned long *out)
{
	return parse_uint(s, 10, max, out);
}

int cli_octal(const char *s, unsigned long max, unsigned long *out)
{
	return parse_uint(s, 8, max, out);
}

int cli_pid(const char *s, pid_t *out)
{
	unsigned long v;
	if (cli_uint(s, 0x7fffffff, &v) < 0 || v == 0)
		return -1;
	*out = (pid_t)v;
	return 0;
}

int cli_set_name(const char *name)
{
	if (!name || cps_name_ok(name))
		return CLI_OK;
	cli_err("bad set name '%s': %s", cli_name(name), CPS_NAME_RULE);
	return CLI_USAGE;
}

int cli_set(struct cps_ctx *c, const char *what, uint32_t *id)
{
	int r = cps_find(c, what, id);
	if (r == 0)
		return CLI_OK;
	if (r == -ENOENT)
		return cli_refused(EINVAL, "no such set", "set '%s'", what);
	if (r == -EINVAL) {
		cli_err("'%s' is neither a set id nor a set name", what);
		return CLI_USAGE;
	}
	return cli_refused(-r, NULL, "set '%s'", what);
}

/* The UTF-8 sequence at p (n bytes left): its length and code point, or 0
 * when the bytes are not UTF-8 (overlong forms, surrogates and code points
 * beyond U+10FFFF included). */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t v, min;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, v = p[0] & 0x1fu, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, v = p[0] & 0x0fu, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, v = p[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* A terminal's control characters: C0, DEL and C1 (U+0080-U+009F, which
 * terminals take as ESC sequences too). */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

size_t cli_escape(char *out, size_t len, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, end = strnlen(s, n);
	if (!len)
		return 0;
	for (size_t i = 0; i < end;) {
		uint32_t cp;
		size_t k = utf8_seq(p + i, end - i, &cp);
		if (k && !is_control(cp) && cp != '\\') {
			if (o + k >= len)
				break;
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		/* one byte, as \ooo (a backslash as \\): never half an escape */
		if (o + 4 >= len)
			break;
		if (p[i] == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\\\");
		else
			o += (size_t)snprintf(out + o, len - o, "\\%03o", p[i]);
		i++;
	}
	out[o] = 0;
	return o;
}

const char *cli_name(const char *s)
{
	/* a few at once in one printf */
	static char bufs[4][SHM_NAME_MAX * 4 + 1];
	static unsigned next;
	char *b = bufs[next++ % 4];
	cli_escape(b, sizeof(bufs[0]), s, SHM_NAME_MAX);
	return b;
}

void cli_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t end = strlen(s);
	fputc('"', f);
	for (size_t i = 0; i < end;) {
		uint32_t cp;
		size_t k = utf8_seq(p + i, end - i, &cp);
		if (!k) {
			fputs("\\ufffd", f); /* not UTF-8: the replacement character */
			i++;
		} else if (cp == '"' || cp == '\\') {
			fprintf(f, "\\%c", (int)cp);
			i++;
		} else if (is_control(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp);
			i += k;
		} else {
			fwrite(p + i, 1, k, f);
			i += k;
		}
	}
	fputc('"', f);
}

char *cli_cpulist(const uint64_t *m, size_t nw)
{
	static char buf[CPS_MAX_CPUS * 6];
	cps_cpulist_format(buf, sizeof(buf), m, nw);
	return buf[0] ? buf : "-";
}

const char *cli_flags(unsigned flags)
{
	if ((flags & CPS_FLAGS_ALL) == CPS_FLAGS_ALL)
		return "strict,autoclean";
	if (flags & CPS_STRICT)
		return "strict";
	if (flags & CPS_AUTOCLEAN)
		return "autoclean";
	return "-";
}

/* ---- the caller's own numbers ----
 *
 * A process inside a set (its own set is not the root) sees that set's
 * CPUs as 0..n-1 through the shim, and its tools take and show the same
 * numbers: the k-th CPU of its set is its CPU k. --physical (cli_physical)
 * keeps the machine's numbers; outside any set the two are the same. */
bool cli_physical;
static struct {
	bool inside, machine_known;
	uint32_t set;
	unsigned n, nmems;
	size_t nw;
	uint64_t cpus[CPS_MAX_WORDS], mems[CPS_MAX_WORDS];
	uint64_t machine[CPS_MAX_WORDS]; /* the root set's CPUs */
} own;

int cli_own_set(struct cps_ctx *c)
{
	uint32_t id;
	struct cps_setinfo si;
	int r;
	own.inside = false;
	own.nw = c->t.mask_words < CPS_MAX_WORDS ? c->t.mask_words : CPS_MAX_WORDS;
	own.machine_known = cps_set_get(c, c->t.root_id, &si) == 0;
	if (own.machine_known)
		cps_mask_copy(own.machine, si.cpus, own.nw);
	if (cli_physical)
		return 0;
	/* a look-up that fails (a writer holding the table beyond the
	 * bound) is said, never taken for "outside any set" */
	if ((r = cps_which(c, 0, &id)) < 0)
		return r;
	if (id == c->t.root_id)
		return 0;
	if ((r = cps_set_get(c, id, &si)) < 0)
		return r;
	if (cps_mask_empty(si.cpus, own.nw))
		return 0;
	own.inside = true;
	own.set = id;
	cps_mask_copy(own.cpus, si.cpus, own.nw);
	own.n = cps_mask_count(si.cpus, own.nw);
	cps_mask_copy(own.mems, si.mems, own.nw);
	own.nmems = cps_mask_count(si.mems, own.nw);
	return (int)own.set;
}

/* A list in the caller's numbers (what: "CPU" or "node"; of: the caller's
 * set's n CPUs or nodes, or NULL when its numbers are the machine's)
 * into physical ones in m. */
static int own_list(const char *what, const char *s, const uint64_t *of, unsigned n,
		    uint64_t *m, size_t nw)
{
	uint64_t v[CPS_MAX_WORDS];
	int r = list_arg(what, s, of ? v : m, nw);
	if (r != CLI_OK || !of)
		return r;
	int last = cps_mask_last(v, nw);
	if (last >= (int)n) {
		char range[32];
		snprintf(range, sizeof(range), n == 1 ? "0" : "0-%u", n - 1);
		cli_err("%s %d is not one of this process's %ss (%s, those of its set %u; "
			"--physical takes the machine's numbers)", what, last, what, range, own.set);
		return CLI_REFUSED;
	}
	cps_mask_zero(m, nw);
	cps_virt_to_phys(m, of, own.nw, v, nw, false);
	return CLI_OK;
}

/* CLI_OK if the machine has every CPU of m (physical), else CLI_REFUSED,
 * said with the CPUs it has. */
static int on_machine(const uint64_t *m, size_t nw)
{
	uint64_t out[CPS_MAX_WORDS];
	size_t w = nw < own.nw ? nw : own.nw;
	if (!own.machine_known)
		return CLI_OK;
	cps_mask_andnot(out, m, own.machine, w);
	for (size_t i = w; i < nw; i++)
		out[i] = m[i];
	if (cps_mask_empty(out, nw))
		return CLI_OK;
	char have[CPS_MAX_CPUS * 6];
	cps_cpulist_format(have, sizeof(have), own.machine, w);
	cli_err("CPU %d is not present on this machine (its CPUs: %s)", cps_mask_next(out, nw, -1),
		have);
	return CLI_REFUSED;
}

int cli_cpus_own(const char *s, uint64_t *m, size_t nw)
{
	if (cps_topo_is_location(s)) /* package:0, core:2-3 (tools/where.c) */
		return cli_where(s, m, nw);
	int r = own_list("CPU", s, own.inside ? own.cpus : NULL, own.n, m, nw);
	return r == CLI_OK && !own.inside ? on_machine(m, nw) : r;
}

int cli_mems_own(const char *s, struct cps_mems *how, size_t nw)
{
	if (!strcmp(s, "auto"))
		return cli_mems(s, how, nw);
	how->how = CPS_MEMS_LIST;
	/* a set without nodes of its own (a table of an older layout) is
	 * numbered as the machine */
	return own_list("node", s, own.inside && own.nmems ? own.mems : NULL, own.nmems,
			(uint64_t *)how->nodes, nw);
}

/* m (physical) in the caller's numbers of of (its set's CPUs or nodes),
 * those outside them added as "+machine:LIST", into buf. */
static char *own_format(char *buf, size_t len, const uint64_t *m, size_t nw, const uint64_t *of)
{
	uint64_t v[CPS_MAX_WORDS], out[CPS_MAX_WORDS];
	size_t w = nw < own.nw ? nw : own.nw;
	cps_mask_zero(v, CPS_MAX_WORDS);
	cps_phys_to_virt(v, w, of, own.nw, m);
	cps_mask_andnot(out, m, of, w);
	size_t n = cps_cpulist_format(buf, len / 2, v, w);
	if (!n)
		n = (size_t)snprintf(buf, len, "-");
	if (!cps_mask_empty(out, w)) {
		/* those outside the caller's set have no number of its own */
		n += (size_t)snprintf(buf + n, len - n, "+machine:");
		cps_cpulist_format(buf + n, len - n, out, w);
	}
	return buf;
}

char *cli_cpulist_own(const uint64_t *m, size_t nw)
{
	static char buf[CPS_MAX_CPUS * 12];
	if (!own.inside)
		return cli_cpulist(m, nw);
	return own_format(buf, sizeof(buf), m, nw, own.cpus);
}

char *cli_nodelist_own(const uint64_t *m, size_t nw)
{
	static char buf[CPS_MAX_CPUS * 12];
	/* a set without nodes of its own (a table of an older layout) is
	 * numbered as the machine, as cli_mems_own takes them */
	if (!own.inside || !own.nmems)
		return cli_cpulist(m, nw);
	return own_format(buf, sizeof(buf), m, nw, own.mems);
}

bool cli_own_inside(void)
{
	return own.inside;
}

const uint64_t *cli_own_cpus(size_t *nw)
{
	*nw = own.nw;
	return own.cpus;
}

const uint64_t *cli_own_mems(size_t *nw)
{
	*nw = own.nw;
	return own.mems;
}

uint32_t cli_own_set_id(void)
{
	return own.inside ? own.set : 0;
}
