/* cpuset-inspect --top's output (tools/top.h): the sets of a sample as a
 * table of text or as JSON. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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

/* A line under the sets when binds in them wrapped: CPUs asked beyond a
 * set taken as CPU mod its size, so that ranks bound past it share CPUs
 * (cpuset-run(1), CPUSETSHIM_WRAP). */
static void wrap_note(const struct top_state *s, FILE *f, int max_lines, int *lines)
{
	char buf[160];
	size_t n = 0;
	for (size_t i = 0; i < s->nsets && n < sizeof(buf); i++)
		if (s->sets[i].wrapped)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u in set %u", n ? ", " : "",
					      s->sets[i].wrapped, s->sets[i].id);
	if (!n)
		return;
	if (max_lines <= 0 || *lines < max_lines)
		fprintf(f, "note: wrapped binds (a CPU beyond the set taken as CPU mod its size; "
			   "CPUSETSHIM_WRAP=0 refuses): %s\n", buf);
	(*lines)++;
}

void top_print_text(const struct top_state *s, FILE *f, double delay, int max_lines)
{
	int lines = 0;
#define LINE(...) do { if (max_lines <= 0 || lines < max_lines) fprintf(f, __VA_ARGS__); lines++; } while (0)
	char when[32];
	time_t tnow = time(NULL);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&tnow));
	LINE("cpuset-inspect --top: table %s, %s, every %.3g s, %zu sets, refresh %.2f ms\n",
	     s->table, when, delay, s->nsets, s->refresh_ms);
	LINE("%-5s %6s %6s %6s\n", "CPU", "USER%", "SYS%", "IDLE%");
	for (unsigned cpu = 0; cpu < s->ncpus_seen; cpu++) {
		uint64_t d[4];
		if (!top_cpu_delta(s, cpu, d))
			continue;
		uint64_t tot = d[0] + d[1] + d[2] + d[3];
		LINE("%-5u %6.1f %6.1f %6.1f\n", cpu, pct(d[0], tot), pct(d[1], tot),
		     pct(d[2], tot));
	}
	LINE("%-6s %-16s %-14s %4s %7s %7s %6s %6s %6s  %s\n", "ID", "NAME", "CPUS", "N", "MEMBERS",
	     "THREADS", "USER%", "SYS%", "IDLE%", "SHARED");
	for (size_t i = 0; i < s->nsets; i++) {
		const struct top_set *x = &s->sets[i];
		uint64_t tot = x->user + x->sys + x->idle + x->other;
		char thr[24], sh[128];
		if (x->threads >= 0)
			snprintf(thr, sizeof(thr), "%ld", x->threads);
		else
			snprintf(thr, sizeof(thr), "%u rec", x->threads_rec);
		LINE("%-6u %-16.16s %-14.14s %4u %7u %7s %6.1f %6.1f %6.1f  %s\n", x->id,
		     cli_name(x->name[0] ? x->name : "-"), cli_cpulist(x->cpus, s->nw), x->ncpus, x->members,
		     thr, pct(x->user, tot), pct(x->sys, tot), pct(x->idle, tot),
		     shares_text(x, sh, sizeof(sh)));
	}
	wrap_note(s, f, max_lines, &lines);
	if (s->members) {
		LINE("%-8s %-6s %-16s %7s %4s %6s\n", "PID", "SET", "COMMAND", "THREADS", "CPU",
		     "CPU%");
		for (size_t i = 0; i < s->nmem; i++) {
			const struct top_member *m = &s->mem[i];
			if (m->threads < 0) {
				LINE("%-8d %-6u %-16s %7s %4s %6s\n", (int)m->pid, m->set, "[gone]", "-",
				     "-", "-");
				continue;
			}
			char busy[16];
			if (m->busy >= 0)
				snprintf(busy, sizeof(busy), "%.1f", m->busy);
			else
				snprintf(busy, sizeof(busy), "-");
			LINE("%-8d %-6u %-16.16s %7d %4d %6s\n", (int)m->pid, m->set, cli_name(m->comm), m->threads,
			     m->cpu, busy);
		}
	}
#undef LINE
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
		fprintf(f, ",\"ticks\":%llu,\"shared\":%s,\"shares_with\":[",
			(unsigned long long)tot, x->nshares ? "true" : "false");
		for (unsigned k = 0; k < x->nshares && k < TOP_SHARES_SHOWN; k++)
			fprintf(f, "%s%u", k ? "," : "", x->shares[k]);
		fprintf(f, "]}");
	}
	fprintf(f, "]");
	if (s->members) {
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
