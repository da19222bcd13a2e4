/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-inspect --top's output (tools/top.h): the sets of a sample as a
 * table of text or as JSON. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/mask.h"
#include "tools/cli.h"
#include "tools/top.h"

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static const char *shares_text(const struct top_set *x, char *buf, size_t len)
{
	if (!x->nshares)
		return "-";
	size_t n = (size_t)snprintf(buf, len, "shared:");
	for (unsigned i = 0; i < x->nshares && i < TOP_SHARES_SHOWN && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%u", i ? "," : "", x->shares[i]);
	if (x->nshares > TOP_SHARES_SHOWN && n < len)
		snprintf(buf + n, len - n, ",...");
	return buf;
}

/* A set's busy figure: its CPUs' user and system time, whoever used them. */
static double cpus_busy(const struct top_set *x)
{
	return pct(x->user + x->sys, x->user + x->sys + x->idle + x->other);
}

/* ---- the text view: lines cut at the width, as top(1) cuts them ---- */

struct out {
	FILE *f;
	int lines, max_lines; /* printed, at most (0: all) */
	int width;            /* columns (0: whole lines) */
};

static void put_line(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(struct out *o, const char *fmt, ...)
{
	char buf[1024];
	if (o->max_lines > 0 && o->lines >= o->max_lines)
		return;
	o->lines++;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strlen(buf);
	if (o->width > 0 && len > (size_t)o->width)
		len = (size_t)o->width; /* cut, never wrapped */
	fwrite(buf, 1, len, o->f);
	fputc('\n', o->f);
}

/* The set table's columns, in order. The busy figures: the set's CPUs'
 * (whoever used them) and its members' own share of them. */
enum { C_ID, C_NAME, C_CPUS, C_N, C_MEMBERS, C_THREADS, C_BUSY, C_MBUSY, C_SHARED, NCOLS };
#define CELL 160
static const char *const col_head[NCOLS] = { "ID",	"NAME",	      "CPUS",
					     "N",	"MEMBERS",    "THREADS",
					     "CPUS-BUSY%", "MEMBERS-BUSY%", "SHARED" };
/* left-aligned; the others right-aligned */
#define COL_LEFT(c) ((c) == C_ID || (c) == C_NAME || (c) == C_CPUS || (c) == C_SHARED)
/* how narrow the names and the CPU lists may get to fit */
#define NAME_MIN 8
#define CPUS_MIN 6

/* A set's name as printed (escaped, as ps(1) does). */
static const char *name_cell(const struct top_set *x)
{
	return cli_name(x->name[0] ? x->name : "-");
}

/* A line under the sets when binds in them wrapped: CPUs asked beyond a
 * set taken as CPU mod its size, so that ranks bound past it share CPUs
 * (cpuset-run(1), CPUSETSHIM_WRAP). */
static void wrap_note(const struct top_state *s, struct out *o)
{
	char buf[160];
	size_t n = 0;
	for (size_t i = 0; i < s->nsets && n < sizeof(buf); i++)
		if (s->sets[i].wrapped)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u in set %u", n ? ", " : "",
					      s->sets[i].wrapped, s->sets[i].id);
	if (n)
		put_line(o, "note: wrapped binds (a CPU beyond the set taken as CPU mod its size; "
			    "CPUSETSHIM_WRAP=0 refuses): %s", buf);
}

static void set_cells(const struct top_state *s, const struct top_set *x, char c[NCOLS][CELL])
{
	snprintf(c[C_ID], CELL, "%u", x->id);
	snprintf(c[C_NAME], CELL, "%s", name_cell(x));
	snprintf(c[C_CPUS], CELL, "%s", cli_cpulist(x->cpus, s->nw));
	snprintf(c[C_N], CELL, "%u", x->ncpus);
	snprintf(c[C_MEMBERS], CELL, "%u", x->members);
	if (x->threads >= 0)
		snprintf(c[C_THREADS], CELL, "%ld", x->threads);
	else
		snprintf(c[C_THREADS], CELL, "%u rec", x->threads_rec);
	if (s->have_prev)
		snprintf(c[C_BUSY], CELL, "%.1f", cpus_busy(x));
	else
		snprintf(c[C_BUSY], CELL, "-"); /* the screen before the first refresh */
	if (x->members_busy >= 0)
		snprintf(c[C_MBUSY], CELL, "%.1f", x->members_busy);
	else
		snprintf(c[C_MBUSY], CELL, "-");
	shares_text(x, c[C_SHARED], CELL);
	if (!x->nshares)
		snprintf(c[C_SHARED], CELL, "-");
}

/* Each column as wide as its widest cell; then, if the line is wider than
 * the view, the names and the CPU lists narrowed (to NAME_MIN, CPUS_MIN):
 * what still does not fit is cut at the edge. */
static void set_widths(const struct top_state *s, int width, int w[NCOLS])
{
	char c[NCOLS][CELL];
	for (int k = 0; k < NCOLS; k++)
		w[k] = (int)strlen(col_head[k]);
	for (size_t i = 0; i < s->nsets; i++) {
		set_cells(s, &s->sets[i], c);
		for (int k = 0; k < NCOLS; k++)
			if ((int)strlen(c[k]) > w[k])
				w[k] = (int)strlen(c[k]);
	}
	if (width <= 0)
		return;
	int total = NCOLS - 1; /* the spaces between */
	for (int k = 0; k < C_SHARED; k++)
		total += w[k];
	total += (int)strlen(col_head[C_SHARED]);
	const int narrow[2] = { C_NAME, C_CPUS }, least[2] = { NAME_MIN, CPUS_MIN };
	for (int j = 0; j < 2 && total > width; j++) {
		int k = narrow[j], cut = total - width;
		int can = w[k] > least[j] ? w[k] - least[j] : 0;
		if (cut > can)
			cut = can;
		w[k] -= cut;
		total -= cut;
	}
}

/* A cell in a column w wide: one that is longer is cut and ends in '+',
 * as top(1) marks it. The last column is never padded. */
static int put_cell(char *buf, size_t len, const char *cell, int w, bool left, bool last)
{
	char cut[CELL];
	const char *v = cell;
	if (last)
		return snprintf(buf, len, "%s", v);
	if ((int)strlen(cell) > w && w > 0) {
		snprintf(cut, sizeof(cut), "%.*s+", w - 1, cell);
		v = cut;
	}
	return snprintf(buf, len, left ? "%-*s " : "%*s ", w, v);
}

static void put_row(struct out *o, char c[NCOLS][CELL], const int w[NCOLS])
{
	char line[1024];
	size_t n = 0;
	for (int k = 0; k < NCOLS && n < sizeof(line); k++)
		n += (size_t)put_cell(line + n, sizeof(line) - n, c[k], w[k], COL_LEFT(k),
				      k == NCOLS - 1);
	put_line(o, "%s", line);
}

static void print_sets(const struct top_state *s, struct out *o)
{
	int w[NCOLS];
	char c[NCOLS][CELL];
	set_widths(s, o->width, w);
	for (int k = 0; k < NCOLS; k++)
		snprintf(c[k], CELL, "%s", col_head[k]);
	put_row(o, c, w);
	for (size_t i = 0; i < s->nsets; i++) {
		set_cells(s, &s->sets[i], c);
		put_row(o, c, w);
	}
}

static void print_members(const struct top_state *s, struct out *o)
{
	put_line(o, "%-8s %-6s %-16s %7s %4s %6s", "PID", "SET", "COMMAND", "THREADS", "CPU",
		 "CPU%");
	for (size_t i = 0; i < s->nmem; i++) {
		const struct top_member *m = &s->mem[i];
		if (m->threads < 0) {
			put_line(o, "%-8d %-6u %-16s %7s %4s %6s", (int)m->pid, m->set, "[gone]", "-",
				 "-", "-");
			continue;
		}
		char busy[16];
		if (m->busy >= 0)
			snprintf(busy, sizeof(busy), "%.1f", m->busy);
		else
			snprintf(busy, sizeof(busy), "-");
		put_line(o, "%-8d %-6u %-16.16s %7d %4d %6s", (int)m->pid, m->set, cli_name(m->comm),
			 m->threads, m->cpu, busy);
	}
}

void top_print_text(const struct top_state *s, FILE *f, double delay, int max_lines, int width)
{
	struct out o = { f, 0, max_lines, width };
	char when[32];
	time_t tnow = time(NULL);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&tnow));
	put_line(&o, "cpuset-inspect --top: table %s, %s, every %.3g s, %zu sets, refresh %.2f ms",
		 s->table, when, delay, s->nsets, s->refresh_ms);
	put_line(&o, "%-5s %6s %6s %6s", "CPU", "USER%", "SYS%", "IDLE%");
	for (unsigned cpu = 0; cpu < s->ncpus_seen; cpu++) {
		uint64_t d[4];
		if (!top_cpu_delta(s, cpu, d))
			continue;
		uint64_t tot = d[0] + d[1] + d[2] + d[3];
		put_line(&o, "%-5u %6.1f %6.1f %6.1f", cpu, pct(d[0], tot), pct(d[1], tot),
			 pct(d[2], tot));
	}
	print_sets(s, &o);
	wrap_note(s, &o);
	if (s->list_members)
		print_members(s, &o);
}

static void json_pct(FILE *f, const char *key, uint64_t part, uint64_t total)
{
	fprintf(f, ",\"%s\":%.1f", key, pct(part, total));
}

void top_print_json(const struct top_state *s, FILE *f, double delay)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "{\"time\":%lld.%03ld,\"table\":", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	cli_json_str(f, s->table);
	fprintf(f, ",\"delay\":%g,\"interval\":%.3f,\"refresh_ms\":%.3f,\"cpus\":[", delay,
		s->t_cur - s->t_prev, s->refresh_ms);
	bool first = true;
	for (unsigned cpu = 0; cpu < s->ncpus_seen; cpu++) {
		uint64_t d[4];
		if (!top_cpu_delta(s, cpu, d))
			continue;
		uint64_t tot = d[0] + d[1] + d[2] + d[3];
		fprintf(f, "%s{\"cpu\":%u", first ? "" : ",", cpu);
		json_pct(f, "user", d[0], tot);
		json_pct(f, "system", d[1], tot);
		json_pct(f, "idle", d[2], tot);
		json_pct(f, "steal", d[3], tot);
		fprintf(f, ",\"ticks\":%llu}", (unsigned long long)tot);
		first = false;
	}
	fprintf(f, "],\"sets\":[");
	for (size_t i = 0; i < s->nsets; i++) {
		const struct top_set *x = &s->sets[i];
		uint64_t tot = x->user + x->sys + x->idle + x->other;
		fprintf(f, "%s{\"id\":%u,\"parent\":%u,\"name\":", i ? "," : "", x->id, x->parent);
		cli_json_str(f, x->name);
		fprintf(f, ",\"strict\":%s,\"cpus\":", (x->flags & CPS_STRICT) ? "true" : "false");
		cli_json_str(f, cli_cpulist(x->cpus, s->nw));
		fprintf(f, ",\"ncpus\":%u,\"members\":%u,\"threads_recorded\":%u", x->ncpus,
			x->members, x->threads_rec);
		fprintf(f, ",\"wrapped_binds\":%u", x->wrapped);
		if (x->threads >= 0)
			fprintf(f, ",\"threads\":%ld", x->threads);
		json_pct(f, "user", x->user, tot);
		json_pct(f, "system", x->sys, tot);
		json_pct(f, "idle", x->idle, tot);
		json_pct(f, "steal", x->other, tot);
		fprintf(f, ",\"busy\":%.1f", cpus_busy(x));
		if (x->members_busy >= 0)
			fprintf(f, ",\"members_busy\":%.1f", x->members_busy);
		fprintf(f, ",\"ticks\":%llu,\"shared\":%s,\"shares_with\":[",
			(unsigned long long)tot, x->nshares ? "true" : "false");
		for (unsigned k = 0; k < x->nshares && k < TOP_SHARES_SHOWN; k++)
			fprintf(f, "%s%u", k ? "," : "", x->shares[k]);
		fprintf(f, "]}");
	}
	fprintf(f, "]");
	if (s->list_members) {
		fprintf(f, ",\"members\":[");
		for (size_t i = 0; i < s->nmem; i++) {
			const struct top_member *m = &s->mem[i];
			fprintf(f, "%s{\"pid\":%d,\"set\":%u,\"alive\":%s", i ? "," : "", (int)m->pid,
				m->set, m->threads >= 0 ? "true" : "false");
			if (m->threads >= 0) {
				fprintf(f, ",\"command\":");
				cli_json_str(f, m->comm);
				fprintf(f, ",\"threads\":%d,\"cpu\":%d", m->threads, m->cpu);
				if (m->busy >= 0)
					fprintf(f, ",\"busy\":%.1f", m->busy);
			}
			fprintf(f, "}");
		}
		fprintf(f, "]");
	}
	fprintf(f, "}\n");
}
