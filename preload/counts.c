/* The counts and where a thread runs: sysconf, get_nprocs(_conf),
 * sched_getcpu and getcpu, answered from the set copy. The online count
 * (_SC_NPROCESSORS_ONLN, get_nprocs) is the set's n; so is the possible
 * count (_SC_NPROCESSORS_CONF, get_nprocs_conf), or with
 * CPUSETSHIM_WIDE_POSSIBLE=1 as wide as the set's highest physical CPU, so
 * that an array it sizes holds a CPU number read from the rseq area,
 * RDPID or RDTSCP (src/views.h, cps_view_width). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "preload/setcopy.h"
#include "preload/shim.h"

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
	if (name == _SC_NPROCESSORS_ONLN ? shim_count(&n) : shim_count_possible(&n))
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
	return sysconf(name);
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
	if (shim_count(&n))
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
 * table (setcopy_vcpu), which derive() fills by this same rule. */
static inline int virt_cpu(int cpu, const struct shim_cpus *v)
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

