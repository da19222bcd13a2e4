/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the set rules (DESIGN.md "The rules"): create, destroy, alloc
 * of CPUs and of memory nodes, getfreecpus; the reserved unions and the
 * repair of the tree. Opening a table and reading its sets: sets.c. */
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

int cps_repair_tree(struct cps_ctx *c, uint32_t *moved, uint32_t *groups)
{
	*moved = *groups = 0;
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
	long g = r < 0 ? 0 : shm_occ_rebuild(&c->t);
	if (g < 0)
		r = (int)g;
	else
		*groups = (uint32_t)g;
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
	if (name && !cps_name_ok(name)) {
		c->why = CPS_NAME_RULE;
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
	if (name && cps_find_name(c, name)) {
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
		      const uint64_t *cpus, const struct cps_mems *mems, pid_t pid,
		      uint32_t *id)
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
	r = create_locked(c, parent, flags, name, cpus, mems, &nid);
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

