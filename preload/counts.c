/* SPDX-License-Identifier: BSD-3-Clause */
/* The counts and where a thread runs: sysconf, get_nprocs(_conf),
 * sched_getcpu and getcpu, answered from the set copy. The online count
 * (_SC_NPROCESSORS_ONLN, get_nprocs) is the set's CPUs the kernel has
 * online (its online list read at most once a second: the set's n while
 * all are); the possible count is the set's n
 * count (_SC_NPROCESSORS_CONF, get_nprocs_conf), or with
 * CPUSETSHIM_WIDE_POSSIBLE=1 as wide as the set's highest physical CPU, so
 * that an array it sizes holds a CPU number read from the rseq area,
 * RDPID or RDTSCP (src/views.h, cps_view_width). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/cpulist.h"

/* ---- the set's online CPUs ---- */

/* The online count found last: until (ms of CLOCK_MONOTONIC_COARSE,
 * compared across its wrap) << 32 | count << 12 | the set copy's sequence
 * (its low 12 bits) it was counted for; one atomic word. */
static uint64_t online_known;
static pthread_mutex_t online_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

/* The kernel's online CPUs into m (CPS_MAX_WORDS words); false if its
 * list cannot be read. */
static bool kernel_online(uint64_t *m)
{
	char b[4096];
	ssize_t len = 0, r;
	int fd = shim_real.open ? shim_real.open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return false;
	while (len < (ssize_t)sizeof(b) - 1 && (r = read(fd, b + len, sizeof(b) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	while (len > 0 && (b[len - 1] == '\n' || b[len - 1] == '\0'))
		len--;
	b[len] = 0;
	struct cps_parse_error err;
	return len > 0 && cps_cpulist_parse(b, m, CPS_MAX_WORDS, &err) == 0;
}

/* The set's n CPUs, less those the kernel has offline, counted again
 * when a second has passed or the set changed. Under a test root (a
 * captured machine's files) the set's n. */
unsigned shim_online_count(unsigned n)
{
	uint32_t seq = (uint32_t)__atomic_load_n(&shim_setcopy.s.seq, __ATOMIC_RELAXED) & 0xfff;
	uint32_t now = now_ms();
	uint64_t e = __atomic_load_n(&online_known, __ATOMIC_RELAXED);
	if (CPS_LIKELY(e && (int32_t)((uint32_t)(e >> 32) - now) > 0 && (e & 0xfff) == seq))
		return (unsigned)(e >> 12) & 0xfffff;
	if (shim_test_root() || pthread_mutex_trylock(&online_lock) != 0)
		return n; /* (another thread is counting: the set's n this once) */
	SHIM_KEEP_ERRNO;
	struct shim_cpus v;
	uint64_t on[CPS_MAX_WORDS] = { 0 };
	unsigned c = n;
	if (shim_cpus_now(&v) && kernel_online(on)) {
		unsigned k = 0;
		for (size_t j = 0; j < v.nw; j++)
			k += (unsigned)__builtin_popcountll(v.cpus[j] & on[j]);
		if (k > 0 && k <= n)
			c = k; /* (none online: the list is not this machine's) */
	}
	__atomic_store_n(&online_known, (uint64_t)(now + 1000u) << 32 | (uint64_t)(c & 0xfffff) << 12 | seq,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&online_lock);
	return c;
}

/* The online count: false to pass through. */
static bool count_online(unsigned *n)
{
	if (!shim_count(n))
		return false;
	*n = shim_online_count(*n);
	return true;
}

/* ---- sysconf and friends ---- */

static long fallback_sysconf(int name)
{
	/* Only while resolving (a malloc asking from inside dlsym). */
	if (name == _SC_PAGESIZE)
		return getpagesize();
	errno = ENOSYS;
	return -1;
}

/* Everything but the pass-through of a resolved sysconf, out of line so
 * that the fast path is a compare and a tail call with no frame. */
__attribute__((noinline)) static long sysconf_slow(int name)
{
	if (name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF) {
		shim_resolve_all();
		return shim_real.sysconf ? shim_real.sysconf(name) : fallback_sysconf(name);
	}
	unsigned n;
	if (name == _SC_NPROCESSORS_ONLN ? count_online(&n) : shim_count_possible(&n))
		return n;
	return shim_real.sysconf ? shim_real.sysconf(name) : fallback_sysconf(name);
}

EXPORT long sysconf(int name)
{
	if (CPS_LIKELY(name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF)) {
		long (*f)(int) = shim_real.sysconf;
		if (CPS_LIKELY(f != NULL))
			return f(name);
	}
	return sysconf_slow(name);
}

__attribute__((noinline)) static long __sysconf_slow(int name)
{
	if (name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF) {
		shim_resolve_all();
		return shim_real.__sysconf ? shim_real.__sysconf(name) : fallback_sysconf(name);
	}
	return sysconf_slow(name);
}

EXPORT long __sysconf(int name)
{
	if (CPS_LIKELY(name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF)) {
		long (*f)(int) = shim_real.__sysconf;
		if (CPS_LIKELY(f != NULL))
			return f(name);
	}
	return __sysconf_slow(name);
}

EXPORT int get_nprocs(void)
{
	unsigned n;
	if (count_online(&n))
		return (int)n;
	return shim_real.get_nprocs ? shim_real.get_nprocs() : 1;
}

EXPORT int get_nprocs_conf(void)
{
	unsigned n;
	if (shim_count_possible(&n))
		return (int)n;
	return shim_real.get_nprocs_conf ? shim_real.get_nprocs_conf() : 1;
}

/* ---- where a thread runs ---- */

/* The rule, on a copy of the CPUs; the calls below answer it from the set copy's
 * table (setcopy_vcpu), which derive() fills by this same rule. Called by
 * none: it states the rule the comments name (clang warns of an unused
 * static inline function, gcc does not). */
__attribute__((unused)) static inline int virt_cpu(int cpu, const struct shim_cpus *v)
{
	if (cps_mask_test(v->cpus, v->nw, (unsigned)cpu))
		return (int)cps_mask_rank(v->cpus, v->nw, (unsigned)cpu);
	return cpu % (int)v->n; /* outside the set: still below n */
}

/* The CPU the kernel keeps in the thread's rseq area (struct rseq:
 * cpu_id_start, then cpu_id), as libc's sched_getcpu reads it; -1 when
 * there is none. */
static inline int rseq_cpu(void)
{
#if defined(__x86_64__)
	if (CPS_LIKELY(shim_rseq_ok)) {
		uintptr_t tp;
		__asm__("mov %%fs:0, %0" : "=r"(tp));
		return *(volatile const int32_t *)(tp + (uintptr_t)shim_rseq_offset + 4);
	}
#endif
	return -1;
}

EXPORT int sched_getcpu(void)
{
	unsigned vc;
	if (CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY)) {
		int cpu = rseq_cpu();
		if (CPS_LIKELY(cpu >= 0) && setcopy_vcpu((unsigned)cpu, &vc))
			return (int)vc;
	}
	bool ok = CPS_LIKELY(__atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
	if (!shim_real.sched_getcpu) {
		errno = ENOSYS;
		return -1;
	}
	int cpu = shim_real.sched_getcpu();
	if (cpu >= 0 && ok && setcopy_vcpu((unsigned)cpu, &vc))
		cpu = (int)vc;
	return cpu;
}

EXPORT int getcpu(unsigned *cpu, unsigned *node)
{
	bool ok = shim_ready();
	if (!shim_real.getcpu) {
		errno = ENOSYS;
		return -1;
	}
	int r = shim_real.getcpu(cpu, node);
	unsigned vc;
	if (r == 0 && cpu && ok && setcopy_vcpu(*cpu, &vc))
		*cpu = vc;
	return r;
}

