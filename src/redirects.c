/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of kept redirects: see src/redirects.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "src/redirects.h"

/* The slot of a spelling: its length and its bytes, 8 at a time. */
static unsigned slot_of(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, p + i, n - i);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return (unsigned)(h ^ (h >> 29) ^ (h >> 47)) % CPS_REDIRECT_SLOTS;
}

bool cps_redirect_find(const struct cps_redirects *t, const char *path, size_t n, char *phys,
		       uint32_t *v, uint32_t *p)
{
	if (n >= CPS_REDIRECT_PATH)
		return false;
	const struct cps_redirect_slot *s = &t->s[slot_of(path, n)];
	uint32_t q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if ((q & 1) || q == 0 || __atomic_load_n(&s->vlen, __ATOMIC_RELAXED) != n)
		return false;
	/* the read side of the sequence lock: a copy, checked afterwards */
	bool same = memcmp(s->virt, path, n) == 0;
	uint32_t pl = __atomic_load_n(&s->plen, __ATOMIC_RELAXED);
	if (pl >= CPS_REDIRECT_PATH)
		return false;
	memcpy(phys, s->phys, pl);
	phys[pl] = 0;
	*v = __atomic_load_n(&s->vcpu, __ATOMIC_RELAXED);
	*p = __atomic_load_n(&s->pcpu, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return same && __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == q;
}

void cps_redirect_keep(struct cps_redirects *t, const char *canon, size_t n, const char *phys,
		       uint32_t v, uint32_t p)
{
	size_t pl = strlen(phys);
	if (n >= CPS_REDIRECT_PATH || pl >= CPS_REDIRECT_PATH)
		return;
	struct cps_redirect_slot *s = &t->s[slot_of(canon, n)];
	uint32_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	if ((q & 1) || !__atomic_compare_exchange_n(&s->seq, &q, q + 1, false, __ATOMIC_ACQUIRE,
						     __ATOMIC_RELAXED))
		return; /* another thread is writing it: keep nothing */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(s->virt, canon, n);
	memcpy(s->phys, phys, pl);
	__atomic_store_n(&s->vlen, (uint32_t)n, __ATOMIC_RELAXED);
	__atomic_store_n(&s->plen, (uint32_t)pl, __ATOMIC_RELAXED);
	__atomic_store_n(&s->vcpu, v, __ATOMIC_RELAXED);
	__atomic_store_n(&s->pcpu, p, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, q + 2, __ATOMIC_RELEASE);
}
