/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the read side the tools use to look at a whole table: a private,
 * consistent copy of it, and the table's invariants checked on a copy
 * (cpuset-inspect --check, and the unit tests after every case). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/check.h"
#include "src/mask.h"
#include "src/rawsys.h"
#include "src/sets.h"

/* The table's file, read into buf where it holds data: the holes (slots
 * never written, most of a large table) are skipped, so they stay zero
 * pages of an untouched anonymous mapping, neither copied nor made
 * resident in the table's tmpfs. The same file as the mapping's (its
 * fixed header part equal), else -ESTALE. */
static void mark_present(uint64_t *present, off_t from, off_t to)
{
	for (size_t pg = (size_t)from / SHM_PRESENT_PAGE; pg <= (size_t)(to - 1) / SHM_PRESENT_PAGE; pg++)
		present[pg / 64] |= (uint64_t)1 << (pg % 64);
}

static int copy_extents(const struct shm_table *t, unsigned char *buf, uint64_t *present)
{
	char path[SHM_TABLE_NAME_MAX + 16];
	struct shm_header h;
	int r = shm_table_path(path, sizeof(path), t->name);
	if (r < 0)
		return r;
	int fd = cps_sys_open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fd;
	r = -ESTALE;
	if (cps_sys_pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(&h, t->base, offsetof(struct shm_header, seq)))
		goto out;
	off_t end = (off_t)t->size, at = 0;
	while (at < end) {
		off_t data = cps_sys_lseek(fd, at, SEEK_DATA);
		if (data < 0) {
			if (data == -ENXIO) /* nothing but a hole up to the end */
				break;
			data = at; /* no SEEK_DATA: read everything */
		}
		if (data >= end)
			break;
		off_t hole = cps_sys_lseek(fd, data, SEEK_HOLE);
		if (hole < 0 || hole > end)
			hole = end;
		mark_present(present, data, hole);
		while (data < hole) {
			size_t n = (size_t)(hole - data) < (1u << 20) ? (size_t)(hole - data) : (1u << 20);
			ssize_t got = cps_sys_pread(fd, buf + data, n, data);
			if (got <= 0)
				goto out; /* shrunk under us */
			data += got;
		}
		at = hole;
	}
	r = 0;
out:
	cps_sys_close(fd);
	return r;
}

int cps_table_copy(struct cps_ctx *c, struct shm_table *copy)
{
	size_t size = c->t.size;
	size_t words = (size + 64 * (size_t)SHM_PRESENT_PAGE - 1) / (64 * (size_t)SHM_PRESENT_PAGE);
	unsigned char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
	/* the pages read from the file: with no file, every page */
	uint64_t *present = calloc(words ? words : 1, sizeof(*present));
	/* 5 s, or as long as a writer waits for the lock if less */
	unsigned wait = c->t.lock_wait_ms < 5000 ? c->t.lock_wait_ms : 5000;
	bool by_file = present != NULL;
	int r = 1;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq;
		if (shm_read_wait(&c->t, &seq, wait) < 0)
			break;
		if (!by_file || copy_extents(&c->t, buf, present) < 0) {
			by_file = false; /* another file now, or no file: the mapping */
			memcpy(buf, c->t.base, size);
		}
		if (!shm_read_retry(&c->t, seq)) {
			r = 0;
			break;
		}
	}
	/* r 1: a writer stays inside (or died there): show what is, and say so */
	if (r && (!by_file || copy_extents(&c->t, buf, present) < 0)) {
		by_file = false;
		memcpy(buf, c->t.base, size);
	}
	if (!by_file) {
		free(present);
		present = NULL;
	}
	shm_table_rebase(copy, &c->t, buf);
	copy->present = present;
	return r;
}

void cps_table_copy_free(struct shm_table *copy)
{
	if (copy->base)
		munmap(copy->base, copy->size);
	free((void *)copy->present);
	copy->base = NULL;
	copy->present = NULL;
}

/* One run of cps_check: the report, the count of violations, and what
 * the checks of the sets share. */
struct check_state {
	cps_check_report report;
	void *arg;
	int n;
	const struct shm_table *t;
	size_t mw;         /* the mask words compared */
	uint32_t *live;    /* the live sets' slots (sorted as a check needs) */
	uint32_t nsets;    /* how many */
	uint32_t *members; /* the members of each set, by slot */
};

static void viol(struct check_state *cs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void viol(struct check_state *cs, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	cs->n++;
	if (!cs->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs->report(cs->arg, msg);
}

static bool live_set(const struct shm_table *t, uint32_t i, struct shm_set **out)
{
	struct shm_set *s = shm_set_at(t, i);
	*out = s;
	return shm_slot_present(t, s, t->set_rsz) && s->id != 0;
}

/* For sorting the live sets: by parent, or by name. */
static const struct shm_table *sort_tbl;
static int by_parent(const void *a, const void *b)
{
	uint32_t x = shm_set_at(sort_tbl, *(const uint32_t *)a)->parent;
	uint32_t y = shm_set_at(sort_tbl, *(const uint32_t *)b)->parent;
	return (x > y) - (x < y);
}
static int by_name(const void *a, const void *b)
{
	int c = strncmp(shm_set_at(sort_tbl, *(const uint32_t *)a)->name,
			shm_set_at(sort_tbl, *(const uint32_t *)b)->name, SHM_NAME_MAX);
	if (c)
		return c;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Parents that do not lead to the root: a set that is its own parent,
 * sets that are each other's (raw writes). Each cycle is named once, with
 * every set in it. Each set is walked once (a state per slot: 0 not seen,
 * 1 on the walk under way, 2 leads to the root, 3 does not). */
static void check_parents(struct check_state *cs, const struct shm_table *t, const uint32_t *live,
			  uint32_t nsets)
{
	uint32_t slots = t->set_slots;
	unsigned char *state = calloc(slots, 1);
	if (!state) {
		viol(cs, "out of memory: the parents could not be checked");
		return;
	}
	for (uint32_t k = 0; k < nsets; k++) {
		uint32_t cur = live[k];
		if (state[cur] || shm_set_at(t, cur)->id % slots != cur)
			continue;
		unsigned char res = 3;
		for (;;) {
			const struct shm_set *s = shm_set_at(t, cur);
			if (s->id == t->root_id) {
				res = 2;
				break;
			}
			if (state[cur] >= 2) {
				res = state[cur];
				break;
			}
			if (state[cur] == 1) {
				/* a cycle through cur: name its sets */
				char list[200];
				size_t n = 0;
				uint32_t len = 0, at = cur;
				do {
					const struct shm_set *x = shm_set_at(t, at);
					if (n < sizeof(list))
						n += (size_t)snprintf(list + n, sizeof(list) - n, "%u -> ",
								      x->id);
					const struct shm_set *px = shm_set_by_id(t, x->parent);
					at = px ? px->id % slots : cur;
					len++;
				} while (at != cur && len <= slots);
				if (n < sizeof(list))
					snprintf(list + n, sizeof(list) - n, "%u", s->id);
				if (len == 1)
					viol(cs, "set %u is its own parent: it is under no set", s->id);
				else
					viol(cs, "sets %s make a cycle of parents: none is under the root",
					     list);
				break;
			}
			state[cur] = 1;
			const struct shm_set *p = shm_set_by_id(t, s->parent);
			if (!p)
				break; /* a missing parent: said with the set */
			cur = p->id % slots;
		}
		/* everything on this walk shares its end */
		for (cur = live[k]; state[cur] == 1;) {
			state[cur] = res;
			const struct shm_set *p = shm_set_by_id(t, shm_set_at(t, cur)->parent);
			if (!p)
				break;
			cur = p->id % slots;
		}
	}
	free(state);
}

/* The header: no writer inside, no journal outside a write, a root. */
static void check_header(struct check_state *cs)
{
	const struct shm_table *t = cs->t;
	const struct shm_header *h = t->h;
	if (h->seq & 1)
		viol(cs, "the sequence counter is odd: a writer is inside, or died there (the next "
		     "writer repairs it)");
	if (h->jcount && !(h->seq & 1))
		viol(cs, "the undo journal holds %u entries outside a write", h->jcount);
	if (!shm_set_by_id(t, t->root_id))
		viol(cs, "the root set %u is missing", t->root_id);
}

/* The live sets' slots and the members each set has (cs->live, nsets,
 * members): -ENOMEM, or 0. */
static int collect_sets(struct check_state *cs)
{
	const struct shm_table *t = cs->t;
	cs->live = malloc((size_t)t->set_slots * sizeof(uint32_t));
	cs->members = calloc(t->set_slots, sizeof(uint32_t));
	if (!cs->live || !cs->members) {
		free(cs->live);
		free(cs->members);
		cs->live = cs->members = NULL;
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < t->proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(t, j);
		if (shm_slot_present(t, p, t->proc_rsz) && p->pid > 0 && shm_set_by_id(t, p->set))
			cs->members[p->set % t->set_slots]++;
	}
	cs->nsets = 0;
	for (uint32_t i = 0; i < t->set_slots; i++) {
		struct shm_set *s;
		if (live_set(t, i, &s))
			cs->live[cs->nsets++] = i;
	}
	return 0;
}

/* A set's own record: in its slot, known flags, a terminated name. */
static void check_set_record(struct check_state *cs, uint32_t i, const struct shm_set *s)
{
	if (s->id % cs->t->set_slots != i)
		viol(cs, "set %u sits in slot %u, not %u", s->id, i, s->id % cs->t->set_slots);
	if (s->flags & ~CPS_FLAGS_ALL)
		viol(cs, "set %u has unknown flags %#x", s->id, s->flags);
	if (memchr(s->name, 0, sizeof(s->name)) == NULL)
		viol(cs, "set %u has an unterminated name", s->id);
	else if (s->name[0] && !cps_name_ok(s->name))
		/* raw bytes: the tool that prints this escapes them */
		viol(cs, "set %u's name '%s' breaks the naming rule (1-47 letters, digits, '.', "
			 "'_' or '-', not all digits)", s->id, s->name);
}

/* A set against its parent: the root has none; any other set's exists,
 * holds the set's CPUs, and is strict if the set is. */
static void check_set_parent(struct check_state *cs, struct shm_set *s)
{
	const struct shm_table *t = cs->t;
	if (s->id == t->root_id) {
		if (s->parent)
			viol(cs, "the root set has a parent (%u)", s->parent);
		return;
	}
	struct shm_set *p = shm_set_by_id(t, s->parent);
	if (!p) {
		viol(cs, "set %u has a missing parent %u", s->id, s->parent);
		return;
	}
	if (!cps_mask_subset(shm_set_mask(t, s, SHM_MASK_CPUS), shm_set_mask(t, p, SHM_MASK_CPUS),
			     cs->mw))
		viol(cs, "set %u holds CPUs outside its parent %u", s->id, s->parent);
	if ((s->flags & CPS_STRICT) && !(p->flags & CPS_STRICT))
		viol(cs, "strict set %u inside non-strict set %u", s->id, p->id);
}

/* A set's count of members, and its attached mark, against the member
 * records (counted only for a set in its own slot). */
static void check_set_members(struct check_state *cs, uint32_t i, const struct shm_set *s)
{
	uint32_t nm = s->id % cs->t->set_slots == i ? cs->members[i] : 0;
	if (nm != s->nmembers)
		viol(cs, "set %u counts %u members but has %u", s->id, s->nmembers, nm);
	if (nm && !s->attached)
		viol(cs, "set %u has members but is not marked attached", s->id);
}

/* Each live set on its own, in slot order. */
static void check_sets(struct check_state *cs)
{
	for (uint32_t k = 0; k < cs->nsets; k++) {
		uint32_t i = cs->live[k];
		struct shm_set *s = shm_set_at(cs->t, i);
		check_set_record(cs, i, s);
		check_set_parent(cs, s);
		check_set_members(cs, i, s);
	}
}

/* With cs->live sorted by parent: where the run of id's children starts
 * (binary search). */
static uint32_t children_start(const struct check_state *cs, uint32_t id)
{
	uint32_t lo = 0, hi = cs->nsets;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (shm_set_at(cs->t, cs->live[mid])->parent < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Strict child ch shares no CPU with its siblings, the run of s's
 * children from lo. */
static void check_strict_siblings(struct check_state *cs, const struct shm_set *s, uint32_t lo,
				  struct shm_set *ch)
{
	const struct shm_table *t = cs->t;
	uint64_t *cc = shm_set_mask(t, ch, SHM_MASK_CPUS);
	for (uint32_t k = lo; k < cs->nsets && shm_set_at(t, cs->live[k])->parent == s->id; k++) {
		struct shm_set *sib = shm_set_at(t, cs->live[k]);
		if (sib != ch && sib != s &&
		    cps_mask_intersects(cc, shm_set_mask(t, sib, SHM_MASK_CPUS), cs->mw))
			viol(cs, "strict set %u shares CPUs with sibling %u", ch->id, sib->id);
	}
}

/* A set against its children: its reserved masks are the unions of its
 * children's and of its strict children's CPUs, its count of children is
 * theirs, and strict children share no CPU with a sibling. */
static void check_children_of(struct check_state *cs, struct shm_set *s)
{
	const struct shm_table *t = cs->t;
	size_t mw = cs->mw;
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS];
	uint32_t lo = children_start(cs, s->id), nch = 0;
	cps_mask_zero(r, mw);
	cps_mask_zero(sr, mw);
	for (uint32_t j = lo; j < cs->nsets && shm_set_at(t, cs->live[j])->parent == s->id; j++) {
		struct shm_set *ch = shm_set_at(t, cs->live[j]);
		if (ch == s)
			continue;
		nch++;
		uint64_t *cc = shm_set_mask(t, ch, SHM_MASK_CPUS);
		cps_mask_or(r, r, cc, mw);
		if (!(ch->flags & CPS_STRICT))
			continue;
		cps_mask_or(sr, sr, cc, mw);
		check_strict_siblings(cs, s, lo, ch);
	}
	if (!cps_mask_equal(r, shm_set_mask(t, s, SHM_MASK_RESERVED), mw))
		viol(cs, "set %u: reserved CPUs are not the union of its children's", s->id);
	if (!cps_mask_equal(sr, shm_set_mask(t, s, SHM_MASK_SRESERVED), mw))
		viol(cs, "set %u: strictly reserved CPUs are not the union of its strict "
		     "children's", s->id);
	if (nch != s->nchildren)
		viol(cs, "set %u counts %u children but has %u", s->id, s->nchildren, nch);
}

/* Every set against its children, found by sorting the sets by parent. */
static void check_children(struct check_state *cs)
{
	sort_tbl = cs->t;
	qsort(cs->live, cs->nsets, sizeof(uint32_t), by_parent);
	for (uint32_t i = 0; i < cs->nsets; i++)
		check_children_of(cs, shm_set_at(cs->t, cs->live[i]));
}

/* A set's memory nodes: not empty, inside its parent's (the root's: the
 * machine's nodes, not checked here), mems_own one of the three ways. */
static void check_mems_set(struct check_state *cs, struct shm_set *s)
{
	const struct shm_table *t = cs->t;
	const uint64_t *m = shm_set_mask(t, s, SHM_MASK_MEMS);
	if (cps_mask_empty(m, cs->mw))
		viol(cs, "set %u has no memory node", s->id);
	if (s->mems_own > CPS_MEMS_AUTO)
		viol(cs, "set %u has an unknown way of holding nodes (%u)", s->id, s->mems_own);
	struct shm_set *p = s->id == t->root_id ? NULL : shm_set_by_id(t, s->parent);
	if (p && p != s && !cps_mask_subset(m, shm_set_mask(t, p, SHM_MASK_MEMS), cs->mw))
		viol(cs, "set %u holds nodes outside its parent %u", s->id, s->parent);
}

/* The children of s (the run from children_start, cs->live sorted by
 * parent): their nodes' unions are s's reserved node masks, and a strict
 * child's chosen nodes are no sibling's. */
static void check_mems_children(struct check_state *cs, struct shm_set *s)
{
	const struct shm_table *t = cs->t;
	size_t mw = cs->mw;
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS];
	uint32_t lo = children_start(cs, s->id);
	cps_mask_zero(r, mw);
	cps_mask_zero(sr, mw);
	for (uint32_t j = lo; j < cs->nsets && shm_set_at(t, cs->live[j])->parent == s->id; j++) {
		struct shm_set *ch = shm_set_at(t, cs->live[j]);
		if (ch == s)
			continue;
		uint64_t *cm = shm_set_mask(t, ch, SHM_MASK_MEMS);
		cps_mask_or(r, r, cm, mw);
		if (!(ch->flags & CPS_STRICT) || ch->mems_own == CPS_MEMS_PARENT)
			continue;
		cps_mask_or(sr, sr, cm, mw);
		for (uint32_t k = lo; k < cs->nsets && shm_set_at(t, cs->live[k])->parent == s->id; k++) {
			struct shm_set *sib = shm_set_at(t, cs->live[k]);
			if (sib != ch && sib != s &&
			    cps_mask_intersects(cm, shm_set_mask(t, sib, SHM_MASK_MEMS), mw))
				viol(cs, "strict set %u shares nodes with sibling %u", ch->id, sib->id);
		}
	}
	if (!cps_mask_equal(r, shm_set_mask(t, s, SHM_MASK_MRESERVED), mw))
		viol(cs, "set %u: reserved nodes are not the union of its children's", s->id);
	if (!cps_mask_equal(sr, shm_set_mask(t, s, SHM_MASK_MSRESERVED), mw))
		viol(cs, "set %u: owned nodes are not the union of its strict children's chosen "
		     "ones", s->id);
}

/* Every set's memory nodes, alone and against its children (cs->live
 * sorted by parent). */
static void check_mems(struct check_state *cs)
{
	for (uint32_t i = 0; i < cs->nsets; i++) {
		struct shm_set *s = shm_set_at(cs->t, cs->live[i]);
		check_mems_set(cs, s);
		check_mems_children(cs, s);
	}
}

/* No two sets share a name: equal ones are neighbours once sorted. */
static void check_names(struct check_state *cs)
{
	sort_tbl = cs->t;
	qsort(cs->live, cs->nsets, sizeof(uint32_t), by_name);
	for (uint32_t i = 0; i + 1 < cs->nsets; i++) {
		struct shm_set *s = shm_set_at(cs->t, cs->live[i]);
		struct shm_set *o = shm_set_at(cs->t, cs->live[i + 1]);
		if (s->name[0] && !strncmp(o->name, s->name, SHM_NAME_MAX))
			viol(cs, "sets %u and %u share the name '%.*s'", s->id, o->id,
			     (int)SHM_NAME_MAX, s->name);
	}
}

/* The header's count of sets. */
static void check_set_count(struct check_state *cs)
{
	if (cs->nsets != cs->t->h->nsets)
		viol(cs, "the header counts %u sets but there are %u", cs->t->h->nsets, cs->nsets);
}

/* The member records: a positive pid found by its index, in a set that
 * exists, in a group the occupancy summary marks; the header's count of
 * them. */
static void check_members(struct check_state *cs)
{
	const struct shm_table *t = cs->t;
	uint32_t nprocs = 0;
	for (uint32_t j = 0; j < t->proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(t, j);
		if (!shm_slot_present(t, p, t->proc_rsz) || p->pid == 0)
			continue;
		nprocs++;
		if (p->pid < 0)
			viol(cs, "member slot %u holds pid %d", j, p->pid);
		else if (shm_proc_find(t, p->pid) != (long)j)
			viol(cs, "member %d in slot %u cannot be found by its pid (dangling index)",
			     p->pid, j);
		if (!shm_set_by_id(t, p->set))
			viol(cs, "member %d is in a missing set %u", p->pid, p->set);
		if (!shm_occ_maybe(t->pocc, j))
			viol(cs, "member %d in slot %u is in a group the occupancy summary says is empty",
			     p->pid, j);
	}
	if (nprocs != t->h->nprocs)
		viol(cs, "the header counts %u members but there are %u", t->h->nprocs, nprocs);
}

/* The thread records: each found by its index, in a marked group; the
 * header's count. */
static void check_threads(struct check_state *cs)
{
	const struct shm_table *t = cs->t;
	uint32_t nthreads = 0;
	for (uint32_t j = 0; j < t->thread_slots; j++) {
		struct shm_thread *th = shm_thread_at(t, j);
		if (!shm_slot_present(t, th, t->thread_rsz) || th->tid == 0)
			continue;
		nthreads++;
		if (th->tid < 0 || shm_thread_find(t, th->tid) != (long)j)
			viol(cs, "thread %d in slot %u cannot be found by its tid (dangling index)",
			     th->tid, j);
		if (!shm_occ_maybe(t->tocc, j))
			viol(cs, "thread %d in slot %u is in a group the occupancy summary says is empty",
			     th->tid, j);
	}
	if (nthreads != t->h->nthreads)
		viol(cs, "the header counts %u threads but there are %u", t->h->nthreads, nthreads);
}

/* Every check walks the occupied slots once (or sorts them): a table of
 * 65,536 sets and a million members is checked in O(n log n), not in
 * the product of its capacities. One function per invariant, in the
 * order the violations are reported. */
int cps_check(const struct shm_table *t, cps_check_report report, void *arg)
{
	struct check_state cs = {
		.report = report,
		.arg = arg,
		.t = t,
		.mw = t->mask_words < CPS_MAX_WORDS ? t->mask_words : CPS_MAX_WORDS,
	};
	check_header(&cs);
	if (collect_sets(&cs) < 0) {
		viol(&cs, "out of memory: the table could not be checked");
		return cs.n;
	}
	check_sets(&cs);
	check_parents(&cs, t, cs.live, cs.nsets);
	check_children(&cs);
	check_mems(&cs);
	check_names(&cs);
	check_set_count(&cs);
	free(cs.live);
	free(cs.members);
	check_members(&cs);
	check_threads(&cs);
	return cs.n;
}
