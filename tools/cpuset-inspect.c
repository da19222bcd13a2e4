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

#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "tools/cli.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: cpuset-inspect [--table NAME] [--json] [--check] [--tree]\n"
"\n"
"Show the CPU-set table: its header, every set, every member process with\n"
"its recorded threads and their wanted (virtual) masks.\n"
"\n"
"  --check        verify every invariant; print each violation and exit 1\n"
"                 if there is any\n"
"  --tree         draw the hierarchy with a map of each set's CPUs\n"
"  --json         machine-readable output\n"
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

/* A private copy of the table, taken consistently. */
static int table_copy(struct cps_ctx *c, struct shm_table *copy)
{
	unsigned char *buf = malloc(c->t.size);
	if (!buf)
		return -ENOMEM;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (shm_read_wait(&c->t, &seq, 5000) < 0)
			break;
		memcpy(buf, c->t.base, c->t.size);
		if (shm_read_retry(&c->t, seq))
			continue;
		*copy = c->t;
		ptrdiff_t d = buf - c->t.base;
		copy->base = buf;
		copy->h = (struct shm_header *)buf;
		copy->sets += d;
		copy->procs += d;
		copy->threads += d;
		copy->journal += d;
		copy->writable = false;
		return 0;
	}
	/* a writer stays inside (or died there): show what is, and say so */
	memcpy(buf, c->t.base, c->t.size);
	*copy = c->t;
	ptrdiff_t d = buf - c->t.base;
	copy->base = buf;
	copy->h = (struct shm_header *)buf;
	copy->sets += d;
	copy->procs += d;
	copy->threads += d;
	copy->journal += d;
	copy->writable = false;
	return 1;
}

static struct shm_table tbl;
static size_t tbl_words;
static int nviol;
static bool json;

static void viol(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void viol(const char *fmt, ...)
{
	va_list ap;
	nviol++;
	if (json)
		return;
	printf("VIOLATION: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static bool live_set(uint32_t i, struct shm_set **out)
{
	struct shm_set *s = shm_set_at(&tbl, i);
	*out = s;
	return s->id != 0;
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

static int check(void)
{
	struct shm_header *h = tbl.h;
	size_t mw = tbl_words;
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS];
	uint32_t nsets = 0, nprocs = 0, nthreads = 0;

	if (h->seq & 1)
		viol("the sequence counter is odd: a writer is inside, or died there (the next "
		     "writer repairs it)");
	if (h->jcount && !(h->seq & 1))
		viol("the undo journal holds %u entries outside a write", h->jcount);
	struct shm_set *root = shm_set_by_id(&tbl, tbl.root_id);
	if (!root)
		viol("the root set %u is missing", tbl.root_id);
	for (uint32_t i = 0; i < tbl.set_slots; i++) {
		struct shm_set *s;
		if (!live_set(i, &s))
			continue;
		nsets++;
		if (s->id % tbl.set_slots != i)
			viol("set %u sits in slot %u, not %u", s->id, i, s->id % tbl.set_slots);
		uint64_t *cpus = shm_set_mask(&tbl, s, SHM_MASK_CPUS);
		if (s->flags & ~CPS_FLAGS_ALL)
			viol("set %u has unknown flags %#x", s->id, s->flags);
		if (memchr(s->name, 0, sizeof(s->name)) == NULL)
			viol("set %u has an unterminated name", s->id);
		if (s->id == tbl.root_id) {
			if (s->parent)
				viol("the root set has a parent (%u)", s->parent);
		} else {
			struct shm_set *p = shm_set_by_id(&tbl, s->parent);
			if (!p) {
				viol("set %u has a missing parent %u", s->id, s->parent);
			} else {
				if (!cps_mask_subset(cpus, shm_set_mask(&tbl, p, SHM_MASK_CPUS), mw))
					viol("set %u holds CPUs outside its parent %u", s->id,
					     s->parent);
				if ((s->flags & CPS_STRICT) && !(p->flags & CPS_STRICT))
					viol("strict set %u inside non-strict set %u", s->id,
					     p->id);
			}
		}
		/* children: reserved masks, count, strict exclusivity */
		cps_mask_zero(r, mw);
		cps_mask_zero(sr, mw);
		uint32_t nch = 0;
		for (uint32_t j = 0; j < tbl.set_slots; j++) {
			struct shm_set *ch;
			if (!live_set(j, &ch) || ch->parent != s->id || ch == s)
				continue;
			nch++;
			uint64_t *cc = shm_set_mask(&tbl, ch, SHM_MASK_CPUS);
			cps_mask_or(r, r, cc, mw);
			if (ch->flags & CPS_STRICT) {
				cps_mask_or(sr, sr, cc, mw);
				for (uint32_t k = 0; k < tbl.set_slots; k++) {
					struct shm_set *sib;
					if (!live_set(k, &sib) || sib == ch || sib->parent != s->id)
						continue;
					if (cps_mask_intersects(cc, shm_set_mask(&tbl, sib, SHM_MASK_CPUS), mw))
						viol("strict set %u shares CPUs with sibling %u", ch->id,
						     sib->id);
				}
			}
		}
		if (!cps_mask_equal(r, shm_set_mask(&tbl, s, SHM_MASK_RESERVED), mw))
			viol("set %u: reserved CPUs are not the union of its children's", s->id);
		if (!cps_mask_equal(sr, shm_set_mask(&tbl, s, SHM_MASK_SRESERVED), mw))
			viol("set %u: strictly reserved CPUs are not the union of its strict "
			     "children's", s->id);
		if (nch != s->nchildren)
			viol("set %u counts %u children but has %u", s->id, s->nchildren, nch);
		uint32_t nm = 0;
		for (uint32_t j = 0; j < tbl.proc_slots; j++) {
			struct shm_proc *p = shm_proc_at(&tbl, j);
			if (p->pid > 0 && p->set == s->id)
				nm++;
		}
		if (nm != s->nmembers)
			viol("set %u counts %u members but has %u", s->id, s->nmembers, nm);
		if (nm && !s->attached)
			viol("set %u has members but is not marked attached", s->id);
		for (uint32_t j = i + 1; j < tbl.set_slots && s->name[0]; j++) {
			struct shm_set *o;
			if (live_set(j, &o) && !strncmp(o->name, s->name, SHM_NAME_MAX))
				viol("sets %u and %u share the name '%s'", s->id, o->id, s->name);
		}
	}
	if (nsets != h->nsets)
		viol("the header counts %u sets but there are %u", h->nsets, nsets);
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (p->pid == 0)
			continue;
		nprocs++;
		if (p->pid < 0)
			viol("member slot %u holds pid %d", j, p->pid);
		else if (shm_proc_find(&tbl, p->pid) != (long)j)
			viol("member %d in slot %u cannot be found by its pid (dangling index)",
			     p->pid, j);
		if (!shm_set_by_id(&tbl, p->set))
			viol("member %d is in a missing set %u", p->pid, p->set);
	}
	if (nprocs != h->nprocs)
		viol("the header counts %u members but there are %u", h->nprocs, nprocs);
	for (uint32_t j = 0; j < tbl.thread_slots; j++) {
		struct shm_thread *th = shm_thread_at(&tbl, j);
		if (th->tid == 0)
			continue;
		nthreads++;
		if (th->tid < 0 || shm_thread_find(&tbl, th->tid) != (long)j)
			viol("thread %d in slot %u cannot be found by its tid (dangling index)",
			     th->tid, j);
	}
	if (nthreads != h->nthreads)
		viol("the header counts %u threads but there are %u", h->nthreads, nthreads);
	return nviol;
}

static int dead_members(void)
{
	int n = 0;
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (p->pid > 0 && !cps_proc_alive(p->pid, p->start))
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
		 depth == 0 ? "" : lastchild ? "`-- " : "|-- ", s->id,
		 s->name[0] ? s->name : "-");
	printf("%-40s", label);
	cpumap(shm_set_mask(&tbl, s, SHM_MASK_CPUS), all);
	printf(" %s %s, %u member%s\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words),
	       cli_flags(s->flags), s->nmembers, s->nmembers == 1 ? "" : "s");
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
		       s->id, s->name[0] ? s->name : "-", s->parent, cli_flags(s->flags),
		       cli_user(s->uid));
		printf("    cpus = %s\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		printf("    reserved = %s\n", cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_RESERVED), tbl_words));
		printf("    strictly reserved = %s\n",
		       cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_SRESERVED), tbl_words));
		printf("    children = %u, members = %u, attached = %u\n  }\n", s->nchildren,
		       s->nmembers, s->attached);
	}
	printf("\nmembers:\n");
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (p->pid <= 0)
			continue;
		printf("  pid %d in set %u (parent %d, uid %u)%s\n", p->pid, p->set, p->ppid, p->uid,
		       cps_proc_alive(p->pid, p->start) ? "" : " [dead: swept on the next write]");
		for (uint32_t k = 0; k < tbl.thread_slots; k++) {
			struct shm_thread *th = shm_thread_at(&tbl, k);
			if (th->tid > 0 && th->pid == p->pid)
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
	printf("\"usage\":{\"sets\":%u,\"members\":%u,\"threads\":%u},\"sets\":[", h->nsets,
	       h->nprocs, h->nthreads);
	int first = 1;
	for (uint32_t i = 0; i < tbl.set_slots; i++) {
		struct shm_set *s;
		if (!live_set(i, &s))
			continue;
		printf("%s{\"id\":%u,\"name\":", first ? "" : ",", s->id);
		cli_json_str(stdout, s->name);
		printf(",\"parent\":%u,\"flags\":[%s%s%s],\"owner\":%u,\"cpus\":", s->parent,
		       (s->flags & CPS_STRICT) ? "\"strict\"" : "",
		       (s->flags & CPS_FLAGS_ALL) == CPS_FLAGS_ALL ? "," : "",
		       (s->flags & CPS_AUTOCLEAN) ? "\"autoclean\"" : "", s->uid);
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_CPUS), tbl_words));
		printf(",\"reserved\":");
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_RESERVED), tbl_words));
		printf(",\"strictly_reserved\":");
		cli_json_str(stdout, cli_cpulist(shm_set_mask(&tbl, s, SHM_MASK_SRESERVED), tbl_words));
		printf(",\"children\":%u,\"members\":%u}", s->nchildren, s->nmembers);
		first = 0;
	}
	printf("],\"members\":[");
	first = 1;
	for (uint32_t j = 0; j < tbl.proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(&tbl, j);
		if (p->pid <= 0)
			continue;
		printf("%s{\"pid\":%d,\"set\":%u,\"ppid\":%d,\"uid\":%u,\"alive\":%s,\"threads\":[",
		       first ? "" : ",", p->pid, p->set, p->ppid, p->uid,
		       cps_proc_alive(p->pid, p->start) ? "true" : "false");
		int tf = 1;
		for (uint32_t k = 0; k < tbl.thread_slots; k++) {
			struct shm_thread *th = shm_thread_at(&tbl, k);
			if (th->tid > 0 && th->pid == p->pid) {
				printf("%s{\"tid\":%d,\"wanted\":", tf ? "" : ",", th->tid);
				cli_json_str(stdout, cli_cpulist(th->wanted, tbl_words));
				printf("}");
				tf = 0;
			}
		}
		printf("]}");
		first = 0;
	}
	printf("]");
	if (checked)
		printf(",\"violations\":%d", nviol);
	printf("}\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "table", required_argument, 0, 'T' }, { "json", no_argument, 0, 'j' },
		{ "table-owner", required_argument, 0, 'O' },
		{ "check", no_argument, 0, 'c' },       { "tree", no_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },        { "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 }
	};
	const char *table = NULL;
	bool do_check = false, do_tree = false;
	int ch;
	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'T': table = optarg; break;
		case 'O':
			if (cli_table_owner(optarg))
				return CLI_USAGE;
			break;
		case 'j': json = true; break;
		case 'c': do_check = true; break;
		case 't': do_tree = true; break;
		case 'h': usage(stdout); return CLI_OK;
		case 'V': printf("cpuset-inspect (cpusetshim) %s\n", PACKAGE_VERSION); return CLI_OK;
		default: fprintf(stderr, "Try 'cpuset-inspect --help'.\n"); return CLI_USAGE;
		}
	}
	if (optind != argc) {
		cli_err("unexpected argument '%s'", argv[optind]);
		return CLI_USAGE;
	}
	struct cps_ctx c;
	int r = cli_open(&c, table, CPS_OPEN_READ);
	if (r)
		return r;
	if (table_copy(&c, &tbl) < 0) {
		cli_err("out of memory");
		return CLI_TABLE;
	}
	tbl_words = tbl.mask_words < CPS_MAX_WORDS ? tbl.mask_words : CPS_MAX_WORDS;
	if (do_check) {
		check_lock(&c);
		check();
	}
	if (json) {
		show_json(do_check);
	} else if (do_tree) {
		struct shm_set *root = shm_set_by_id(&tbl, tbl.root_id);
		if (root)
			tree(tbl.root_id, 0, shm_set_mask(&tbl, root, SHM_MASK_CPUS), "", true);
	} else if (!do_check) {
		show_text();
	}
	if (do_check && !json) {
		int dead = dead_members();
		if (nviol == 0)
			printf("table %s: consistent (%u sets, %u members, %u threads%s)\n", tbl.name,
			       tbl.h->nsets, tbl.h->nprocs, tbl.h->nthreads,
			       dead ? ", some dead members to sweep" : "");
		else
			printf("table %s: %d violation%s\n", tbl.name, nviol, nviol == 1 ? "" : "s");
	}
	free(tbl.base);
	cps_close(&c);
	return do_check && nviol ? CLI_REFUSED : CLI_OK;
}
