/* SPDX-License-Identifier: BSD-3-Clause */
/* The affinity family: sched_{get,set}affinity, pthread_{get,set}affinity_np,
 * the pthread attribute's affinity and the pthread_create trampoline that
 * records the virtual mask a thread was created with. Each translates
 * through the set copy (preload/setcopy.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "src/procfs.h"

static __thread const pthread_attr_t *attr_last; /* see pthread_create */
static __thread uint64_t *attr_virt;

/* The calling thread's last wanted mask seen on record, with the table's
 * sequence at that moment (nw 0: none). While the sequence has not moved,
 * nobody wrote the table, so the record still holds it: setting the same
 * mask again needs neither our tid (a system call) nor a look-up. Reset in
 * a forked child, whose thread has another tid. Initial-exec TLS: the shim
 * is loaded at start (LD_PRELOAD), and the general model would cost a
 * __tls_get_addr call on every access. */
#define OWN_WANT_WORDS 16
static __thread __attribute__((tls_model("initial-exec"))) struct {
	uint64_t seq;
	uint32_t nw;
	uint64_t want[OWN_WANT_WORDS];
	/* The last mask the thread set, as it passed it (size bytes), and
	 * the physical mask it became, valid while the table's sequence is
	 * seq: the same call again needs no translation (size 0: none). */
	uint32_t size, pnw;
	uint64_t raw[OWN_WANT_WORDS], phys[OWN_WANT_WORDS];
} own_want;

/* A forked child's thread has another tid: what own_want remembers is not
 * its own. */
void shim_affinity_forked(void)
{
	own_want.nw = 0; /* our thread has another tid now */
	own_want.size = 0;
}

/* libc declares the masks nonnull, yet callers pass NULL and expect the
 * kernel's EFAULT: test through a call the compiler does not see through. */
__attribute__((noinline)) static bool is_null(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
	return p == NULL;
}

/* A thread whose wish is on record takes it with it when it ends: a
 * thread made later with its tid (tids are reused, within 32,768 on many
 * machines) is another thread, which asked for nothing, and must not be
 * pinned by the next resize. The key's value is the tid it was armed for
 * (a forked child's thread has another). */
static pthread_key_t forget_key;
static pthread_once_t forget_once = PTHREAD_ONCE_INIT;
static bool forget_ok;

static void forget_at_exit(void *arg)
{
	pid_t tid = (pid_t)(intptr_t)arg;
	SHIM_KEEP_ERRNO;
	if (__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY && tid == shim_gettid())
		cps_thread_forget(&shim_ctx, shim_self_pid, tid);
}

static void forget_key_make(void)
{
	forget_ok = pthread_key_create(&forget_key, forget_at_exit) == 0;
}

static void arm_forget(pid_t tid)
{
	pthread_once(&forget_once, forget_key_make);
	if (forget_ok && pthread_getspecific(forget_key) != (void *)(intptr_t)tid)
		pthread_setspecific(forget_key, (void *)(intptr_t)tid);
}

/* cps_thread_record, and what its failure means said under
 * CPUSETSHIM_DEBUG (once): a full thread registry loses the wish at the
 * next resize. */
static __thread uint64_t own_start; /* the calling thread's start time, once read */
static __thread pid_t own_start_tid; /* the tid it was read for */
static void record(pid_t pid, pid_t tid, const uint64_t *virt, size_t vw)
{
	static bool told;
	uint64_t start = 0;
	if (pid == shim_self_pid && tid == shim_gettid()) {
		/* a thread (and a forked child's thread) reads its own once */
		if (!own_start || own_start_tid != tid) {
			own_start = cps_thread_start(pid, tid);
			own_start_tid = tid;
		}
		start = own_start;
	}
	int r = cps_thread_record(&shim_ctx, pid, tid, start, virt, vw);
	if (r == -ENOSPC && !__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
		shim_debug("thread %d: its CPUs are not recorded: the thread registry of table %s "
			   "is full (%u threads); a resize gives it the whole set",
			   (int)tid, shim_ctx.t.name, shim_ctx.t.h->caps.max_threads);
	if (r == 0 && pid == shim_self_pid && tid == shim_gettid())
		arm_forget(tid);
}

/* Remember what a thread asked for, so a resize keeps it (best effort:
 * a read-only table or a full registry changes nothing the caller sees). */
void shim_record_wanted(pid_t pid, pid_t tid, const uint64_t *virt)
{
	if (!shim_ctx.t.writable || tid <= 0 || !shim_setcopy.valid ||
	    shim_setcopy.s.set == shim_ctx.t.root_id)
		return;
	record(pid, tid, virt, CPS_MAX_WORDS);
}

/* Is virt (vw words, zero beyond) what the calling thread's record holds,
 * by own_want, at the table's sequence now (returned in *seq)? Asked before
 * the system call, while what it reads is in cache; after it, the caller
 * only checks that the sequence has not moved. */
static inline bool own_want_held(const uint64_t *virt, size_t vw, uint64_t *seq)
{
	size_t mw = shim_ctx.t.mask_words;
	uint64_t now = shm_seq(&shim_ctx.t);
	if (!own_want.nw || own_want.nw != mw || own_want.seq != now)
		return false;
	/* what cps_thread_record compares: mw words, zero beyond vw */
	for (size_t j = 0; j < mw; j++)
		if ((j < vw ? virt[j] : 0) != own_want.want[j])
			return false;
	*seq = now;
	return true;
}

/* shim_record_wanted(shim_self_pid, shim_gettid(), virt) for the calling thread; virt has
 * vw words (zero beyond). */
static void record_own_wanted(const uint64_t *virt, size_t vw)
{
	if (!shim_ctx.t.writable || !shim_setcopy.valid || shim_setcopy.s.set == shim_ctx.t.root_id)
		return;
	size_t mw = shim_ctx.t.mask_words;
	SHIM_KEEP_ERRNO;
	pid_t tid = shim_gettid();
	own_want.nw = 0;
	own_want.size = 0; /* what it remembers was for the old want */
	if (tid > 0)
		record(shim_self_pid, tid, virt, vw);
	uint64_t w[OWN_WANT_WORDS], seq;
	if (tid <= 0 || mw > OWN_WANT_WORDS || shm_read_begin(&shim_ctx.t, &seq) < 0)
		return;
	memset(w, 0, mw * 8);
	memcpy(w, virt, (vw < mw ? vw : mw) * 8);
	long i = shm_thread_find(&shim_ctx.t, tid);
	const struct shm_thread *th = i >= 0 ? shm_thread_at(&shim_ctx.t, (uint32_t)i) : NULL;
	bool held = th && th->tid == tid && !memcmp(th->wanted, w, mw * 8);
	if (held && !shm_read_retry(&shim_ctx.t, seq)) {
		memcpy(own_want.want, w, mw * 8);
		own_want.seq = seq;
		own_want.nw = (uint32_t)mw;
	}
}



/* The kernel's sched_getaffinity, made here rather than through libc's
 * function: one call level less on a path whose whole budget is a few
 * nanoseconds over the system call. Then what libc does after it (zero
 * the caller's buffer beyond the kernel's mask), done by the translation
 * itself. Used for the calling process and its threads, with a size the
 * translation reads in words; everything else goes through libc. */
#if defined(__x86_64__)
#define SHIM_RAW_GETAFFINITY 1
static inline long raw_getaffinity(pid_t tid, size_t size, void *mask)
{
	long r;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"((long)SYS_sched_getaffinity), "D"((long)tid), "S"(size), "d"(mask)
			     : "rcx", "r11", "memory");
	return r;
}

#define RAW_MAX_SIZE 65536 /* well under INT_MAX, where libc clamps */

/* The fast case of a thread's own mask, for a set within CPUs 0-63: the
 * kernel's first word holds the whole set (the thread asked for nothing
 * narrower). CPUs outside the set do not count (as in
 * setcopy_to_virtual), so the image is CPUs 0..n-1 in the first word,
 * whatever the rest of the kernel's mask says (it is as wide as the
 * kernel's NR_CPUS, up to the caller's size). A few loads, two compares,
 * a store in registers, no frame; then libc's own zeroing. False: the
 * general translation. */
static inline __attribute__((always_inline)) bool one_word_to_virtual(unsigned char *b,
								     size_t size, size_t r)
{
	uint32_t ls = __atomic_load_n(&shim_setcopy.lseq, __ATOMIC_ACQUIRE);
	uint64_t phys = shim_setcopy.one_phys, virt = shim_setcopy.one_virt;
	if (CPS_UNLIKELY(r < 8 || !phys || (get_word(b, 0) & phys) != phys || (ls & 1) ||
			 __atomic_load_n(shim_setcopy.tseq, __ATOMIC_ACQUIRE) !=
				 shim_setcopy.s.seq))
		return false;
	if (CPS_UNLIKELY(!setcopy_read_valid(ls)))
		return false;
	put_word(b, 0, virt);
	/* the rest of the kernel's words: zero, unless the thread also has
	 * CPUs beyond 63 outside its set (reading costs less than writing);
	 * beyond them, what libc zeroes, as libc does: a memset from the
	 * start of the caller's buffer would cost more, its stores
	 * misaligned */
	size_t kw = r / 8;
	if (CPS_LIKELY(kw <= 4)) {
		for (size_t j = 1; j < kw; j++) {
			if (get_word(b, j))
				put_word(b, j, 0);
			NOT_A_STRING_OP(j);
		}
	} else {
		memset(b + 8, 0, r - 8);
	}
	if (size > r)
		memset(b + r, 0, size - r);
	return true;
}

/* Everything else after the kernel's answer, out of line: the fast case
 * above needs neither its frame nor its registers. */
__attribute__((noinline)) static void getaffinity_general(cpu_set_t *mask, size_t size, size_t r)
{
	if (CPS_UNLIKELY(!setcopy_to_virtual(mask, size, r)))
		memset((char *)mask + r, 0, size - r); /* as libc */
}

/* What libc's function does after the system call, zeroing the caller's
 * buffer beyond the kernel's mask, is done by the translation itself.
 * Each of these is entered by a tail jump and returns straight to the
 * program: here every return after a system call costs a mispredicted
 * branch (measured when these calls were made raw: the commit log), so
 * the path from the system call back to the program has exactly one, as
 * libc's. */
__attribute__((noinline)) static int getaffinity_raw(pid_t tid, size_t size, cpu_set_t *mask,
							bool as_errno)
{
	long r = raw_getaffinity(tid, size, mask);
	if (CPS_UNLIKELY(r < 0)) {
		if (!as_errno)
			return (int)-r; /* pthread_getaffinity_np's way */
		errno = (int)-r;
		return -1;
	}
	if (CPS_LIKELY(one_word_to_virtual((unsigned char *)mask, size, (size_t)r)))
		return 0;
	getaffinity_general(mask, size, (size_t)r);
	return 0;
}
#endif

__attribute__((noinline)) static int sched_getaffinity_slow(pid_t pid, size_t size, cpu_set_t *mask)
{
	struct shim_cpus v;
	bool ok = CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
	if (!shim_real.sched_getaffinity) {
		errno = ENOSYS;
		return -1;
	}
	int r = shim_real.sched_getaffinity(pid, size, mask);
	if (r == 0 && ok) {
		if (pid == 0 || pid == shim_self_pid) {
			setcopy_to_virtual(mask, size, size); /* reads memory only: errno stays */
		} else {
			SHIM_KEEP_ERRNO;
			if (shim_cpus_of(pid, &v))
				shim_to_virtual(mask, size, &v);
		}
	}
	return r;
}

EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
#ifdef SHIM_RAW_GETAFFINITY
	if (CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) &&
	    (pid == 0 || pid == shim_self_pid) && size % 8 == 0 && size <= RAW_MAX_SIZE)
		return getaffinity_raw(pid, size, mask, true);
#endif
	return sched_getaffinity_slow(pid, size, mask);
}

/* The calling thread's sched_setaffinity: made here for the reason given
 * above getaffinity_raw (nothing is called between the system call
 * and the return unless the record must be written). */
static inline int raw_setaffinity(size_t size, const uint64_t *phys)
{
#if defined(__x86_64__)
	long r;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"((long)SYS_sched_setaffinity), "D"(0L), "S"(size), "d"(phys)
			     : "rcx", "r11", "memory");
	if (CPS_UNLIKELY(r < 0)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
#else
	return shim_real.sched_setaffinity(0, size, (const cpu_set_t *)(const void *)phys);
#endif
}

/* What the steps of sched_setaffinity return when the call is not theirs
 * to make (a call returns 0 or -1) */
#define SETAFF_NOT_MINE 1

/* The calling thread's mask, the same as last time at the same table
 * sequence: it maps onto the same CPUs, kept from then. Inline: this is
 * the whole of the hot path. */
static inline __attribute__((always_inline)) int setaffinity_again(size_t size,
								  const cpu_set_t *mask)
{
	if (!(CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) &&
	      own_want.size == size && own_want.nw && own_want.seq == shm_seq(&shim_ctx.t) &&
	      own_want.pnw <= OWN_WANT_WORDS))
		return SETAFF_NOT_MINE;
	size_t j = 0;
	while (j < size / 8 && get_word((const void *)mask, j) == own_want.raw[j])
		j++;
	if (j != size / 8)
		return SETAFF_NOT_MINE;
	uint64_t seen = own_want.seq;
	int r = raw_setaffinity(own_want.pnw * 8, own_want.phys);
	if (r == 0 && shm_seq(&shim_ctx.t) != seen)
		record_own_wanted(own_want.want, own_want.nw);
	return r;
}

/* Remembers a call of the calling thread that succeeded, if its record
 * holds at the sequence of the set copy that mapped it: the next call with
 * the same mask is setaffinity_again's. */
static void remember_own_call(size_t size, const cpu_set_t *mask, const uint64_t *phys,
			      uint32_t nw, uint64_t sseq)
{
	own_want.size = 0;
	if (own_want.nw && own_want.seq == sseq && size % 8 == 0 && size <= sizeof(own_want.raw) &&
	    nw <= OWN_WANT_WORDS) {
		memcpy(own_want.raw, mask, size);
		memcpy(own_want.phys, phys, nw * 8);
		own_want.pnw = nw;
		own_want.size = (uint32_t)size;
	}
}

/* The calling thread, mapped straight from the set copy; SETAFF_NOT_MINE
 * when the set copy cannot map it (the general path then asks the table) */
__attribute__((noinline)) static int setaffinity_own(size_t size, const cpu_set_t *mask)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	size_t vw;
	uint32_t nw;
	uint64_t sseq = 0;
	long got = setcopy_to_physical(phys, mask, size, virt, &vw, &nw, &sseq);
	if (got < 0)
		return SETAFF_NOT_MINE;
	if (got == 0) {
		errno = EINVAL; /* as the kernel for a mask with no usable CPU */
		return -1;
	}
	uint64_t seen = 0;
	bool held = own_want_held(virt, vw, &seen);
	const struct shm_header *h = shim_ctx.t.h;
	int r = raw_setaffinity(nw * 8, phys);
	if (r == 0 && !(held && __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == seen))
		record_own_wanted(virt, vw); /* keeps errno */
	if (r == 0)
		remember_own_call(size, mask, phys, nw, sseq);
	else
		own_want.size = 0;
	return r;
}

/* Another thread or process, or the calling thread when the set copy
 * cannot map its mask: its set from the table, through libc; untranslated
 * when it is in no set or the shim is not ready */
__attribute__((noinline)) static int setaffinity_general(pid_t pid, size_t size,
							 const cpu_set_t *mask)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_ready() || is_null(mask) || !shim_cpus_of(pid, &v)) {
		if (!shim_real.sched_setaffinity) {
			errno = ENOSYS;
			return -1;
		}
		return shim_real.sched_setaffinity(pid, size, mask);
	}
	if (shim_to_physical(phys, mask, size, &v, virt) == 0) {
		errno = EINVAL; /* as the kernel for a mask with no usable CPU */
		return -1;
	}
	int r = shim_real.sched_setaffinity(pid, v.nw * 8, (const cpu_set_t *)(void *)phys);
	if (r == 0) {
		SHIM_KEEP_ERRNO;
		pid_t tid = pid == 0 ? shim_gettid() : pid;
		shim_record_wanted(pid == 0 || cps_thread_alive(shim_self_pid, pid) ? shim_self_pid : pid,
				   tid, virt);
	}
	return r;
}

/* Three paths: the calling thread's mask as last time (inline), the
 * calling thread's from the set copy, anything else from the table */
EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	if (pid == 0 && !is_null(mask)) {
		int r = setaffinity_again(size, mask);
		if (r != SETAFF_NOT_MINE)
			return r;
		r = setaffinity_own(size, mask);
		if (r != SETAFF_NOT_MINE)
			return r;
	}
	return setaffinity_general(pid, size, mask);
}

__attribute__((noinline)) static int pthread_getaffinity_slow(pthread_t th, size_t size,
							    cpu_set_t *mask)
{
	bool ok = CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
	if (!shim_real.pthread_getaffinity_np)
		return ENOSYS;
	int r = shim_real.pthread_getaffinity_np(th, size, mask);
	if (r == 0 && ok)
		setcopy_to_virtual(mask, size, size); /* reads memory only: errno stays */
	return r;
}

EXPORT int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *mask)
{
#ifdef SHIM_RAW_GETAFFINITY
	/* libc's own: the kernel's call on the tid inside struct pthread */
	if (CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) &&
	    shim_tid_offset >= 0 &&
	    size % 8 == 0 && size <= RAW_MAX_SIZE)
		return getaffinity_raw(((const pid_t *)(const void *)th)[shim_tid_offset], size, mask,
				       false);
#endif
	return pthread_getaffinity_slow(th, size, mask);
}

EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *mask)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_real.pthread_setaffinity_np && !shim_ready())
		return ENOSYS;
	if (!is_null(mask) && pthread_equal(th, pthread_self())) {
		/* the calling thread: straight from the set copy */
		size_t vw;
		uint32_t nw;
		uint64_t sseq;
		long got = setcopy_to_physical(phys, mask, size, virt, &vw, &nw, &sseq);
		if (got == 0)
			return EINVAL;
		if (got > 0) {
			uint64_t seen = 0;
			bool held = own_want_held(virt, vw, &seen);
			const struct shm_header *h = shim_ctx.t.h;
			SHIM_KEEP_ERRNO;
			int r = shim_real.pthread_setaffinity_np(th, nw * 8,
								 (const cpu_set_t *)(void *)phys);
			if (r == 0 && !(held && __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == seen))
				record_own_wanted(virt, vw);
			return r;
		}
	}
	if (!shim_ready() || is_null(mask) || !shim_cpus_now(&v))
		return shim_real.pthread_setaffinity_np(th, size, mask);
	if (shim_to_physical(phys, mask, size, &v, virt) == 0)
		return EINVAL;
	SHIM_KEEP_ERRNO;
	int r = shim_real.pthread_setaffinity_np(th, v.nw * 8, (const cpu_set_t *)(void *)phys);
	if (r == 0)
		shim_record_wanted(shim_self_pid, shim_tid_of(th), virt);
	return r;
}

/* The attribute keeps physical CPUs, since pthread_create hands it to the
 * kernel as it is; the getters translate back. */
#define ATTR_MAX_SIZE ((size_t)1 << 20)

/* Whether mask (size bytes) is all ones: how libc reads an attribute that
 * holds no affinity */
static bool all_ones(const cpu_set_t *mask, size_t size)
{
	const unsigned char *b = (const unsigned char *)mask;
	for (size_t i = 0; i < size; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t size, const cpu_set_t *mask)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_real.pthread_attr_setaffinity_np && !shim_ready())
		return ENOSYS;
	/* a size no mask has (libc answers ENOMEM before reading it) is
	 * libc's to refuse: the translation would read that far */
	if (!shim_ready() || is_null(mask) || size == 0 || size > ATTR_MAX_SIZE ||
	    !shim_cpus_now(&v))
		return shim_real.pthread_attr_setaffinity_np(attr, size, mask);
	/* no CPU of the set named: libc takes any mask here and the kernel
	 * refuses it at pthread_create (EINVAL); an empty one does the same */
	if (shim_to_physical(phys, mask, size, &v, virt) == 0)
		cps_mask_zero(phys, v.nw);
	int r = shim_real.pthread_attr_setaffinity_np(attr, v.nw * 8,
						      (const cpu_set_t *)(void *)phys);
	if (r == 0) {
		if (!attr_virt)
			attr_virt = malloc(sizeof(uint64_t) * CPS_MAX_WORDS);
		if (attr_virt) {
			memcpy(attr_virt, virt, sizeof(uint64_t) * CPS_MAX_WORDS);
			attr_last = attr;
		}
	}
	return r;
}

/* A thread made with an affinity attribute must record the virtual mask
 * it was given, or a resize would hand it the whole set and an OpenMP
 * program's places would not survive. libgomp sets the attribute, then
 * creates, place by place, from one thread: the creating thread keeps the
 * last virtual mask it stored; the new thread records it first thing. */
struct start_tramp {
	void *(*fn)(void *);
	void *arg;
	uint64_t virt[CPS_MAX_WORDS];
};

static void *start_tramp(void *p)
{
	struct start_tramp *t = p;
	void *(*fn)(void *) = t->fn;
	void *arg = t->arg;
	{
		SHIM_KEEP_ERRNO;
		shim_record_wanted(shim_self_pid, shim_gettid(), t->virt);
	}
	free(t);
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], expect[CPS_MAX_WORDS];
	if (!shim_real.pthread_create) {
		shim_resolve_all();
		if (!shim_real.pthread_create)
			return ENOSYS;
	}
	if (!attr || !shim_ready() || !shim_ctx.t.writable || !shim_cpus_now(&v) ||
	    shim_real.pthread_attr_getaffinity_np(attr, v.nw * 8, (cpu_set_t *)(void *)phys) != 0)
		return shim_real.pthread_create(th, attr, fn, arg);
	unsigned nphys = cps_mask_count(phys, v.nw);
	if (nphys == 0 || nphys == v.nw * 64) /* no affinity in the attribute */
		return shim_real.pthread_create(th, attr, fn, arg);
	SHIM_KEEP_ERRNO;
	struct start_tramp *t = malloc(sizeof(*t));
	if (!t)
		return shim_real.pthread_create(th, attr, fn, arg);
	t->fn = fn;
	t->arg = arg;
	cps_mask_zero(t->virt, CPS_MAX_WORDS);
	if (attr == attr_last && attr_virt &&
	    cps_virt_to_phys(expect, v.cpus, v.nw, attr_virt, CPS_MAX_WORDS, shim_wrap) &&
	    cps_mask_equal(expect, phys, v.nw))
		memcpy(t->virt, attr_virt, sizeof(t->virt));
	else
		cps_phys_to_virt(t->virt, CPS_MAX_WORDS, v.cpus, v.nw, phys);
	int r = shim_real.pthread_create(th, attr, start_tramp, t);
	if (r != 0)
		free(t);
	return r;
}

EXPORT int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t size, cpu_set_t *mask)
{
	struct shim_cpus v;
	bool ok = shim_ready();
	if (!shim_real.pthread_attr_getaffinity_np)
		return ENOSYS;
	int r = shim_real.pthread_attr_getaffinity_np(attr, size, mask);
	if (r == 0 && ok && shim_cpus_now(&v)) {
		/* an attribute without affinity reads as all ones: leave it */
		if (!all_ones(mask, size))
			shim_to_virtual(mask, size, &v);
	}
	return r;
}

EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	shim_ready();
	if (!shim_real.pthread_getattr_np)
		return ENOSYS;
	/* The attribute holds the thread's physical mask; our
	 * pthread_attr_getaffinity_np shows it in virtual numbers. */
	return shim_real.pthread_getattr_np(th, attr);
}

