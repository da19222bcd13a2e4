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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "src/procfs.h"
#include <sys/sysinfo.h>

#define EXPORT __attribute__((visibility("default")))

struct shim_real shim_real;
#if defined(__x86_64__)
long (*shim_syscall_next)(long, ...); /* shim_real.syscall, for the syscall stub */
void shim_vfile_resolved(void);
#endif

enum { ST_NEW = 0, ST_BUSY, ST_READY, ST_PASS };
static int state;               /* ST_* */
static bool debug;
static bool wrap = true;
static struct cps_ctx ctx;      /* the table, writable if we may */
static pid_t self_pid;
static uint64_t self_start;
static uint32_t fallback_set;   /* parent's or $CPUSETSHIM_SET */
static long tid_offset = -1;    /* of the tid inside struct pthread, if found */
#if defined(__x86_64__)
static ptrdiff_t rseq_offset;   /* of the thread's struct rseq from %fs:0 */
static bool rseq_ok;
#endif
static pid_t setup_pid;         /* process whose thread runs setup() */
/* The thread running setup(), so that it passes its own calls through. */
static __thread __attribute__((tls_model("initial-exec"))) bool in_setup;
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

/* The set copy every answer comes from, behind a process-local sequence
 * counter so readers never lock; refreshed when the table's changes. */
static struct {
	uint32_t lseq;
	int valid;
	const uint64_t *tseq; /* &ctx.t.h->seq, beside what fresh() compares it with */
	struct cps_placement s;
	/* Derived from s.cpus when it is taken, so that the hot calls neither
	 * copy the set nor count bits: words of s.cpus up to the last
	 * non-zero one, the virtual number of the first CPU of each word,
	 * what virt_cpu() answers for each physical CPU, and the physical
	 * CPU of each virtual one (0..n-1). */
	uint32_t top;
	uint32_t base[CPS_MAX_WORDS];
	/* cap entries each, mapped at the first refresh (the table's mask
	 * width, fixed): 32 KiB of bss for CPS_MAX_CPUS would cost every
	 * process that loads the shim a mapping and page faults. */
	uint32_t cap;
	uint16_t *vcpu, *pcpu;
} setcopy;
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
	R(lseek); R(lseek64); R(pread); R(pread64);
	R(rewind); R(fseek); R(fseeko); R(fseeko64);
#undef R
#if defined(__x86_64__)
	__atomic_store_n(&shim_syscall_next, shim_real.syscall, __ATOMIC_RELEASE);
	shim_vfile_resolved(); /* the open stubs' copies, in vfile.c */
	/* glibc >= 2.35 registers an rseq area per thread and exports where
	 * it is; its sched_getcpu reads the CPU from there. */
	const ptrdiff_t *off = next_sym("__rseq_offset");
	const unsigned *size = next_sym("__rseq_size");
	if (!off)
		off = dlsym(RTLD_DEFAULT, "__rseq_offset");
	if (!size)
		size = dlsym(RTLD_DEFAULT, "__rseq_size");
	if (off && size && *size >= 8) {
		rseq_offset = *off;
		__atomic_store_n(&rseq_ok, true, __ATOMIC_RELEASE);
	}
#endif
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
static bool refresh_ex(bool patient);

/* The parent and start time of pid, from /proc/PID/stat as cps_proc_info()
 * reads them (0, or a negative errno), without what the shim never uses: a
 * path formatted by stdio and a stat(2) of /proc/PID for the owner. This
 * runs in every process start, where each first use of a libc routine
 * costs page faults. */
static int proc_stat_of(pid_t pid, pid_t *ppid, uint64_t *start)
{
	char path[32] = "/proc/", buf[1024], digits[12];
	int nd = 0;
	unsigned v = (unsigned)pid;
	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) && nd < 11);
	size_t p = 6;
	while (nd)
		path[p++] = digits[--nd];
	memcpy(path + p, "/stat", 6);
	if (!shim_real.open)
		return -ENOSYS;
	/* the real open: no view is ever made of /proc/PID/stat */
	int fd = shim_real.open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	ssize_t n;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = 0;
	/* comm may hold spaces and parentheses: fields start after the last ')' */
	char *q = strrchr(buf, ')');
	if (!q)
		return -EIO;
	q++;
	*ppid = 0;
	*start = 0;
	for (int field = 3; field <= 22 && *q; field++) {
		while (*q == ' ')
			q++;
		if (field == 4 || field == 22) {
			unsigned long long x = 0;
			while (*q >= '0' && *q <= '9')
				x = x * 10 + (unsigned)(*q++ - '0');
			if (field == 4)
				*ppid = (pid_t)x;
			else
				*start = x;
		}
		q = strchr(q, ' ');
		if (!q)
			break;
	}
	return *start ? 0 : -EIO;
}

static void after_fork_child(void)
{
	own_want.nw = 0; /* our thread has another tid now */
	own_want.size = 0;
	if (state != ST_READY)
		return;
	pid_t ppid;
	uint64_t start;
	uint32_t set = setcopy.valid ? setcopy.s.set : 0;
	self_pid = getpid();
	ctx.self = self_pid;
	if (proc_stat_of(self_pid, &ppid, &start) == 0)
		self_start = start;
	fallback_set = set;
	setcopy.valid = 0;
	pthread_mutex_init(&refresh_lock, NULL);
	if (ctx.t.writable && set && set != ctx.t.root_id)
		cps_register(&ctx, self_pid, set);
	refresh();
}

/* cps_placement_read for set-up, which may wait: a writer of another process
 * inside the table (preempted on a busy machine, say) makes it fail with
 * -EAGAIN after a bounded spin, and set-up must not take that for "no
 * set" and pass through for the rest of the process's life. Up to about
 * two seconds, as the tools' readers wait. */
static int placement_at_setup(pid_t pid, uint64_t start, uint32_t fallback, struct cps_placement *s)
{
	struct timespec ts = { 0, 1000000 };
	int r;
	for (int i = 0; (r = cps_placement_read(&ctx.t, pid, start, fallback, s)) == -EAGAIN && i < 2000;
	     i++)
		nanosleep(&ts, NULL);
	return r;
}

/* Set of pid by its record, else its nearest ancestor's: the rule of
 * cps_which(), read with the shim's own reader of /proc. 0: no record
 * matched (the root). Each process without a record costs one read of
 * its /proc/PID/stat, so a table with no members answers at once. */
static uint32_t ancestry_set(pid_t pid)
{
	if (__atomic_load_n(&ctx.t.h->nprocs, __ATOMIC_RELAXED) == 0)
		return 0;
	for (int depth = 0; pid > 1 && depth < 256; depth++) {
		pid_t ppid;
		uint64_t start;
		if (proc_stat_of(pid, &ppid, &start) < 0)
			return 0;
		/* a record of pid with this start time, in a set that exists:
		 * cps_placement_read answers the root otherwise (no record is ever
		 * kept for the root itself) */
		struct cps_placement tmp;
		if (shm_proc_find(&ctx.t, pid) >= 0 && placement_at_setup(pid, start, 0, &tmp) == 0 &&
		    tmp.set != ctx.t.root_id)
			return tmp.set;
		pid = ppid;
	}
	return 0;
}

/* Set-up runs at the first call that needs the table, not at load: a
 * program that never asks about CPUs (most commands a job script runs)
 * pays only for loading the library. The set of a process is its own
 * record, else its nearest registered ancestor's (as the tools see it),
 * else $CPUSETSHIM_SET, else $CPUSETSHIM_RUN_SET, else the root. */
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
	self_pid = getpid();
	self_start = 0;
	/* Our start time tells our record from a dead process's with our pid;
	 * with no record under our pid it is not needed (a record made later
	 * can only be ours), and /proc is not read. */
	uint32_t own = 0, set = 0;
	struct cps_placement tmp;
	if (shm_proc_find(&ctx.t, self_pid) >= 0) {
		pid_t ppid;
		if (proc_stat_of(self_pid, &ppid, &self_start) < 0) {
			shim_debug("passing through: cannot read /proc/self/stat");
			cps_close(&ctx);
			state = ST_PASS;
			return;
		}
		if (placement_at_setup(self_pid, self_start, 0, &tmp) == 0 &&
		    tmp.set != ctx.t.root_id)
			own = tmp.set;
	}
	bool inherited = false;
	if (!own && (set = ancestry_set(getppid())) != 0)
		inherited = true;
	const char *env = getenv("CPUSETSHIM_SET");
	if (!own && !set && env && *env) {
		if (cps_find(&ctx, env, &set) < 0) {
			shim_debug("CPUSETSHIM_SET=%s: no such set; using the root", env);
			set = 0;
		}
	}
	/* Left by cpuset-run for its descendants: the set of one that lost
	 * its ancestry (an orphan, reparented). Its kernel mask came from
	 * that set already, so it is not confined again. */
	const char *run = getenv("CPUSETSHIM_RUN_SET");
	if (!own && !set && run && *run) {
		if (cps_find(&ctx, run, &set) < 0)
			set = 0;
		inherited = set != 0;
	}
	fallback_set = own ? own : set;
	if (!own && set && ctx.t.writable && (r = cps_register(&ctx, self_pid, set)) < 0)
		shim_debug("cannot register in set %u: %s", set, strerror(-r));
	find_tid_offset();
	pthread_atfork(NULL, NULL, after_fork_child);
	/* The first set copy before READY: the other threads take READY
	 * for "the set copy is there" and would pass through without it. */
	if (!refresh_ex(true)) {
		shim_debug("passing through: no usable set in table %s", ctx.t.name);
		state = ST_PASS;
		return;
	}
	state = ST_READY;
	/* Put in a set by $CPUSETSHIM_SET alone (no cpuset-run, no member
	 * ancestor): confine ourselves too, as attach would. */
	if (!own && set && set == setcopy.s.set && !inherited) {
		int saved = errno;
		if (shim_real.sched_setaffinity(0, setcopy.s.nw * 8,
						(const cpu_set_t *)(void *)setcopy.s.cpus) < 0)
			shim_debug("cannot confine to set %u: %s", set, strerror(errno));
		errno = saved;
	}
}

static void wait_for_setup(void)
{
	/* Set-up takes microseconds; a writer dead inside the table's lock
	 * is repaired by the robust mutex. Past two seconds something is
	 * wrong: pass through rather than hang the program. */
	struct timespec ts = { 0, 50000 };
	pid_t owner = __atomic_load_n(&setup_pid, __ATOMIC_ACQUIRE);
	if (owner && owner != getpid()) {
		/* forked while a thread of the parent was setting up: that
		 * thread is not here; start again */
		int busy = ST_BUSY;
		__atomic_compare_exchange_n(&state, &busy, ST_NEW, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		return;
	}
	for (int i = 0; i < 40000 && __atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_BUSY; i++) {
		if (i < 200)
			sched_yield();
		else
			nanosleep(&ts, NULL);
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
	if (resolving || in_setup)
		return false;
	int expect = ST_NEW;
	if (__atomic_compare_exchange_n(&state, &expect, ST_BUSY, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		int saved = errno;
		__atomic_store_n(&setup_pid, getpid(), __ATOMIC_RELEASE);
		in_setup = true;
		resolving++; /* our own set-up calls pass straight through */
		setup();
		resolving--;
		in_setup = false;
		errno = saved;
		__atomic_store_n(&state, state == ST_BUSY ? ST_PASS : state, __ATOMIC_RELEASE);
		return state == ST_READY;
	}
	/* Another thread is setting up: wait for it, so that no call answers
	 * with physical numbers while the others answer with virtual ones. */
	int saved = errno;
	wait_for_setup();
	errno = saved;
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_NEW)
		return shim_ready(); /* the fork case above: set up here */
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY;
}

const char *shim_table_name(void)
{
	return ctx.t.name;
}

/* At load, only what must happen before main: a process put in a set by
 * $CPUSETSHIM_SET alone confines itself at once. Everything else waits
 * for the first call that needs the table (shim_ready). */
__attribute__((constructor)) static void shim_ctor(void)
{
	const char *e = getenv("CPUSETSHIM_SET");
	if (e && *e)
		shim_ready();
}

/* ---- the set copy ---- */

/* The derived tables of setcopy (refresh, inside its write section). */
static void derive(void)
{
	uint32_t nw = setcopy.s.nw <= CPS_MAX_WORDS ? setcopy.s.nw : CPS_MAX_WORDS;
	unsigned n = setcopy.s.n ? setcopy.s.n : 1, r = 0;
	setcopy.top = 0;
	for (uint32_t i = 0; i < nw; i++) {
		uint64_t w = setcopy.s.cpus[i];
		setcopy.base[i] = r;
		if (w)
			setcopy.top = i + 1;
		for (unsigned b = 0; b < 64; b++) {
			unsigned cpu = i * 64 + b;
			if ((w >> b) & 1) {
				setcopy.pcpu[r] = (uint16_t)cpu;
				setcopy.vcpu[cpu] = (uint16_t)r++;
			} else {
				setcopy.vcpu[cpu] = (uint16_t)(cpu % n); /* as virt_cpu() */
			}
		}
	}
}

/* A new set copy if the table can be read now; else the old one stays
 * (patient: at set-up, where there is no old one, wait for a writer). */
static bool refresh_ex(bool patient)
{
	struct cps_placement tmp;
	if (pthread_mutex_trylock(&refresh_lock) != 0)
		return setcopy.valid; /* another thread is at it: the old one will do */
	int r = patient ? placement_at_setup(self_pid, self_start, fallback_set, &tmp)
			: cps_placement_read(&ctx.t, self_pid, self_start, fallback_set, &tmp);
	if (r == 0 && !setcopy.vcpu) {
		size_t cap = (size_t)tmp.nw * 64;
		void *m = mmap(NULL, cap * 2 * sizeof(uint16_t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			r = -ENOMEM;
		} else {
			setcopy.vcpu = m;
			setcopy.pcpu = setcopy.vcpu + cap;
			__atomic_store_n(&setcopy.cap, (uint32_t)cap, __ATOMIC_RELEASE);
		}
	}
	if (r == 0 && tmp.nw * 64 > setcopy.cap)
		r = -EINVAL; /* cannot happen: one table, one width */
	if (r == 0) {
		__atomic_store_n(&setcopy.lseq, setcopy.lseq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		setcopy.s.seq = tmp.seq;
		setcopy.s.set = tmp.set;
		setcopy.s.n = tmp.n;
		setcopy.s.nw = tmp.nw;
		memcpy(setcopy.s.cpus, tmp.cpus, tmp.nw * 8);
		setcopy.tseq = &ctx.t.h->seq;
		derive();
		__atomic_store_n(&setcopy.valid, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&setcopy.lseq, setcopy.lseq + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&refresh_lock);
	return setcopy.valid;
}

static bool refresh(void)
{
	return refresh_ex(false);
}

static inline bool fresh(void)
{
	return setcopy.valid && __atomic_load_n(setcopy.tseq, __ATOMIC_ACQUIRE) == setcopy.s.seq;
}

/* The count alone: the sysconf path. */
static inline bool shim_count(unsigned *n)
{
	if (!shim_ready())
		return false;
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&setcopy.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		unsigned v = setcopy.s.n;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&setcopy.lseq, __ATOMIC_RELAXED) == ls) {
			*n = v;
			return v > 0;
		}
	}
	return false;
}

bool shim_cpus_now(struct shim_cpus *v)
{
	if (!shim_ready())
		return false;
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&setcopy.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		v->n = setcopy.s.n;
		v->nw = setcopy.s.nw <= CPS_MAX_WORDS ? setcopy.s.nw : CPS_MAX_WORDS;
		memcpy(v->cpus, setcopy.s.cpus, v->nw * 8);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&setcopy.lseq, __ATOMIC_RELAXED) == ls)
			return v->n > 0;
	}
	return false;
}

static void to_virtual(void *buf, size_t size, const struct shim_cpus *v);

/* ---- hot paths: straight from the set copy ----
 *
 * Each gives exactly what its counterpart on a copy of the CPUs gives (shim_cpus_now
 * then virt_cpu, to_virtual, to_physical), reading the set copy between two
 * reads of its sequence instead of copying it, and using the derived
 * tables instead of counting bits. Everything read may be torn by a
 * concurrent refresh until the sequence is checked: every index is bounded
 * first. False (or -1): the caller passes through, as for !shim_cpus_now(). */

/* virt_cpu(cpu, cpus), once shim_ready() said yes */
static inline bool setcopy_vcpu(unsigned cpu, unsigned *out)
{
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&setcopy.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		uint32_t n = setcopy.s.n, nw = setcopy.s.nw;
		unsigned v = 0;
		if (cpu < nw * 64 && cpu < setcopy.cap)
			v = setcopy.vcpu[cpu];
		else if (n)
			v = cpu % n;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&setcopy.lseq, __ATOMIC_RELAXED) == ls) {
			if (n == 0)
				return false;
			*out = v;
			return true;
		}
	}
	return false;
}

/* Word loops the compiler must not turn into string instructions: with
 * a bounded length it emits rep stos/movs, whose start-up alone costs more
 * than these calls' whole budget. */
#define NOT_A_STRING_OP(i) __asm__("" : "+r"(i))

static inline uint64_t get_word(const unsigned char *b, size_t j)
{
	uint64_t x;
	memcpy(&x, b + j * 8, 8);
	return x;
}

static inline void put_word(unsigned char *b, size_t j, uint64_t x)
{
	memcpy(b + j * 8, &x, 8);
}

/* Word j of a mask holding CPUs 0..n-1 (cps_mask_fill). */
static inline uint64_t fill_word(size_t j, unsigned n)
{
	if (j < n / 64)
		return ~(uint64_t)0;
	if (j == n / 64 && n % 64)
		return ((uint64_t)1 << (n % 64)) - 1;
	return 0;
}

/* to_virtual(buf, size, cpus): the caller's physical mask becomes its
 * virtual image, in place. */
static inline __attribute__((always_inline)) bool setcopy_to_virtual(void *buf, size_t size,
								 size_t valid)
{
	if (sizeof(unsigned long) != 8 || size % 8) {
		struct shim_cpus v;
		if (!shim_cpus_now(&v))
			return false;
		to_virtual(buf, size, &v);
		return true;
	}
	if (CPS_UNLIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) != ST_READY) && !shim_ready())
		return false;
	unsigned char *b = buf;
	size_t bw = size / 8;
	uint64_t virt[CPS_MAX_WORDS];
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return false;
		uint32_t ls = __atomic_load_n(&setcopy.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		uint32_t n = setcopy.s.n, top = setcopy.top;
		if (n > CPS_MAX_CPUS)
			n = CPS_MAX_CPUS;
		if (top > CPS_MAX_WORDS)
			top = CPS_MAX_WORDS;
		size_t vw = CPS_WORDS_FOR(n), m = bw < top ? bw : top;
		size_t filled = 0; /* virt[0..filled) are set: ranks only grow */
		unsigned got = 0;
		for (size_t j = 0; j < m; j++) {
			uint64_t set = setcopy.s.cpus[j];
			uint64_t w = j < valid / 8 ? get_word(b, j) & set : 0;
			unsigned r = setcopy.base[j];
			/* the CPUs of w, ranked among the set's */
			while (w && r < vw * 64) {
				uint64_t low = set & -set;
				if (w & low) {
					while (filled <= r / 64) {
						virt[filled++] = 0;
						NOT_A_STRING_OP(filled);
					}
					virt[r / 64] |= (uint64_t)1 << (r % 64);
					w &= ~low;
					got++;
				}
				set &= set - 1;
				r++;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&setcopy.lseq, __ATOMIC_RELAXED) != ls)
			continue;
		if (n == 0)
			return false;
		if (got == 0) { /* runs outside its set (never confined): show the set */
			for (filled = 0; filled < vw && filled < bw; filled++)
				virt[filled] = fill_word(filled, n);
		}
		for (size_t j = 0; j < filled && j < bw; j++)
			put_word(b, j, virt[j]);
		/* the rest is zero: within the kernel's mask it mostly is
		 * already (physical CPUs beyond the set's last word are rare),
		 * and reading costs less there; beyond it (libc's memset) in
		 * 16-byte stores */
		size_t kw = valid / 8 < bw ? valid / 8 : bw, j = filled;
		for (; j < kw; j++)
			if (get_word(b, j))
				put_word(b, j, 0);
		typedef uint64_t zero2 __attribute__((vector_size(16), aligned(1), may_alias));
		for (; j + 2 <= bw; j += 2)
			*(zero2 *)(void *)(b + j * 8) = (zero2){ 0, 0 };
		if (j < bw)
			put_word(b, j, 0);
		return true;
	}
	return false;
}

/* to_physical(phys, buf, size, cpus, virt): the virtual mask in buf (vw
 * words of it in virt) mapped onto the set; returns its CPU count (0:
 * EINVAL) and the set's width in *nw, or -1 to pass through. */
static long setcopy_to_physical(uint64_t *phys, const void *buf, size_t size, uint64_t *virt,
			     size_t *vw, uint32_t *nwp, uint64_t *sseq)
{
	if (CPS_UNLIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) != ST_READY) && !shim_ready())
		return -1;
	/* bits beyond the widest mask are dropped, as to_physical() does */
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
	for (int i = 0; i < 1000; i++) {
		if (!fresh() && !refresh())
			return -1;
		uint32_t ls = __atomic_load_n(&setcopy.lseq, __ATOMIC_ACQUIRE);
		if (ls & 1)
			continue;
		uint32_t n = setcopy.s.n, nw = setcopy.s.nw;
		uint64_t at = setcopy.s.seq;
		if (n > CPS_MAX_CPUS)
			n = CPS_MAX_CPUS;
		if (nw > CPS_MAX_WORDS)
			nw = CPS_MAX_WORDS;
		size_t rw = CPS_WORDS_FOR(n), filled = 0;
		unsigned got = 0;
		/* all of 0..n-1 asked for: the whole set */
		bool all = n > 0 && rw <= hw;
		for (size_t j = 0; all && j < rw; j++)
			all = (virt[j] & fill_word(j, n)) == fill_word(j, n);
		if (all) {
			got = n;
		} else if (n) {
			/* fold the virtual CPUs onto ranks 0..n-1 (wrapping, or not) */
			for (size_t j = 0; j < hw && got < n; j++) {
				uint64_t w = virt[j];
				while (w && got < n) {
					size_t v = j * 64 + (unsigned)__builtin_ctzll(w);
					w &= w - 1;
					if (v >= n) {
						if (!wrap)
							goto folded;
						v %= n;
					}
					while (filled <= v / 64) {
						ranks[filled++] = 0;
						NOT_A_STRING_OP(filled);
					}
					uint64_t bit = (uint64_t)1 << (v % 64);
					if (!(ranks[v / 64] & bit)) {
						ranks[v / 64] |= bit;
						got++;
					}
				}
			}
		}
	folded:
		for (size_t j = 0; j < nw; j++) {
			phys[j] = got == n ? setcopy.s.cpus[j] : 0;
			NOT_A_STRING_OP(j);
		}
		if (got && got < n) {
			for (size_t j = 0; j < filled; j++) {
				uint64_t w = ranks[j];
				while (w) {
					unsigned r = (unsigned)(j * 64) + (unsigned)__builtin_ctzll(w);
					unsigned cpu = setcopy.pcpu[r < setcopy.cap ? r : 0];
					w &= w - 1;
					if (cpu < nw * 64)
						phys[cpu / 64] |= (uint64_t)1 << (cpu % 64);
				}
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&setcopy.lseq, __ATOMIC_RELAXED) != ls)
			continue;
		if (n == 0)
			return -1;
		*sseq = at;
		*nwp = nw;
		return got;
	}
	return -1;
}

/* The set of another process: its record, else its thread group is ours,
 * else its ancestry. */
static bool cpus_of(pid_t pid, struct shim_cpus *v)
{
	if (pid == 0 || pid == self_pid)
		return shim_cpus_now(v);
	if (!shim_cpus_now(v)) /* also checks we are set up */
		return false;
	if (cps_thread_alive(self_pid, pid))
		return true;
	uint32_t set;
	struct cps_placement s;
	if (cps_which(&ctx, pid, &set) < 0 ||
	    cps_placement_read(&ctx.t, -1, 0, set, &s) < 0)
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
static void to_virtual(void *buf, size_t size, const struct shim_cpus *v)
{
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	cps_mask_from_cpuset(phys, v->nw, buf, size);
	unsigned k = cps_phys_to_virt(virt, v->nw, v->cpus, v->nw, phys);
	if (k == 0) /* runs outside its set (never confined): show the set */
		cps_mask_fill(virt, v->nw, v->n);
	cps_mask_to_cpuset(buf, size, virt, v->nw);
}

/* Virtual mask in buf -> physical; 0 CPUs means EINVAL. */
static unsigned to_physical(uint64_t *phys, const void *buf, size_t size, const struct shim_cpus *v,
			    uint64_t *virt)
{
	cps_mask_from_cpuset(virt, CPS_MAX_WORDS, buf, size);
	return cps_virt_to_phys(phys, v->cpus, v->nw, virt, CPS_MAX_WORDS, wrap);
}

bool shim_thread_vmask(pid_t tid, const struct shim_cpus *v, uint64_t *vm, size_t vnw)
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
	if (!ctx.t.writable || tid <= 0 || !setcopy.valid || setcopy.s.set == ctx.t.root_id)
		return;
	cps_thread_record(&ctx, pid, tid, virt, CPS_MAX_WORDS);
}

/* Is virt (vw words, zero beyond) what the calling thread's record holds,
 * by own_want, at the table's sequence now (returned in *seq)? Asked before
 * the system call, while what it reads is in cache; after it, the caller
 * only checks that the sequence has not moved. */
static inline bool own_want_held(const uint64_t *virt, size_t vw, uint64_t *seq)
{
	size_t mw = ctx.t.mask_words;
	uint64_t now = shm_seq(&ctx.t);
	if (!own_want.nw || own_want.nw != mw || own_want.seq != now)
		return false;
	/* what cps_thread_record compares: mw words, zero beyond vw */
	for (size_t j = 0; j < mw; j++)
		if ((j < vw ? virt[j] : 0) != own_want.want[j])
			return false;
	*seq = now;
	return true;
}

/* record_wanted(self_pid, my_tid(), virt) for the calling thread; virt has
 * vw words (zero beyond). */
static void record_own_wanted(const uint64_t *virt, size_t vw)
{
	if (!ctx.t.writable || !setcopy.valid || setcopy.s.set == ctx.t.root_id)
		return;
	size_t mw = ctx.t.mask_words;
	int saved = errno;
	pid_t tid = my_tid();
	own_want.nw = 0;
	own_want.size = 0; /* what it remembers was for the old want */
	if (tid > 0)
		cps_thread_record(&ctx, self_pid, tid, virt, vw);
	errno = saved;
	uint64_t w[OWN_WANT_WORDS], seq;
	if (tid <= 0 || mw > OWN_WANT_WORDS || shm_read_begin(&ctx.t, &seq) < 0)
		return;
	memset(w, 0, mw * 8);
	memcpy(w, virt, (vw < mw ? vw : mw) * 8);
	long i = shm_thread_find(&ctx.t, tid);
	const struct shm_thread *th = i >= 0 ? shm_thread_at(&ctx.t, (uint32_t)i) : NULL;
	bool held = th && th->tid == tid && !memcmp(th->wanted, w, mw * 8);
	if (held && !shm_read_retry(&ctx.t, seq)) {
		memcpy(own_want.want, w, mw * 8);
		own_want.seq = seq;
		own_want.nw = (uint32_t)mw;
	}
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
		resolve_all();
		return shim_real.sysconf ? shim_real.sysconf(name) : fallback_sysconf(name);
	}
	unsigned n;
	if (shim_count(&n))
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
		resolve_all();
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
	if (shim_count(&n))
		return (int)n;
	return shim_real.get_nprocs_conf ? shim_real.get_nprocs_conf() : 1;
}

/* ---- affinity ---- */

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

/* What libc's function does after the system call, zeroing the caller's
 * buffer beyond the kernel's mask, is done by the translation itself.
 * Each of these is entered by a tail jump and returns straight to the
 * program: here every return after a system call costs a mispredicted
 * branch (about 9 ns on the machine BENCHMARKS.md describes), so the path
 * from the system call back to the program has exactly one, as libc's. */
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
	if (CPS_UNLIKELY(!setcopy_to_virtual(mask, size, (size_t)r)))
		memset((char *)mask + r, 0, size - (size_t)r); /* as libc */
	return 0;
}
#endif

__attribute__((noinline)) static int sched_getaffinity_slow(pid_t pid, size_t size, cpu_set_t *mask)
{
	struct shim_cpus v;
	bool ok = CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
	if (!shim_real.sched_getaffinity) {
		errno = ENOSYS;
		return -1;
	}
	int r = shim_real.sched_getaffinity(pid, size, mask);
	if (r == 0 && ok) {
		if (pid == 0 || pid == self_pid) {
			setcopy_to_virtual(mask, size, size); /* reads memory only: errno stays */
		} else {
			int saved = errno;
			if (cpus_of(pid, &v))
				to_virtual(mask, size, &v);
			errno = saved;
		}
	}
	return r;
}

EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
#ifdef SHIM_RAW_GETAFFINITY
	if (CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) &&
	    (pid == 0 || pid == self_pid) && size % 8 == 0 && size <= RAW_MAX_SIZE)
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

EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (pid == 0 && !is_null(mask)) {
		/* the calling thread: the same mask as last time, at the same
		 * table sequence, maps onto the same CPUs */
		if (CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) &&
		    own_want.size == size && own_want.nw &&
		    own_want.seq == shm_seq(&ctx.t) && own_want.pnw <= OWN_WANT_WORDS) {
			size_t j = 0;
			while (j < size / 8 && get_word((const void *)mask, j) == own_want.raw[j])
				j++;
			if (j == size / 8) {
				uint64_t seen = own_want.seq;
				int r = raw_setaffinity(own_want.pnw * 8, own_want.phys);
				if (r == 0 && shm_seq(&ctx.t) != seen)
					record_own_wanted(own_want.want, own_want.nw);
				return r;
			}
		}
		/* else straight from the set copy */
		size_t vw;
		uint32_t nw;
		uint64_t sseq = 0;
		long got = setcopy_to_physical(phys, mask, size, virt, &vw, &nw, &sseq);
		if (got == 0) {
			errno = EINVAL; /* as the kernel for a mask with no usable CPU */
			return -1;
		}
		if (got > 0) {
			uint64_t seen = 0;
			bool held = own_want_held(virt, vw, &seen);
			const struct shm_header *h = ctx.t.h;
			int r = raw_setaffinity(nw * 8, phys);
			if (r == 0 && !(held && __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == seen))
				record_own_wanted(virt, vw); /* keeps errno */
			/* remember the call, if its record holds at the sequence
			 * of the set copy that mapped it */
			own_want.size = 0;
			if (r == 0 && own_want.nw && own_want.seq == sseq && size % 8 == 0 &&
			    size <= sizeof(own_want.raw) && nw <= OWN_WANT_WORDS) {
				memcpy(own_want.raw, mask, size);
				memcpy(own_want.phys, phys, nw * 8);
				own_want.pnw = nw;
				own_want.size = (uint32_t)size;
			}
			return r;
		}
	}
	if (!shim_ready() || is_null(mask) || !cpus_of(pid, &v)) {
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

__attribute__((noinline)) static int pthread_getaffinity_slow(pthread_t th, size_t size,
							    cpu_set_t *mask)
{
	bool ok = CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
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
	if (CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) && tid_offset >= 0 &&
	    size % 8 == 0 && size <= RAW_MAX_SIZE)
		return getaffinity_raw(((const pid_t *)(const void *)th)[tid_offset], size, mask,
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
			const struct shm_header *h = ctx.t.h;
			int saved = errno;
			int r = shim_real.pthread_setaffinity_np(th, nw * 8,
								 (const cpu_set_t *)(void *)phys);
			if (r == 0 && !(held && __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == seen))
				record_own_wanted(virt, vw);
			errno = saved;
			return r;
		}
	}
	if (!shim_ready() || is_null(mask) || !shim_cpus_now(&v))
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
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!shim_real.pthread_attr_setaffinity_np && !shim_ready())
		return ENOSYS;
	if (!shim_ready() || is_null(mask) || size == 0 || !shim_cpus_now(&v))
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
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], expect[CPS_MAX_WORDS];
	if (!shim_real.pthread_create) {
		resolve_all();
		if (!shim_real.pthread_create)
			return ENOSYS;
	}
	if (!attr || !shim_ready() || !ctx.t.writable || !shim_cpus_now(&v) ||
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
	struct shim_cpus v;
	bool ok = shim_ready();
	if (!shim_real.pthread_attr_getaffinity_np)
		return ENOSYS;
	int r = shim_real.pthread_attr_getaffinity_np(attr, size, mask);
	if (r == 0 && ok && shim_cpus_now(&v)) {
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
	if (CPS_LIKELY(rseq_ok)) {
		uintptr_t tp;
		__asm__("mov %%fs:0, %0" : "=r"(tp));
		return *(volatile const int32_t *)(tp + (uintptr_t)rseq_offset + 4);
	}
#endif
	return -1;
}

EXPORT int sched_getcpu(void)
{
	unsigned vc;
	if (CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY)) {
		int cpu = rseq_cpu();
		if (CPS_LIKELY(cpu >= 0) && setcopy_vcpu((unsigned)cpu, &vc))
			return (int)vc;
	}
	bool ok = CPS_LIKELY(__atomic_load_n(&state, __ATOMIC_ACQUIRE) == ST_READY) || shim_ready();
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

/* ---- syscall(2) ---- */

#if defined(__x86_64__)
/* The pass-through of syscall(2) with no frame at all: every number but
 * the three we translate jumps to libc's syscall with the caller's
 * registers and stack as they were (libc takes its seventh argument from
 * the stack). The rest, and the case where libc's is not resolved yet, go
 * to the C function below, also with everything as the caller left it. */
long shim_syscall_slow(long nr, ...);
#define SHIM_STR_(x) #x
#define SHIM_STR(x) SHIM_STR_(x)
#ifdef __CET__
#define SHIM_ENDBR "endbr64\n"
#else
#define SHIM_ENDBR ""
#endif
__asm__(".text\n"
	".globl syscall\n"
	".type syscall, @function\n"
	".p2align 4\n"
	"syscall:\n" SHIM_ENDBR
	"cmpq $" SHIM_STR(SYS_sched_getaffinity) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_sched_setaffinity) ", %rdi\n"
	"je 1f\n"
	"cmpq $" SHIM_STR(SYS_getcpu) ", %rdi\n"
	"je 1f\n"
	"movq shim_syscall_next(%rip), %r11\n"
	"testq %r11, %r11\n"
	"je 1f\n"
	"jmp *%r11\n"
	"1:\n"
	"jmp shim_syscall_slow\n"
	".size syscall, .-syscall\n");

__attribute__((used)) long shim_syscall_slow(long nr, ...)
#else
EXPORT long syscall(long nr, ...)
#endif
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

	struct shim_cpus v;
	bool ok = shim_ready();
	if (nr == SYS_sched_getaffinity) {
		long r = shim_real.syscall(nr, a[0], a[1], a[2]);
		/* r is the kernel's mask size in bytes; keep it */
		if (r > 0 && ok) {
			int saved = errno;
			pid_t pid = (pid_t)a[0];
			if (pid == 0 || pid == self_pid)
				setcopy_to_virtual((void *)a[2], (size_t)r, (size_t)r);
			else if (cpus_of(pid, &v))
				to_virtual((void *)a[2], (size_t)r, &v);
			errno = saved;
		}
		return r;
	}
	if (nr == SYS_sched_setaffinity) {
		uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
		if (!ok || !a[2] || !cpus_of((pid_t)a[0], &v))
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
	unsigned vc;
	if (r == 0 && a[0] && ok && setcopy_vcpu(*(unsigned *)a[0], &vc))
		*(unsigned *)a[0] = vc;
	return r;
}
