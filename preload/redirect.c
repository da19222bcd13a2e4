/* The redirects kept: a virtual CPU's file that is the physical CPU's own
 * (cpuV/topology/core_id is cpu<p(V)>'s: no view to make, only another
 * path) is opened again, by the same spelling, without canonicalising and
 * classifying the path anew. hwloc, lscpu and the MPI runtimes read the
 * same few files of every CPU, each of them more than once.
 *
 * A slot holds a canonical spelling (an absolute path already in its
 * canonical form, so that a caller's raw path that equals it is that
 * path), the physical path it stood for, and V and p(V) at the time. A
 * hit is taken only while the set copy still maps V to that p(V); a
 * resize that moves V, or takes it away, misses, and the full path
 * decides. The slots are shared by the threads behind a sequence number
 * each (odd while written; a writer that finds a slot busy keeps
 * nothing), so a reader never waits and never takes a torn slot.
 *
 * Not under the test root (its paths are another tree's).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/vsys.h"

#define RC_SLOTS 64
#define RC_PATH 120

struct rc_slot {
	uint32_t seq;
	uint32_t vlen, plen;
	uint32_t vcpu, pcpu;
	char virt[RC_PATH];
	char phys[RC_PATH];
};
static struct rc_slot rc[RC_SLOTS];

/* The slot of a spelling: its length and its bytes, 8 at a time. */
static unsigned rc_hash(const char *p, size_t n)
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
	return (unsigned)(h ^ (h >> 29) ^ (h >> 47)) % RC_SLOTS;
}

/* Whether the set copy maps virtual CPU v to physical p now. */
static bool maps_now(uint32_t v, uint32_t p)
{
	uint32_t ls;
	for (int i = 0; i < 1000; i++) {
		int rb = setcopy_read_begin(&ls);
		if (rb < 0)
			return false;
		if (rb == 0)
			continue;
		bool ok = v < shim_setcopy.s.n && v < shim_setcopy.cap && shim_setcopy.pcpu &&
			  shim_setcopy.pcpu[v] == p;
		if (setcopy_read_valid(ls))
			return ok;
	}
	return false;
}

/* Flags a kept redirect serves: a plain read-only open of a file. */
static bool plain(int flags)
{
	return (flags & O_ACCMODE) == O_RDONLY &&
	       !(flags & (O_DIRECTORY | O_PATH | O_CREAT | O_NOFOLLOW | __O_TMPFILE));
}

int shim_redirect_open(const char *path, int flags)
{
	char phys[RC_PATH];
	size_t n = strnlen(path, RC_PATH);
	if (n >= RC_PATH || !plain(flags) || CPS_UNLIKELY(shim_test_root() != NULL))
		return -1;
	struct rc_slot *s = &rc[rc_hash(path, n)];
	uint32_t q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE), v, p, pl;
	if ((q & 1) || q == 0 || __atomic_load_n(&s->vlen, __ATOMIC_RELAXED) != n)
		return -1;
	/* the seqlock's read: a copy, checked afterwards */
	bool same = memcmp(s->virt, path, n) == 0;
	pl = __atomic_load_n(&s->plen, __ATOMIC_RELAXED);
	if (pl >= RC_PATH)
		return -1;
	memcpy(phys, s->phys, pl);
	phys[pl] = 0;
	v = __atomic_load_n(&s->vcpu, __ATOMIC_RELAXED);
	p = __atomic_load_n(&s->pcpu, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!same || __atomic_load_n(&s->seq, __ATOMIC_RELAXED) != q || !maps_now(v, p))
		return -1;
	int fd = shim_real.open(phys, flags, 0);
	return fd >= 0 ? fd : -2;
}

void shim_redirect_keep(const char *canon, const char *phys)
{
	static const char dir[] = "/sys/devices/system/cpu/";
	const size_t dl = sizeof(dir) - 1;
	size_t n = strlen(canon), pl = strlen(phys);
	unsigned v, p;
	if (n >= RC_PATH || pl >= RC_PATH || shim_test_root() || strncmp(canon, dir, dl) != 0 ||
	    strncmp(phys, dir, dl) != 0 || !cps_vsys_cpu_name(canon + dl, &v, NULL) ||
	    !cps_vsys_cpu_name(phys + dl, &p, NULL))
		return;
	struct rc_slot *s = &rc[rc_hash(canon, n)];
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
