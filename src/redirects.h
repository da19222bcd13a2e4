/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of kept redirects (pure, no system call): canonical spellings
 * of a virtual CPU's own files, each with the physical path it stood for
 * and V and p(V) at the time. Shared by the threads of a process without
 * a lock: every slot is behind a sequence number (odd while written; a
 * writer that finds a slot being written keeps nothing), so a reader never
 * waits and never takes a torn slot. preload/redirect.c keeps one table
 * per process and decides, with the set copy, whether a hit still holds. */
#ifndef CPS_SRC_REDIRECTS_H
#define CPS_SRC_REDIRECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPS_REDIRECT_SLOTS 64
#define CPS_REDIRECT_PATH 120 /* longer spellings are not kept */

struct cps_redirect_slot {
	uint32_t seq;
	uint32_t vlen, plen;
	uint32_t vcpu, pcpu;
	char virt[CPS_REDIRECT_PATH];
	char phys[CPS_REDIRECT_PATH];
};
struct cps_redirects {
	struct cps_redirect_slot s[CPS_REDIRECT_SLOTS];
};

/* Keep canon (n bytes) -> phys, for virtual CPU v on physical p. */
void cps_redirect_keep(struct cps_redirects *t, const char *canon, size_t n, const char *phys,
		       uint32_t v, uint32_t p);
/* The redirect kept for path (n bytes): true with the physical path in
 * phys (CPS_REDIRECT_PATH bytes), *v and *p; false if none is. */
bool cps_redirect_find(const struct cps_redirects *t, const char *path, size_t n, char *phys,
		       uint32_t *v, uint32_t *p);

#endif
