/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — opening and making a table, reading its sets and their names
 * (the rules that change them: rules.c). The transaction every write of
 * src/ runs in is txn.c's, membership is in membership.c, the shim's side
 * in placement.c, migration in migrate.c. */
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

struct set_get_arg {
	uint32_t id;
	struct cps_setinfo *out;
};

static long set_get_body(struct cps_ctx *c, void *arg)
{
	const struct set_get_arg *a = arg;
	size_t mw = MW(c) < CPS_MAX_WORDS ? MW(c) : CPS_MAX_WORDS;
	struct cps_setinfo *out = a->out;
	struct shm_set *s = set_get(c, a->id);
	if (!s)
		return -EINVAL;
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
	return out->id == a->id ? 0 : -EINVAL;
}

int cps_set_get(struct cps_ctx *c, uint32_t id, struct cps_setinfo *out)
{
	struct set_get_arg a = { id, out };
	bool busy = false;
	long r = read_section(c, 1000, set_get_body, &a, &busy);
	return busy ? set_get_committed(c, id, out) : (int)r;
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

struct set_list_arg {
	uint32_t *ids;
	size_t max;
};

static long set_list_body(struct cps_ctx *c, void *arg)
{
	const struct set_list_arg *a = arg;
	size_t n = 0;
	for (uint32_t i = 0; i < c->t.set_slots; i++) {
		uint32_t id = shm_set_at(&c->t, i)->id;
		if (id && id % c->t.set_slots == i) {
			if (n < a->max)
				a->ids[n] = id;
			n++;
		}
	}
	return (long)n;
}

long cps_set_list(struct cps_ctx *c, uint32_t *ids, size_t max)
{
	struct set_list_arg a = { ids, max };
	long n = read_section(c, 1000, set_list_body, &a, NULL);
	if (n < 0)
		return n;
	/* slots are in id % slots order: sort the ids we return */
	size_t m = (size_t)n < max ? (size_t)n : max;
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			uint32_t x = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	return n;
}

void cps_count_wrapped(const struct shm_table *t, uint32_t set)
{
	if (!t->writable || shm_table_lost(t))
		return;
	struct shm_set *s = shm_set_by_id(t, set);
	if (s)
		__atomic_fetch_add(&s->wrapped, 1u, __ATOMIC_RELAXED);
}

bool cps_name_ok(const char *n)
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

uint32_t cps_find_name(struct cps_ctx *c, const char *name)
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

static long find_body(struct cps_ctx *c, void *arg)
{
	return cps_find_name(c, arg);
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
	bool busy = false;
	long v = read_section(c, 1000, find_body, (void *)what, &busy);
	if (busy)
		return find_name_committed(c, what, id);
	if (v <= 0)
		return v < 0 ? (int)v : -ENOENT;
	*id = (uint32_t)v;
	return 0;
}

