/* SPDX-License-Identifier: BSD-3-Clause */
/* The set copy: the shim's copy of its set (set id, CPUs, n and the
 * tables derived from them), behind a process-local sequence counter and
 * refreshed when the table's sequence moves; every answer comes from it.
 * The hot readers are inline in preload/setcopy.h; here are the writer and
 * the translations of masks on a copy of the CPUs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "src/procfs.h"
#include "src/rawsys.h"

struct shim_setcopy shim_setcopy;
pthread_mutex_t shim_refresh_lock = PTHREAD_MUTEX_INITIALIZER;

/* The derived tables of shim_setcopy (refresh, inside its write section). */
static void derive(void)
{
	uint32_t nw = shim_setcopy.s.nw <= CPS_MAX_WORDS ? shim_setcopy.s.nw : CPS_MAX_WORDS;
	unsigned n = shim_setcopy.s.n ? shim_setcopy.s.n : 1, r = 0;
	shim_setcopy.top = 0;
	for (uint32_t i = 0; i < nw; i++) {
		uint64_t w = shim_setcopy.s.cpus[i];
		shim_setcopy.base[i] = r;
		if (w)
			shim_setcopy.top = i + 1;
		for (unsigned b = 0; b < 64; b++) {
			unsigned cpu = i * 64 + b;
			if ((w >> b) & 1) {
				shim_setcopy.pcpu[r] = (uint16_t)cpu;
				shim_setcopy.vcpu[cpu] = (uint16_t)r++;
			} else {
				shim_setcopy.vcpu[cpu] = (uint16_t)(cpu % n); /* as virt_cpu() */
			}
		}
	}
	unsigned vn = shim_setcopy.s.n;
	shim_setcopy.one_phys = shim_setcopy.top == 1 && vn ? shim_setcopy.s.cpus[0] : 0;
	shim_setcopy.one_virt = vn >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << vn) - 1;
}

/* A new set copy if the table can be read now; else the old one stays
 * (patient: at set-up, where there is no old one, wait for a writer). */
bool shim_refresh(bool patient)
{
	struct cps_placement tmp;
	if (pthread_mutex_trylock(&shim_refresh_lock) != 0)
		return shim_setcopy.valid; /* another thread is at it: the old one will do */
	int r = patient ? shim_placement_wait(shim_self_pid, shim_self_start, shim_fallback_set, &tmp)
			: cps_placement_read(&shim_ctx.t, shim_self_pid, shim_self_start, shim_fallback_set, &tmp);
	if (r == -EOWNERDEAD && !patient)
		r = shim_repair_dead_writer()
			    ? cps_placement_read(&shim_ctx.t, shim_self_pid, shim_self_start,
						 shim_fallback_set, &tmp)
			    : cps_placement_read_committed(&shim_ctx.t, shim_self_pid, shim_self_start,
							   shim_fallback_set, &tmp);
	if ((r == -EAGAIN || r == -EOWNERDEAD) && shim_setcopy.valid) {
		/* A writer inside, alive or dead: keep answering from the last
		 * copy, taken as fresh until the counter moves again (the
		 * writer's commit, or the repair), so that no call pays for a
		 * read that cannot succeed yet. */
		__atomic_store_n(&shim_setcopy.lseq, shim_setcopy.lseq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		shim_setcopy.s.seq = __atomic_load_n(&shim_ctx.t.h->seq, __ATOMIC_ACQUIRE);
		__atomic_store_n(&shim_setcopy.lseq, shim_setcopy.lseq + 1, __ATOMIC_RELEASE);
	}
	if (r == 0 && !shim_setcopy.vcpu) {
		size_t cap = (size_t)tmp.nw * 64;
		void *m = mmap(NULL, cap * 2 * sizeof(uint16_t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			r = -ENOMEM;
		} else {
			shim_setcopy.vcpu = m;
			shim_setcopy.pcpu = shim_setcopy.vcpu + cap;
			__atomic_store_n(&shim_setcopy.cap, (uint32_t)cap, __ATOMIC_RELEASE);
		}
	}
	if (r == 0 && tmp.nw * 64 > shim_setcopy.cap)
		r = -EINVAL; /* cannot happen: one table, one width */
	if (r == 0) {
		__atomic_store_n(&shim_setcopy.lseq, shim_setcopy.lseq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		shim_setcopy.s.seq = tmp.seq;
		shim_setcopy.s.set = tmp.set;
		shim_setcopy.s.n = tmp.n;
		shim_setcopy.s.nw = tmp.nw;
		memcpy(shim_setcopy.s.cpus, tmp.cpus, tmp.nw * 8);
		shim_setcopy.s.nmems = tmp.nmems;
		memcpy(shim_setcopy.s.mems, tmp.mems, tmp.nw * 8);
		shim_setcopy.tseq = &shim_ctx.t.h->seq;
		derive();
		__atomic_store_n(&shim_setcopy.valid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&shim_setcopy.lseq, shim_setcopy.lseq + 1, __ATOMIC_RELEASE);
		shim_mempolicy_follow(tmp.mems, tmp.nw);
	}
	pthread_mutex_unlock(&shim_refresh_lock);
	return shim_setcopy.valid;
}


static inline __attribute__((always_inline)) void read_cpus(void *arg)
{
	struct shim_cpus *v = arg;
	v->n = shim_setcopy.s.n;
	v->nw = shim_setcopy.s.nw <= CPS_MAX_WORDS ? shim_setcopy.s.nw : CPS_MAX_WORDS;
	memcpy(v->cpus, shim_setcopy.s.cpus, v->nw * 8);
}

static inline __attribute__((always_inline)) void read_mems(void *arg)
{
	struct shim_cpus *v = arg;
	v->n = shim_setcopy.s.nmems;
	v->nw = shim_setcopy.s.nw <= CPS_MAX_WORDS ? shim_setcopy.s.nw : CPS_MAX_WORDS;
	memcpy(v->cpus, shim_setcopy.s.mems, v->nw * 8);
}

bool shim_cpus_now(struct shim_cpus *v)
{
	return shim_ready() && setcopy_read(read_cpus, v) && v->n > 0;
}

/* shim_to_physical(phys, buf, size, cpus, virt): the virtual mask in buf (vw
 * words of it in virt) mapped onto the set; returns its CPU count (0:
 * EINVAL) and the set's width in *nw, or -1 to pass through. */
/* How much of a caller's mask the kernel reads: its own mask's size at
 * most (learnt once: what sched_getaffinity answers), the rest of the
 * caller's size ignored. The translations read no more, so that a mask
 * the kernel would take never faults in the shim, and bits the kernel
 * would ignore are ignored here too. */
static size_t kernel_read_size(size_t size)
{
	static size_t kernel_bytes;
	size_t k = __atomic_load_n(&kernel_bytes, __ATOMIC_RELAXED);
	if (CPS_UNLIKELY(!k)) {
		uint64_t b[CPS_MAX_WORDS];
		long r = cps_sys3(SYS_sched_getaffinity, 0, (long)sizeof(b), (long)b);
		k = r > 0 ? (size_t)r : sizeof(b);
		__atomic_store_n(&kernel_bytes, k, __ATOMIC_RELAXED);
	}
	return size < k ? size : k;
}

/* A virtual mask (virt, hw words) folded onto the set's ranks, then
 * its physical CPUs: phys (nw words), got CPUs of the set's n, read at
 * the table's sequence at */
struct setcopy_fold {
	uint64_t *phys;
	const uint64_t *virt;
	size_t hw;
	uint64_t *ranks;
	uint32_t n, nw;
	uint64_t at;
	unsigned got;
	long wrapped;  /* the first virtual CPU that wrapped onto a CPU the
			* kernel's rule would not give, or -1 */
	uint32_t set;  /* the set it was read in */
};

static inline __attribute__((always_inline)) void read_fold(void *arg)
{
	struct setcopy_fold *c = arg;
	uint32_t n = shim_setcopy.s.n, nw = shim_setcopy.s.nw;
	uint64_t at = shim_setcopy.s.seq;
	if (n > CPS_MAX_CPUS)
		n = CPS_MAX_CPUS;
	if (nw > CPS_MAX_WORDS)
		nw = CPS_MAX_WORDS;
	size_t rw = CPS_WORDS_FOR(n), filled = 0;
	unsigned got = 0;
	long wrapped = -1;
	/* all of 0..n-1 asked for: the whole set */
	bool all = n > 0 && rw <= c->hw;
	for (size_t j = 0; all && j < rw; j++)
		all = (c->virt[j] & fill_word(j, n)) == fill_word(j, n);
	if (all) {
		got = n;
	} else if (n) {
		/* fold the virtual CPUs onto ranks 0..n-1 (wrapping, or not) */
		for (size_t j = 0; j < c->hw && got < n; j++) {
			uint64_t w = c->virt[j];
			while (w && got < n) {
				size_t v = j * 64 + (unsigned)__builtin_ctzll(w);
				w &= w - 1;
				size_t asked = v;
				if (v >= n) {
					if (!shim_wrap)
						goto folded;
					v %= n;
				}
				while (filled <= v / 64) {
					c->ranks[filled++] = 0;
					NOT_A_STRING_OP(filled);
				}
				uint64_t bit = (uint64_t)1 << (v % 64);
				if (!(c->ranks[v / 64] & bit)) {
					c->ranks[v / 64] |= bit;
					got++;
					/* ranks below n come first: a wrapped one new
					 * here is one the kernel's rule would not give;
					 * the first kept (-1 + asked + 1), without a
					 * branch in this loop */
					wrapped += (long)((asked != v) & (wrapped < 0)) *
						   ((long)asked + 1);
				}
			}
		}
	}
folded:
	for (size_t j = 0; j < nw; j++) {
		c->phys[j] = got == n ? shim_setcopy.s.cpus[j] : 0;
		NOT_A_STRING_OP(j);
	}
	if (got && got < n) {
		for (size_t j = 0; j < filled; j++) {
			uint64_t w = c->ranks[j];
			while (w) {
				unsigned r = (unsigned)(j * 64) + (unsigned)__builtin_ctzll(w);
				unsigned cpu = shim_setcopy.pcpu[r < shim_setcopy.cap ? r : 0];
				w &= w - 1;
				if (cpu < nw * 64)
					c->phys[cpu / 64] |= (uint64_t)1 << (cpu % 64);
			}
		}
	}
	c->n = n;
	c->nw = nw;
	c->wrapped = wrapped;
	c->set = shim_setcopy.s.set;
	c->at = at;
	c->got = got;
}

long setcopy_to_physical(uint64_t *phys, const void *buf, size_t size, uint64_t *virt,
			     size_t *vw, uint32_t *nwp, uint64_t *sseq)
{
	size = kernel_read_size(size);
	if (CPS_UNLIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) != ST_READY) && !shim_ready())
		return -1;
	/* bits beyond the widest mask are dropped, as shim_to_physical() does */
	size_t hw = size >= CPS_MAX_WORDS * 8 ? CPS_MAX_WORDS : CPS_WORDS_FOR(size * 8);
	if (sizeof(unsigned long) == 8 && size % 8 == 0) {
		for (size_t j = 0; j < hw; j++) {
			virt[j] = get_word(buf, j);
			NOT_A_STRING_OP(j);
		}
	} else {
		cps_mask_from_cpuset(virt, hw, buf, size);
	}
	*vw = hw;
	uint64_t ranks[CPS_MAX_WORDS];
	struct setcopy_fold c = { phys, virt, hw, ranks, 0, 0, 0, 0, -1, 0 };
	if (!setcopy_read(read_fold, &c) || c.n == 0)
		return -1;
	if (CPS_UNLIKELY(c.wrapped >= 0) && c.got)
		shim_wrapped(c.set, (unsigned long)c.wrapped, c.n);
	*sseq = c.at;
	*nwp = c.nw;
	return c.got;
}

/* Another process's placement (pid: a process or a thread of one; a
 * thread answers for its process: its own id is registered nowhere, and
 * its parent is the process's parent). */
static bool placement_of(pid_t pid, struct cps_placement *s)
{
	pid_t tgid = cps_proc_tgid(pid);
	if (tgid > 0)
		pid = tgid;
	uint32_t set;
	return cps_which(&shim_ctx, pid, &set) == 0 &&
	       cps_placement_read(&shim_ctx.t, -1, 0, set, s) == 0;
}

/* The set of another process: its record, else its thread group is ours,
 * else its ancestry. */
bool shim_cpus_of(pid_t pid, struct shim_cpus *v)
{
	if (pid < 0)
		return false; /* no such task: the kernel says so (ESRCH) */
	if (pid == 0 || pid == shim_self_pid)
		return shim_cpus_now(v);
	if (!shim_cpus_now(v)) /* also checks we are set up */
		return false;
	if (cps_thread_alive(shim_self_pid, pid))
		return true;
	struct cps_placement s;
	if (!placement_of(pid, &s))
		return false;
	v->n = s.n;
	v->nw = s.nw;
	memcpy(v->cpus, s.cpus, s.nw * 8);
	return true;
}

bool shim_nodes_of(pid_t pid, struct shim_cpus *v)
{
	if (pid < 0 || !shim_ready())
		return false;
	if (pid == 0 || pid == shim_self_pid || cps_thread_alive(shim_self_pid, pid)) {
		return setcopy_read(read_mems, v) && v->n > 0;
	}
	struct cps_placement s;
	if (!placement_of(pid, &s))
		return false;
	v->n = s.nmems;
	v->nw = s.nw;
	memcpy(v->cpus, s.mems, s.nw * 8);
	return v->n > 0;
}

/* Our set's id if v holds its CPUs (read in the set copy), else 0. */
struct set_if {
	const struct shim_cpus *v;
	uint32_t set;
};

static void read_set_if(void *arg)
{
	struct set_if *a = arg;
	bool same = shim_setcopy.s.n == a->v->n && shim_setcopy.s.nw == a->v->nw &&
		    a->v->nw <= CPS_MAX_WORDS;
	for (size_t j = 0; same && j < a->v->nw; j++)
		same = shim_setcopy.s.cpus[j] == a->v->cpus[j];
	a->set = same ? shim_setcopy.s.set : 0;
}

static uint32_t shim_set_of_cpus(const struct shim_cpus *v)
{
	struct set_if a = { v, 0 };
	return setcopy_read(read_set_if, &a) ? a.set : 0;
}

void shim_wrapped(uint32_t set, unsigned long asked, unsigned n)
{
	static pid_t said;
	/* once a process (a child inherits said with another pid) */
	if (__atomic_exchange_n(&said, shim_self_pid, __ATOMIC_RELAXED) != shim_self_pid)
		shim_debug("virtual CPU %lu is beyond this set's %u CPU%s: bound to CPU %lu by the "
			   "wrap rule (CPUSETSHIM_WRAP=0 refuses it instead); said once a process, "
			   "counted in the table for cpuset-inspect", asked, n, n == 1 ? "" : "s",
			   n ? asked % n : 0);
	cps_count_wrapped(&shim_ctx.t, set);
}

/* Physical mask in buf (size bytes) -> virtual image in place. */
void shim_to_virtual(void *buf, size_t size, const struct shim_cpus *v)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	cps_mask_from_cpuset(phys, v->nw, buf, size);
	unsigned k = cps_phys_to_virt(virt, v->nw, v->cpus, v->nw, phys);
	if (k == 0) /* runs outside its set (never confined): show the set */
		cps_mask_fill(virt, v->nw, v->n);
	cps_mask_to_cpuset(buf, size, virt, v->nw);
}

/* Virtual mask in buf -> physical; 0 CPUs means EINVAL. */
unsigned shim_to_physical(uint64_t *phys, const void *buf, size_t size, const struct shim_cpus *v,
			    uint64_t *virt)
{
	long wrapped;
	cps_mask_from_cpuset(virt, CPS_MAX_WORDS, buf, kernel_read_size(size));
	unsigned got = cps_virt_to_phys_w(phys, v->cpus, v->nw, virt, CPS_MAX_WORDS, shim_wrap,
					  &wrapped);
	if (CPS_UNLIKELY(wrapped >= 0) && got)
		shim_wrapped(shim_set_of_cpus(v), (unsigned long)wrapped, v->n);
	return got;
}
