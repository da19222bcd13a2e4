/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/ — the guard of the table's mapping: a SIGBUS from a read past the
 * end of a table's file, which anyone who may write the table may shrink,
 * turned into a table marked lost (shm_table_lost). table.c adds and
 * removes each mapping it opens and closes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/rawsys.h"
#include "shm/table.h"
#include "shm/table_internal.h"

/* Anyone who may write the table may also shrink its file, and a read of a
 * page past the file's end raises SIGBUS, which would kill the program. A
 * handler, installed when the first table is mapped, looks at the faulting
 * address: inside a table's mapping, it replaces the whole mapping with
 * zeroed anonymous memory (the faulting read is then repeated and reads
 * zeros: no valid set, so readers keep what they had or pass through) and
 * marks the table lost, so nothing more is written there. Any other SIGBUS
 * goes to the handler that was there before, or kills as it would have. */
#define GUARD_SLOTS 32
static struct {
	uintptr_t base;
	size_t size;
	int lost;
} guard_slot[GUARD_SLOTS];
static struct sigaction guard_prev;
static int guard_installed;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	if (si->si_code > 0) { /* a fault, not a signal someone sent */
		for (int i = 0; i < GUARD_SLOTS; i++) {
			uintptr_t b = __atomic_load_n(&guard_slot[i].base, __ATOMIC_ACQUIRE);
			size_t n = __atomic_load_n(&guard_slot[i].size, __ATOMIC_RELAXED);
			if (!b || a - b >= n)
				continue;
			/* the raw system call: async-signal-safe, and no interposer */
			long p = cps_sys_mmap((void *)b, n, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (p == (long)b) {
				__atomic_store_n(&guard_slot[i].lost, 1, __ATOMIC_RELEASE);
				return;
			}
		}
	}
	if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
		if (guard_prev.sa_flags & SA_SIGINFO)
			guard_prev.sa_sigaction(sig, si, uc);
		else
			guard_prev.sa_handler(sig);
		return;
	}
	/* as if we had not been here: the default action, on the fault again */
	struct sigaction d;
	memset(&d, 0, sizeof(d));
	d.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &d, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

void shm_guard_add(const void *base, size_t size)
{
	int expect = 0;
	if (__atomic_compare_exchange_n(&guard_installed, &expect, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_handler;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &guard_prev) < 0)
			__atomic_store_n(&guard_installed, 0, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t zero = 0;
		/* claim a slot with a placeholder, then publish the range */
		if (__atomic_compare_exchange_n(&guard_slot[i].base, &zero, (uintptr_t)1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			guard_slot[i].lost = 0;
			__atomic_store_n(&guard_slot[i].size, size, __ATOMIC_RELAXED);
			__atomic_store_n(&guard_slot[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
			return;
		}
	}
}

static int guard_find(const void *base)
{
	for (int i = 0; base && i < GUARD_SLOTS; i++)
		if (__atomic_load_n(&guard_slot[i].base, __ATOMIC_ACQUIRE) == (uintptr_t)base)
			return i;
	return -1;
}

void shm_guard_remove(const void *base)
{
	int i = guard_find(base);
	if (i >= 0) {
		__atomic_store_n(&guard_slot[i].size, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&guard_slot[i].base, 0, __ATOMIC_RELEASE);
	}
}

bool shm_table_lost(const struct shm_table *t)
{
	int i = guard_find(t->base);
	return i >= 0 && __atomic_load_n(&guard_slot[i].lost, __ATOMIC_ACQUIRE);
}

/* The mapping at base is not lost (its file did not shrink under us). */
bool shm_guard_ok(const void *base)
{
	int i = guard_find(base);
	return i < 0 || !__atomic_load_n(&guard_slot[i].lost, __ATOMIC_ACQUIRE);
}
