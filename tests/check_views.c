/* SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/vfd.h"
#include "src/views.h"
#include "src/mask.h"
#include "src/cpulist.h"

/*
 * The views are checked against /proc captured on real machines bigger than
 * the one running the tests. Inputs are held in buffers of exactly their
 * size with no NUL after them, so a view that reads past its input trips
 * the address sanitizer.
 */

/* Wider than any captured machine: the views must not depend on nw. */
#define NW 4
#define MAX_SET (NW * 64)

struct text {
	char *p;
	size_t len;
};

struct set {
	uint64_t m[NW];
	unsigned n;
	unsigned cpu[MAX_SET]; /* physical CPUs, ascending: cpu[v] backs virtual v */
};

/* ---- helpers ---- */

static const char *fixtures_dir(void)
{
	const char *d = getenv("CPS_FIXTURES");

	return d && *d ? d : "tests/fixtures/unpacked";
}

/* The directories inside the tarballs are not named exactly like the
 * tarballs, so a machine is found by the start of its name. */
static void machine_path(char *buf, size_t size, const char *prefix, const char *rel)
{
	const char *dir = fixtures_dir();
	char found[512] = "";
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		ck_abort_msg("fixtures directory %s: %s (set CPS_FIXTURES to the unpacked "
			     "tests/fixtures/machines tarballs)", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
			snprintf(found, sizeof(found), "%s", de->d_name);
			break;
		}
	}
	closedir(d);
	if (!*found)
		ck_abort_msg("no machine %s* in fixtures directory %s", prefix, dir);
	snprintf(buf, size, "%s/%s/%s", dir, found, rel);
}

/* Exactly len bytes, no terminator. */
static struct text exact_copy(const char *s, size_t len)
{
	struct text t = { malloc(len ? len : 1), len };

	ck_assert_ptr_nonnull(t.p);
	memcpy(t.p, s, len);
	return t;
}

static struct text load(const char *prefix, const char *rel)
{
	char path[1024], *all = NULL;
	size_t len = 0, cap = 0, got;
	struct text t;
	FILE *f;

	machine_path(path, sizeof(path), prefix, rel);
	f = fopen(path, "r");
	if (!f)
		ck_abort_msg("fixture %s: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			all = realloc(all, cap);
			ck_assert_ptr_nonnull(all);
		}
		got = fread(all + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	ck_assert_msg(!ferror(f), "reading %s", path);
	fclose(f);
	if (len == 0)
		ck_abort_msg("fixture %s is empty", path);
	t = exact_copy(all, len);
	free(all);
	return t;
}

static char *cstr(const struct text *t)
{
	char *s = malloc(t->len + 1);

	ck_assert_ptr_nonnull(s);
	memcpy(s, t->p, t->len);
	s[t->len] = '\0';
	return s;
}

static void set_add(struct set *s, unsigned cpu)
{
	ck_assert_uint_lt(cpu, MAX_SET);
	if (s->m[cpu / 64] & (UINT64_C(1) << (cpu % 64)))
		return;
	s->m[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	s->n = 0;
	for (unsigned c = 0; c < MAX_SET; c++)
		if (s->m[c / 64] & (UINT64_C(1) << (c % 64)))
			s->cpu[s->n++] = c;
}

static struct cps_view_input snap_of(const struct set *s, const uint64_t *vallowed, size_t vnw)
{
	struct cps_view_input v = { s->m, NW, s->n, vallowed, vnw };

	return v;
}

/* Equal texts; on a difference, names the first differing line (whole
 * files are too long for a failure message). */
static void assert_same_text(const char *got, const char *want, const char *what)
{
	unsigned line = 1;
	size_t i = 0;

	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n')
			line++;
		i++;
	}
	if (got[i] != want[i]) {
		size_t s = i;
		int gl, wl;

		while (s > 0 && got[s - 1] != '\n')
			s--;
		gl = (int)strcspn(got + s, "\n");
		wl = (int)strcspn(want + s, "\n");
		ck_abort_msg("%s: line %u differs:\n got  \"%.*s\"\n want \"%.*s\"", what, line,
			     gl < 160 ? gl : 160, got + s, wl < 160 ? wl : 160, want + s);
	}
}

/* ---- the captured machines and the sets tried on them ---- */

static const struct machine {
	const char *prefix;
	unsigned ncpu;
	int has_stat;
} machines[] = {
	/* the ones with a /proc/stat first */
	{ "64amd64-", 64, 1 },
	{ "48amd64-", 48, 1 },
	{ "16em64t-4s2c2t", 16, 1 },
	{ "96em64t-", 96, 0 },
};
#define NMACHINES ((int)(sizeof(machines) / sizeof(machines[0])))
#define NSTAT_MACHINES 3

enum { SET_ONE, SET_ENDS, SET_THIRD, SET_8_15, SET_ALL, NSETS };

static void make_set(struct set *s, int kind, unsigned ncpu)
{
	memset(s, 0, sizeof(*s));
	switch (kind) {
	case SET_ONE:
		set_add(s, 1);
		break;
	case SET_ENDS:
		set_add(s, 0);
		set_add(s, ncpu - 1);
		break;
	case SET_THIRD:
		for (unsigned c = 0; c < ncpu; c += 3)
			set_add(s, c);
		break;
	case SET_8_15:
		for (unsigned c = 8; c <= 15; c++)
			set_add(s, c);
		break;
	default:
		for (unsigned c = 0; c < ncpu; c++)
			set_add(s, c);
		break;
	}
}

/* ---- an independent reading of cpuinfo ---- */

#define MAX_BLOCKS 256

struct block {
	unsigned num;
	const char *body; /* after the processor line, to the next one */
	size_t len;
};

/* Splits at lines "processor\t: N" exactly as the kernel prints them.
 * Returns the block count; *header is the length before the first. */
static unsigned split_cpuinfo(const char *s, struct block *b, size_t *header)
{
	static const char tag[] = "processor\t: ";
	unsigned n = 0;
	const char *p = s;

	*header = strlen(s);
	for (;;) {
		const char *at = (p == s && strncmp(p, tag, strlen(tag)) == 0) ? p : NULL;
		char *end;

		if (!at) {
			at = strstr(p, "\nprocessor\t: ");
			if (!at)
				break;
			at++;
		}
		if (n == 0)
			*header = (size_t)(at - s);
		else
			b[n - 1].len = (size_t)(at - b[n - 1].body);
		ck_assert_uint_lt(n, MAX_BLOCKS);
		b[n].num = (unsigned)strtoul(at + strlen(tag), &end, 10);
		ck_assert_msg(*end == '\n', "processor line not as the kernel prints it");
		b[n].body = end + 1;
		b[n].len = strlen(b[n].body);
		n++;
		p = end;
	}
	return n;
}

/* The value of "name<tabs>: value" in a block, or "" when absent. */
static void block_field(const struct block *b, const char *name, char *out, size_t size)
{
	const char *p = b->body, *end = b->body + b->len;
	size_t nl = strlen(name);

	*out = '\0';
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > nl && strncmp(p, name, nl) == 0 &&
		    (p[nl] == '\t' || p[nl] == ' ' || p[nl] == ':')) {
			snprintf(out, size, "%.*s", (int)(eol - p), p);
			return;
		}
		p = eol + 1;
	}
}

static void check_cpuinfo_on(const struct machine *mc, const struct set *set)
{
	static struct block orig[MAX_BLOCKS], got[MAX_BLOCKS];
	struct text in = load(mc->prefix, "proc/cpuinfo");
	struct cps_view_input sn = snap_of(set, NULL, 0);
	struct cps_buf out = { 0 };
	size_t oh, gh;
	char *ins = cstr(&in);
	unsigned no, ng;

	ck_assert_int_eq(cps_view_cpuinfo(&out, in.p, in.len, &sn), 0);
	ck_assert_ptr_nonnull(out.p);
	ck_assert_uint_eq(strlen(out.p), out.len);
	no = split_cpuinfo(ins, orig, &oh);
	ng = split_cpuinfo(out.p, got, &gh);
	ck_assert_uint_eq(no, mc->ncpu);
	ck_assert_uint_eq(ng, set->n);
	ck_assert_uint_eq(gh, oh);
	ck_assert(memcmp(out.p, ins, oh) == 0);
	for (unsigned v = 0; v < ng; v++) {
		const struct block *o = &orig[set->cpu[v]];
		static const char *const fields[] = { "apicid", "initial apicid",
						      "physical id", "core id" };

		ck_assert_uint_eq(o->num, set->cpu[v]);
		ck_assert_uint_eq(got[v].num, v);
		ck_assert_msg(got[v].len == o->len && memcmp(got[v].body, o->body, o->len) == 0,
			      "%s: virtual CPU %u is not physical CPU %u's block",
			      mc->prefix, v, set->cpu[v]);
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			char a[128], b[128];

			block_field(o, fields[f], a, sizeof(a));
			block_field(&got[v], fields[f], b, sizeof(b));
			ck_assert_str_eq(b, a);
		}
	}
	/* the last kept block ends the file: nothing of a dropped one trails */
	if (ng)
		ck_assert_ptr_eq(got[ng - 1].body + got[ng - 1].len, out.p + out.len);
	cps_buf_free(&out);
	free(ins);
	free(in.p);
}

START_TEST(test_cpuinfo_machines)
{
	const struct machine *mc = &machines[_i / NSETS];
	struct set set;

	make_set(&set, _i % NSETS, mc->ncpu);
	check_cpuinfo_on(mc, &set);
}
END_TEST

/* ---- an independent reading of stat ---- */

/* "cpuN " -> N, "cpu " -> -1, else -2 */
static long stat_cpu_of(const char *line)
{
	char *end;
	unsigned long n;

	if (strncmp(line, "cpu", 3) != 0)
		return -2;
	if (line[3] == ' ')
		return -1;
	if (line[3] < '0' || line[3] > '9')
		return -2;
	n = strtoul(line + 3, &end, 10);
	return *end == ' ' ? (long)n : -2;
}

static unsigned count_fields(const char *p)
{
	unsigned n = 0;

	while (*p && *p != '\n') {
		char *end;

		strtoull(p, &end, 10);
		ck_assert_ptr_ne(end, p);
		n++;
		p = end;
	}
	return n;
}

/* What the stat view must print, built line by line from the original. */
static char *expected_stat(const char *orig, const struct set *set)
{
	unsigned long long sum[64] = { 0 };
	struct cps_buf e = { 0 };
	const char *p;
	unsigned v = 0;

	for (p = orig; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		long c = stat_cpu_of(p);
		const char *f;
		char *end;

		if (c < 0 || !(set->m[c / 64] & (UINT64_C(1) << (c % 64))))
			continue;
		f = p + 3 + strspn(p + 3, "0123456789");
		for (unsigned i = 0; *f && *f != '\n'; i++) {
			ck_assert_uint_lt(i, 64);
			sum[i] += strtoull(f, &end, 10);
			f = end;
		}
	}
	for (p = orig; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
		long c = stat_cpu_of(p);

		if (c == -1) {
			unsigned nf = count_fields(p + 3);

			ck_assert_int_eq(cps_buf_append(&e, "cpu ", 4), 0);
			for (unsigned i = 0; i < nf; i++)
				ck_assert_int_eq(cps_buf_printf(&e, " %llu", sum[i]), 0);
			ck_assert_int_eq(cps_buf_append(&e, "\n", 1), 0);
		} else if (c >= 0) {
			if (set->m[c / 64] & (UINT64_C(1) << (c % 64))) {
				const char *f = p + 3 + strspn(p + 3, "0123456789");

				ck_assert_int_eq(cps_buf_printf(&e, "cpu%u", v++), 0);
				ck_assert_int_eq(cps_buf_append(&e, f, (size_t)(p + len - f)), 0);
			}
		} else {
			ck_assert_int_eq(cps_buf_append(&e, p, len), 0);
		}
		p += len;
	}
	return e.p;
}

/* Non-cpu lines of a text, in order, joined. */
static char *other_lines(const char *s)
{
	struct cps_buf b = { 0 };

	ck_assert_int_eq(cps_buf_append(&b, "", 0), 0);
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s + 1) : strlen(s);

		if (stat_cpu_of(s) == -2)
			ck_assert_int_eq(cps_buf_append(&b, s, len), 0);
		s += len;
	}
	return b.p;
}

static void check_stat_on(const struct machine *mc, const struct set *set)
{
	struct text in = load(mc->prefix, "proc/stat");
	struct cps_view_input sn = snap_of(set, NULL, 0);
	struct cps_buf out = { 0 };
	char *ins = cstr(&in), *exp, *oa, *ob;
	const char *p;
	unsigned ncpu = 0, ntotal = 0;

	ck_assert_int_eq(cps_view_stat(&out, in.p, in.len, &sn), 0);
	ck_assert_ptr_nonnull(out.p);
	ck_assert_uint_eq(strlen(out.p), out.len);

	/* line by line: cpu lines numbered 0..n-1, the total first */
	for (p = out.p; *p; p = strchr(p, '\n') + 1) {
		long c = stat_cpu_of(p);

		ck_assert_ptr_nonnull(strchr(p, '\n'));
		if (c == -1) {
			ck_assert_uint_eq(ncpu, 0);
			ntotal++;
		} else if (c >= 0) {
			ck_assert_int_eq(c, (long)ncpu);
			ncpu++;
		}
	}
	ck_assert_uint_eq(ntotal, 1);
	ck_assert_uint_eq(ncpu, set->n);

	oa = other_lines(ins);
	ob = other_lines(out.p);
	assert_same_text(ob, oa, "non-cpu lines");

	/* fields of each cpu line as the original's; the total their sum */
	exp = expected_stat(ins, set);
	assert_same_text(out.p, exp, mc->prefix);

	free(exp);
	free(oa);
	free(ob);
	cps_buf_free(&out);
	free(ins);
	free(in.p);
}

START_TEST(test_stat_machines)
{
	const struct machine *mc = &machines[_i / NSETS];
	struct set set;

	make_set(&set, _i % NSETS, mc->ncpu);
	check_stat_on(mc, &set);
}
END_TEST

/* One total worked out by hand, in case the test's own summing shares a
 * mistake with the view's. */
START_TEST(test_stat_total_known)
{
	struct text in = load("16em64t-4s2c2t", "proc/stat");
	struct cps_buf out = { 0 };
	struct set set;
	struct cps_view_input sn;
	char *line;

	memset(&set, 0, sizeof(set));
	set_add(&set, 0);
	set_add(&set, 1);
	sn = snap_of(&set, NULL, 0);
	ck_assert_int_eq(cps_view_stat(&out, in.p, in.len, &sn), 0);
	line = strndup(out.p, strcspn(out.p, "\n"));
	/* cpu0 188923 4466 115601 799372494 26425 3245242 27089 0
	 * cpu1 170348 48 78701 802730858 51 0 128 0 */
	ck_assert_str_eq(line, "cpu  359271 4514 194302 1602103352 26476 3245242 27217 0");
	free(line);
	cps_buf_free(&out);
	free(in.p);
}
END_TEST

/* ---- every view from one set copy tells the same count ---- */

START_TEST(test_views_agree)
{
	const struct machine *mc = &machines[_i / NSETS];
	struct text ci = load(mc->prefix, "proc/cpuinfo");
	struct text st = load(mc->prefix, "proc/stat");
	struct cps_buf a = { 0 }, b = { 0 }, c = { 0 };
	struct cps_view_input sn;
	unsigned nproc = 0, ncpu = 0, nrange;
	struct set set;
	const char *p;
	char *end;

	make_set(&set, _i % NSETS, mc->ncpu);
	sn = snap_of(&set, NULL, 0);
	ck_assert_int_eq(cps_view_cpuinfo(&a, ci.p, ci.len, &sn), 0);
	ck_assert_int_eq(cps_view_stat(&b, st.p, st.len, &sn), 0);
	ck_assert_int_eq(cps_view_cpurange(&c, &sn), 0);

	for (p = a.p; (p = strstr(p, "processor\t: ")); p++)
		if (p == a.p || p[-1] == '\n')
			nproc++;
	for (p = b.p; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (stat_cpu_of(p) >= 0)
			ncpu++;
	if (strcmp(c.p, "0\n") == 0) {
		nrange = 1;
	} else {
		ck_assert(strncmp(c.p, "0-", 2) == 0);
		nrange = (unsigned)strtoul(c.p + 2, &end, 10) + 1;
		ck_assert_str_eq(end, "\n");
	}
	ck_assert_uint_eq(nproc, set.n);
	ck_assert_uint_eq(ncpu, nproc);
	ck_assert_uint_eq(nrange, ncpu);

	cps_buf_free(&a);
	cps_buf_free(&b);
	cps_buf_free(&c);
	free(ci.p);
	free(st.p);
}
END_TEST

/* ---- cpuinfo of other shapes ---- */

static void view_str(int (*fn)(struct cps_buf *, const char *, size_t,
			       const struct cps_view_input *),
		     const char *in, const struct cps_view_input *sn, int want_r,
		     const char *want)
{
	struct text t = exact_copy(in, strlen(in));
	struct cps_buf out = { 0 };
	int r = fn(&out, t.p, t.len, sn);

	ck_assert_int_eq(r, want_r);
	if (r == 0) {
		ck_assert_ptr_nonnull(out.p);
		ck_assert_uint_eq(out.p[out.len], 0);
		ck_assert_str_eq(out.p, want);
	} else {
		ck_assert_uint_eq(out.len, 0);
	}
	cps_buf_free(&out);
	free(t.p);
}

static struct set set_of(const unsigned *cpus, unsigned n)
{
	struct set s;

	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < n; i++)
		set_add(&s, cpus[i]);
	return s;
}

START_TEST(test_cpuinfo_arm_header_trailer)
{
	/* 32-bit arm of the 3.x kernels: a global header line with a capital
	 * P, then the blocks, then global sections after blank lines */
	static const char in[] =
		"Processor\t: ARMv7 Processor rev 10 (v7l)\n"
		"processor\t: 0\nBogoMIPS\t: 790.52\n\n"
		"processor\t: 1\nBogoMIPS\t: 791.00\n\n"
		"processor\t: 2\nBogoMIPS\t: 792.00\n\n"
		"processor\t: 3\nBogoMIPS\t: 793.00\n\n"
		"Features\t: swp half thumb fastmult vfp edsp neon vfpv3 tls\n"
		"CPU implementer\t: 0x41\n\n"
		"Hardware\t: Freescale i.MX 6Quad\nRevision\t: 63012\n"
		"Serial\t\t: 0000000000000000\n";
	static const char want[] =
		"Processor\t: ARMv7 Processor rev 10 (v7l)\n"
		"processor\t: 0\nBogoMIPS\t: 791.00\n\n"
		"processor\t: 1\nBogoMIPS\t: 793.00\n\n"
		"Features\t: swp half thumb fastmult vfp edsp neon vfpv3 tls\n"
		"CPU implementer\t: 0x41\n\n"
		"Hardware\t: Freescale i.MX 6Quad\nRevision\t: 63012\n"
		"Serial\t\t: 0000000000000000\n";
	static const unsigned cpus[] = { 1, 3 };
	struct set s = set_of(cpus, 2);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	view_str(cps_view_cpuinfo, in, &sn, 0, want);
}
END_TEST

START_TEST(test_cpuinfo_spacing_kept)
{
	/* MIPS prints two tabs; the bytes around the number are kept */
	static const char in[] =
		"system type\t\t: Broadcom BCM3384\n"
		"processor\t\t: 0\ncpu model\t\t: BMIPS5000 V1.1\n\n"
		"processor\t\t: 1\ncpu model\t\t: BMIPS5000 V1.1 FPU\n\n";
	static const char want[] =
		"system type\t\t: Broadcom BCM3384\n"
		"processor\t\t: 0\ncpu model\t\t: BMIPS5000 V1.1 FPU\n\n";
	static const unsigned cpus[] = { 1 };
	struct set s = set_of(cpus, 1);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	view_str(cps_view_cpuinfo, in, &sn, 0, want);
}
END_TEST

START_TEST(test_cpuinfo_no_trailing_blank)
{
	static const unsigned one[] = { 1 }, zero[] = { 0 };
	struct set s1 = set_of(one, 1), s0 = set_of(zero, 1);
	struct cps_view_input sn1 = snap_of(&s1, NULL, 0), sn0 = snap_of(&s0, NULL, 0);

	view_str(cps_view_cpuinfo, "processor\t: 0\na\t: x\n\nprocessor\t: 1\na\t: y\n",
		 &sn1, 0, "processor\t: 0\na\t: y\n");
	view_str(cps_view_cpuinfo, "processor\t: 0\na\t: x\n\nprocessor\t: 1\na\t: y",
		 &sn1, 0, "processor\t: 0\na\t: y");
	view_str(cps_view_cpuinfo, "processor\t: 0\na\t: x\n\nprocessor\t: 1\na\t: y",
		 &sn0, 0, "processor\t: 0\na\t: x\n\n");
	view_str(cps_view_cpuinfo, "processor\t: 1", &sn1, 0, "processor\t: 0");
	/* blocks not separated by blank lines */
	view_str(cps_view_cpuinfo, "processor\t: 0\na\t: x\nprocessor\t: 1\na\t: y\n",
		 &sn1, 0, "processor\t: 0\na\t: y\n");
}
END_TEST

START_TEST(test_cpuinfo_none_kept)
{
	static const unsigned cpus[] = { 5 };
	struct set s = set_of(cpus, 1);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	view_str(cps_view_cpuinfo, "hdr\t: 1\nprocessor\t: 0\na\t: x\n\n", &sn, 0, "hdr\t: 1\n");
	view_str(cps_view_cpuinfo, "processor\t: 0\na\t: x\n\n", &sn, 0, "");
}
END_TEST

START_TEST(test_cpuinfo_invalid)
{
	static const unsigned cpus[] = { 0 };
	struct set s = set_of(cpus, 1);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	view_str(cps_view_cpuinfo, "", &sn, -EINVAL, NULL);
	view_str(cps_view_cpuinfo, "\n\n\n", &sn, -EINVAL, NULL);
	/* s390 names its CPUs another way: a count, a summary line each,
	 * then (newer kernels) a section each from "cpu number" */
	static const char s390[] =
		"vendor_id       : IBM/S390\n# processors    : 2\n"
		"processor 0: version = FF,  identification = 0133E8,  machine = 2964\n"
		"processor 1: version = FF,  identification = 0133E9,  machine = 2964\n\n"
		"cpu number      : 0\ncpu MHz dynamic : 5000\n\n"
		"cpu number      : 1\ncpu MHz dynamic : 5001\n";
	view_str(cps_view_cpuinfo, s390, &sn, 0,
		 "vendor_id       : IBM/S390\n# processors    : 1\n"
		 "processor 0: version = FF,  identification = 0133E8,  machine = 2964\n\n"
		 "cpu number      : 0\ncpu MHz dynamic : 5000\n\n");
	static const unsigned one[] = { 1 };
	struct set s1 = set_of(one, 1);
	struct cps_view_input sn1 = snap_of(&s1, NULL, 0);
	view_str(cps_view_cpuinfo, s390, &sn1, 0,
		 "vendor_id       : IBM/S390\n# processors    : 1\n"
		 "processor 0: version = FF,  identification = 0133E9,  machine = 2964\n\n"
		 "cpu number      : 0\ncpu MHz dynamic : 5001\n");
	/* SPARC names each CPU in its header only: "ncpus probed" and
	 * "ncpus active" count them, "CpuNClkTck" and "CPUN:" name them */
	static const char sparc[] =
		"cpu\t\t: TI UltraSparc II  (BlackBird)\nncpus probed\t: 3\nncpus active\t: 3\n"
		"Cpu6ClkTck\t: 000000000ec82e00\nCpu7ClkTck\t: 000000000ec82e01\n"
		"Cpu10ClkTck\t: 000000000ec82e02\nMMU Type\t: Spitfire\nState:\n"
		"CPU6:\t\tonline\nCPU7:\t\tonline\nCPU10:\t\tonline\n";
	static const unsigned seven_ten[] = { 7, 10 };
	struct set s710 = set_of(seven_ten, 2);
	struct cps_view_input sn710 = snap_of(&s710, NULL, 0);
	view_str(cps_view_cpuinfo, sparc, &sn710, 0,
		 "cpu\t\t: TI UltraSparc II  (BlackBird)\nncpus probed\t: 2\nncpus active\t: 2\n"
		 "Cpu0ClkTck\t: 000000000ec82e01\nCpu1ClkTck\t: 000000000ec82e02\n"
		 "MMU Type\t: Spitfire\nState:\nCPU0:\t\tonline\nCPU1:\t\tonline\n");
	/* "CPU" and a word (arm's "CPU part") names no CPU */
	view_str(cps_view_cpuinfo, "CPU part\t: 0xd03\nCPU revision\t: 4\n", &sn, -EINVAL, NULL);
	/* "processor" with no number after it is no s390 line either */
	view_str(cps_view_cpuinfo, "# processors    : 2\nprocessor x: y\n", &sn, -EINVAL, NULL);
	view_str(cps_view_cpuinfo, "processor\t: \nprocessor\t: x\nprocessor\t: 1 2\n", &sn,
		 -EINVAL, NULL);
	view_str(cps_view_cpuinfo, "processor\t: 99999999999999999999\n", &sn, -EINVAL, NULL);
}
END_TEST

/* A view appends, and a failed one leaves the buffer as it was. */
START_TEST(test_views_append_and_restore)
{
	static const unsigned cpus[] = { 0 };
	struct set s = set_of(cpus, 1);
	struct cps_view_input sn = snap_of(&s, NULL, 0);
	struct cps_buf out = { 0 };

	ck_assert_int_eq(cps_buf_append(&out, "before|", 7), 0);
	ck_assert_int_eq(cps_view_cpuinfo(&out, "processor\t: 0\n", 14, &sn), 0);
	ck_assert_str_eq(out.p, "before|processor\t: 0\n");
	ck_assert_int_eq(cps_view_cpuinfo(&out, "junk\n", 5, &sn), -EINVAL);
	ck_assert_str_eq(out.p, "before|processor\t: 0\n");
	ck_assert_int_eq(cps_view_stat(&out, "cpu  1 x\n", 9, &sn), -EINVAL);
	ck_assert_str_eq(out.p, "before|processor\t: 0\n");
	ck_assert_uint_eq(out.len, strlen(out.p));
	cps_buf_free(&out);
}
END_TEST

/* ---- stat of other shapes ---- */

START_TEST(test_stat_shapes)
{
	static const unsigned cpus[] = { 1, 2 };
	struct set s = set_of(cpus, 2);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	/* any number of fields; a line with a cpu-like name stays */
	view_str(cps_view_stat,
		 "cpu  9 9\ncpu0 1 2\ncpu1 3 4\ncpu2 5 6\ncpufreq 7\nintr 1 2 3\n",
		 &sn, 0, "cpu  8 10\ncpu0 3 4\ncpu1 5 6\ncpufreq 7\nintr 1 2 3\n");
	view_str(cps_view_stat,
		 "cpu  1 1 1 1 1 1 1 1 1 1 1 1\n"
		 "cpu1 1 2 3 4 5 6 7 8 9 10 11 12\n"
		 "cpu2 10 20 30 40 50 60 70 80 90 100 110 18446744073709551615\n",
		 &sn, 0,
		 "cpu  11 22 33 44 55 66 77 88 99 110 121 11\n"
		 "cpu0 1 2 3 4 5 6 7 8 9 10 11 12\n"
		 "cpu1 10 20 30 40 50 60 70 80 90 100 110 18446744073709551615\n");
	/* a last line without its newline */
	view_str(cps_view_stat, "cpu  0\ncpu2 7", &sn, 0, "cpu  7\ncpu0 7");
	/* no cpu line kept at all: a zero total */
	view_str(cps_view_stat, "cpu  5\ncpu0 5\nctxt 1\n", &sn, 0, "cpu  0\nctxt 1\n");
}
END_TEST

START_TEST(test_stat_invalid)
{
	static const unsigned cpus[] = { 0 };
	struct set s = set_of(cpus, 1);
	struct cps_view_input sn = snap_of(&s, NULL, 0);

	view_str(cps_view_stat, "", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "intr 1 2\nctxt 3\n", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "cpu  1 2 x\ncpu0 1 2\n", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "cpu  1 2\ncpu0 1 -2\n", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "cpu  \ncpu0 1\n", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "cpu  1\ncpu0 18446744073709551616\n", &sn, -EINVAL, NULL);
	view_str(cps_view_stat, "cpu99999999999 1\n", &sn, -EINVAL, NULL);
}
END_TEST

/* ---- status ---- */

#define STATUS_HEAD                                                            \
	"Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\nNgid:\t0\n"   \
	"Pid:\t4242\nPPid:\t4200\nTracerPid:\t0\n"                                 \
	"Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"             \
	"FDSize:\t256\nGroups:\t24 27 1000 \nNStgid:\t4242\nNSpid:\t4242\n"        \
	"NSpgid:\t4242\nNSsid:\t4200\nVmPeak:\t    5480 kB\nVmSize:\t    5480 kB\n" \
	"VmLck:\t       0 kB\nVmRSS:\t    1020 kB\nThreads:\t1\n"                  \
	"SigQ:\t0/63457\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"   \
	"SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"                   \
	"SigCgt:\t0000000000000000\nCapInh:\t0000000000000000\n"                   \
	"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"                   \
	"CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"   \
	"Seccomp:\t0\nSeccomp_filters:\t0\n"                                       \
	"Speculation_Store_Bypass:\tthread vulnerable\n"                           \
	"SpeculationIndirectBranch:\tconditional enabled\n"
#define STATUS_MEMS                                                            \
	"Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,"    \
	"00000000,00000000,00000000,00000000,00000000,00000000,00000000,"          \
	"00000000,00000000,00000000,00000000,00000000,00000000,00000000,"          \
	"00000000,00000000,00000000,00000000,00000000,00000000,00000000,"          \
	"00000000,00000000,00000000,00000000,00000003\n"                           \
	"Mems_allowed_list:\t0-1\n"
#define STATUS_TAIL "voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t1\n"

/* A set of n CPUs (4, 6, 8, ...): Cpus_allowed is n bits wide. */
static void check_status_n(unsigned n, const uint64_t *va, size_t vnw, const char *in,
			   const char *want, int rw)
{
	struct set s;
	struct cps_view_input sn;

	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < n; i++)
		set_add(&s, 4 + 2 * i);
	sn = snap_of(&s, va, vnw);
	view_str(cps_view_status, in, &sn, rw, want);
}

static void check_status(const uint64_t *va, size_t vnw, const char *in, const char *want, int rw)
{
	check_status_n(3, va, vnw, in, want, rw);
}

START_TEST(test_status)
{
	static const uint64_t va[1] = { 0x5 };

	check_status(va, 1,
		     STATUS_HEAD "Cpus_allowed:\t00000000,00000000,0000ffff\n"
				 "Cpus_allowed_list:\t0-15\n" STATUS_MEMS STATUS_TAIL,
		     STATUS_HEAD "Cpus_allowed:\t005\n"
				 "Cpus_allowed_list:\t0,2\n" STATUS_MEMS STATUS_TAIL,
		     0);
}
END_TEST

START_TEST(test_status_widths)
{
	static const uint64_t wide[2] = { UINT64_C(0xffffffffff), 0 };
	static const uint64_t va[1] = { 0x5 };

	/* the width is the set's possible CPUs (w: here its highest CPU plus
	 * one), whatever the real line's (the kernel's for the machine's) */
	check_status_n(40, wide, 2,
		       "Cpus_allowed:\t00000000,00000000,0000ffff\nCpus_allowed_list:\t0-15\n",
		       "Cpus_allowed:\t00000,000000ff,ffffffff\nCpus_allowed_list:\t0-39\n", 0);
	check_status_n(8, va, 1, "Cpus_allowed:\tff\nCpus_allowed_list:\t0-7",
		       "Cpus_allowed:\t00005\nCpus_allowed_list:\t0,2", 0);
	check_status_n(33, va, 1, "Cpus_allowed:\tff\n",
		       "Cpus_allowed:\t00,00000000,00000005\n", 0);
	check_status_n(32, va, 1, "Cpus_allowed:\tff\n", "Cpus_allowed:\t0,00000000,00000005\n", 0);
	check_status_n(3, va, 1, "Cpus_allowed:\t00000000,000000ff\n", "Cpus_allowed:\t005\n", 0);
}
END_TEST

START_TEST(test_status_missing_or_bad)
{
	static const uint64_t va[1] = { 0x5 };

	check_status(va, 1, STATUS_HEAD STATUS_MEMS STATUS_TAIL,
		     STATUS_HEAD STATUS_MEMS STATUS_TAIL, 0);
	check_status(va, 1, "", "", 0);
	check_status(va, 1, "Cpus_allowed:\tzz\n", NULL, -EINVAL);
	check_status(va, 1, "Cpus_allowed:\t\n", NULL, -EINVAL);
	check_status(va, 1, "Cpus_allowed:\t,ff\n", NULL, -EINVAL);
	check_status(va, 1, "Cpus_allowed:\t123456789\n", NULL, -EINVAL);
}
END_TEST

/* With no vallowed the task's mask is the file's own Cpus_allowed_list,
 * translated through the set {4,6,8}. */
START_TEST(test_status_own_mask)
{
	check_status(NULL, 0, "Cpus_allowed:\t00000110\nCpus_allowed_list:\t4,8\n",
		     "Cpus_allowed:\t005\nCpus_allowed_list:\t0,2\n", 0);
	check_status(NULL, 0,
		     STATUS_HEAD "Cpus_allowed:\t0000ffff\nCpus_allowed_list:\t0-15\n" STATUS_MEMS
				 STATUS_TAIL,
		     STATUS_HEAD "Cpus_allowed:\t007\nCpus_allowed_list:\t0-2\n" STATUS_MEMS
				 STATUS_TAIL,
		     0);
	/* sharing no CPU with the set: all of the set's */
	check_status(NULL, 0, "Cpus_allowed:\t2\nCpus_allowed_list:\t1\n",
		     "Cpus_allowed:\t007\nCpus_allowed_list:\t0-2\n", 0);
	/* the two lines the other way round: both made */
	check_status(NULL, 0, "Cpus_allowed_list:\t6\nX:\t1\nCpus_allowed:\t40\n",
		     "Cpus_allowed_list:\t1\nX:\t1\nCpus_allowed:\t002\n", 0);
	/* no list, or not a list: the file is not the kernel's */
	check_status(NULL, 0, "Cpus_allowed:\t2\n", NULL, -EINVAL);
	check_status(NULL, 0, "Cpus_allowed:\t2\nCpus_allowed_list:\tx\n", NULL, -EINVAL);
	check_status(NULL, 0, "Cpus_allowed_list:\t\n", NULL, -EINVAL);
}
END_TEST

/* ---- cpurange ---- */

static void check_range(unsigned n, int want_r, const char *want)
{
	struct cps_view_input sn = { NULL, 0, n, NULL, 0, NULL, 0, 0 };
	struct cps_buf out = { 0 };

	ck_assert_int_eq(cps_view_cpurange(&out, &sn), want_r);
	if (want)
		ck_assert_str_eq(out.p, want);
	cps_buf_free(&out);
}

START_TEST(test_cpurange)
{
	check_range(1, 0, "0\n");
	check_range(2, 0, "0-1\n");
	check_range(48, 0, "0-47\n");
	check_range(8192, 0, "0-8191\n");
	check_range(0, -EINVAL, NULL);
}
END_TEST

/* ---- cps_buf ---- */

/* A buffer that starts in the caller's storage: written there while it
 * fits, moved to the heap with what it holds when it does not, and the
 * caller's storage never freed (ASan says so when it is). */
START_TEST(test_buf_borrowed)
{
	char st[16];
	struct cps_buf b = cps_buf_on(st, sizeof(st));

	ck_assert_str_eq(b.p, "");
	ck_assert_int_eq(cps_buf_append(&b, "0123456789", 10), 0);
	ck_assert_ptr_eq(b.p, st);
	ck_assert_int_eq(cps_buf_append_dec(&b, 12345), 0); /* 15 bytes and the NUL: fits */
	ck_assert_ptr_eq(b.p, st);
	ck_assert_str_eq(st, "012345678912345");
	ck_assert_int_eq(cps_buf_append(&b, "x", 1), 0); /* 17 with the NUL: to the heap */
	ck_assert_ptr_ne(b.p, st);
	ck_assert_int_eq(b.borrowed, 0);
	ck_assert_str_eq(b.p, "012345678912345x");
	ck_assert_uint_eq(b.len, 16);
	cps_buf_free(&b);

	b = cps_buf_on(st, sizeof(st));
	ck_assert_int_eq(cps_buf_printf(&b, "%s", "a somewhat longer text than sixteen"), 0);
	ck_assert_str_eq(b.p, "a somewhat longer text than sixteen");
	ck_assert_ptr_ne(b.p, st);
	cps_buf_free(&b);

	b = cps_buf_on(st, sizeof(st));
	ck_assert_int_eq(cps_buf_append(&b, "ab", 2), 0);
	cps_buf_free(&b); /* still borrowed: nothing freed */
	ck_assert_ptr_null(b.p);
}
END_TEST

START_TEST(test_buf)
{
	struct cps_buf b = { 0 };
	char big[10000];
	size_t total = 0;

	ck_assert_int_eq(cps_buf_append(&b, NULL, 0), 0);
	ck_assert_ptr_nonnull(b.p);
	ck_assert_str_eq(b.p, "");
	for (int i = 0; i < 5000; i++) {
		ck_assert_int_eq(cps_buf_append(&b, "abc", (size_t)(i % 4)), 0);
		total += (size_t)(i % 4);
		ck_assert_uint_eq(b.len, total);
		ck_assert_uint_eq(b.p[b.len], 0);
		ck_assert_uint_gt(b.cap, b.len);
	}
	/* growth is geometric: far fewer capacities than appends */
	ck_assert_uint_le(b.cap, 4 * (b.len + 1) + 256);
	cps_buf_free(&b);
	ck_assert_ptr_null(b.p);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(cps_buf_printf(&b, "%d-", 42), 0);
	ck_assert_int_eq(cps_buf_printf(&b, "%s", big), 0);
	ck_assert_int_eq(cps_buf_printf(&b, "-%u", 7u), 0);
	ck_assert_uint_eq(b.len, 3 + sizeof(big) - 1 + 2);
	ck_assert_uint_eq(strlen(b.p), b.len);
	ck_assert(strncmp(b.p, "42-xxx", 6) == 0);
	ck_assert_str_eq(b.p + b.len - 3, "x-7");
	ck_assert_int_eq(cps_buf_printf(&b, "%s", ""), 0);
	ck_assert_uint_eq(strlen(b.p), b.len);
	cps_buf_free(&b);
	cps_buf_free(&b);
}
END_TEST

/* ---- garbage never crashes ---- */

/* A fixed-seed generator, so a failure replays. */
static unsigned lcg(uint64_t *state)
{
	*state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (unsigned)(*state >> 33);
}

static void run_all_views(const char *p, size_t len)
{
	/* every other CPU of a wide set, built once by hand: this runs tens
	 * of thousands of times */
	static const uint64_t every_other[NW] = {
		UINT64_C(0x5555555555555555), UINT64_C(0x5555555555555555),
		UINT64_C(0x5555555555555555), UINT64_C(0x5555555555555555),
	};
	static const uint64_t va[2] = { 0x5, 0 };
	struct cps_view_input sn = { every_other, NW, NW * 32, va, 2 };
	struct cps_buf out = { 0 };
	int r;

	r = cps_view_cpuinfo(&out, p, len, &sn);
	ck_assert(r == 0 || r == -EINVAL);
	if (r == 0)
		ck_assert_uint_eq(out.p[out.len], 0);
	cps_buf_free(&out);
	r = cps_view_stat(&out, p, len, &sn);
	ck_assert(r == 0 || r == -EINVAL);
	if (r == 0)
		ck_assert_uint_eq(out.p[out.len], 0);
	cps_buf_free(&out);
	r = cps_view_status(&out, p, len, &sn);
	ck_assert(r == 0 || r == -EINVAL);
	if (r == 0)
		ck_assert_uint_eq(out.p[out.len], 0);
	cps_buf_free(&out);
	r = cps_view_status_mems(&out, p, len, every_other, NW, NW * 32);
	ck_assert(r == 0 || r == -EINVAL);
	if (r == 0)
		ck_assert_uint_eq(out.p[out.len], 0);
	cps_buf_free(&out);
}

/* status's node lines as a machine of the set's nodes {1,3} prints them */
START_TEST(test_status_mems)
{
	static const char real[] = "Name:\tx\nCpus_allowed_list:\t0-3\nMems_allowed:\t00000000,0000000f\n"
				   "Mems_allowed_list:\t0-3\nvoluntary_ctxt_switches:\t1\n";
	static const char want[] = "Name:\tx\nCpus_allowed_list:\t0-3\nMems_allowed:\t00000000,00000003\n"
				   "Mems_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1\n";
	static const char one[] = "Mems_allowed:\t00000008\nMems_allowed_list:\t3\n";
	static const char none[] = "Mems_allowed:\t00000005\nMems_allowed_list:\t0,2\n";
	static const char plain[] = "Name:\tx\nCpus_allowed_list:\t0\n";
	uint64_t mems[2] = { 0xa, 0 };
	struct cps_buf out = { 0 };

	ck_assert_int_eq(cps_view_status_mems(&out, real, sizeof(real) - 1, mems, 2, 2), 0);
	ck_assert_str_eq(out.p, want);
	cps_buf_free(&out);
	ck_assert_int_eq(cps_view_status_mems(&out, one, sizeof(one) - 1, mems, 2, 2), 0);
	ck_assert_str_eq(out.p, "Mems_allowed:\t00000002\nMems_allowed_list:\t1\n");
	cps_buf_free(&out);
	/* nodes of the task none of the set's: none */
	ck_assert_int_eq(cps_view_status_mems(&out, none, sizeof(none) - 1, mems, 2, 2), 0);
	ck_assert_str_eq(out.p, "Mems_allowed:\t00000000\nMems_allowed_list:\t\n");
	cps_buf_free(&out);
	/* no node lines: as it is */
	ck_assert_int_eq(cps_view_status_mems(&out, plain, sizeof(plain) - 1, mems, 2, 2), 0);
	ck_assert_str_eq(out.p, plain);
	cps_buf_free(&out);
	/* a list that is no list is not the kernel's */
	ck_assert_int_eq(cps_view_status_mems(&out, "Mems_allowed_list:\tx\n", 20, mems, 2, 2), -EINVAL);
	cps_buf_free(&out);
}
END_TEST

START_TEST(test_garbage_random)
{
	uint64_t seed = 20240611;

	for (int i = 0; i < 3000; i++) {
		size_t len = lcg(&seed) % 1024;
		struct text t = { malloc(len ? len : 1), len };

		ck_assert_ptr_nonnull(t.p);
		for (size_t k = 0; k < len; k++)
			t.p[k] = (char)lcg(&seed);
		run_all_views(t.p, t.len);
		free(t.p);
	}
}
END_TEST

/* Random bytes rarely get past the first check; text made of the files'
 * own words does. */
START_TEST(test_garbage_tokens)
{
	static const char *const tok[] = {
		"processor", "processor\t: ", "Processor", ":", "\t", " ", "\n", "\n\n",
		"0", "1", "7", "63", "4294967295", "4294967296", "99999999999999999999",
		"18446744073709551615", "18446744073709551616", "cpu", "cpu  ", "cpu0 ",
		"cpu12 ", "cpufreq", "intr ", "Cpus_allowed:\t", "Cpus_allowed_list:\t",
		"ffffffff", "0000ffff", ",", "-", "\r", "x", "\0",
	};
	uint64_t seed = 42;
	char buf[512];

	for (int i = 0; i < 20000; i++) {
		size_t len = 0, ntok = lcg(&seed) % 40;
		struct text t;

		for (size_t k = 0; k < ntok; k++) {
			const char *w = tok[lcg(&seed) % (sizeof(tok) / sizeof(tok[0]))];
			size_t wl = *w ? strlen(w) : 1;

			if (len + wl > sizeof(buf))
				break;
			memcpy(buf + len, w, wl);
			len += wl;
		}
		t = exact_copy(buf, len);
		run_all_views(t.p, t.len);
		free(t.p);
	}
}
END_TEST

/* Every prefix of real files, as a short read would give. */
START_TEST(test_garbage_truncated)
{
	static const char first[] = "processor\t: 0";
	struct text ci = load("64amd64-", "proc/cpuinfo");
	struct text st = load("16em64t-4s2c2t", "proc/stat");
	size_t sample = 0;
	int blocks = 0;

	/* the first three blocks of a cpuinfo */
	for (size_t k = 0; k + 1 < ci.len && blocks < 3; k++)
		if (ci.p[k] == '\n' && ci.p[k + 1] == '\n') {
			blocks++;
			sample = k + 2;
		}
	ck_assert_int_eq(blocks, 3);
	for (size_t len = 0; len <= sample; len++) {
		struct text t = exact_copy(ci.p, len);
		struct cps_buf out = { 0 };
		static const unsigned cpus[] = { 1, 2 };
		struct set s = set_of(cpus, 2);
		struct cps_view_input sn = snap_of(&s, NULL, 0);
		int r = cps_view_cpuinfo(&out, t.p, t.len, &sn);

		/* the first processor line, even cut before its newline,
		 * is enough to make a view */
		ck_assert_int_eq(r, len >= strlen(first) ? 0 : -EINVAL);
		if (r == 0)
			ck_assert_uint_eq(strlen(out.p), out.len);
		run_all_views(t.p, t.len);
		cps_buf_free(&out);
		free(t.p);
	}
	for (size_t len = 0; len <= st.len; len++) {
		struct text t = exact_copy(st.p, len);

		run_all_views(t.p, t.len);
		free(t.p);
	}
	free(ci.p);
	free(st.p);
}
END_TEST

/* ---- each architecture's cpuinfo, from the captured machines ---- */

/* A CPU's own lines in a cpuinfo: the block opened by "processor : N"
 * (x86, arm64, POWER) or "cpu number : N" (s390's per-CPU sections) up to
 * its blank line, or s390's summary line "processor N: ..."; with the
 * number cut out ("#" in its place), so that a physical CPU's block and
 * its virtual one compare equal. The machine's own lines (outside every
 * block) go to hdr. */
struct cpublocks {
	char *of[MAX_SET];   /* physical/virtual CPU -> its lines */
	char *hdr;
	unsigned count;      /* CPUs with lines */
	long nproc;          /* s390's "# processors", -1 if none */
};

static void cat(char **dst, const char *s, size_t n)
{
	size_t old = *dst ? strlen(*dst) : 0;

	*dst = realloc(*dst, old + n + 1);
	ck_assert_ptr_nonnull(*dst);
	memcpy(*dst + old, s, n);
	(*dst)[old + n] = '\0';
}

static void split_blocks(const char *t, size_t len, struct cpublocks *b)
{
	const char *p = t, *end = t + len;
	int cur = -1;

	memset(b, 0, sizeof(*b));
	b->nproc = -1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end;
		unsigned long n;
		char *e;

		if (!eol)
			eol = end;
		if ((!strncmp(p, "processor", 9) || !strncmp(p, "cpu number", 10)) && cur < 0) {
			const char *q = p + (p[0] == 'p' ? 9 : 10);
			bool summary = *q == ' ' && q[strspn(q, " ")] >= '0' && q[strspn(q, " ")] <= '9';

			q += strspn(q, " \t:");
			n = strtoul(q, &e, 10);
			ck_assert_msg(e > q && n < MAX_SET, "bad CPU line %.40s", p);
			ck_assert_msg(!b->of[n], "CPU %lu twice", n);
			b->count++;
			cat(&b->of[n], p, (size_t)(q - p));
			cat(&b->of[n], "#", 1);
			cat(&b->of[n], e, (size_t)(next - e));
			cur = summary ? -1 : (int)n;
		} else if (cur >= 0) {
			cat(&b->of[cur], p, (size_t)(next - p));
			if (eol == p)
				cur = -1; /* the blank line ends the block */
		} else {
			if (!strncmp(p, "# processors", 12))
				b->nproc = strtol(p + 12 + strspn(p + 12, " \t:"), NULL, 10);
			cat(&b->hdr, p, (size_t)(next - p));
		}
		p = next;
	}
}

static void free_blocks(struct cpublocks *b)
{
	for (unsigned i = 0; i < MAX_SET; i++)
		free(b->of[i]);
	free(b->hdr);
}

static const char *const arch_machines[] = { "64amd64-", "128arm-", "256ppc-", "20s390-" };

/* In sets of one CPU, every third CPU and the last half, each virtual CPU's
 * lines are its physical CPU's, in order, numbered 0..n-1; the machine's
 * own lines are kept (s390's count of processors is n). */
START_TEST(test_cpuinfo_arch)
{
	const char *m = arch_machines[_i / 3];
	struct text in = load(m, "proc/cpuinfo");
	struct cpublocks real, got;
	struct set set;
	struct cps_buf out = { 0 };
	struct cps_view_input snap;

	split_blocks(in.p, in.len, &real);
	ck_assert_uint_ge(real.count, 2);
	memset(&set, 0, sizeof(set));
	for (unsigned c = 0, k = 0; c < MAX_SET; c++) {
		if (!real.of[c])
			continue;
		if ((_i % 3 == 0 && k == real.count / 3) || (_i % 3 == 1 && k % 3 == 0) ||
		    (_i % 3 == 2 && k >= real.count / 2))
			set_add(&set, c);
		k++;
	}
	snap = snap_of(&set, NULL, 0);
	ck_assert_int_eq(cps_view_cpuinfo(&out, in.p, in.len, &snap), 0);
	split_blocks(out.p, out.len, &got);
	ck_assert_msg(got.count == set.n, "%s: %u CPUs in the view, want %u", m, got.count, set.n);
	for (unsigned v = 0; v < set.n; v++) {
		ck_assert_msg(got.of[v] != NULL, "%s: no virtual CPU %u", m, v);
		ck_assert_msg(!strcmp(got.of[v], real.of[set.cpu[v]]),
			      "%s: virtual CPU %u is not physical %u:\n%s\nwant\n%s", m, v, set.cpu[v],
			      got.of[v], real.of[set.cpu[v]]);
	}
	if (real.nproc >= 0) {
		ck_assert_int_eq(got.nproc, (long)set.n);
	} else {
		ck_assert_int_eq(got.nproc, -1);
		ck_assert_str_eq(got.hdr ? got.hdr : "", real.hdr ? real.hdr : "");
	}
	free_blocks(&real);
	free_blocks(&got);
	cps_buf_free(&out);
	free(in.p);
}
END_TEST

/* src/vfd.h: a view's bytes as a read-only descriptor, each way it is
 * made: its bytes, an offset of its own, no write through it, and a
 * sealed file refusing every change. */
START_TEST(test_vfd)
{
	static const char d[] = "0-3,8\n";
	const unsigned how[] = { CPS_VFD_SEAL, CPS_VFD_TMPFILE, CPS_VFD_TMPFILE | CPS_VFD_SEAL };
	for (unsigned i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		int fd = cps_vfd(d, sizeof(d) - 1, how[i], NULL, 0444, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ge(fd, 0);
		char b[16];
		ck_assert_int_eq(read(fd, b, sizeof(b)), (int)sizeof(d) - 1);
		ck_assert(!memcmp(b, d, sizeof(d) - 1));
		ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		errno = 0;
		ck_assert_int_eq(write(fd, "x", 1), -1);
		ck_assert_int_eq(errno, EBADF);
		struct stat sb;
		ck_assert_int_eq(fstat(fd, &sb), 0);
		ck_assert_int_eq(sb.st_mode & 0777, 0444);
		ck_assert_int_eq(sb.st_size, (off_t)sizeof(d) - 1);
		/* a second reader: an offset of its own */
		int fd2 = cps_vfd_reopen(fd, O_RDONLY);
		ck_assert_int_ge(fd2, 0);
		ck_assert_int_eq(read(fd2, b, 3), 3);
		ck_assert(!memcmp(b, d, 3));
		close(fd2);
		close(fd);
	}
	int m = cps_vfd_write(d, sizeof(d) - 1, CPS_VFD_SEAL, NULL, 0);
	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(fcntl(m, F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_SEAL | F_SEAL_SHRINK),
			 F_SEAL_WRITE | F_SEAL_SEAL | F_SEAL_SHRINK);
	errno = 0;
	ck_assert_int_eq(write(m, "x", 1), -1);
	ck_assert_int_eq(errno, EPERM);
	close(m);
}
END_TEST

static Suite *views_suite(void)
{
	Suite *s = suite_create("views");
	TCase *tc;

	tc = tcase_create("buf");
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_buf_borrowed);
	tcase_add_test(tc, test_status_own_mask);
	tcase_add_test(tc, test_vfd);
	suite_add_tcase(s, tc);

	tc = tcase_create("machines");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_cpuinfo_machines, 0, NMACHINES * NSETS);
	tcase_add_loop_test(tc, test_stat_machines, 0, NSTAT_MACHINES * NSETS);
	tcase_add_test(tc, test_stat_total_known);
	tcase_add_loop_test(tc, test_views_agree, 0, NSTAT_MACHINES * NSETS);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpuinfo");
	tcase_add_test(tc, test_cpuinfo_arm_header_trailer);
	tcase_add_test(tc, test_cpuinfo_spacing_kept);
	tcase_add_test(tc, test_cpuinfo_no_trailing_blank);
	tcase_add_test(tc, test_cpuinfo_none_kept);
	tcase_add_test(tc, test_cpuinfo_invalid);
	tcase_add_test(tc, test_views_append_and_restore);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpuinfo-arch");
	tcase_add_loop_test(tc, test_cpuinfo_arch, 0, 12);
	suite_add_tcase(s, tc);

	tc = tcase_create("stat");
	tcase_add_test(tc, test_stat_shapes);
	tcase_add_test(tc, test_stat_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("status");
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_status_widths);
	tcase_add_test(tc, test_status_missing_or_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpurange");
	tcase_add_test(tc, test_cpurange);
	suite_add_tcase(s, tc);

	tc = tcase_create("garbage");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_status_mems);
	tcase_add_test(tc, test_garbage_random);
	tcase_add_test(tc, test_garbage_tokens);
	tcase_add_test(tc, test_garbage_truncated);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	/* the views of CPUSETSHIM_WIDE_POSSIBLE=1 (test_kernel_max: both) */
	cps_view_wide_possible = true;
	SRunner *sr = srunner_create(views_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
