/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-inspect — show and check the shared-memory set table (the 2003
 * CPUSETS proposal's /proc/cpusets, and more). It reads without the writers' lock: it copies
 * the table under the sequence counter and works on the copy. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/check.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "tools/cli.h"
#include "tools/top.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: cpuset-inspect [--table NAME] [--table-owner USER] [--json] [--check]\n"
"                      [--tree]\n"
"       cpuset-inspect --top [-d SECONDS] [-n COUNT] [--members] [--json]\n"
"                      [--table NAME] [--table-owner USER]\n"
"\n"
"Show the CPU-set table: its header, every set, every member process with\n"
"its recorded threads and their wanted (virtual) masks.\n"
"\n"
"  --check        verify every invariant; print each violation and exit 1\n"
"                 if there is any\n"
"  --tree         draw the hierarchy with a map of each set's CPUs\n"
"  --json         machine-readable output (with --top: one object a line)\n"
"  --top          a live view of the sets: CPUs, members, threads, how busy\n"
"                 their CPUs are and the members' share of that (/proc/stat\n"
"                 and each member's /proc/PID/stat a refresh); q or Ctrl-C\n"
"                 quits\n"
"  -d SECONDS     with --top: time between refreshes (default 1)\n"
"  -n COUNT       with --top: stop after COUNT refreshes\n"
"  --members      with --top: a line for each member too (its threads, CPU\n"
"                 and CPU time)\n"
"  --table NAME   the table (default $CPUSETSHIM_TABLE, else cpusetshim.<uid>)\n"
"  --table-owner USER\n"
"                 root only reads a table of another user when it is named\n"
"                 and this names its owner\n"
"  -h, --help     this text\n"
"  -V, --version  the version\n"
"\n"
"Exit status: 0 fine, 1 --check found violations, 2 bad usage,\n"
"3 the table cannot be used.\n");
}

static struct shm_table tbl;
static size_t tbl_words;
static int nviol;
static bool json;

static void viol(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void viol(const char *fmt, ...)
{
	va_list ap;
	char msg[512], safe[sizeof(msg) * 4];
	nviol++;
	if (json)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a message may quote a name's raw bytes */
	cli_escape(safe, sizeof(safe), msg, sizeof(msg));
	printf("VIOLATION: %s\n", safe);
}

/* A set's name from the copy, terminated whatever the slot holds (a raw
 * write may leave it unterminated; --check says so), "-" for none. */
static const char *set_name(const struct shm_set *s)
{
	static char buf[SHM_NAME_MAX];
	size_t n = strnlen(s->name, sizeof(s->name));
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s->name, n);
	buf[n] = 0;
	return buf[0] ? buf : "-";
}

/* The copy's threads by pid (then slot), made once: a member's threads
 * are a run found by a binary search, not a walk of every thread slot per
 * member. */
struct thr_ref {
	pid_t pid;
	uint32_t slot;
};
static struct thr_ref *thr;
static uint32_t nthr;

static int by_pid_slot(const void *a, const void *b)
{
	const struct thr_ref *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

static void index_threads(void)
{
	size_t n = 0;
	free(thr);
	nthr = 0;
	/* counted, not taken from the header, which a raw write may have changed */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && !(thr = malloc((n ? n : 1) * sizeof(*thr))))
			return; /* no memory: members are shown without their threads */
		for (uint32_t k = 0; k < tbl.thread_slots; k++) {
			struct shm_thread *th = shm_thread_at(&tbl, k);
			if (!shm_slot_present(&tbl, th, tbl.thread_rsz) || th->tid <= 0)
				continue;
			if (pass == 0)
				n++;
			else if (nthr < n)
				thr[nthr++] = (struct thr_ref){ th->pid, k };
		}
	}
	qsort(thr, nthr, sizeof(*thr), by_pid_slot);
}

/* The first entry of thr with this pid (or nthr). */
static uint32_t threads_from(pid_t pid)
{
	uint32_t lo = 0, hi = nthr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (thr[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool live_set(uint32_t i, struct shm_set **out)
{
	struct shm_set *s = shm_set_at(&tbl, i);
	*out = s;
	return shm_slot_present(&tbl, s, tbl.set_rsz) && s->id != 0;
}

/* The writers' lock and the undo journal, on the live table: a lock held
 * for over a second (a stopped writer, or a forged word), one naming a
 * thread that does not exist, one of another type; a journal that the
 * next writer would refuse. */
static void check_lock(struct cps_ctx *c)
{
	pid_t tid, again;
	char why[160];
	int st = shm_lock_state(&c->t, &tid);
	/* a second, or as long as writers are told to wait if less */
	unsigned wait = c->t.lock_wait_ms < 1000 ? c->t.lock_wait_ms : 1000;
	for (unsigned i = 0; i < wait / 50 && st == SHM_LOCK_HELD; i++) {
		struct timespec ts = { 0, 50000000 };
		nanosleep(&ts, NULL);
		if (shm_lock_state(&c->t, &again) != SHM_LOCK_HELD || again != tid)
			st = SHM_LOCK_FREE; /* it moved: writers come and go */
	}
	if (st == SHM_LOCK_HELD)
		viol("the writers' lock is held by pid %d for over %u ms: a writer that is "
		     "stopped or stuck, or a forged lock word (writers give up and name it)",
		     (int)tid, wait);
	else if (st == SHM_LOCK_DEAD)
		viol("the writers' lock names pid %d, which does not exist: a stale or forged lock "
		     "word (the next writer takes it over)", (int)tid);
	else if (st == SHM_LOCK_OWNER_DIED)
		viol("a writer died holding the lock (the next writer, or 'cpuset repair', "
		     "repairs the table)");
	else if (st == SHM_LOCK_DAMAGED)
		viol("the writers' lock is not the robust shared mutex it was made as: the table "
		     "is damaged ('cpuset init --force')");
	if (shm_journal_check(&c->t, why, sizeof(why)) < 0)
		viol("the undo journal does not check out (%s): the table is damaged "
		     "('cpuset init --force')", why);
}

static void report_violation(void *arg, const char *msg)
{
	(void)arg;
	viol("%s", msg);
}

/* Each set's members (by slot) that run, and those that ended: a record
 * stays till the next write sweeps it, and no listing counts it as a
 * member. Made once from the copy. */
static unsigned *live_n, *dead_n;

static void count_members(void)
{
	live_n = calloc(tbl.set_slots ? tbl.set_slots : 1, sizeof(*live_n));
	dead_n = calloc(tbl.set_slots ? tbl.set_slots : 1, sizeof(*dead_n));
	if (!live_n || !dead_n)
		return; /* no memory: every count reads 0 */
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (!shm_slot_present(&tbl, p, tbl.proc_rsz) || p->pid <= 0 || !tbl.set_slots)
			continue;
		uint32_t k = p->set % tbl.set_slots;
		if (shm_set_at(&tbl, k)->id != p->set)
			continue;
		if (cps_proc_alive(p->pid, p->start))
			live_n[k]++;
		else
			dead_n[k]++;
	}
}

static unsigned live_of(const struct shm_set *s, unsigned *dead)
{
	uint32_t k = s->id % (tbl.set_slots ? tbl.set_slots : 1);
	*dead = dead_n ? dead_n[k] : 0;
	return live_n ? live_n[k] : 0;
}

static int dead_members(void)
{
	int n = 0;
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (shm_slot_present(&tbl, p, tbl.proc_rsz) && p->pid > 0 &&
		    !cps_proc_alive(p->pid, p->start))
			n++;
	}
	return n;
}

static void cpumap(const uint64_t *m, const uint64_t *all)
{
	int last = cps_mask_last(all, tbl_words);
	putchar('|');
	for (int i = 0; i <= last; i++) {
		if (i && i % 64 == 0)
			printf("|\n%*s|", 40, "");
		putchar(!cps_mask_test(all, tbl_words, (unsigned)i) ? ' '
			: cps_mask_test(m, tbl_words, (unsigned)i) ? '#' : '.');
	}
	putchar('|');
}

static void tree(uint32_t id, int depth, const uint64_t *all, const char *prefix, bool lastchild)
{
	struct shm_set *s = shm_set_by_id(&tbl, id);
	if (!s || depth > 64)
		return;
	char label[256];
	snprintf(label, sizeof(label), "%s%s%u %s", prefix,
		 depth == 0 ? "" : lastchild ? "`-- " : "|-- ", s->id, cli_name(set_name(s)));
	printf("%-40s", label);
	cpumap(shm_set_mask(&tbl, s, SHM_MASK_CPUS), all);
	printf(" %s", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
	unsigned dead, live = live_of(s, &dead);
	printf(" %s, %u member%s", cli_flags(s->flags), live, live == 1 ? "" : "s");
	if (dead)
		printf(" (and %u dead)", dead);
	printf(", nodes %s", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MEMS), tbl_words));
	if (s->wrapped)
		printf(", %u wrapped bind%s", s->wrapped, s->wrapped == 1 ? "" : "s");
	putchar('\n');
	uint32_t kids[4096];
	size_t nk = 0;
	for (uint32_t i = 0; i < tbl.set_slots && nk < CPS_ARRAY_SIZE(kids); i++) {
		struct shm_set *ch;
		if (live_set(i, &ch) && ch->parent == id && ch->id != id)
			kids[nk++] = ch->id;
	}
	for (size_t i = 1; i < nk; i++)
		for (size_t j = i; j > 0 && kids[j - 1] > kids[j]; j--) {
			uint32_t x = kids[j];
			kids[j] = kids[j - 1];
			kids[j - 1] = x;
		}
	char np[256];
	snprintf(np, sizeof(np), "%s%s", prefix, depth == 0 ? "" : lastchild ? "    " : "|   ");
	for (size_t i = 0; i < nk; i++)
		tree(kids[i], depth + 1, all, np, i + 1 == nk);
}

static void show_text(void)
{
	struct shm_header *h = tbl.h;
	printf("table %s: layout %u, %u-bit masks, made %s", tbl.name, SHM_LAYOUT,
	       h->caps.mask_bits, ctime(&(time_t){ (time_t)h->created }));
	if (cli_own_inside())
		printf("  this process is in set %u: CPU numbers are the machine's, and \"in your "
		       "numbers\" its set's 0..n-1 (+machine: CPUs outside its set)\n",
		       (unsigned)cli_own_set_id());
	printf("  mode %04o, creator uid %u, seq %llu, writes %llu, repairs %llu\n", h->mode,
	       h->creator_uid, (unsigned long long)h->seq, (unsigned long long)h->writes,
	       (unsigned long long)h->repairs);
	printf("  sets %u/%u, members %u/%u, threads %u/%u\n", h->nsets, h->caps.max_sets,
	       h->nprocs, h->caps.max_procs, h->nthreads, h->caps.max_threads);
	printf("\nsets:\n");
	for (uint32_t i = 0; i < tbl.set_slots; i++) {
		struct shm_set *s;
		if (!live_set(i, &s))
			continue;
		printf("  set %u {\n    name = %s\n    parent = %u\n    flags = %s\n    owner = %s\n",
		       s->id, cli_name(set_name(s)), s->parent, cli_flags(s->flags),
		       cli_user(s->uid));
		printf("    cpus = %s\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		if (cli_own_inside())
			printf("    cpus in your numbers = %s\n",
			       cli_cpulist_own(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		printf("    reserved = %s\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_RESERVED), tbl_words));
		printf("    strictly reserved = %s\n",
		       cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_SRESERVED), tbl_words));
		printf("    mems = %s (%s)\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MEMS), tbl_words),
		       cli_mems_from(s->mems_own));
		printf("    reserved mems = %s\n",
		       cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MRESERVED), tbl_words));
		printf("    owned mems = %s\n",
		       cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MSRESERVED), tbl_words));
		unsigned dead, live = live_of(s, &dead);
		printf("    children = %u, members = %u, dead members = %u, attached = %u\n",
		       s->nchildren, live, dead, s->attached);
		/* approximate: added without the lock (doc/membership.md, the wrap) */
		printf("    wrapped binds = %u\n  }\n", s->wrapped);
	}
	printf("\nmembers:\n");
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (!shm_slot_present(&tbl, p, tbl.proc_rsz) || p->pid <= 0)
			continue;
		printf("  pid %d in set %u (parent %d, uid %u)%s\n", p->pid, p->set, p->ppid, p->uid,
		       cps_proc_alive(p->pid, p->start) ? "" : " [dead: swept on the next write]");
		for (uint32_t x = threads_from(p->pid); x < nthr && thr[x].pid == p->pid; x++) {
			struct shm_thread *th = shm_thread_at(&tbl, thr[x].slot);
			printf("    thread %d wants virtual CPUs %s\n", th->tid,
				       cli_cpulist(th->wanted, tbl_words));
		}
	}
}

static void show_json(bool checked)
{
	struct shm_header *h = tbl.h;
	printf("{\"table\":");
	cli_json_str(stdout, tbl.name);
	printf(",\"layout\":%u,\"mask_bits\":%u,\"mode\":%u,\"creator_uid\":%u,\"seq\":%llu,"
	       "\"writes\":%llu,\"repairs\":%llu,",
	       SHM_LAYOUT, h->caps.mask_bits, h->mode, h->creator_uid, (unsigned long long)h->seq,
	       (unsigned long long)h->writes, (unsigned long long)h->repairs);
	printf("\"capacity\":{\"sets\":%u,\"members\":%u,\"threads\":%u},", h->caps.max_sets,
	       h->caps.max_procs, h->caps.max_threads);
	printf("\"usage\":{\"sets\":%u,\"members\":%u,\"threads\":%u,\"unrecorded_threads\":%u},"
	       "\"sets\":[",
	       h->nsets, h->nprocs, h->nthreads, h->unrecorded);
	int first = 1;
	for (uint32_t i = 0; i < tbl.set_slots; i++) {
		struct shm_set *s;
		if (!live_set(i, &s))
			continue;
		printf("%s{\"id\":%u,\"name\":", first ? "" : ",", s->id);
		cli_json_str(stdout, s->name[0] ? set_name(s) : "");
		printf(",\"parent\":%u,\"flags\":[%s%s%s],\"owner\":%u,\"cpus\":", s->parent,
		       (s->flags & CPS_STRICT) ? "\"strict\"" : "",
		       (s->flags & CPS_FLAGS_ALL) == CPS_FLAGS_ALL ? "," : "",
		       (s->flags & CPS_AUTOCLEAN) ? "\"autoclean\"" : "", s->uid);
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		printf(",\"own_cpus\":");
		cli_json_str(stdout, cli_cpulist_own(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		printf(",\"reserved\":");
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_RESERVED), tbl_words));
		printf(",\"strictly_reserved\":");
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_SRESERVED), tbl_words));
		unsigned dead, live = live_of(s, &dead);
		printf(",\"children\":%u,\"members\":%u,\"dead_members\":%u,\"wrapped_binds\":%u,"
		       "\"mems\":", s->nchildren, live, dead, s->wrapped);
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MEMS), tbl_words));
		printf(",\"mems_from\":\"%s\",\"mems_reserved\":", cli_mems_from(s->mems_own));
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MRESERVED), tbl_words));
		printf(",\"mems_owned\":");
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_MSRESERVED), tbl_words));
		printf("}");
		first = 0;
	}
	printf("],\"members\":[");
	first = 1;
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (!shm_slot_present(&tbl, p, tbl.proc_rsz) || p->pid <= 0)
			continue;
		printf("%s{\"pid\":%d,\"set\":%u,\"ppid\":%d,\"uid\":%u,\"alive\":%s,\"threads\":[",
		       first ? "" : ",", p->pid, p->set, p->ppid, p->uid,
		       cps_proc_alive(p->pid, p->start) ? "true" : "false");
		int tf = 1;
		for (uint32_t x = threads_from(p->pid); x < nthr && thr[x].pid == p->pid; x++) {
			struct shm_thread *th = shm_thread_at(&tbl, thr[x].slot);
			printf("%s{\"tid\":%d,\"wanted\":", tf ? "" : ",", th->tid);
			cli_json_str(stdout, cli_cpulist(th->wanted, tbl_words));
			printf("}");
			tf = 0;
		}
		printf("]}");
		first = 0;
	}
	printf("]");
	if (checked)
		printf(",\"violations\":%d", nviol);
	printf("}\n");
}

/* What the command line asks. */
struct inspect_opts {
	const char *table;
	bool check, tree, top, top_arg;
	struct top_opts topo;
};

/* --top's -d and -n: 0, or an exit status. */
static int top_number(int ch, struct top_opts *topo)
{
	if (ch == 'd') {
		char *end;
		errno = 0;
		topo->delay = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(topo->delay >= 0.01) || topo->delay > 86400) {
			cli_err("-d wants seconds between 0.01 and 86400, not '%s'", optarg);
			return CLI_USAGE;
		}
		return 0;
	}
	unsigned long v;
	if (cli_uint(optarg, 0x7fffffff, &v) < 0 || v == 0) {
		cli_err("-n wants a count of refreshes (1 or more), not '%s'", optarg);
		return CLI_USAGE;
	}
	topo->count = (long)v;
	return 0;
}

/* The options into o: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct inspect_opts *o)
{
	static const struct option opts[] = {
		{ "table", required_argument, 0, 'T' }, { "json", no_argument, 0, 'j' },
		{ "table-owner", required_argument, 0, 'O' },
		{ "check", no_argument, 0, 'c' },       { "tree", no_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },        { "version", no_argument, 0, 'V' },
		{ "top", no_argument, 0, 'P' },         { "members", no_argument, 0, 'M' },
		{ 0, 0, 0, 0 }
	};
	int ch, r;
	while ((ch = getopt_long(argc, argv, "hVd:n:", opts, NULL)) != -1) {
		switch (ch) {
		case 'P': o->top = true; break;
		case 'M': o->topo.members = o->top_arg = true; break;
		case 'd':
		case 'n':
			if ((r = top_number(ch, &o->topo)))
				return r;
			o->top_arg = true;
			break;
		case 'T': o->table = optarg; break;
		case 'O':
			if (cli_table_owner(optarg))
				return CLI_USAGE;
			break;
		case 'j': json = true; break;
		case 'c': o->check = true; break;
		case 't': o->tree = true; break;
		case 'h': usage(stdout); return CLI_OK;
		case 'V': printf("cpuset-inspect (cpusetshim) %s\n", PACKAGE_VERSION); return CLI_OK;
		default: fprintf(stderr, "Try 'cpuset-inspect --help'.\n"); return CLI_USAGE;
		}
	}
	if (optind != argc) {
		cli_err("unexpected argument '%s'", argv[optind]);
		return CLI_USAGE;
	}
	if (o->top_arg && !o->top) {
		cli_err("-d, -n and --members go with --top");
		return CLI_USAGE;
	}
	if (o->top && (o->check || o->tree)) {
		cli_err("--top excludes --check and --tree");
		return CLI_USAGE;
	}
	return -1;
}

/* --check's last words in text: the thread registry's losses, the verdict. */
static void check_summary(void)
{
	if (tbl.h->unrecorded || tbl.h->nthreads >= tbl.h->caps.max_threads)
		/* not a violation of the table: a loss its users must hear of */
		printf("WARNING: the thread registry is %s (%u of %u threads); %u thread CPU "
		       "mask%s could not be recorded since the table was made: such threads get "
		       "the whole set at the next resize (make the table with a larger "
		       "--max-threads)\n",
		       tbl.h->nthreads >= tbl.h->caps.max_threads ? "full" : "not full now",
		       tbl.h->nthreads, tbl.h->caps.max_threads, tbl.h->unrecorded,
		       tbl.h->unrecorded == 1 ? "" : "s");
	int dead = dead_members();
	if (nviol == 0)
		printf("table %s: consistent (%u sets, %u members, %u threads%s)\n", tbl.name,
		       tbl.h->nsets, tbl.h->nprocs, tbl.h->nthreads,
		       dead ? ", some dead members to sweep" : "");
	else
		printf("table %s: %d violation%s\n", tbl.name, nviol, nviol == 1 ? "" : "s");
}

int main(int argc, char **argv)
{
	struct inspect_opts o = { .topo = { .delay = 1.0, .count = 0 } };
	cli_init(argv[0]);
	int r = parse_args(argc, argv, &o);
	if (r >= 0)
		return r;
	struct cps_ctx c;
	if ((r = cli_open(&c, o.table, CPS_OPEN_READ)))
		return r;
	if (o.top) {
		o.topo.json = json;
		r = top_run(&c, &o.topo);
		cps_close(&c);
		return r;
	}
	cli_own_set(&c);
	if (cps_table_copy(&c, &tbl) < 0) {
		cli_err("out of memory");
		return CLI_TABLE;
	}
	tbl_words = tbl.mask_words < CPS_MAX_WORDS ? tbl.mask_words : CPS_MAX_WORDS;
	count_members();
	if (o.check) {
		check_lock(&c);
		cps_check(&tbl, report_violation, NULL);
	}
	if (json || (!o.tree && !o.check))
		index_threads();
	if (json) {
		show_json(o.check);
	} else if (o.tree) {
		struct shm_set *root = shm_set_by_id(&tbl, tbl.root_id);
		if (root)
			tree(tbl.root_id, 0, shm_set_mask(&tbl, root, SHM_MASK_CPUS), "", true);
	} else if (!o.check) {
		show_text();
	}
	if (o.check && !json)
		check_summary();
	free(thr);
	thr = NULL;
	free(live_n);
	free(dead_n);
	cps_table_copy_free(&tbl);
	cps_close(&c);
	return o.check && nviol ? CLI_REFUSED : CLI_OK;
}
