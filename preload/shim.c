/* libcpusetshim.so — interposes every way a program counts CPUs, binds to
 * them or asks where it runs, and answers in the virtual numbers of its set
 * (DESIGN.md "Virtual CPUs", "The shim's manners").
 *
 * Manners: set up on first use from whichever call comes first and in the
 * constructor; never exit, abort or print (but for CPUSETSHIM_DEBUG=1, once
 * per reason); errno untouched on success; with no usable table everything
 * passes through. The fast path of a call we do not virtualise is one
 * compare and a tail call: no lock, no allocation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "src/procfs.h"
#include <sys/sysinfo.h>

#define EXPORT __attribute__((visibility("default")))

struct shim_real shim_real;

enum { ST_NEW = 0, ST_BUSY, ST_READY, ST_PASS };
static int state;               /* ST_* */
static bool debug;
static bool wrap = true;
static struct cps_ctx ctx;      /* the table, writable if we may */
static pid_t self_pid;
static uint64_t self_start;
static uint32_t fallback_set;   /* parent's or $CPUSETSHIM_SET */
static long tid_offset = -1;    /* of the tid inside struct pthread, if found */
static __thread const pthread_attr_t *attr_last; /* see pthread_create */
static __thread uint64_t *attr_virt;

/* The snapshot every view answers from, behind a process-local sequence
 * counter so readers never lock; refreshed when the table's changes. */
static struct {
	uint32_t lseq;
	int valid;
	struct cps_snap s;
} snap;
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_debug(const char *fmt, ...)
{
	if (!debug)
		return;
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "cpusetshim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	ssize_t w = write(2, buf, (size_t)n);
	(void)w;
}

/* ---- symbol resolution ---- */

static __thread int resolving;

static void *next_sym(const char *name)
{
	dlerror();
	void *p = dlsym(RTLD_NEXT, name);
	const char *e = dlerror();
	if (e || !p)
		return NULL;
	return p;
}

static void resolve_all(void)
{
	static int done;
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	resolving++;
#define R(f) *(void **)&shim_real.f = next_sym(#f)
	R(sysconf); R(__sysconf); R(get_nprocs); R(get_nprocs_conf);
	R(sched_getaffinity); R(sched_setaffinity);
	R(pthread_getaffinity_np); R(pthread_setaffinity_np);
	R(pthread_attr_setaffinity_np); R(pthread_attr_getaffinity_np); R(pthread_getattr_np);
	R(pthread_create);
	R(sched_getcpu); R(getcpu); R(syscall);
	R(open); R(open64); R(openat); R(openat64);
	R(__open_2); R(__open64_2); R(__openat_2); R(__openat64_2);
	R(fopen); R(fopen64); R(freopen); R(freopen64);
#undef R
	resolving--;
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* ---- set-up ---- */

static pid_t my_tid(void)
{
	return (pid_t)shim_real.syscall(SYS_gettid);
}

/* glibc has no pthread_t -> tid call before 2.42; its struct pthread holds
 * the tid at a fixed offset that we find by looking for our own tid. Only
 * an unambiguous single match is trusted. */
static void find_tid_offset(void)
{
	const pid_t *p = (const pid_t *)(void *)pthread_self();
	pid_t tid = my_tid();
	long found = -1;
	for (long i = 0; i < 1024 / (long)sizeof(pid_t); i++) {
		if (p[i] == tid) {
			if (found >= 0)
				return;
			found = i;
		}
	}
	tid_offset = found;
}

static pid_t tid_of(pthread_t th)
{
	if (pthread_equal(th, pthread_self()))
		return my_tid();
	if (tid_offset < 0)
		return 0;
	return ((const pid_t *)(void *)th)[tid_offset];
}

static bool refresh(void);

static void after_fork_child(void)
{
	if (state != ST_READY)
		return;
	struct cps_procinfo pi;
	uint32_t set = snap.valid ? snap.s.set : 0;
	self_pid = getpid();
	ctx.self = self_pid;
	if (cps_proc_info(self_pid, &pi) == 0)
		self_start = pi.start;
	fallback_set = set;
	snap.valid = 0;
	pthread_mutex_init(&refresh_lock, NULL);
	if (ctx.t.writable && set && set != ctx.t.root_id)
		cps_register(&ctx, self_pid, set);
	refresh();
}

static void setup(void)
{
	const char *e = getenv("CPUSETSHIM_DEBUG");
	debug = e && *e == '1';
	wrap = cps_wrap_enabled();
	int r = cps_open(&ctx, NULL, CPS_OPEN_WRITE);
	if (r == -EACCES || r == -EROFS)
		r = cps_open(&ctx, NULL, CPS_OPEN_READ);
	if (r < 0) {
		shim_debug("passing through: table %s: %s", ctx.t.name[0] ? ctx.t.name : "?",
			   ctx.why ? ctx.why : strerror(-r));
		state = ST_PASS;
		return;
	}
	ctx.patient = false; /* the shim never waits for a writer */
	struct cps_procinfo pi;
	self_pid = getpid();
	if (cps_proc_info(self_pid, &pi) < 0) {
		shim_debug("passing through: cannot read /proc/self/stat");
		cps_close(&ctx);
		state = ST_PASS;
		return;
	}
	self_start = pi.start;
	/* Own entry, parent's, $CPUSETSHIM_SET, the root. */
	uint32_t own = 0, set = 0;
	struct cps_snap tmp;
	if (cps_snapshot(&ctx.t, self_pid, self_start, 0, &tmp) == 0 && tmp.set != ctx.t.root_id)
		own = tmp.set;
	struct cps_procinfo pp = { 0 };
	bool set_of_parent = false;
	if (!own && pi.ppid > 1 && cps_proc_info(pi.ppid, &pp) == 0 &&
	    cps_snapshot(&ctx.t, pi.ppid, pp.start, 0, &tmp) == 0 && tmp.set != ctx.t.root_id) {
		set = tmp.set;
		set_of_parent = true;
	}
	const char *env = getenv("CPUSETSHIM_SET");
	if (!own && !set && env && *env) {
		if (cps_find(&ctx, env, &set) < 0) {
			shim_debug("CPUSETSHIM_SET=%s: no such set; using the root", env);
			set = 0;
		}
	}
	fallback_set = own ? own : set;
	if (!own && set && ctx.t.writable && (r = cps_register(&ctx, self_pid, set)) < 0)
		shim_debug("cannot register in set %u: %s", set, strerror(-r));
	find_tid_offset();
	pthread_atfork(NULL, NULL, after_fork_child);
	state = ST_READY;
	if (!refresh()) {
		shim_debug("passing through: no usable set in table %s", ctx.t.name);
		state = ST_PASS;
		return;
	}
	/* Put in a set by $CPUSETSHIM_SET alone (no cpuset-run, no member
	 * parent): confine ourselves too, as attach would. */
	if (!own && set && set == snap.s.set && !set_of_parent) {
		int saved = errno;
		if (shim_real.sched_setaffinity(0, snap.s.nw * 8,
						(const cpu_set_t *)(void *)snap.s.cpus) < 0)
			shim_debug("cannot confine to set %u: %s", set, strerror(errno));
		errno = saved;
	}
}

bool shim_ready(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (CPS_LIKELY(s == ST_READY))
		return true;
	if (s == ST_PASS)
		return false;
	resolve_all();
	if (resolving)
		return false;
	int expect = ST_NEW;
	if (__atomic_compare_exchange_n(&state, &expect, ST_BUSY, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		int saved = errno;
		resolving++; /* our own set-up calls pass straight through */
		setup();
		resolving--;
		errno = saved;
		__atomic_store_n(&state, state == ST_BUSY ? ST_PASS : state, __ATOMIC_RELEASE);
		return state == ST_READY;
	}
	/* Another thread is setting up, or it is us, re-entered: pass through
	 * rather than wait (a constructor may be holding a lock we need). */
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY;
}

__attribute__((constructor)) static void shim_ctor(void)
{
	shim_ready();
}

/* ---- the snapshot ---- */

static bool refresh(void)
{
	struct cps_snap tmp;
	if (pthread_mutex_trylock(&refresh_lock) != 0)
		return snap.valid; /* another thread is at it: the old one will do */
	int r = cps_snapshot(&ctx.t, self_pid, self_start, fallback_set, &tmp);
	if (r == 0) {
		__atomic_store_n(&snap.lseq, snap.lseq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		snap.s.seq = tmp.seq;
		snap.s.set = tmp.set;
		snap.s.n = tmp.n;
		snap.s.nw = tmp.nw;
		memcpy(snap.s.cpus, tmp.cpus, tmp.nw * 8);
		__atomic_store_n(&snap.valid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&snap.lseq, snap.lseq + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&refresh_lock);
	return snap.valid;
}

static inline bool fresh(void)
{
	return snap.valid && __atomic_load_n(&ctx.t.h->seq, __ATOMIC_ACQUIRE) == snap.s.seq;
}

/* The count alone: the sysconf path. */
static inline bool shim_count(unsigned *n)
{
	if (!shim_ready())
		return false;
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&snap.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		unsigned v = snap.s.n;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&snap.lseq, __ATOMIC_RELAXED) == ls) {
			*n = v;
			return v > 0;
		}
	}
	return false;
}

bool shim_view(struct shim_view *v)
{
	if (!shim_ready())
		return false;
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&snap.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		v->n = snap.s.n;
		v->nw = snap.s.nw <= CPS_MAX_WORDS ? snap.s.nw : CPS_MAX_WORDS;
		memcpy(v->cpus, snap.s.cpus, v->nw * 8);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&snap.lseq, __ATOMIC_RELAXED) == ls)
			return v->n > 0;
	}
	return false;
}

/* The set of another process: its record, else its thread group is ours,
 * else its ancestry. */
static bool view_of(pid_t pid, struct shim_view *v)
{
	if (pid == 0 || pid == self_pid)
		return shim_view(v);
	if (!shim_view(v)) /* also checks we are set up */
		return false;
	if (cps_thread_alive(self_pid, pid))
		return true;
	uint32_t set;
	struct cps_snap s;
	if (cps_which(&ctx, pid, &set) < 0 ||
	    cps_snapshot(&ctx.t, -1, 0, set, &s) < 0)
		return false;
	v->n = s.n;
	v->nw = s.nw;
	memcpy(v->cpus, s.cpus, s.nw * 8);
	return true;
}

/* ---- masks in user buffers ---- */

/* libc declares the masks nonnull, yet callers pass NULL and expect the
 * kernel's EFAULT: test through a call the compiler does not see through. */
__attribute__((noinline)) static bool is_null(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
	return p == NULL;
}


/* Physical mask in buf (size bytes) -> virtual image in place. */
static void to_virtual(void *buf, size_t size, const struct shim_view *v)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	cps_mask_from_cpuset(phys, v->nw, buf, size);
	unsigned k = cps_phys_to_virt(virt, v->nw, v->cpus, v->nw, phys);
	if (k == 0) /* runs outside its set (never confined): show the set */
		cps_mask_fill(virt, v->nw, v->n);
	cps_mask_to_cpuset(buf, size, virt, v->nw);
}

/* Virtual mask in buf -> physical; 0 CPUs means EINVAL. */
static unsigned to_physical(uint64_t *phys, const void *buf, size_t size, const struct shim_view *v,
			    uint64_t *virt)
{
	cps_mask_from_cpuset(virt, CPS_MAX_WORDS, buf, size);
	return cps_virt_to_phys(phys, v->cpus, v->nw, virt, CPS_MAX_WORDS, wrap);
}

bool shim_thread_vmask(pid_t tid, const struct shim_view *v, uint64_t *vm, size_t vnw)
{
	uint64_t phys[CPS_MAX_WORDS];
	if (shim_real.syscall(SYS_sched_getaffinity, tid, v->nw * 8, phys) < 0)
		return false;
	cps_mask_zero(vm, vnw);
	if (cps_phys_to_virt(vm, vnw, v->cpus, v->nw, phys) == 0)
		cps_mask_fill(vm, vnw, v->n);
	return true;
}

/* Remember what a thread asked for, so a resize keeps it (best effort:
 * a read-only table or a full registry changes nothing the caller sees). */
static void record_wanted(pid_t pid, pid_t tid, const uint64_t *virt)
{
	if (!ctx.t.writable || tid <= 0 || !snap.valid || snap.s.set == ctx.t.root_id)
		return;
	cps_thread_want(&ctx, pid, tid, virt, CPS_MAX_WORDS);
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

EXPORT long sysconf(int name)
{
	if (CPS_LIKELY(name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF)) {
		long (*f)(int) = shim_real.sysconf;
		if (CPS_LIKELY(f != NULL))
			return f(name);
		resolve_all();
		return shim_real.sysconf ? shim_real.sysconf(name) : fallback_sysconf(name);
	}
	unsigned n;
	if (shim_count(&n))
		return n;
	return shim_real.sysconf ? shim_real.sysconf(name) : fallback_sysconf(name);
}

EXPORT long __sysconf(int name)
{
	if (CPS_LIKELY(name != _SC_NPROCESSORS_ONLN && name != _SC_NPROCESSORS_CONF)) {
		long (*f)(int) = shim_real.__sysconf;
		if (CPS_LIKELY(f != NULL))
			return f(name);
		resolve_all();
		return shim_real.__sysconf ? shim_real.__sysconf(name) : fallback_sysconf(name);
	}
	return sysconf(name);
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
	if (shim_count(&n))
		return (int)n;
	return shim_real.get_nprocs_conf ? shim_real.get_nprocs_conf() : 1;
}

/* ---- affinity ---- */

EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
	struct shim_view v;
	bool ok = shim_ready();
	if (!shim_real.sched_getaffinity) {
		errno = ENOSYS;
		return -1;
	}
	int r = shim_real.sched_getaffinity(pid, size, mask);
	if (r == 0 && ok) {
		int saved = errno;
		if (view_of(pid, &v))
			to_virtual(mask, size, &v);
		errno = saved;
	}
	return r;
}

EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	struct shim_view v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_ready() || is_null(mask) || !view_of(pid, &v)) {
		if (!shim_real.sched_setaffinity) {
			errno = ENOSYS;
			return -1;
		}
		return shim_real.sched_setaffinity(pid, size, mask);
	}
	if (to_physical(phys, mask, size, &v, virt) == 0) {
		errno = EINVAL; /* as the kernel for a mask with no usable CPU */
		return -1;
	}
	int saved = errno;
	int r = shim_real.sched_setaffinity(pid, v.nw * 8, (const cpu_set_t *)(void *)phys);
	if (r == 0) {
		pid_t tid = pid == 0 ? my_tid() : pid;
		record_wanted(pid == 0 || cps_thread_alive(self_pid, pid) ? self_pid : pid, tid, virt);
		errno = saved;
	}
	return r;
}

EXPORT int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *mask)
{
	struct shim_view v;
	bool ok = shim_ready();
	if (!shim_real.pthread_getaffinity_np)
		return ENOSYS;
	int r = shim_real.pthread_getaffinity_np(th, size, mask);
	if (r == 0 && ok) {
		int saved = errno;
		if (shim_view(&v))
			to_virtual(mask, size, &v);
		errno = saved;
	}
	return r;
}

EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *mask)
{
	struct shim_view v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_real.pthread_setaffinity_np && !shim_ready())
		return ENOSYS;
	if (!shim_ready() || is_null(mask) || !shim_view(&v))
		return shim_real.pthread_setaffinity_np(th, size, mask);
	if (to_physical(phys, mask, size, &v, virt) == 0)
		return EINVAL;
	int saved = errno;
	int r = shim_real.pthread_setaffinity_np(th, v.nw * 8, (const cpu_set_t *)(void *)phys);
	if (r == 0)
		record_wanted(self_pid, tid_of(th), virt);
	errno = saved;
	return r;
}

/* The attribute keeps physical CPUs, since pthread_create hands it to the
 * kernel as it is; the getters translate back. */
EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t size, const cpu_set_t *mask)
{
	struct shim_view v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_real.pthread_attr_setaffinity_np && !shim_ready())
		return ENOSYS;
	if (!shim_ready() || is_null(mask) || size == 0 || !shim_view(&v))
		return shim_real.pthread_attr_setaffinity_np(attr, size, mask);
	if (to_physical(phys, mask, size, &v, virt) == 0)
		return EINVAL;
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
	int saved = errno;
	record_wanted(self_pid, my_tid(), t->virt);
	errno = saved;
	free(t);
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	struct shim_view v;
	uint64_t phys[CPS_MAX_WORDS], expect[CPS_MAX_WORDS];
	if (!shim_real.pthread_create) {
		resolve_all();
		if (!shim_real.pthread_create)
			return ENOSYS;
	}
	if (!attr || !shim_ready() || !ctx.t.writable || !shim_view(&v) ||
	    shim_real.pthread_attr_getaffinity_np(attr, v.nw * 8, (cpu_set_t *)(void *)phys) != 0)
		return shim_real.pthread_create(th, attr, fn, arg);
	unsigned nphys = cps_mask_count(phys, v.nw);
	if (nphys == 0 || nphys == v.nw * 64) /* no affinity in the attribute */
		return shim_real.pthread_create(th, attr, fn, arg);
	int saved = errno;
	struct start_tramp *t = malloc(sizeof(*t));
	if (!t) {
		errno = saved;
		return shim_real.pthread_create(th, attr, fn, arg);
	}
	t->fn = fn;
	t->arg = arg;
	cps_mask_zero(t->virt, CPS_MAX_WORDS);
	if (attr == attr_last && attr_virt &&
	    cps_virt_to_phys(expect, v.cpus, v.nw, attr_virt, CPS_MAX_WORDS, wrap) &&
	    cps_mask_equal(expect, phys, v.nw))
		memcpy(t->virt, attr_virt, sizeof(t->virt));
	else
		cps_phys_to_virt(t->virt, CPS_MAX_WORDS, v.cpus, v.nw, phys);
	int r = shim_real.pthread_create(th, attr, start_tramp, t);
	if (r != 0)
		free(t);
	errno = saved;
	return r;
}

EXPORT int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t size, cpu_set_t *mask)
{
	struct shim_view v;
	bool ok = shim_ready();
	if (!shim_real.pthread_attr_getaffinity_np)
		return ENOSYS;
	int r = shim_real.pthread_attr_getaffinity_np(attr, size, mask);
	if (r == 0 && ok && shim_view(&v)) {
		/* an attribute without affinity reads as all ones: leave it */
		uint64_t m[CPS_MAX_WORDS];
		cps_mask_from_cpuset(m, CPS_MAX_WORDS, mask, size);
		if (cps_mask_count(m, CPS_MAX_WORDS) < size * 8)
			to_virtual(mask, size, &v);
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

/* ---- where a thread runs ---- */

static inline int virt_cpu(int cpu, const struct shim_view *v)
{
	if (cps_mask_test(v->cpus, v->nw, (unsigned)cpu))
		return (int)cps_mask_rank(v->cpus, v->nw, (unsigned)cpu);
	return cpu % (int)v->n; /* outside the set: still below n */
}

EXPORT int sched_getcpu(void)
{
	struct shim_view v;
	bool ok = shim_ready();
	if (!shim_real.sched_getcpu) {
		errno = ENOSYS;
		return -1;
	}
	int cpu = shim_real.sched_getcpu();
	if (cpu >= 0 && ok && shim_view(&v))
		cpu = virt_cpu(cpu, &v);
	return cpu;
}

EXPORT int getcpu(unsigned *cpu, unsigned *node)
{
	struct shim_view v;
	bool ok = shim_ready();
	if (!shim_real.getcpu) {
		errno = ENOSYS;
		return -1;
	}
	int r = shim_real.getcpu(cpu, node);
	if (r == 0 && cpu && ok && shim_view(&v))
		*cpu = (unsigned)virt_cpu((int)*cpu, &v);
	return r;
}

/* ---- syscall(2) ---- */

EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (CPS_UNLIKELY(!shim_real.syscall)) {
		resolve_all();
		if (!shim_real.syscall) {
			errno = ENOSYS;
			return -1;
		}
	}
	if (CPS_LIKELY(nr != SYS_sched_getaffinity && nr != SYS_sched_setaffinity &&
		       nr != SYS_getcpu))
		return shim_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);

	struct shim_view v;
	bool ok = shim_ready();
	if (nr == SYS_sched_getaffinity) {
		long r = shim_real.syscall(nr, a[0], a[1], a[2]);
		/* r is the kernel's mask size in bytes; keep it */
		if (r > 0 && ok && view_of((pid_t)a[0], &v)) {
			int saved = errno;
			to_virtual((void *)a[2], (size_t)r, &v);
			errno = saved;
		}
		return r;
	}
	if (nr == SYS_sched_setaffinity) {
		uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
		if (!ok || !a[2] || !view_of((pid_t)a[0], &v))
			return shim_real.syscall(nr, a[0], a[1], a[2]);
		if (to_physical(phys, (const void *)a[2], (size_t)a[1], &v, virt) == 0) {
			errno = EINVAL;
			return -1;
		}
		int saved = errno;
		long r = shim_real.syscall(nr, a[0], (long)(v.nw * 8), (long)phys);
		if (r == 0) {
			pid_t pid = (pid_t)a[0];
			pid_t tid = pid == 0 ? my_tid() : pid;
			record_wanted(pid == 0 || cps_thread_alive(self_pid, pid) ? self_pid : pid, tid,
				      virt);
			errno = saved;
		}
		return r;
	}
	/* SYS_getcpu */
	long r = shim_real.syscall(nr, a[0], a[1], a[2]);
	if (r == 0 && a[0] && ok && shim_view(&v)) {
		unsigned *cpu = (unsigned *)a[0];
		*cpu = (unsigned)virt_cpu((int)*cpu, &v);
	}
	return r;
}
