/* src/ — the read side the tools use to look at a whole table: a private,
 * consistent copy of it, and the table's invariants checked on a copy
 * (cpuset-inspect --check, and the unit tests after every case). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/check.h"
#include "src/mask.h"
#include "src/sets.h"

int cps_table_copy(struct cps_ctx *c, struct shm_table *copy)
{
	unsigned char *buf = malloc(c->t.size);
	if (!buf)
		return -ENOMEM;
	int r = 1;
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t seq;
		/* 5 s, or as long as a writer waits for the lock if less */
		if (shm_read_wait(&c->t, &seq, c->t.lock_wait_ms < 5000 ? c->t.lock_wait_ms : 5000) < 0)
			break;
		memcpy(buf, c->t.base, c->t.size);
		if (!shm_read_retry(&c->t, seq)) {
			r = 0;
			break;
		}
	}
	/* r 1: a writer stays inside (or died there): show what is, and say so */
	if (r)
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
	return r;
}

void cps_table_copy_free(struct shm_table *copy)
{
	free(copy->base);
	copy->base = NULL;
}

struct check_state {
	cps_check_report report;
	void *arg;
	int n;
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
	return s->id != 0;
}

int cps_check(const struct shm_table *t, cps_check_report report, void *arg)
{
	struct check_state st = { report, arg, 0 };
	struct check_state *cs = &st;
	const struct shm_header *h = t->h;
	size_t mw = t->mask_words < CPS_MAX_WORDS ? t->mask_words : CPS_MAX_WORDS;
	uint64_t r[CPS_MAX_WORDS], sr[CPS_MAX_WORDS];
	uint32_t nsets = 0, nprocs = 0, nthreads = 0;

	if (h->seq & 1)
		viol(cs, "the sequence counter is odd: a writer is inside, or died there (the next "
		     "writer repairs it)");
	if (h->jcount && !(h->seq & 1))
		viol(cs, "the undo journal holds %u entries outside a write", h->jcount);
	struct shm_set *root = shm_set_by_id(t, t->root_id);
	if (!root)
		viol(cs, "the root set %u is missing", t->root_id);
	for (uint32_t i = 0; i < t->set_slots; i++) {
		struct shm_set *s;
		if (!live_set(t, i, &s))
			continue;
		nsets++;
		if (s->id % t->set_slots != i)
			viol(cs, "set %u sits in slot %u, not %u", s->id, i, s->id % t->set_slots);
		uint64_t *cpus = shm_set_mask(t, s, SHM_MASK_CPUS);
		if (s->flags & ~CPS_FLAGS_ALL)
			viol(cs, "set %u has unknown flags %#x", s->id, s->flags);
		if (memchr(s->name, 0, sizeof(s->name)) == NULL)
			viol(cs, "set %u has an unterminated name", s->id);
		if (s->id == t->root_id) {
			if (s->parent)
				viol(cs, "the root set has a parent (%u)", s->parent);
		} else {
			struct shm_set *p = shm_set_by_id(t, s->parent);
			if (!p) {
				viol(cs, "set %u has a missing parent %u", s->id, s->parent);
			} else {
				if (!cps_mask_subset(cpus, shm_set_mask(t, p, SHM_MASK_CPUS), mw))
					viol(cs, "set %u holds CPUs outside its parent %u", s->id,
					     s->parent);
				if ((s->flags & CPS_STRICT) && !(p->flags & CPS_STRICT))
					viol(cs, "strict set %u inside non-strict set %u", s->id,
					     p->id);
			}
		}
		/* children: reserved masks, count, strict exclusivity */
		cps_mask_zero(r, mw);
		cps_mask_zero(sr, mw);
		uint32_t nch = 0;
		for (uint32_t j = 0; j < t->set_slots; j++) {
			struct shm_set *ch;
			if (!live_set(t, j, &ch) || ch->parent != s->id || ch == s)
				continue;
			nch++;
			uint64_t *cc = shm_set_mask(t, ch, SHM_MASK_CPUS);
			cps_mask_or(r, r, cc, mw);
			if (ch->flags & CPS_STRICT) {
				cps_mask_or(sr, sr, cc, mw);
				for (uint32_t k = 0; k < t->set_slots; k++) {
					struct shm_set *sib;
					if (!live_set(t, k, &sib) || sib == ch || sib->parent != s->id)
						continue;
					if (cps_mask_intersects(cc, shm_set_mask(t, sib, SHM_MASK_CPUS), mw))
						viol(cs, "strict set %u shares CPUs with sibling %u", ch->id,
						     sib->id);
				}
			}
		}
		if (!cps_mask_equal(r, shm_set_mask(t, s, SHM_MASK_RESERVED), mw))
			viol(cs, "set %u: reserved CPUs are not the union of its children's", s->id);
		if (!cps_mask_equal(sr, shm_set_mask(t, s, SHM_MASK_SRESERVED), mw))
			viol(cs, "set %u: strictly reserved CPUs are not the union of its strict "
			     "children's", s->id);
		if (nch != s->nchildren)
			viol(cs, "set %u counts %u children but has %u", s->id, s->nchildren, nch);
		uint32_t nm = 0;
		for (uint32_t j = 0; j < t->proc_slots; j++) {
			struct shm_proc *p = shm_proc_at(t, j);
			if (p->pid > 0 && p->set == s->id)
				nm++;
		}
		if (nm != s->nmembers)
			viol(cs, "set %u counts %u members but has %u", s->id, s->nmembers, nm);
		if (nm && !s->attached)
			viol(cs, "set %u has members but is not marked attached", s->id);
		for (uint32_t j = i + 1; j < t->set_slots && s->name[0]; j++) {
			struct shm_set *o;
			if (live_set(t, j, &o) && !strncmp(o->name, s->name, SHM_NAME_MAX))
				viol(cs, "sets %u and %u share the name '%s'", s->id, o->id, s->name);
		}
	}
	if (nsets != h->nsets)
		viol(cs, "the header counts %u sets but there are %u", h->nsets, nsets);
	for (uint32_t j = 0; j < t->proc_slots; j++) {
		struct shm_proc *p = shm_proc_at(t, j);
		if (p->pid == 0)
			continue;
		nprocs++;
		if (p->pid < 0)
			viol(cs, "member slot %u holds pid %d", j, p->pid);
		else if (shm_proc_find(t, p->pid) != (long)j)
			viol(cs, "member %d in slot %u cannot be found by its pid (dangling index)",
			     p->pid, j);
		if (!shm_set_by_id(t, p->set))
			viol(cs, "member %d is in a missing set %u", p->pid, p->set);
	}
	if (nprocs != h->nprocs)
		viol(cs, "the header counts %u members but there are %u", h->nprocs, nprocs);
	for (uint32_t j = 0; j < t->thread_slots; j++) {
		struct shm_thread *th = shm_thread_at(t, j);
		if (th->tid == 0)
			continue;
		nthreads++;
		if (th->tid < 0 || shm_thread_find(t, th->tid) != (long)j)
			viol(cs, "thread %d in slot %u cannot be found by its tid (dangling index)",
			     th->tid, j);
	}
	if (nthreads != h->nthreads)
		viol(cs, "the header counts %u threads but there are %u", h->nthreads, nthreads);
	return st.n;
}
