/* src/ — the set rules (DESIGN.md "The operations"), membership, the
 * lock-free placement read the shim uses and the migration of member threads. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "src/mask.h"
#include "src/procfs.h"
#include "src/sets.h"
#include "src/kept_views.h"

#define MW(c) ((size_t)(c)->t.mask_words)

bool cps_wrap_enabled(void)
{
	const char *w = getenv("CPUSETSHIM_WRAP");
	return !(w && w[0] == '0' && w[1] == 0);
}

/* ---- open and init ---- */

static uid_t effective_uid(void)
{
	uid_t u = geteuid();
	const char *s;
	/* The test seam: only root may pretend, and only to be less. */
	if (u == 0 && (s = getenv("CPUSETSHIM_TEST_UID")) && *s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (!*end && v < (unsigned long)(uid_t)-1)
			u = (uid_t)v;
	}
	return u;
}

void cps_init_opts_default(struct cps_init_opts *o)
{
	memset(o, 0, sizeof(*o));
	shm_caps_default(&o->caps);
	o->mode = 0600;
	o->gid = (gid_t)-1;
}

struct populate_arg {
	const struct cps_init_opts *o;
	uid_t uid;
};

static int populate_root(struct shm_table *t, void *arg)
{
	struct populate_arg *pa = arg;
	size_t mw = t->mask_words;
	uint32_t id = shm_set_new_id(t);
	if (id == 0)
		return -ENOSPC;
	struct shm_set *s = shm_set_at(t, id % t->set_slots);
	memset(s, 0, t->set_rsz);
	s->id = id;
	s->flags = CPS_STRICT; /* the root is strict, as in the 2003 CPUSETS proposal */
	s->uid = (uint32_t)pa->uid;
	strcpy(s->name, "root");
	uint64_t *cpus = shm_set_mask(t, s, SHM_MASK_CPUS);
	if (pa->o->cpus) {
		cps_mask_copy(cpus, pa->o->cpus, mw);
	} else {
		/* The online CPUs the kernel lets the creator use. */
		size_t bytes = CPU_ALLOC_SIZE(CPS_MAX_CPUS);
		cpu_set_t *cs = CPU_ALLOC(CPS_MAX_CPUS);
		if (!cs)
			return -ENOMEM;
		if (sched_getaffinity(0, bytes, cs) < 0) {
			CPU_FREE(cs);
			return -errno;
		}
		cps_mask_from_cpuset(cpus, mw, cs, bytes);
		CPU_FREE(cs);
	}
	if (cps_mask_empty(cpus, mw))
		return -EINVAL;
	t->h->root_id = id;
	t->h->nsets = 1;
	return 0;
}

int cps_init(struct cps_ctx *c, const char *name, const struct cps_init_opts *o)
{
	struct populate_arg pa = { o, effective_uid() };
	memset(c, 0, sizeof(*c));
	c->uid = pa.uid;
	c->self = getpid();
	if (o->force) {
		int r = shm_table_unlink(name);
		if (r < 0 && r != -ENOENT)
			return r;
	}
	int r = shm_table_create(&c->t, name, &o->caps, o->mode, o->gid, populate_root, &pa,
				 &c->why);
	if (r == 0)
		cps_kept_remove(name); /* a former table's: best effort */
	return r;
}

int cps_open(struct cps_ctx *c, const char *name, int how)
{
	memset(c, 0, sizeof(*c));
	c->uid = effective_uid();
	c->self = getpid();
	c->patient = true;
	int r = shm_table_open(&c->t, name, how == CPS_OPEN_READ ? SHM_OPEN_RDONLY : SHM_OPEN_RDWR,
			       &c->why);
	if (r == -EACCES && !c->why && how != CPS_OPEN_READ) {
		/* readable but not writable by us: reads work, writes say EACCES */
		r = shm_table_open(&c->t, name, SHM_OPEN_RDONLY, &c->why);
	}
	if (r == -ENOENT && how == CPS_OPEN_CREATE) {
		struct cps_init_opts o;
		cps_init_opts_default(&o);
		r = cps_init(c, name, &o);
		if (r == -EEXIST) /* another process made it first: use theirs */
			r = shm_table_open(&c->t, name, SHM_OPEN_RDWR, &c->why);
	}
	return r;
}

void cps_close(struct cps_ctx *c)
{
	shm_table_close(&c->t);
}

/* ---- reading ---- */

static int read_begin(struct cps_ctx *c, uint64_t *seq)
{
	return c->patient ? shm_read_wait(&c->t, seq, 5000) : shm_read_begin(&c->t, seq);
}

static struct shm_set *set_get(struct cps_ctx *c, uint32_t id)
{
	return shm_set_by_id(&c->t, id);
}

static struct shm_set *root_of(struct cps_ctx *c)
{
	return set_get(c, c->t.root_id);
}

/* Registered set of pid if its record has this start time, else 0. */
static uint32_t registered_set(const struct shm_table *t, pid_t pid, uint64_t start)
{
	long i = shm_proc_find(t, pid);
	if (i < 0)
		return 0;
	struct shm_proc *p = shm_proc_at(t, (uint32_t)i);
	if (p->pid != pid || (start && p->start != start))
		return 0;
	return shm_set_by_id(t, p->set) ? p->set : 0;
}

/* Set of pid by registry, then ancestry. Caller holds the lock or
 * tolerates a torn answer. */
static uint32_t which_locked(struct cps_ctx *c, pid_t pid)
{
	for (int depth = 0; pid > 0 && depth < 4096; depth++) {
		struct cps_procinfo pi;
		if (cps_proc_info(pid, &pi) < 0)
			break;
		uint32_t s = registered_set(&c->t, pid, pi.start);
		if (s)
			return s;
		pid = pi.ppid;
	}
	return c->t.root_id;
}

int cps_which(struct cps_ctx *c, pid_t pid, uint32_t *id)
{
	if (pid == 0)
		pid = c->self;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		uint32_t s = which_locked(c, pid);
		if (!shm_read_retry(&c->t, seq)) {
			*id = s;
			return 0;
		}
	}
	return -EAGAIN;
}

uint32_t cps_current(struct cps_ctx *c)
{
	uint32_t id = c->t.root_id;
	cps_which(c, 0, &id);
	return id;
}

int cps_set_get(struct cps_ctx *c, uint32_t id, struct cps_setinfo *out)
{
	size_t mw = MW(c) < CPS_MAX_WORDS ? MW(c) : CPS_MAX_WORDS;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		struct shm_set *s = set_get(c, id);
		if (!s) {
			if (shm_read_retry(&c->t, seq))
				continue;
			return -EINVAL;
		}
		memset(out, 0, sizeof(*out));
		out->id = s->id;
		out->parent = s->parent;
		out->flags = s->flags;
		out->uid = s->uid;
		out->nchildren = s->nchildren;
		out->nmembers = s->nmembers;
		out->attached = s->attached;
		memcpy(out->name, s->name, sizeof(out->name));
		out->name[sizeof(out->name) - 1] = 0;
		memcpy(out->cpus, shm_set_mask(&c->t, s, SHM_MASK_CPUS), mw * 8);
		memcpy(out->reserved, shm_set_mask(&c->t, s, SHM_MASK_RESERVED), mw * 8);
		memcpy(out->sreserved, shm_set_mask(&c->t, s, SHM_MASK_SRESERVED), mw * 8);
		if (!shm_read_retry(&c->t, seq))
			return out->id == id ? 0 : -EINVAL;
	}
	return -EAGAIN;
}

long cps_set_list(struct cps_ctx *c, uint32_t *ids, size_t max)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		size_t n = 0;
		for (uint32_t i = 0; i < c->t.set_slots; i++) {
			uint32_t id = shm_set_at(&c->t, i)->id;
			if (id && id % c->t.set_slots == i) {
				if (n < max)
					ids[n] = id;
				n++;
			}
		}
		if (shm_read_retry(&c->t, seq))
			continue;
		/* slots are in id % slots order: sort the ids we return */
		size_t m = n < max ? n : max;
		for (size_t i = 1; i < m; i++)
			for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
				uint32_t x = ids[j];
				ids[j] = ids[j - 1];
				ids[j - 1] = x;
			}
		return (long)n;
	}
	return -EAGAIN;
}

long cps_members(struct cps_ctx *c, uint32_t set, struct cps_member *out, size_t max)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		size_t n = 0;
		for (uint32_t i = 0; i < c->t.proc_slots; i++) {
			const struct shm_proc *p = shm_proc_at(&c->t, i);
			if (p->pid <= 0 || (set && p->set != set))
				continue;
			if (n < max)
				out[n] = (struct cps_member){ p->pid, p->ppid, p->set, p->uid,
							      p->start };
			n++;
		}
		if (!shm_read_retry(&c->t, seq))
			return (long)n;
	}
	return -EAGAIN;
}

static bool name_ok(const char *n)
{
	size_t l = strlen(n);
	bool digits = true;
	if (l == 0 || l >= SHM_NAME_MAX)
		return false;
	for (const char *p = n; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
		if (*p < '0' || *p > '9')
			digits = false;
	}
	return !digits; /* all digits would read as an id */
}

static uint32_t find_name(struct cps_ctx *c, const char *name)
{
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *s = shm_set_at(&c->t, i);
		if (s->id && s->id % c->t.set_slots == i &&
		    !strncmp(s->name, name, SHM_NAME_MAX))
			return s->id;
	}
	return 0;
}

int cps_find(struct cps_ctx *c, const char *what, uint32_t *id)
{
	char *end;
	if (!what || !*what)
		return -EINVAL;
	if (what[0] >= '0' && what[0] <= '9') {
		unsigned long v = strtoul(what, &end, 10);
		if (*end || v == 0 || v > UINT32_MAX)
			return -EINVAL;
		if (!set_get(c, (uint32_t)v))
			return -ENOENT;
		*id = (uint32_t)v;
		return 0;
	}
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return -EAGAIN;
		uint32_t v = find_name(c, what);
		if (shm_read_retry(&c->t, seq))
			continue;
		if (!v)
			return -ENOENT;
		*id = v;
		return 0;
	}
	return -EAGAIN;
}

/* ---- writing ---- */

static int set_write_mask(struct cps_ctx *c, struct shm_set *s, int which, const uint64_t *m)
{
	return shm_write(&c->t, shm_set_mask(&c->t, s, which), m, MW(c) * 8);
}

/* The reserved masks of p are the union of its children's CPUs. */
static int rebuild_reserved(struct cps_ctx *c, struct shm_set *p)
{
	size_t mw = MW(c);
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS];
	uint32_t nchildren = 0;
	cps_mask_zero(r, mw);
	cps_mask_zero(sr, mw);
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *s = shm_set_at(&c->t, i);
		if (!s->id || s->parent != p->id)
			continue;
		uint64_t *cpus = shm_set_mask(&c->t, s, SHM_MASK_CPUS);
		cps_mask_or(r, r, cpus, mw);
		if (s->flags & CPS_STRICT)
			cps_mask_or(sr, sr, cpus, mw);
		nchildren++;
	}
	int e;
	if ((e = set_write_mask(c, p, SHM_MASK_RESERVED, r)) < 0 ||
	    (e = set_write_mask(c, p, SHM_MASK_SRESERVED, sr)) < 0)
		return e;
	if (p->nchildren != nchildren)
		return shm_write_u32(&c->t, &p->nchildren, nchildren);
	return 0;
}

static int remove_set(struct cps_ctx *c, struct shm_set *s);
static int migrate_tree(struct cps_ctx *c, pid_t pid, uint32_t set, int depth,
			const struct cps_procinfo *known);

static bool autoclean_due(const struct shm_set *s)
{
	return (s->flags & CPS_AUTOCLEAN) && s->attached && s->nmembers == 0 &&
	       s->nchildren == 0 && s->parent != 0;
}

/* Remove s and every ancestor its removal leaves due for autoclean. */
static int remove_set(struct cps_ctx *c, struct shm_set *s)
{
	for (int depth = 0; s && depth < 4096; depth++) {
		struct shm_set *p = set_get(c, s->parent);
		int e = shm_undo(&c->t, s, c->t.set_rsz);
		if (e < 0)
			return e;
		memset(s, 0, c->t.set_rsz);
		if ((e = shm_write_u32(&c->t, &c->t.h->nsets, c->t.h->nsets - 1)) < 0)
			return e;
		if (!p)
			return 0;
		if ((e = rebuild_reserved(c, p)) < 0)
			return e;
		s = autoclean_due(p) ? p : NULL;
	}
	return 0;
}

static int member_leaves(struct cps_ctx *c, uint32_t set)
{
	struct shm_set *s = set_get(c, set);
	if (!s)
		return 0;
	int e = shm_write_u32(&c->t, &s->nmembers, s->nmembers ? s->nmembers - 1 : 0);
	if (e == 0 && autoclean_due(s))
		e = remove_set(c, s);
	return e;
}

/* Dead members out, their threads' records with them.
 *
 * The walk stops once it has met as many live members as the registry
 * counts: the member slots are 128 pages at the default capacity, and
 * each page a process first touches costs it a page fault: the whole walk
 * costs more than the /proc reads of a few members. For the count to be exact
 * every record must be met once: the walk starts after a free slot, which
 * no probe run crosses, so backward-shift deletion only moves records into
 * the slot being looked at or later ones, never back past the walk. */
static int sweep_locked(struct cps_ctx *c)
{
	struct shm_table *t = &c->t;
	uint32_t slots = t->proc_slots, from = 0, kept = 0;
	int removed = 0, e;
	while (from < slots && shm_proc_at(t, from)->pid != 0)
		from++;
	/* no free slot: a corrupt registry, walk it all */
	bool exact = from < slots;
	for (uint32_t n = 0; n < slots && (!exact || kept < t->h->nprocs);) {
		uint32_t i = (from + n) & (slots - 1);
		struct shm_proc *p = shm_proc_at(t, i);
		if (p->pid <= 0 || cps_proc_alive(p->pid, p->start)) {
			kept += p->pid != 0;
			n++;
			continue;
		}
		uint32_t set = p->set;
		/* the slot is refilled by the shift: look at it again */
		if ((e = shm_proc_remove(t, i)) < 0 || (e = member_leaves(c, set)) < 0)
			return e;
		removed++;
	}
	/* (no thread on record: nothing to look at in the thread slots, which
	 * are 16 bytes plus a mask each, megabytes at the default capacities) */
	if (t->h->nthreads > 0 && (removed || t->h->nthreads >= t->h->caps.max_threads)) {
		for (uint32_t i = 0; i < t->thread_slots;) {
			struct shm_thread *th = shm_thread_at(t, i);
			if (th->tid <= 0) {
				i++;
				continue;
			}
			long pi = shm_proc_find(t, th->pid);
			bool live = pi >= 0 && shm_proc_at(t, (uint32_t)pi)->start == th->pstart &&
				    cps_thread_alive(th->pid, th->tid);
			if (live) {
				i++;
				continue;
			}
			if ((e = shm_thread_remove(t, i)) < 0)
				return e;
		}
	}
	return removed;
}

static int txn_begin(struct cps_ctx *c, bool sweep)
{
	if (!c->t.base)
		return -EINVAL;
	if (!c->t.writable) {
		c->why = "the table is not writable by this user";
		return -EACCES;
	}
	int r = shm_write_begin(&c->t);
	if (r < 0)
		return r;
	if (sweep && (r = sweep_locked(c)) < 0) {
		shm_write_abort(&c->t);
		return r;
	}
	return 0;
}

static int txn_end(struct cps_ctx *c, int r)
{
	if (r < 0)
		shm_write_abort(&c->t);
	else
		shm_write_commit(&c->t);
	return r;
}

int cps_repair(struct cps_ctx *c)
{
	if (!c->t.writable)
		return -EACCES;
	int r = shm_write_begin(&c->t);
	if (r < 0)
		return r;
	shm_write_commit(&c->t);
	return r;
}

int cps_sweep(struct cps_ctx *c)
{
	int r = txn_begin(c, false);
	if (r < 0)
		return r;
	return txn_end(c, sweep_locked(c));
}

static bool owner_ok(struct cps_ctx *c, const struct shm_set *s)
{
	return c->uid == 0 || c->uid == s->uid;
}

/* The 2003 CPUSETS proposal's rules for giving s the CPUs in cpus, checked in its order. */
static int alloc_locked(struct cps_ctx *c, struct shm_set *s, const uint64_t *cpus)
{
	size_t mw = MW(c);
	uint64_t tmp[CPS_MAX_WORDS], fresh[CPS_MAX_WORDS];
	struct shm_set *root = root_of(c), *p;
	if (s->id == c->t.root_id || s->parent == 0)
		return -EINVAL;
	if (cps_mask_empty(cpus, mw) || !root ||
	    !cps_mask_subset(cpus, shm_set_mask(&c->t, root, SHM_MASK_CPUS), mw)) {
		c->why = cps_mask_empty(cpus, mw) ? "the CPU list is empty"
						  : "a CPU is not present on this machine";
		return -EINVAL;
	}
	if (!owner_ok(c, s)) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	if (!(p = set_get(c, s->parent)))
		return -EINVAL;
	if (!cps_mask_subset(cpus, shm_set_mask(&c->t, p, SHM_MASK_CPUS), mw)) {
		c->why = "a CPU is not in the parent set";
		return -EACCES;
	}
	const uint64_t *old = shm_set_mask(&c->t, s, SHM_MASK_CPUS);
	if (s->flags & CPS_STRICT) {
		/* CPUs already ours are free for us; new ones must be held by no sibling */
		cps_mask_andnot(fresh, cpus, old, mw);
		if (cps_mask_intersects(fresh, shm_set_mask(&c->t, p, SHM_MASK_RESERVED), mw)) {
			c->why = "a CPU is held by a sibling set and this set is strict";
			return -EBUSY;
		}
	} else {
		/* our own CPUs may be in sreserved only if we are strict */
		if (cps_mask_intersects(cpus, shm_set_mask(&c->t, p, SHM_MASK_SRESERVED), mw)) {
			c->why = "a CPU is held by a strict sibling set";
			return -EBUSY;
		}
	}
	cps_mask_andnot(tmp, shm_set_mask(&c->t, s, SHM_MASK_RESERVED), cpus, mw);
	if (!cps_mask_empty(tmp, mw)) {
		c->why = "a CPU to remove is still held by a child set";
		return -EBUSY;
	}
	int e = set_write_mask(c, s, SHM_MASK_CPUS, cpus);
	return e < 0 ? e : rebuild_reserved(c, p);
}

int cps_create(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
	       const uint64_t *cpus, uint32_t *id)
{
	c->why = NULL;
	if (flags & ~CPS_FLAGS_ALL) {
		c->why = "unknown flag";
		return -EINVAL;
	}
	if (name && !name_ok(name)) {
		c->why = "a set name is 1-47 letters, digits, '.', '_' or '-', not all digits";
		return -EINVAL;
	}
	if (!parent)
		parent = cps_current(c);
	int r = txn_begin(c, true);
	if (r < 0)
		return r;
	struct shm_set *p = set_get(c, parent);
	if (!p) {
		c->why = "no such parent set";
		return txn_end(c, -EINVAL);
	}
	if ((flags & CPS_STRICT) && !(p->flags & CPS_STRICT)) {
		c->why = "a strict set can only be made inside a strict set";
		return txn_end(c, -EINVAL);
	}
	if (name && find_name(c, name)) {
		c->why = "a set with that name exists";
		return txn_end(c, -EEXIST);
	}
	uint32_t nid;
	if (c->t.h->nsets >= c->t.h->caps.max_sets || !(nid = shm_set_new_id(&c->t))) {
		c->why = "the table is full";
		return txn_end(c, -ENOSPC);
	}
	struct shm_set *s = shm_set_at(&c->t, nid % c->t.set_slots);
	if ((r = shm_undo(&c->t, s, c->t.set_rsz)) < 0)
		return txn_end(c, r);
	memset(s, 0, c->t.set_rsz);
	s->parent = parent;
	s->flags = flags;
	s->uid = (uint32_t)c->uid;
	if (name)
		strncpy(s->name, name, SHM_NAME_MAX - 1);
	__atomic_store_n(&s->id, nid, __ATOMIC_RELEASE);
	if ((r = shm_write_u32(&c->t, &c->t.h->nsets, c->t.h->nsets + 1)) < 0 ||
	    (r = rebuild_reserved(c, p)) < 0)
		return txn_end(c, r);
	if (cpus) {
		/* creating inside someone else's set is allowed; the new set is ours */
		if ((r = alloc_locked(c, s, cpus)) < 0)
			return txn_end(c, r);
	}
	*id = nid;
	return txn_end(c, 0);
}

int cps_destroy(struct cps_ctx *c, uint32_t id)
{
	c->why = NULL;
	int r = txn_begin(c, true);
	if (r < 0)
		return r;
	struct shm_set *s = set_get(c, id);
	if (!s || id == c->t.root_id) {
		c->why = s ? "the root set cannot be destroyed" : "no such set";
		return txn_end(c, -EINVAL);
	}
	if (!owner_ok(c, s)) {
		c->why = "not the owner of the set";
		return txn_end(c, -EPERM);
	}
	if (s->nmembers || s->nchildren) {
		c->why = s->nmembers ? "the set has member processes" : "the set has child sets";
		return txn_end(c, -EBUSY);
	}
	return txn_end(c, remove_set(c, s));
}

int cps_alloc(struct cps_ctx *c, uint32_t id, const uint64_t *cpus)
{
	c->why = NULL;
	if (id == c->t.root_id) {
		c->why = "the root set's CPUs are fixed when the table is made";
		return -EINVAL;
	}
	int r = txn_begin(c, true);
	if (r < 0)
		return r;
	struct shm_set *s = set_get(c, id);
	if (!s) {
		c->why = "no such set";
		return txn_end(c, -EINVAL);
	}
	bool changed = !cps_mask_equal(shm_set_mask(&c->t, s, SHM_MASK_CPUS), cpus, MW(c));
	bool members = s->nmembers > 0;
	r = txn_end(c, alloc_locked(c, s, cpus));
	if (r == 0 && changed && members)
		r = cps_migrate_set(c, id) < 0 ? -EIO : 0;
	return r;
}

/* known: pid's /proc facts if the caller has just read them, else NULL. */
static int register_txn(struct cps_ctx *c, pid_t pid, uint32_t set, bool sweep,
			const struct cps_procinfo *known)
{
	struct cps_procinfo pi;
	int r;
	if (pid == 0)
		pid = c->self;
	if (known)
		pi = *known;
	else if ((r = cps_proc_info(pid, &pi)) < 0)
		return r;
	uint32_t cur = registered_set(&c->t, pid, pi.start);
	if (cur && (set == 0 || cur == set))
		return 0; /* already recorded: no write */
	if ((r = txn_begin(c, sweep)) < 0)
		return r;
	long i = shm_proc_find(&c->t, pid);
	struct shm_proc *p = i >= 0 ? shm_proc_at(&c->t, (uint32_t)i) : NULL;
	uint32_t old = 0;
	if (p && p->start == pi.start)
		old = p->set;
	if (!set)
		set = old ? old : which_locked(c, pi.ppid);
	if (p && p->start != pi.start) {
		/* a dead member with our pid: it leaves its set */
		uint32_t dead = p->set;
		if ((r = shm_proc_remove(&c->t, (uint32_t)i)) < 0 || (r = member_leaves(c, dead)) < 0)
			return txn_end(c, r);
		p = NULL;
	}
	struct shm_set *s = set_get(c, set);
	if (!s || set == c->t.root_id || cps_mask_empty(shm_set_mask(&c->t, s, SHM_MASK_CPUS), MW(c)))
		return txn_end(c, 0); /* the root needs no members on record */
	if (old == set)
		return txn_end(c, 0);
	if (!p) {
		i = shm_proc_insert(&c->t, pid);
		if (i == -ENOSPC && (r = sweep_locked(c)) >= 0)
			i = shm_proc_insert(&c->t, pid);
		if (i < 0) {
			c->why = "the member registry is full";
			return txn_end(c, (int)i);
		}
		p = shm_proc_at(&c->t, (uint32_t)i);
	}
	struct shm_proc np = { .pid = pid, .set = set, .start = pi.start, .ppid = pi.ppid,
			       .uid = (uint32_t)pi.uid };
	if ((r = shm_write(&c->t, p, &np, sizeof(np))) < 0)
		return txn_end(c, r);
	s = set_get(c, set);
	if ((r = shm_write_u32(&c->t, &s->nmembers, s->nmembers + 1)) < 0 ||
	    (!s->attached && (r = shm_write_u32(&c->t, &s->attached, 1)) < 0))
		return txn_end(c, r);
	if (old && (r = member_leaves(c, old)) < 0)
		return txn_end(c, r);
	return txn_end(c, 0);
}

int cps_register(struct cps_ctx *c, pid_t pid, uint32_t set)
{
	return register_txn(c, pid, set, false, NULL);
}

int cps_attach(struct cps_ctx *c, uint32_t id, pid_t pid)
{
	struct cps_setinfo si;
	struct cps_procinfo pi;
	c->why = NULL;
	if (pid == 0)
		pid = c->self;
	int r = cps_set_get(c, id, &si);
	if (r < 0) {
		c->why = "no such set";
		return -EINVAL;
	}
	if (c->uid != 0 && c->uid != si.uid) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	if (cps_mask_empty(si.cpus, MW(c))) {
		c->why = "the set has no CPUs";
		return -EINVAL;
	}
	if (pid < 0 || cps_proc_info(pid, &pi) < 0) {
		c->why = "no such process";
		return -ESRCH;
	}
	if (c->uid != 0 && pi.uid != c->uid) {
		c->why = "not allowed to move that process";
		return -EPERM;
	}
	if (id == c->t.root_id) {
		/* back to the root: forget the registration */
		if ((r = txn_begin(c, true)) < 0)
			return r;
		long i = shm_proc_find(&c->t, pid);
		if (i >= 0) {
			uint32_t old = shm_proc_at(&c->t, (uint32_t)i)->set;
			if ((r = shm_proc_remove(&c->t, (uint32_t)i)) < 0 ||
			    (r = member_leaves(c, old)) < 0)
				return txn_end(c, r);
		}
		txn_end(c, 0);
	} else {
		/* one transaction: the sweep and the move */
		if ((r = register_txn(c, pid, id, true, &pi)) < 0)
			return r;
	}
	/* the process and its descendants that are in no set of their own */
	r = migrate_tree(c, pid, id, 0, &pi);
	if (r == -ENOENT)
		r = cps_migrate_set(c, id);
	return r < 0 && r != -ESRCH ? r : 0;
}

int cps_getfreecpus(struct cps_ctx *c, uint32_t parent, unsigned flags, uint64_t *out)
{
	struct cps_setinfo si;
	if (flags & ~CPS_FLAGS_ALL)
		return -EINVAL;
	if (!parent)
		parent = cps_current(c);
	if (cps_set_get(c, parent, &si) < 0)
		return -EINVAL;
	cps_mask_andnot(out, si.cpus, (flags & CPS_STRICT) ? si.reserved : si.sreserved, MW(c));
	return 0;
}

/* ---- the shim's read side ---- */

int cps_placement_read(const struct shm_table *t, pid_t pid, uint64_t start, uint32_t fallback,
		 struct cps_placement *s)
{
	size_t nw = t->mask_words < CPS_MAX_WORDS ? t->mask_words : CPS_MAX_WORDS;
	for (int tries = 0; tries < 64; tries++) {
		uint64_t seq;
		if (shm_read_begin(t, &seq) < 0)
			return -EAGAIN;
		uint32_t set = 0;
		long i = shm_proc_find(t, pid);
		if (i >= 0) {
			const struct shm_proc *p = shm_proc_at(t, (uint32_t)i);
			if (p->pid == pid && (!start || p->start == start))
				set = p->set;
		}
		struct shm_set *ss = set ? shm_set_by_id(t, set) : NULL;
		if (!ss && fallback)
			ss = shm_set_by_id(t, set = fallback);
		if (!ss)
			ss = shm_set_by_id(t, set = t->root_id);
		if (!ss) {
			if (shm_read_retry(t, seq))
				continue;
			return -EUCLEAN;
		}
		memcpy(s->cpus, shm_set_mask(t, ss, SHM_MASK_CPUS), nw * 8);
		if (shm_read_retry(t, seq))
			continue;
		s->seq = seq;
		s->set = set;
		s->nw = (uint32_t)nw;
		s->n = cps_mask_count(s->cpus, nw);
		if (s->n == 0) /* a set with no CPUs yet: nothing sensible to show */
			return -ENXIO;
		return 0;
	}
	return -EAGAIN;
}

int cps_thread_lookup(const struct shm_table *t, pid_t tid, uint64_t *wanted, size_t vnw)
{
	size_t mw = t->mask_words < vnw ? t->mask_words : vnw;
	for (int tries = 0; tries < 64; tries++) {
		uint64_t seq;
		if (shm_read_begin(t, &seq) < 0)
			return -EAGAIN;
		long i = shm_thread_find(t, tid);
		if (i < 0) {
			if (shm_read_retry(t, seq))
				continue;
			return 0;
		}
		const struct shm_thread *th = shm_thread_at(t, (uint32_t)i);
		cps_mask_zero(wanted, vnw);
		memcpy(wanted, th->wanted, mw * 8);
		if (!shm_read_retry(t, seq))
			return th->tid == tid ? 1 : 0;
	}
	return -EAGAIN;
}

int cps_thread_record(struct cps_ctx *c, pid_t pid, pid_t tid, const uint64_t *wanted, size_t vnw)
{
	size_t mw = MW(c);
	uint64_t cur[CPS_MAX_WORDS], w[CPS_MAX_WORDS];
	cps_mask_zero(w, mw);
	memcpy(w, wanted, (vnw < mw ? vnw : mw) * 8);
	if (cps_thread_lookup(&c->t, tid, cur, mw) == 1 && cps_mask_equal(cur, w, mw))
		return 0; /* already on record: no write */
	struct cps_procinfo pi;
	int r = cps_proc_info(pid, &pi);
	if (r < 0)
		return r;
	if ((r = txn_begin(c, false)) < 0)
		return r;
	long i = shm_thread_find(&c->t, tid);
	if (i < 0) {
		i = shm_thread_insert(&c->t, tid);
		if (i == -ENOSPC && sweep_locked(c) >= 0)
			i = shm_thread_insert(&c->t, tid);
		if (i < 0)
			return txn_end(c, (int)i);
	}
	struct shm_thread *th = shm_thread_at(&c->t, (uint32_t)i);
	int32_t p32 = pid;
	if ((r = shm_write(&c->t, &th->pid, &p32, sizeof(p32))) < 0 ||
	    (r = shm_write(&c->t, &th->pstart, &pi.start, sizeof(pi.start))) < 0 ||
	    (r = shm_write(&c->t, th->wanted, w, mw * 8)) < 0)
		return txn_end(c, r);
	return txn_end(c, 0);
}

/* ---- migration ---- */

/* A list of tids or pids. Most processes have a few threads and few
 * children: those fit in the list itself, with no malloc. */
struct tidlist {
	pid_t *v;
	size_t n, cap;
	pid_t inl[16];
};

static void tidlist_init(struct tidlist *l)
{
	l->v = l->inl;
	l->n = 0;
	l->cap = CPS_ARRAY_SIZE(l->inl);
}

static void tidlist_free(struct tidlist *l)
{
	if (l->v != l->inl)
		free(l->v);
}

static void tidlist_swap(struct tidlist *a, struct tidlist *b)
{
	struct tidlist x = *a;
	*a = *b;
	*b = x;
	/* a list held in its own storage: that storage moved with the copy */
	if (a->v == b->inl)
		a->v = a->inl;
	if (b->v == a->inl)
		b->v = b->inl;
}

static int collect_tid(pid_t tid, void *arg)
{
	struct tidlist *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		pid_t *v = malloc(cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, l->v, l->n * sizeof(*v));
		tidlist_free(l);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = tid;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The threads of pid, sorted. self_single: pid is the calling process and
 * had one thread when the caller read its /proc/PID/stat. That thread is
 * the caller, and none can have appeared since (only a thread of the
 * process could make one), so there is no need to read /proc. */
static int list_threads(pid_t pid, bool self_single, struct tidlist *l)
{
	l->n = 0;
	if (self_single)
		return collect_tid((pid_t)syscall(SYS_gettid), l);
	int r = cps_proc_each_thread(pid, collect_tid, l);
	if (r >= 0)
		qsort(l->v, l->n, sizeof(pid_t), cmp_pid);
	return r;
}

/* One thread onto cpus through its wanted mask. */
static int move_thread(struct cps_ctx *c, pid_t tid, const uint64_t *cpus, bool wrap)
{
	size_t mw = MW(c);
	uint64_t wanted[CPS_MAX_WORDS], phys[CPS_MAX_WORDS];
	/* a writer of another process inside the table (preempted, say)
	 * must not pass for "asks for nothing": the tools may wait */
	struct timespec ts = { 0, 1000000 };
	int w;
	for (int i = 0; (w = cps_thread_lookup(&c->t, tid, wanted, mw)) == -EAGAIN && c->patient &&
			i < 2000;
	     i++)
		nanosleep(&ts, NULL);
	if (w != 1 ||
	    cps_virt_to_phys(phys, cpus, mw, wanted, mw, wrap) == 0)
		cps_mask_copy(phys, cpus, mw); /* asked for nothing: the whole set */
	if (syscall(SYS_sched_setaffinity, tid, mw * 8, phys) < 0)
		return errno == ESRCH ? 0 : -errno;
	return 1;
}

/* cps_migrate_process; the last thread list read is left in tids (empty
 * if none could be read), for the caller to look for children.
 * self_single: pid is the caller, with one thread when it read its stat
 * file (see list_threads). */
static int migrate_threads(struct cps_ctx *c, pid_t pid, uint32_t set, bool self_single,
			   struct tidlist *tids)
{
	struct tidlist prev;
	struct cps_setinfo si;
	uint64_t last[CPS_MAX_WORDS];
	bool wrap = cps_wrap_enabled(), have_last = false, latest_in_prev = false;
	int moved = 0, r = 0;
	size_t mw = MW(c);

	tidlist_init(&prev);
	tids->n = 0;
	/* As the 2003 CPUSETS proposal's __cpuset_setaffinity: apply, then
	 * look again until neither the set's CPUs nor the thread list changed
	 * under us. */
	for (int pass = 0; pass < 100; pass++) {
		if ((r = cps_set_get(c, set, &si)) < 0)
			break;
		if ((r = list_threads(pid, self_single, tids)) < 0)
			break;
		latest_in_prev = false;
		if (have_last && cps_mask_equal(last, si.cpus, mw) && prev.n == tids->n &&
		    !memcmp(prev.v, tids->v, prev.n * sizeof(pid_t)))
			break;
		for (size_t i = 0; i < tids->n; i++) {
			int m = move_thread(c, tids->v[i], si.cpus, wrap);
			if (m < 0) {
				r = m;
				goto out;
			}
			moved += m;
		}
		cps_mask_copy(last, si.cpus, mw);
		have_last = true;
		tidlist_swap(&prev, tids);
		latest_in_prev = true;
	}
out:
	if (latest_in_prev)
		tidlist_swap(&prev, tids);
	tidlist_free(&prev);
	return r < 0 ? r : moved;
}

int cps_migrate_process(struct cps_ctx *c, pid_t pid, uint32_t set)
{
	struct tidlist tids;
	tidlist_init(&tids);
	int r = migrate_threads(c, pid, set, false, &tids);
	tidlist_free(&tids);
	return r;
}

/* Children of pid, from /proc/PID/task/TID/children for each of its
 * threads (every thread may have forked). -ENOENT if the kernel lacks
 * that file. */
static int children_of(pid_t pid, const struct tidlist *tids, struct tidlist *kids)
{
	int r = 0;
	kids->n = 0;
	for (size_t i = 0; r >= 0 && i < tids->n; i++) {
		r = cps_proc_each_child(pid, tids->v[i], collect_tid, kids);
		if (r == -ENOMEM)
			break;
		if (r < 0) /* the first thread's file missing: the kernel has none */
			r = r == -ENOENT && i == 0 ? -ENOENT : 0;
	}
	return r;
}

/* pid and every descendant that is not registered in a set of its own,
 * depth first. Returns threads moved, or -ENOENT without children files.
 * known: pid's /proc facts if the caller has just read them, else NULL. */
static int migrate_tree(struct cps_ctx *c, pid_t pid, uint32_t set, int depth,
			const struct cps_procinfo *known)
{
	struct tidlist tids, kids;
	int total = 0;
	/* a process moving itself (cpuset-run, just before its exec) knows
	 * more about itself than /proc would tell */
	bool self = depth == 0 && pid == getpid();
	tidlist_init(&tids);
	tidlist_init(&kids);
	int r = migrate_threads(c, pid, set, self && known && known->nthreads == 1, &tids);
	if (r > 0)
		total += r;
	if (depth > 64 || (self && !cps_self_has_children()))
		goto out;
	if (children_of(pid, &tids, &kids) == -ENOENT) {
		total = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < kids.n; i++) {
		long k = shm_proc_find(&c->t, kids.v[i]);
		if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->set != set)
			continue; /* a member of another set, with its subtree */
		r = migrate_tree(c, kids.v[i], set, depth + 1, NULL);
		if (r == -ENOENT) {
			total = -ENOENT;
			break;
		}
		total += r;
	}
out:
	tidlist_free(&tids);
	tidlist_free(&kids);
	return total;
}

struct pmap {
	pid_t *pid, *ppid;
	size_t n, cap;
};

static int collect_proc(pid_t pid, void *arg)
{
	struct pmap *m = arg;
	struct cps_procinfo pi;
	if (cps_proc_info(pid, &pi) < 0)
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		pid_t *a = realloc(m->pid, cap * sizeof(pid_t));
		if (!a)
			return -ENOMEM;
		m->pid = a;
		pid_t *b = realloc(m->ppid, cap * sizeof(pid_t));
		if (!b)
			return -ENOMEM;
		m->ppid = b;
		m->cap = cap;
	}
	m->pid[m->n] = pid;
	m->ppid[m->n] = pi.ppid;
	m->n++;
	return 0;
}

static pid_t ppid_of(const struct pmap *m, pid_t pid)
{
	/* /proc lists pids in increasing order */
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->pid[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->pid[lo] == pid ? m->ppid[lo] : 0;
}

static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set);

int cps_migrate_set(struct cps_ctx *c, uint32_t set)
{
	long n = cps_members(c, set, NULL, 0);
	if (n < 0)
		return (int)n;
	struct cps_member *m = calloc((size_t)n + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	n = cps_members(c, set, m, (size_t)n + 1);
	int total = 0;
	for (long i = 0; n > 0 && i < n; i++) {
		int r = migrate_tree(c, m[i].pid, set, 0, NULL);
		if (r == -ENOENT) {
			free(m);
			return migrate_set_by_scan(c, set);
		}
		total += r;
	}
	free(m);
	return total;
}

/* Without /proc/.../children: every process, by its nearest registered
 * ancestor. */
static int migrate_set_by_scan(struct cps_ctx *c, uint32_t set)
{
	struct pmap m = { 0 };
	int total = 0, r;
	if ((r = cps_proc_each(collect_proc, &m)) < 0)
		goto out;
	for (size_t i = 0; i < m.n; i++) {
		/* nearest registered ancestor (or itself) decides */
		pid_t p = m.pid[i];
		uint32_t s = 0;
		for (int depth = 0; p > 1 && depth < 4096 && !s; depth++) {
			long k = shm_proc_find(&c->t, p);
			if (k >= 0 && shm_proc_at(&c->t, (uint32_t)k)->pid == p)
				s = shm_proc_at(&c->t, (uint32_t)k)->set;
			else
				p = ppid_of(&m, p);
		}
		if (s != set)
			continue;
		r = cps_migrate_process(c, m.pid[i], set);
		if (r > 0)
			total += r;
	}
	r = total;
out:
	free(m.pid);
	free(m.ppid);
	return r;
}
