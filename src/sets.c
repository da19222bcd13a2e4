/* src/ — the set rules (DESIGN.md "The rules"): opening and making a
 * table, the sets and their names, create, destroy, alloc and
 * getfreecpus. The transaction every write of src/ runs in is txn.c's,
 * membership is in membership.c, the shim's side in placement.c,
 * migration in migrate.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/kept_views.h"
#include "src/allowance.h"
#include "src/mask.h"
#include "src/nodes.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/cgmirror.h"
#include "src/sets.h"
#include "src/sets_internal.h"

bool cps_wrap_enabled(void)
{
	const char *w = cps_getenv("CPUSETSHIM_WRAP");
	return !(w && w[0] == '0' && w[1] == 0);
}

/* ---- open and init ---- */

static uid_t effective_uid(void)
{
	uid_t u = geteuid();
	const char *s;
	/* The test seam: only root may pretend, and only to be less. */
	if (u == 0 && (s = cps_getenv("CPUSETSHIM_TEST_UID")) && *s) {
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

int cps_root_cpus_check(const uint64_t *cpus, size_t nw, uint64_t *offline)
{
	uint64_t online[CPS_MAX_WORDS];
	cps_mask_zero(offline, nw);
	if (cps_online_cpus(online, nw) < 0)
		return 0; /* nothing to check against */
	cps_mask_andnot(offline, cpus, online, nw);
	return cps_mask_empty(offline, nw) ? 0 : -EINVAL;
}

int cps_root_mems_check(const uint64_t *mems, size_t nw, uint64_t *absent)
{
	uint64_t have[CPS_MAX_WORDS];
	cps_machine_mems(have, nw);
	cps_mask_andnot(absent, mems, have, nw);
	return cps_mask_empty(absent, nw) ? 0 : -EINVAL;
}

const char *cps_nesting_refusal(unsigned parent_flags, unsigned flags)
{
	if ((flags & CPS_STRICT) && !(parent_flags & CPS_STRICT))
		return "a strict set can only be made inside a strict set";
	return NULL;
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
		/* The machine's online CPUs, whoever makes the table: what a
		 * caller may use is decided per operation (the kernel's
		 * allowance), not by the creator's affinity. */
		int r = cps_online_cpus(cpus, mw);
		if (r < 0)
			return r;
	}
	if (cps_mask_empty(cpus, mw))
		return -EINVAL;
	/* the machine's nodes with memory, as the kernel's top cpuset */
	uint64_t *mems = shm_set_mask(t, s, SHM_MASK_MEMS);
	if (pa->o->mems)
		cps_mask_copy(mems, pa->o->mems, mw);
	else
		cps_machine_mems(mems, mw);
	if (cps_mask_empty(mems, mw))
		return -EINVAL;
	s->mems_own = CPS_MEMS_LIST;
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
	int faults = how & CPS_OPEN_FAULTS ? SHM_OPEN_FAULTS : 0;
	how &= ~CPS_OPEN_FAULTS;
	memset(c, 0, sizeof(*c));
	c->uid = effective_uid();
	c->self = getpid();
	c->patient = true;
	int r = shm_table_open(&c->t, name,
			       (how == CPS_OPEN_READ ? SHM_OPEN_RDONLY : SHM_OPEN_RDWR) | faults,
			       &c->why);
	if (r == -EACCES && !c->why && how != CPS_OPEN_READ) {
		/* readable but not writable by us: reads work, writes say EACCES */
		r = shm_table_open(&c->t, name, SHM_OPEN_RDONLY | faults, &c->why);
	}
	if (r == -ENOENT && how == CPS_OPEN_CREATE) {
		struct cps_init_opts o;
		cps_init_opts_default(&o);
		r = cps_init(c, name, &o);
		if (r == -EEXIST) /* another process made it first: use theirs */
			r = shm_table_open(&c->t, name, SHM_OPEN_RDWR | faults, &c->why);
		else if (r == 0)
			c->t.faults = faults != 0;
	}
	c->foreign_uid = 0;
	/* Root (the real one: the uid seam grants nothing) on a table of
	 * another user: whatever that user wrote in it must not make root move
	 * a third user's processes. */
	if (r == 0 && geteuid() == 0 && c->t.file_uid != 0)
		c->foreign_uid = (long)c->t.file_uid;
	return r;
}

uint32_t cps_autoclean_clock(void)
{
	struct timespec ts;
	/* system-wide, counts suspend, and is never stepped: the same in
	 * every process sharing the table (the table lives in /dev/shm, so
	 * no longer than the boot) */
	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_sec;
}

const char *cps_errname(int err)
{
	switch (err < 0 ? -err : err) {
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case ENOSPC: return "ENOSPC";
	case ESRCH: return "ESRCH";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case EUCLEAN: return "EUCLEAN";
	case ESTALE: return "ESTALE";
	case EOWNERDEAD: return "EOWNERDEAD";
	default: return "error";
	}
}

int cps_foreign_check(struct cps_ctx *c, pid_t pid)
{
	/* root moving itself (cpuset-run, asked by root) is root's choice */
	if (c->foreign_uid <= 0 || pid == c->self)
		return 0;
	long ruid = cps_proc_real_uid(pid);
	if (ruid == -ESRCH)
		return -ESRCH;
	if (ruid != c->foreign_uid) {
		c->why = "the table is another user's: root moves only that user's processes "
			 "with it";
		return -EPERM;
	}
	return 0;
}

void cps_close(struct cps_ctx *c)
{
	shm_table_close(&c->t);
}

/* ---- reading ---- */

/* cps_set_get on the table as it was committed: a writer stays inside
 * (stopped, or dead and we may not repair); its undo journal holds what it
 * changed. */
static int set_get_committed(struct cps_ctx *c, uint32_t id, struct cps_setinfo *out)
{
	size_t mw = MW(c) < CPS_MAX_WORDS ? MW(c) : CPS_MAX_WORDS;
	union {
		struct shm_set s;
		unsigned char b[sizeof(struct shm_set) + SHM_SET_MASKS * 8 * CPS_MAX_WORDS];
	} u;
	if (!id || !c->t.set_slots || c->t.set_rsz < sizeof(struct shm_set) + SHM_SET_MASKS * 8 * mw)
		return -EINVAL;
	size_t len = sizeof(struct shm_set) + SHM_SET_MASKS * 8 * (size_t)c->t.mask_words;
	if (len > sizeof(u))
		len = sizeof(u);
	int r = shm_read_committed(&c->t, shm_set_at(&c->t, id % c->t.set_slots), len, u.b);
	if (r < 0)
		return r == -EUCLEAN ? r : -EAGAIN;
	if (u.s.id != id)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->id = u.s.id;
	out->parent = u.s.parent;
	out->flags = u.s.flags;
	out->uid = u.s.uid;
	out->nchildren = u.s.nchildren;
	out->nmembers = u.s.nmembers;
	out->attached = u.s.attached;
	memcpy(out->name, u.s.name, sizeof(out->name));
	out->name[sizeof(out->name) - 1] = 0;
	memcpy(out->cpus, u.s.masks, mw * 8);
	memcpy(out->reserved, u.s.masks + c->t.mask_words, mw * 8);
	memcpy(out->sreserved, u.s.masks + 2 * (size_t)c->t.mask_words, mw * 8);
	out->mems_own = u.s.mems_own;
	memcpy(out->mems, u.s.masks + SHM_MASK_MEMS * (size_t)c->t.mask_words, mw * 8);
	memcpy(out->mreserved, u.s.masks + SHM_MASK_MRESERVED * (size_t)c->t.mask_words, mw * 8);
	memcpy(out->msreserved, u.s.masks + SHM_MASK_MSRESERVED * (size_t)c->t.mask_words, mw * 8);
	return 0;
}

int cps_set_get(struct cps_ctx *c, uint32_t id, struct cps_setinfo *out)
{
	size_t mw = MW(c) < CPS_MAX_WORDS ? MW(c) : CPS_MAX_WORDS;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return set_get_committed(c, id, out);
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
		out->mems_own = s->mems_own;
		memcpy(out->mems, shm_set_mask(&c->t, s, SHM_MASK_MEMS), mw * 8);
		memcpy(out->mreserved, shm_set_mask(&c->t, s, SHM_MASK_MRESERVED), mw * 8);
		memcpy(out->msreserved, shm_set_mask(&c->t, s, SHM_MASK_MSRESERVED), mw * 8);
		if (!shm_read_retry(&c->t, seq))
			return out->id == id ? 0 : -EINVAL;
	}
	return -EAGAIN;
}

long cps_set_ids(struct cps_ctx *c, uint32_t **out)
{
	/* a table holds at most set_slots sets: one read fills it */
	uint32_t *v = malloc((c->t.set_slots + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	long n = cps_set_list(c, v, c->t.set_slots + 1);
	if (n < 0) {
		free(v);
		return n;
	}
	*out = v;
	return n < (long)c->t.set_slots + 1 ? n : (long)c->t.set_slots + 1;
}

long cps_set_list(struct cps_ctx *c, uint32_t *ids, size_t max)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		int rb = read_begin(c, &seq);
		if (rb < 0)
			return rb;
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

/* find_name on the table as it was committed: a writer stays inside it
 * (stopped, or dead and we may not repair). */
static int find_name_committed(struct cps_ctx *c, const char *name, uint32_t *id)
{
	const struct shm_table *t = &c->t;
	for (uint32_t i = 0; i < t->set_slots; i++) {
		struct shm_set *s = shm_set_at(t, i);
		uint32_t sid;
		char n[SHM_NAME_MAX];
		int r = shm_read_committed(t, &s->id, sizeof(sid), &sid);
		if (r == 0 && sid)
			r = shm_read_committed(t, s->name, sizeof(n), n);
		if (r < 0)
			return r == -EUCLEAN ? r : -EAGAIN;
		if (sid && sid % t->set_slots == i && !strncmp(n, name, SHM_NAME_MAX)) {
			*id = sid;
			return 0;
		}
	}
	return -ENOENT;
}

int cps_find(struct cps_ctx *c, const char *what, uint32_t *id)
{
	char *end;
	if (!what || !*what)
		return -EINVAL;
	/* all digits: an id (names are never all digits); else a name, which
	 * may start with a digit */
	if (what[strspn(what, "0123456789")] == 0) {
		unsigned long v = strtoul(what, &end, 10);
		if (*end || v == 0 || v > UINT32_MAX || strlen(what) > 10)
			return -EINVAL;
		if (!set_get(c, (uint32_t)v))
			return -ENOENT;
		*id = (uint32_t)v;
		return 0;
	}
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		if (read_begin(c, &seq) < 0)
			return find_name_committed(c, what, id);
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

/* A strict set owns the nodes it chose (a list, or auto). */
static bool mems_owned(const struct shm_set *s)
{
	return (s->flags & CPS_STRICT) && s->mems_own != CPS_MEMS_PARENT;
}

/* The reserved masks of p are the union of its children's CPUs (and
 * nodes: all its children's, and those its strict children own). */
static int rebuild_reserved(struct cps_ctx *c, struct shm_set *p)
{
	size_t mw = MW(c);
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS], mr[CPS_MAX_WORDS], msr[CPS_MAX_WORDS];
	uint32_t nchildren = 0;
	cps_mask_zero(r, mw);
	cps_mask_zero(sr, mw);
	cps_mask_zero(mr, mw);
	cps_mask_zero(msr, mw);
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *s = shm_set_at(&c->t, i);
		if (!s->id || s == p || s->parent != p->id)
			continue;
		uint64_t *cpus = shm_set_mask(&c->t, s, SHM_MASK_CPUS);
		cps_mask_or(r, r, cpus, mw);
		if (s->flags & CPS_STRICT)
			cps_mask_or(sr, sr, cpus, mw);
		uint64_t *mems = shm_set_mask(&c->t, s, SHM_MASK_MEMS);
		cps_mask_or(mr, mr, mems, mw);
		if (mems_owned(s))
			cps_mask_or(msr, msr, mems, mw);
		nchildren++;
	}
	int e;
	if ((e = set_write_mask(c, p, SHM_MASK_RESERVED, r)) < 0 ||
	    (e = set_write_mask(c, p, SHM_MASK_SRESERVED, sr)) < 0 ||
	    (e = set_write_mask(c, p, SHM_MASK_MRESERVED, mr)) < 0 ||
	    (e = set_write_mask(c, p, SHM_MASK_MSRESERVED, msr)) < 0)
		return e;
	if (p->nchildren != nchildren)
		return shm_write_u32(&c->t, &p->nchildren, nchildren);
	return 0;
}

/* Whether s's parents lead to the root. Raw writes can make a set its
 * own parent, or two sets each other's: such a set hangs under no set's
 * counts as the rules keep them. */
static bool reaches_root(struct cps_ctx *c, const struct shm_set *s)
{
	for (uint32_t n = 0; s && n <= c->t.set_slots; n++) {
		if (s->id == c->t.root_id)
			return true;
		if (s->parent == s->id)
			return false;
		s = set_get(c, s->parent);
	}
	return false;
}

/* Every set's children counts and reserved CPUs made again from the
 * parents on record: after damage, when a count cannot be told from its
 * set alone. O(sets with children x slots): rare by construction. */
static int recount_all(struct cps_ctx *c)
{
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *p = shm_set_at(&c->t, i);
		if (!p->id || p->id % c->t.set_slots != i)
			continue;
		bool parent = p->nchildren != 0 || p->id == c->t.root_id;
		for (uint32_t j = 0; !parent && j < c->t.set_slots; j++) {
			struct shm_set *ch = shm_set_at(&c->t, j);
			parent = ch->id && ch != p && ch->parent == p->id;
		}
		int e;
		if (parent && (e = rebuild_reserved(c, p)) < 0)
			return e;
	}
	return 0;
}

int cps_remove_set(struct cps_ctx *c, struct shm_set *s)
{
	for (int depth = 0; s && depth < 4096; depth++) {
		struct shm_set *p = set_get(c, s->parent);
		/* a set that is its own parent, or in a cycle of parents: the
		 * counts that held it are not its parent's alone */
		bool damaged = p == s || !reaches_root(c, s);
		if (p == s)
			p = NULL;
		int e = shm_undo(&c->t, s, c->t.set_rsz);
		if (e < 0)
			return e;
		memset(s, 0, c->t.set_rsz);
		if ((e = shm_write_u32(&c->t, &c->t.h->nsets, c->t.h->nsets - 1)) < 0)
			return e;
		if (damaged)
			return recount_all(c);
		if (!p)
			return 0;
		if ((e = rebuild_reserved(c, p)) < 0)
			return e;
		s = autoclean_due(p) ? p : NULL;
	}
	return 0;
}

/* Sets whose parent is id (but id itself), by the parents on record, not
 * by id's count, which raw writes may have left wrong. */
static bool has_children(struct cps_ctx *c, uint32_t id)
{
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *ch = shm_set_at(&c->t, i);
		if (ch->id && ch->id != id && ch->parent == id)
			return true;
	}
	return false;
}

int cps_repair_tree(struct cps_ctx *c, uint32_t *moved)
{
	*moved = 0;
	int r = cps_txn_begin(c, false);
	if (r < 0)
		return r;
	for (uint32_t i = 0; r >= 0 && i < c->t.set_slots; i++) {
		struct shm_set *s = shm_set_at(&c->t, i);
		if (!s->id || s->id % c->t.set_slots != i || s->id == c->t.root_id ||
		    reaches_root(c, s))
			continue;
		/* under the root again: every set's CPUs are the machine's */
		r = shm_write_u32(&c->t, &s->parent, c->t.root_id);
		(*moved)++;
	}
	if (r >= 0)
		r = recount_all(c);
	return cps_txn_end(c, r);
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
	/* The kernel's allowance: no CPU the caller cannot run on is added
	 * (those the set has already may stay) */
	cps_mask_andnot(fresh, cpus, old, mw);
	int e = cps_allowance_check(fresh, mw, &c->why);
	if (e < 0)
		return e;
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
	e = set_write_mask(c, s, SHM_MASK_CPUS, cpus);
	return e < 0 ? e : rebuild_reserved(c, p);
}


/* Whether a child of p but s holds one of the nodes in m. */
static bool sibling_holds(struct cps_ctx *c, const struct shm_set *s, const struct shm_set *p,
			  const uint64_t *m)
{
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		struct shm_set *o = shm_set_at(&c->t, i);
		if (o->id && o != s && o != p && o->parent == p->id &&
		    cps_mask_intersects(shm_set_mask(&c->t, o, SHM_MASK_MEMS), m, MW(c)))
			return true;
	}
	return false;
}

/* The nodes s is to get, by how: CPS_MEMS_LIST the list; CPS_MEMS_AUTO
 * the nodes holding its CPUs, within its parent's, else as
 * CPS_MEMS_PARENT; CPS_MEMS_PARENT its parent's nodes that no strict
 * sibling owns. Those two keep to the nodes the caller may use when any
 * is left (a caller confined to some nodes makes sets on them). */
static int mems_wanted(struct cps_ctx *c, struct shm_set *s, struct shm_set *p, unsigned how,
		       const uint64_t *list, uint64_t *out)
{
	size_t mw = MW(c);
	uint64_t ok[CPS_MAX_WORDS], t[CPS_MAX_WORDS];
	const uint64_t *pm = shm_set_mask(&c->t, p, SHM_MASK_MEMS);
	if (how == CPS_MEMS_LIST) {
		cps_mask_copy(out, list, mw);
		return 0;
	}
	/* what the caller may use of them, when it may use any (else the
	 * rules below say why not) */
	if (cps_mems_allowed(ok, mw) < 0)
		cps_mask_fill(ok, mw, (unsigned)(mw * 64));
	if (mems_owned(s))
		cps_mask_or(ok, ok, shm_set_mask(&c->t, s, SHM_MASK_MEMS), mw);
	if (how == CPS_MEMS_AUTO) {
		int e = cps_cpu_nodes(shm_set_mask(&c->t, s, SHM_MASK_CPUS), out, mw);
		if (e < 0)
			return e;
		cps_mask_and(out, out, pm, mw);
		cps_mask_and(t, out, ok, mw);
		if (!cps_mask_empty(t, mw))
			cps_mask_copy(out, t, mw);
		if (!cps_mask_empty(out, mw))
			return 0;
	}
	cps_mask_andnot(out, pm, shm_set_mask(&c->t, p, SHM_MASK_MSRESERVED), mw);
	if (mems_owned(s))
		cps_mask_or(out, out, shm_set_mask(&c->t, s, SHM_MASK_MEMS), mw);
	cps_mask_and(t, out, ok, mw);
	if (!cps_mask_empty(t, mw))
		cps_mask_copy(out, t, mw);
	return 0;
}

/* The rules for giving s memory nodes, in the order of the CPUs' rules. */
/* Whether the nodes may be given to s at all: not the root, a known way,
 * the caller its owner. */
static int mems_asked_ok(struct cps_ctx *c, const struct shm_set *s, unsigned how,
			 const uint64_t *list)
{
	if (s->id == c->t.root_id || s->parent == 0) {
		c->why = "the root set's nodes are fixed when the table is made";
		return -EINVAL;
	}
	if (how > CPS_MEMS_AUTO || (how == CPS_MEMS_LIST && !list)) {
		c->why = "unknown way of giving nodes";
		return -EINVAL;
	}
	if (!owner_ok(c, s)) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	return 0;
}

/* The nodes m: not empty, on the machine (the root's), in the parent p. */
static int mems_inside(struct cps_ctx *c, struct shm_set *p, unsigned how,
		       const uint64_t *m)
{
	size_t mw = MW(c);
	struct shm_set *root = root_of(c);
	if (cps_mask_empty(m, mw)) {
		c->why = how == CPS_MEMS_LIST ? "the node list is empty"
					      : "the parent has no node free for such a set (strict "
						"siblings own them all)";
		return how == CPS_MEMS_LIST ? -EINVAL : -EBUSY;
	}
	if (!root || !cps_mask_subset(m, shm_set_mask(&c->t, root, SHM_MASK_MEMS), mw)) {
		c->why = "a node is not present on this machine (or holds no memory)";
		return -EINVAL;
	}
	if (!cps_mask_subset(m, shm_set_mask(&c->t, p, SHM_MASK_MEMS), mw)) {
		c->why = "a node is not in the parent set";
		return -EACCES;
	}
	return 0;
}

/* The nodes m against the others: the kernel's allowance for the nodes
 * added, strict siblings, the children's nodes that would be taken. */
static int mems_shared_ok(struct cps_ctx *c, struct shm_set *s, struct shm_set *p,
			  unsigned how, const uint64_t *m)
{
	size_t mw = MW(c);
	uint64_t fresh[CPS_MAX_WORDS], tmp[CPS_MAX_WORDS];
	const uint64_t *old = shm_set_mask(&c->t, s, SHM_MASK_MEMS);
	/* the kernel's allowance: no node added outside the caller's
	 * Mems_allowed or its cgroup's nodes (kept ones may stay) */
	cps_mask_andnot(fresh, m, old, mw);
	int e = cps_mems_allowance_check(fresh, mw, &c->why);
	if (e < 0)
		return e;
	bool owns = (s->flags & CPS_STRICT) && how != CPS_MEMS_PARENT;
	if (owns) {
		/* every node it did not own yet must be held by no sibling (the
		 * parent's union holds its own nodes too: the siblings are asked) */
		if (!mems_owned(s))
			cps_mask_copy(fresh, m, mw);
		if (cps_mask_intersects(fresh, shm_set_mask(&c->t, p, SHM_MASK_MRESERVED), mw) &&
		    sibling_holds(c, s, p, fresh)) {
			c->why = "a node is held by a sibling set and this set is strict";
			return -EBUSY;
		}
	} else if (cps_mask_intersects(m, shm_set_mask(&c->t, p, SHM_MASK_MSRESERVED), mw)) {
		c->why = "a node is owned by a strict sibling set";
		return -EBUSY;
	}
	cps_mask_andnot(tmp, shm_set_mask(&c->t, s, SHM_MASK_MRESERVED), m, mw);
	if (!cps_mask_empty(tmp, mw)) {
		c->why = "a node to remove is still held by a child set";
		return -EBUSY;
	}
	return 0;
}

static int mems_locked(struct cps_ctx *c, struct shm_set *s, unsigned how, const uint64_t *list)
{
	uint64_t m[CPS_MAX_WORDS];
	struct shm_set *p;
	int e = mems_asked_ok(c, s, how, list);
	if (e < 0)
		return e;
	if (!(p = set_get(c, s->parent)))
		return -EINVAL;
	if ((e = mems_wanted(c, s, p, how, list, m)) < 0 || (e = mems_inside(c, p, how, m)) < 0 ||
	    (e = mems_shared_ok(c, s, p, how, m)) < 0)
		return e;
	if ((e = set_write_mask(c, s, SHM_MASK_MEMS, m)) < 0)
		return e;
	if (s->mems_own != how && (e = shm_write_u32(&c->t, &s->mems_own, how)) < 0)
		return e;
	return rebuild_reserved(c, p);
}

static int create_check(struct cps_ctx *c, unsigned flags, const char *name)
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
	return 0;
}

/* cps_create inside a transaction. */
static int create_locked(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
			 const uint64_t *cpus, const struct cps_mems *mems, uint32_t *id)
{
	int r;
	struct shm_set *p = set_get(c, parent);
	if (!p) {
		c->why = "no such parent set";
		return -EINVAL;
	}
	if ((c->why = cps_nesting_refusal(p->flags, flags)) != NULL)
		return -EINVAL;
	if (name && find_name(c, name)) {
		c->why = "a set with that name exists";
		return -EEXIST;
	}
	uint32_t nid;
	if (c->t.h->nsets >= c->t.h->caps.max_sets || !(nid = shm_set_new_id(&c->t))) {
		c->why = "the table is full";
		return -ENOSPC;
	}
	struct shm_set *s = shm_set_at(&c->t, nid % c->t.set_slots);
	if ((r = shm_undo(&c->t, s, c->t.set_rsz)) < 0)
		return r;
	memset(s, 0, c->t.set_rsz);
	s->parent = parent;
	s->flags = flags;
	s->uid = (uint32_t)c->uid;
	s->created = cps_autoclean_clock();
	if (name)
		strncpy(s->name, name, SHM_NAME_MAX - 1);
	__atomic_store_n(&s->id, nid, __ATOMIC_RELEASE);
	if ((r = shm_write_u32(&c->t, &c->t.h->nsets, c->t.h->nsets + 1)) < 0 ||
	    (r = rebuild_reserved(c, p)) < 0)
		return r;
	/* creating inside someone else's set is allowed; the new set is ours */
	if (cpus && (r = alloc_locked(c, s, cpus)) < 0)
		return r;
	if ((r = mems_locked(c, s, mems ? mems->how : CPS_MEMS_PARENT, mems ? mems->nodes : NULL)) < 0)
		return r;
	*id = nid;
	return 0;
}

int cps_create(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
	       const uint64_t *cpus, uint32_t *id)
{
	return cps_create_mems(c, parent, flags, name, cpus, NULL, id);
}

int cps_create_mems(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
		    const uint64_t *cpus, const struct cps_mems *mems, uint32_t *id)
{
	int r = create_check(c, flags, name);
	if (r < 0)
		return r;
	if (!parent)
		parent = cps_current(c);
	if ((r = cps_txn_begin(c, true)) < 0)
		return r;
	return cps_txn_end(c, create_locked(c, parent, flags, name, cpus, mems, id));
}

/* cps_destroy inside its transaction; d: the dead found before it. */
static int destroy_locked(struct cps_ctx *c, uint32_t id, struct cps_dead_list *d)
{
	int r;
	struct shm_set *s = set_get(c, id);
	if (!s || id == c->t.root_id) {
		c->why = s ? "the root set cannot be destroyed" : "no such set";
		return -EINVAL;
	}
	if (!owner_ok(c, s)) {
		c->why = "not the owner of the set";
		return -EPERM;
	}
	if ((r = cps_sweep_apply(c, d, false)) < 0)
		return r;
	if (!(s = set_get(c, id)))
		return 0;
	if (s->nmembers || s->nchildren || has_children(c, id)) {
		c->why = s->nmembers ? "the set has member processes" : "the set has child sets";
		return -EBUSY;
	}
	return cps_remove_set(c, s);
}

int cps_destroy(struct cps_ctx *c, uint32_t id)
{
	/* the set is looked at before the sweep: an AUTOCLEAN set whose
	 * members have all died goes in the sweep, and that is the destroy
	 * asked for, not "no such set". The dead (every member of this set
	 * in full) are looked for before the lock, as every sweep's. */
	struct cps_dead_list d = { 0 };
	if (c->t.base && c->t.writable)
		cps_find_dead(c, false, id, &d);
	int r = cps_txn_begin(c, false);
	if (r >= 0)
		r = cps_txn_end(c, destroy_locked(c, id, &d));
	cps_dead_list_free(&d);
	if (r == 0)
		cps_cgm_prune(c); /* its cgroup, and those of sets swept with it */
	return r;
}

int cps_alloc(struct cps_ctx *c, uint32_t id, const uint64_t *cpus)
{
	return cps_alloc_mems(c, id, cpus, NULL);
}

/* alloc's CPUs (if any), then its nodes: those given, else its auto
 * nodes again when its CPUs changed. */
static int alloc_mems_locked(struct cps_ctx *c, struct shm_set *s, const uint64_t *cpus,
			     const struct cps_mems *mems, bool changed)
{
	int r = cpus ? alloc_locked(c, s, cpus) : 0;
	if (r < 0)
		return r;
	if (mems)
		return mems_locked(c, s, mems->how, mems->nodes);
	if (changed && s->mems_own == CPS_MEMS_AUTO)
		return mems_locked(c, s, CPS_MEMS_AUTO, NULL);
	return 0;
}

int cps_alloc_mems(struct cps_ctx *c, uint32_t id, const uint64_t *cpus, const struct cps_mems *mems)
{
	if (id == c->t.root_id) {
		c->why = cpus ? "the root set's CPUs are fixed when the table is made"
			      : "the root set's nodes are fixed when the table is made";
		return -EINVAL;
	}
	if (!cpus && !mems) {
		c->why = "nothing to give";
		return -EINVAL;
	}
	int r = cps_txn_begin_for(c, true, id);
	if (r < 0)
		return r;
	struct shm_set *s = set_get(c, id);
	if (!s) {
		c->why = "no such set";
		return cps_txn_end(c, -EINVAL);
	}
	bool changed = cpus && !cps_mask_equal(shm_set_mask(&c->t, s, SHM_MASK_CPUS), cpus, MW(c));
	bool members = s->nmembers > 0;
	/* the nodes the set leaves (from) and holds after (to): the members'
	 * pages on from move, after the commit, with their threads */
	uint64_t from[CPS_MAX_WORDS], to[CPS_MAX_WORDS];
	cps_mask_copy(from, shm_set_mask(&c->t, s, SHM_MASK_MEMS), MW(c));
	r = alloc_mems_locked(c, s, cpus, mems, changed);
	cps_mask_copy(to, shm_set_mask(&c->t, s, SHM_MASK_MEMS), MW(c));
	bool mchanged = !cps_mask_equal(from, to, MW(c));
	cps_mask_andnot(from, from, to, MW(c));
	r = cps_txn_end(c, r);
	bool left = !cps_mask_empty(from, MW(c));
	c->unmoved = 0;
	c->unmoved_pages = 0;
	/* the cgroup mirror's nodes first: the kernel confines (and, v1 with
	 * memory_migrate or v2, moves) from there */
	if (r == 0 && mchanged && (r = cps_cgm_mems(c, id)) < 0) {
		c->why = "the set has its new nodes, but its cgroup's cpuset.mems could not be "
			 "written";
		return r;
	}
	if (r == 0 && (changed || left) && members &&
	    (r = cps_migrate_set_mems(c, id, from, to)) < 0)
		c->why = "the set has its new CPUs, but moving its members' threads failed";
	if (r >= 0 && c->unmoved) {
		/* the table holds the new CPUs; never in silence */
		c->why = c->unmoved_pages == c->unmoved
				 ? "the set has its new nodes, but the kernel did not move all the "
				   "pages of some member processes"
				 : "the set has its new CPUs, but the kernel refused to move some member "
				   "processes";
		return -c->unmoved_err;
	}
	return r < 0 ? r : 0;
}
int cps_create_attach(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
		      const uint64_t *cpus, pid_t pid, uint32_t *id)
{
	struct cps_procinfo pi;
	uint32_t nid = 0;
	int r = create_check(c, flags, name);
	if (r < 0)
		return r;
	if (!cpus) {
		c->why = "a set to attach to needs CPUs";
		return -EINVAL;
	}
	if (pid == 0)
		pid = c->self;
	if (pid < 0 || cps_proc_info(pid, &pi) < 0) {
		c->why = "no such process";
		return -ESRCH;
	}
	if (c->uid != 0 && pi.uid != c->uid) {
		c->why = "not allowed to move that process";
		return -EPERM;
	}
	if (!parent)
		parent = cps_current(c);
	/* one transaction: a set made is a set attached, so an AUTOCLEAN set
	 * goes with its last member even if its maker dies at once */
	if ((r = cps_txn_begin(c, true)) < 0)
		return r;
	r = create_locked(c, parent, flags, name, cpus, NULL, &nid);
	if (r == 0)
		r = cps_register_locked(c, pid, nid, &pi);
	if ((r = cps_txn_end(c, r)) < 0)
		return r;
	*id = nid;
	return cps_attach_move(c, pid, nid, &pi,
			       "made and registered in the set, but the kernel refused to move the "
			       "process");
}

int cps_getfreecpus(struct cps_ctx *c, uint32_t parent, unsigned flags, uint64_t *out)
{
	struct cps_setinfo si;
	if (flags & ~CPS_FLAGS_ALL) {
		c->why = "unknown flag";
		return -EINVAL;
	}
	if (!parent)
		parent = cps_current(c);
	int r = cps_set_get(c, parent, &si);
	if (r < 0) {
		c->why = r == -EAGAIN ? "the table stayed busy (a writer inside)" : "no such set";
		return r == -EAGAIN ? r : -EINVAL;
	}
	cps_mask_andnot(out, si.cpus, (flags & CPS_STRICT) ? si.reserved : si.sreserved, MW(c));
	return 0;
}

