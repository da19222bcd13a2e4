/* SPDX-License-Identifier: BSD-3-Clause */
/* CPUs chosen by topology, for the tools (tools/where.h): the machine's
 * topology read from /sys/devices/system/cpu and /sys/devices/system/node
 * (below CPUSETSHIM_TEST_ROOT when it is set, as the shim reads them
 * there), made into the view a program in a set has through the shim, and
 * resolved by src/topo.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "src/topo.h"
#include "tools/cli.h"
#include "tools/where.h"

/* ---- reading /sys ---- */

/* The test root ("" for none): the tests' captured machines. */
static const char *test_root(void)
{
	const char *r = secure_getenv("CPUSETSHIM_TEST_ROOT");
	return r && r[0] == '/' ? r : "";
}

/* The first line of root/rel into buf; -1 if unreadable. Raw reads: a
 * tool inside a set runs under the shim, whose views of these files are
 * already its set's; the view is made here from the machine's. */
static int read_line(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s%s", test_root(), rel) >= sizeof(path))
		return -1;
	long n = cps_sys_read_file(path, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int read_int(const char *rel, int *v)
{
	char buf[64], *end;
	if (read_line(rel, buf, sizeof(buf)) < 0 || !buf[0])
		return -1;
	long x = strtol(buf, &end, 10);
	if (*end || x < INT_MIN || x > INT_MAX)
		return -1;
	*v = (int)x;
	return 0;
}

/* A CPU or node list file into m; -1 if unreadable or empty. */
static int read_list(const char *rel, uint64_t *m)
{
	static char buf[CPS_MAX_CPUS * 6];
	struct cps_parse_error e;
	if (read_line(rel, buf, sizeof(buf)) < 0 || !buf[0])
		return -1;
	return cps_cpulist_parse(buf, m, CPS_MAX_WORDS, &e);
}

/* dir's entries PREFIXN into m (cpuN, nodeN), read raw as the files are. */
static void scan_numbered(const char *rel, const char *prefix, uint64_t *m)
{
	_Alignas(8) char buf[4096];
	char path[PATH_MAX];
	size_t pl = strlen(prefix);
	long n;
	snprintf(path, sizeof(path), "%s%s", test_root(), rel);
	int fd = cps_sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0 && (n = cps_sys_getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n;) {
			const struct cps_dent64 *e = (const struct cps_dent64 *)(buf + at);
			char *end;
			at += e->reclen;
			if (strncmp(e->name, prefix, pl) || !cps_is_digit(e->name[pl]))
				continue;
			unsigned long x = strtoul(e->name + pl, &end, 10);
			if (!*end && x < CPS_MAX_CPUS)
				cps_mask_set(m, CPS_MAX_WORDS, (unsigned)x);
		}
	}
	if (fd >= 0)
		cps_sys_close(fd);
}

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"

/* The machine's online CPUs (those with a topology, as hwloc takes). */
static void machine_cpus(uint64_t *m)
{
	cps_mask_zero(m, CPS_MAX_WORDS);
	if (read_list(CPU_DIR "/online", m) == 0)
		return;
	scan_numbered(CPU_DIR, "cpu", m);
}

static void machine_nodes(uint64_t *m)
{
	cps_mask_zero(m, CPS_MAX_WORDS);
	if (read_list(NODE_DIR "/online", m) == 0)
		return;
	scan_numbered(NODE_DIR, "node", m);
}

/* A mask file (ff,ffffffff) into m; -1 if unreadable or empty. */
static int read_map(const char *rel, uint64_t *m)
{
	static char buf[CPS_MAX_CPUS / 2];
	struct cps_parse_error e;
	if (read_line(rel, buf, sizeof(buf)) < 0 || !buf[0])
		return -1;
	return cps_hexmask_parse(buf, m, CPS_MAX_WORDS, &e);
}

/* CPU p's file NAME_list, else its mask file NAME (older kernels wrote
 * only that one), into m; -1 if neither. */
static int cpu_cpus(unsigned p, const char *name, uint64_t *m)
{
	char rel[256];
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/%s_list", p, name);
	if (read_list(rel, m) == 0)
		return 0;
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/%s", p, name);
	return read_map(rel, m);
}

/* The first CPU of that; -1 if none. */
static int first_of(unsigned p, const char *name)
{
	uint64_t m[CPS_MAX_WORDS];
	return cpu_cpus(p, name, m) == 0 ? cps_mask_next(m, CPS_MAX_WORDS, -1) : -1;
}

static int topo_int(unsigned p, const char *file)
{
	char rel[128];
	int v;
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/topology/%s", p, file);
	return read_int(rel, &v) == 0 ? v : -1;
}

/* The first CPU sharing CPU p's cache x: by its map, as hwloc reads it
 * (some kernels wrote a list that disagreed), else by its list. */
static int cache_first(unsigned p, unsigned x)
{
	uint64_t m[CPS_MAX_WORDS];
	char rel[128];
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/cache/index%u/shared_cpu_map", p, x);
	if (read_map(rel, m) == 0)
		return cps_mask_next(m, CPS_MAX_WORDS, -1);
	snprintf(rel, sizeof(rel), "cache/index%u/shared_cpu", x);
	return first_of(p, rel);
}

/* "32K" into KiB. */
static unsigned size_kb(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	return (unsigned)(*end == 'M' ? v * 1024 : v);
}

/* CPU p's data and unified caches into v's CPU i. */
static void read_caches(struct where_view *v, unsigned i, unsigned p)
{
	static const int kinds[4] = { -1, CPS_TOPO_L1, CPS_TOPO_L2, CPS_TOPO_L3 };
	for (unsigned x = 0; x < 16; x++) {
		char rel[128], type[32], size[32];
		int level, first;
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/cache/index%u/level", p, x);
		if (read_int(rel, &level) < 0)
			continue; /* some captures skip an index */
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/cache/index%u/type", p, x);
		if (level < 1 || level > 3 || read_line(rel, type, sizeof(type)) < 0 ||
		    !strcmp(type, "Instruction"))
			continue;
		if ((first = cache_first(p, x)) < 0)
			continue;
		v->t.obj[kinds[level]][i] = first;
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/cache/index%u/size", p, x);
		v->cache_kb[level - 1][i] = read_line(rel, size, sizeof(size)) == 0 ? size_kb(size) : 0;
	}
}

/* The first CPU of p's core: of its thread siblings, the first with its
 * core_id (siblings of other core ids are a compute unit's cores, each
 * a core of its own, as hwloc takes them); -1 if unknown. */
static int core_of(unsigned p)
{
	uint64_t m[CPS_MAX_WORDS];
	int id = topo_int(p, "core_id");
	if (cpu_cpus(p, "topology/thread_siblings", m) < 0)
		return -1;
	for (int q = cps_mask_next(m, CPS_MAX_WORDS, -1); q >= 0; q = cps_mask_next(m, CPS_MAX_WORDS, q))
		if (id < 0 || topo_int((unsigned)q, "core_id") == id)
			return q;
	return (int)p;
}

/* The first CPU of CPU p's die or cluster (name), when its CPUs are
 * not those of another of p's objects (its package, core or a cache):
 * hwloc keeps no such level, which adds nothing; -1 otherwise. */
static int distinct_first(unsigned p, const char *name)
{
	static const char *others[] = { "topology/package_cpus", "topology/core_siblings",
					"topology/thread_siblings" };
	uint64_t m[CPS_MAX_WORDS], o[CPS_MAX_WORDS];
	char rel[128];
	if (cpu_cpus(p, name, m) < 0)
		return -1;
	for (size_t i = 0; i < CPS_ARRAY_SIZE(others); i++)
		if (cpu_cpus(p, others[i], o) == 0 && cps_mask_equal(m, o, CPS_MAX_WORDS))
			return -1;
	for (unsigned x = 0; x < 16; x++) {
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%u/cache/index%u/shared_cpu_map", p, x);
		if (read_map(rel, o) == 0 && cps_mask_equal(m, o, CPS_MAX_WORDS))
			return -1;
	}
	return cps_mask_next(m, CPS_MAX_WORDS, -1);
}

/* Machine CPU p as v's CPU i: its package, die, cluster, core, caches. */
static void read_cpu(struct where_view *v, unsigned i, unsigned p)
{
	struct cps_topo *t = &v->t;
	/* a package is known by its CPUs, as hwloc knows it (its id may be
	 * -1: ppc, s390), else by its id */
	int pkg = first_of(p, "topology/package_cpus"), die = topo_int(p, "die_id");
	if (pkg < 0)
		pkg = first_of(p, "topology/core_siblings");
	if (pkg < 0 && (pkg = topo_int(p, "physical_package_id")) >= 0)
		pkg += (int)CPS_MAX_CPUS;
	/* a die or cluster id of -1: none (the files may still be there) */
	int die_first = die >= 0 ? distinct_first(p, "topology/die_cpus") : -1;
	int cluster = topo_int(p, "cluster_id") >= 0 ? distinct_first(p, "topology/cluster_cpus") : -1;
	int core = core_of(p);
	for (int k = 0; k < CPS_TOPO_NKINDS; k++)
		t->obj[k][i] = -1;
	t->obj[CPS_TOPO_PU][i] = (int)i;
	t->obj[CPS_TOPO_PACKAGE][i] = pkg;
	t->obj[CPS_TOPO_DRAWER][i] = first_of(p, "topology/drawer_siblings");
	t->obj[CPS_TOPO_BOOK][i] = first_of(p, "topology/book_siblings");
	t->obj[CPS_TOPO_DIE][i] = die_first;
	t->obj[CPS_TOPO_CLUSTER][i] = cluster;
	if (core < 0) { /* no siblings list: the core's number in its package */
		int id = topo_int(p, "core_id");
		core = id >= 0 ? (int)CPS_MAX_CPUS + (pkg < 0 ? 0 : pkg) * 65536 + id : -1;
	}
	t->obj[CPS_TOPO_CORE][i] = core;
	read_caches(v, i, p);
	v->phys[i] = p;
}

/* Each CPU's node: the view's number of the node whose cpulist holds it. */
static void read_nodes(struct where_view *v, const uint64_t *nodes, bool renumber)
{
	struct cps_topo *t = &v->t;
	unsigned k = 0;
	if (cps_mask_empty(nodes, CPS_MAX_WORDS) && !renumber) {
		/* no node directory: the machine is one node, as hwloc takes it */
		t->nnodes = 1;
		for (unsigned i = 0; i < t->n; i++)
			t->obj[CPS_TOPO_NODE][i] = 0;
		return;
	}
	for (int nd = cps_mask_next(nodes, CPS_MAX_WORDS, -1); nd >= 0;
	     nd = cps_mask_next(nodes, CPS_MAX_WORDS, nd)) {
		uint64_t m[CPS_MAX_WORDS];
		char rel[128];
		unsigned num = renumber ? k : (unsigned)nd;
		snprintf(rel, sizeof(rel), NODE_DIR "/node%d/cpulist", nd);
		v->node_phys[num] = (unsigned)nd;
		k++;
		t->nnodes = num + 1;
		if (read_list(rel, m) < 0) {
			snprintf(rel, sizeof(rel), NODE_DIR "/node%d/cpumap", nd);
			if (read_map(rel, m) < 0)
				continue;
		}
		for (unsigned i = 0; i < t->n; i++)
			if (t->obj[CPS_TOPO_PU][i] >= 0 && cps_mask_test(m, CPS_MAX_WORDS, v->phys[i]))
				t->obj[CPS_TOPO_NODE][i] = (int)num;
	}
}

struct where_view *where_view_of(const uint64_t *cpus, const uint64_t *mems, size_t nw,
				 const char *where)
{
	uint64_t want[CPS_MAX_WORDS], nodes[CPS_MAX_WORDS];
	struct where_view *v = calloc(1, sizeof(*v));
	if (!v) {
		cli_err("no memory for the topology");
		return NULL;
	}
	snprintf(v->where, sizeof(v->where), "%s", where);
	v->t.where = v->where;
	machine_cpus(want);
	if (cpus) {
		uint64_t c[CPS_MAX_WORDS];
		cps_mask_zero(c, CPS_MAX_WORDS);
		cps_mask_copy(c, cpus, nw < CPS_MAX_WORDS ? nw : CPS_MAX_WORDS);
		cps_mask_and(want, want, c, CPS_MAX_WORDS);
	}
	machine_nodes(nodes);
	if (mems) {
		uint64_t c[CPS_MAX_WORDS];
		cps_mask_zero(c, CPS_MAX_WORDS);
		cps_mask_copy(c, mems, nw < CPS_MAX_WORDS ? nw : CPS_MAX_WORDS);
		cps_mask_and(nodes, nodes, c, CPS_MAX_WORDS);
	}
	unsigned i = 0;
	for (int p = cps_mask_next(want, CPS_MAX_WORDS, -1); p >= 0;
	     p = cps_mask_next(want, CPS_MAX_WORDS, p)) {
		unsigned at = cpus ? i++ : (unsigned)p;
		for (; !cpus && i < at; i++)
			v->t.obj[CPS_TOPO_PU][i] = -1; /* a hole in the machine's numbers */
		read_cpu(v, at, (unsigned)p);
		i = at + 1;
		v->t.n = i;
	}
	read_nodes(v, nodes, mems != NULL);
	int r = v->t.n ? cps_topo_finish(&v->t) : -ENOENT;
	if (r < 0) {
		cli_err("cannot read the topology of %s from %s" CPU_DIR ": %s", where,
			test_root(), r == -ENOENT ? "no CPU found" : strerror(-r));
		free(v);
		return NULL;
	}
	return v;
}

/* ---- the caller's view ---- */

struct where_view *where_caller(void)
{
	const char *tc = test_root()[0] ? secure_getenv("CPUSETSHIM_TEST_CPUS") : NULL;
	const char *tm = test_root()[0] ? secure_getenv("CPUSETSHIM_TEST_MEMS") : NULL;
	uint64_t cpus[CPS_MAX_WORDS], mems[CPS_MAX_WORDS];
	struct cps_parse_error e;
	char where[64];
	if (tc && !cli_physical) {
		/* the test root's set, as the shim shows it */
		bool m = tm && cps_cpulist_parse(tm, mems, CPS_MAX_WORDS, &e) == 0;
		if (cps_cpulist_parse(tc, cpus, CPS_MAX_WORDS, &e) < 0) {
			cli_err("CPUSETSHIM_TEST_CPUS: %s", e.msg);
			return NULL;
		}
		return where_view_of(cpus, m ? mems : NULL, CPS_MAX_WORDS, "this set");
	}
	if (!cli_own_inside())
		return where_view_of(NULL, NULL, CPS_MAX_WORDS, "this machine");
	size_t nw;
	const uint64_t *own = cli_own_cpus(&nw), *own_mems = cli_own_mems(&nw);
	snprintf(where, sizeof(where), "this process's set %u", cli_own_set_id());
	/* a set of an older layout has no nodes of its own: the machine's */
	return where_view_of(own, cps_mask_empty(own_mems, nw) ? NULL : own_mems, nw, where);
}

/* A resolver's error as cpuset's exit code, said. */
static int where_code(int r, const struct cps_topo_err *e)
{
	if (r == -ENOMEM) {
		cli_err("no memory");
		return CLI_USAGE;
	}
	cli_err("%s", e->msg);
	return r == -ENOENT ? CLI_NO_OBJECT : r == -ENOSPC ? CLI_NO_FIT : CLI_USAGE;
}

int cli_where_view(const struct where_view *v, const char *loc, uint64_t *out, size_t nw)
{
	struct cps_topo_err e;
	int r = cps_topo_resolve(&v->t, loc, out, nw, &e);
	return r < 0 ? where_code(r, &e) : CLI_OK;
}

/* The view's CPUs vm as the machine's m. */
static void to_machine(const struct where_view *v, const uint64_t *vm, uint64_t *m, size_t nw)
{
	cps_mask_zero(m, nw);
	for (int c = cps_mask_next(vm, CPS_MAX_WORDS, -1); c >= 0; c = cps_mask_next(vm, CPS_MAX_WORDS, c))
		if (v->phys[c] < nw * 64)
			cps_mask_set(m, nw, v->phys[c]);
}

int cli_where(const char *loc, uint64_t *m, size_t nw)
{
	uint64_t vm[CPS_MAX_WORDS];
	struct where_view *v = where_caller();
	if (!v)
		return CLI_USAGE;
	int r = cli_where_view(v, loc, vm, CPS_MAX_WORDS);
	if (r == CLI_OK)
		to_machine(v, vm, m, nw);
	free(v);
	return r;
}

/* ---- counts ---- */

static struct {
	struct cps_topo_count want;
	bool free, given;
	char text[96];
} count;

int cli_count_option(const char *name, const char *arg)
{
	unsigned long n;
	unsigned *to = !strcmp(name, "cores")				   ? &count.want.cores
		       : !strcmp(name, "sockets") || !strcmp(name, "packages") ? &count.want.packages
		       : !strcmp(name, "pus")				   ? &count.want.pus
										   : NULL;
	if (!strcmp(name, "free")) {
		count.free = true;
		return 0;
	}
	if (!to)
		return -1;
	if (cli_uint(arg, CPS_MAX_CPUS, &n) < 0 || n == 0) {
		cli_err("--%s: '%s' is not a count (1 or more)", name, arg);
		return CLI_USAGE;
	}
	*to = (unsigned)n;
	count.given = true;
	return 0;
}

bool cli_counting(void)
{
	return count.given || count.free;
}

const char *cli_count_text(void)
{
	const struct cps_topo_count *w = &count.want;
	unsigned per = w->cores ? w->cores : w->pus;
	const char *what = w->cores ? "core" : "PU";
	if (w->packages && per)
		snprintf(count.text, sizeof(count.text), "%u package%s of %u %s%s each%s",
			 w->packages, w->packages == 1 ? "" : "s", per, what, per == 1 ? "" : "s",
			 count.free ? ", free" : "");
	else if (w->packages)
		snprintf(count.text, sizeof(count.text), "%u package%s%s", w->packages,
			 w->packages == 1 ? "" : "s", count.free ? ", free" : "");
	else
		snprintf(count.text, sizeof(count.text), "%u %s%s%s", per, what, per == 1 ? "" : "s",
			 count.free ? ", free" : "");
	return count.text;
}

/* The machine's CPUs m as the view's vm (those outside it left out). */
static void to_view(const struct where_view *v, const uint64_t *m, size_t nw, uint64_t *vm)
{
	cps_mask_zero(vm, CPS_MAX_WORDS);
	for (unsigned c = 0; c < v->t.n; c++)
		if (v->t.obj[CPS_TOPO_PU][c] >= 0 && v->phys[c] < nw * 64 &&
		    cps_mask_test(m, nw, v->phys[c]))
			cps_mask_set(vm, CPS_MAX_WORDS, c);
}

int cli_count_view(struct cps_ctx *c, uint32_t parent, unsigned flags,
		   const struct where_view *v, uint64_t *vm)
{
	uint64_t free_m[CPS_MAX_WORDS], avail[CPS_MAX_WORDS];
	struct cps_topo_err e;
	int r;
	if (!count.given) {
		cli_err("--free goes with --cores, --sockets or --pus");
		return CLI_USAGE;
	}
	if (count.want.cores && count.want.pus) {
		cli_err("--cores and --pus exclude each other");
		return CLI_USAGE;
	}
	/* free: what no sibling holds, what a strict set could take */
	if (count.free && (r = cps_getfreecpus(c, parent, flags | CPS_STRICT, free_m)) < 0)
		return cli_refused(r, c->why, "%s", cli_count_text());
	if (count.free)
		to_view(v, free_m, c->t.mask_words, avail);
	r = cps_topo_pick(&v->t, &count.want, count.free ? avail : NULL, vm, CPS_MAX_WORDS, &e);
	return r < 0 ? where_code(r, &e) : CLI_OK;
}

int cli_count_cpus(struct cps_ctx *c, uint32_t parent, unsigned flags, uint64_t *m)
{
	uint64_t vm[CPS_MAX_WORDS];
	struct where_view *v = where_caller();
	if (!v)
		return CLI_USAGE;
	int r = cli_count_view(c, parent, flags, v, vm);
	if (r == CLI_OK)
		to_machine(v, vm, m, c->t.mask_words);
	free(v);
	return r;
}

int cli_where_run_code(int code)
{
	switch (code) {
	case CLI_OK: return 0;
	case CLI_REFUSED: return 1;
	case CLI_NO_OBJECT: return 124;
	case CLI_NO_FIT: return 123;
	default: return 125;
	}
}

/* ---- a view as a tree ---- */

struct tree {
	FILE *f;
	const struct where_view *v;
	bool node_done[CPS_MAX_CPUS];
};

/* The logical index of object key among all of kind k. */
static unsigned logical_index(const struct cps_topo *t, enum cps_topo_kind k, int key)
{
	static int keys[CPS_MAX_CPUS];
	unsigned n = cps_topo_objects(t, k, NULL, CPS_MAX_WORDS, keys);
	for (unsigned i = 0; i < n; i++)
		if (keys[i] == key)
			return i;
	return 0;
}

static const char *size_text(char *buf, size_t len, unsigned kb)
{
	if (kb >= 10240 && kb % 1024 == 0)
		snprintf(buf, len, " (%uMB)", kb / 1024);
	else if (kb)
		snprintf(buf, len, " (%uKB)", kb);
	else
		buf[0] = 0;
	return buf;
}

/* "Core L#3", "L2 L#1 (1024KB)", "PU L#0 (P#0)" into buf. */
static void label(const struct tree *tr, enum cps_topo_kind k, int key, char *buf, size_t len)
{
	static const char *names[] = { [CPS_TOPO_DRAWER] = "Group0", [CPS_TOPO_BOOK] = "Group1",
				       [CPS_TOPO_PACKAGE] = "Package", [CPS_TOPO_DIE] = "Die",
				       [CPS_TOPO_L3] = "L3",          [CPS_TOPO_CLUSTER] = "Cluster",
				       [CPS_TOPO_L2] = "L2",          [CPS_TOPO_L1] = "L1d",
				       [CPS_TOPO_CORE] = "Core",      [CPS_TOPO_PU] = "PU" };
	const struct where_view *v = tr->v;
	char extra[32] = "";
	if (k == CPS_TOPO_PU)
		snprintf(extra, sizeof(extra), " (P#%d)", key);
	else if (k == CPS_TOPO_L1 || k == CPS_TOPO_L2 || k == CPS_TOPO_L3)
		size_text(extra, sizeof(extra),
			  v->cache_kb[k == CPS_TOPO_L1 ? 0 : k == CPS_TOPO_L2 ? 1 : 2][key]);
	snprintf(buf, len, "%s L#%u%s", names[k], logical_index(&v->t, k, key), extra);
}

/* The NUMA nodes whose CPUs are exactly cpus, as children. */
static void tree_nodes(struct tree *tr, const uint64_t *cpus, int indent)
{
	const struct cps_topo *t = &tr->v->t;
	for (unsigned nd = 0; nd < t->nnodes; nd++) {
		uint64_t m[CPS_MAX_WORDS];
		cps_mask_zero(m, CPS_MAX_WORDS);
		cps_topo_cpus_of(t, CPS_TOPO_NODE, (int)nd, m, CPS_MAX_WORDS);
		if (tr->node_done[nd] || (cpus && !cps_mask_equal(m, cpus, CPS_MAX_WORDS)))
			continue;
		tr->node_done[nd] = true;
		fprintf(tr->f, "%*sNUMANode L#%u (P#%u)%s\n", indent, "", nd, nd,
			cps_mask_empty(m, CPS_MAX_WORDS) ? " (no CPU)" : "");
	}
}

/* The first kind from k on with objects in scope, and how many. */
static int next_kind(const struct cps_topo *t, int k, const uint64_t *scope, int *keys, unsigned *n)
{
	for (; k < CPS_TOPO_NODE; k++)
		if ((*n = cps_topo_objects(t, (enum cps_topo_kind)k, scope, CPS_MAX_WORDS, keys)) > 0)
			return k;
	return -1;
}

static void tree_level(struct tree *tr, const uint64_t *scope, int k, int indent)
{
	const struct cps_topo *t = &tr->v->t;
	int *keys = malloc(CPS_MAX_CPUS * sizeof(*keys)), *sub = malloc(CPS_MAX_CPUS * sizeof(*sub));
	unsigned n, ns;
	if (!keys || !sub || (k = next_kind(t, k, scope, keys, &n)) < 0)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		uint64_t cpus[CPS_MAX_WORDS], in[CPS_MAX_WORDS];
		char line[512], one[96];
		size_t len = 0;
		int kk = k, key = keys[i];
		cps_mask_zero(cpus, CPS_MAX_WORDS);
		cps_topo_cpus_of(t, (enum cps_topo_kind)k, key, cpus, CPS_MAX_WORDS);
		cps_mask_and(cpus, cpus, scope, CPS_MAX_WORDS);
		/* a chain of objects of the same CPUs on one line, as lstopo's */
		for (;;) {
			label(tr, (enum cps_topo_kind)kk, key, one, sizeof(one));
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? " + " : "", one);
			int nk = next_kind(t, kk + 1, cpus, sub, &ns);
			cps_mask_zero(in, CPS_MAX_WORDS);
			if (nk >= 0 && ns == 1)
				cps_topo_cpus_of(t, (enum cps_topo_kind)nk, sub[0], in, CPS_MAX_WORDS);
			if (nk < 0 || ns != 1 || !cps_mask_equal(in, cpus, CPS_MAX_WORDS) || len >= sizeof(line) - 100)
				break;
			kk = nk;
			key = sub[0];
		}
		fprintf(tr->f, "%*s%s\n", indent, "", line);
		tree_nodes(tr, cpus, indent + 2);
		tree_level(tr, cpus, kk + 1, indent + 2);
	}
out:
	free(keys);
	free(sub);
}

void where_print_tree(FILE *f, const struct where_view *v)
{
	struct tree *tr = calloc(1, sizeof(*tr));
	if (!tr)
		return;
	tr->f = f;
	tr->v = v;
	fprintf(f, "Machine (%s: %u PUs, %u NUMA nodes)\n", v->where,
		cps_mask_count(v->t.present, CPS_MAX_WORDS), v->t.nnodes);
	tree_nodes(tr, v->t.present, 2);
	tree_level(tr, v->t.present, CPS_TOPO_DRAWER, 2);
	tree_nodes(tr, NULL, 2);
	free(tr);
}
