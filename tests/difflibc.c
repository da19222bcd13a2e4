/* SPDX-License-Identifier: BSD-3-Clause */
/* The differential test of the shim's interposers against libc's own.
 *
 *     difflibc MAP MODE
 *
 * For every name the shim exports (read from MAP, preload/libcpusetshim.map,
 * so that a new interposer cannot escape), runs a set of drivers whose
 * cases are generated from argument domains: NULL, a pointer into a
 * PROT_NONE page, a read-only page where the call writes, a string or
 * buffer that ends at a page boundary, descriptors that are -1, closed,
 * O_PATH or a directory, AT_EMPTY_PATH with "", unknown flags, huge sizes
 * and sizes of 0, beside the ordinary paths of the views. Each case runs
 * twice, each time in a child of its own: once through the functions the
 * program binds to (the shim's, under LD_PRELOAD) and once through libc's
 * own (dlopen "libc.so.6"). The two results are compared: return value,
 * errno (set to a sentinel before the call, so an errno touched on success
 * shows), a digest of the output buffers and of the state left behind
 * (file contents read, offsets, the working directory, the kernel mask).
 * A case where libc's child dies of a signal may die the same way through
 * the shim (the call dereferences the pointer); nowhere else.
 *
 * MODE: "same" — the shim's set is the whole machine numbered as it is
 * (or there is no set): everything must agree, contents included;
 * "errors" — a smaller set: where libc fails the shim fails with the same
 * errno, where libc succeeds the shim succeeds, and neither crashes.
 *
 * DIFFLIBC_BUDGET (300; 0 for all) bounds the cases run per name: a name
 * with more runs a sample drawn from DIFFLIBC_SEED (1). DIFFLIBC_SECONDS
 * (150; 0 for no bound) bounds the whole run's time: each name gets an
 * equal share of what is left, and stops drawing cases once its share is
 * spent and 10 have run, so a slow or loaded machine runs fewer cases of
 * every name rather than leaving names out (the count is printed).
 *
 * Prints one line per exported name: "PASS NAME N L" (N cases, L of them
 * the documented limit: an unreadable argument the shim reads) or
 * "FAIL NAME N: first disagreements", and "MISSING NAME" for a name no
 * driver covers. tests/difflibc.sh turns them into checks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#define SENTINEL 4242 /* errno before every call */

/* ---- the two sides ---- */

struct side {
	const char *name;
	void *(*sym)(const char *);
};
static void *libc_handle;
static void *sym_libc(const char *n)
{
	return dlsym(libc_handle, n);
}
static void *sym_bound(const char *n)
{
	return dlsym(RTLD_DEFAULT, n);
}
static const struct side SHIM = {"shim", sym_bound}, LIBC = {"libc", sym_libc};
static const struct side *S; /* the side a child runs */
#define F(type, name) ((type)S->sym(name))

/* ---- memory with hostile edges ---- */

static long pg;
static char *rw, *none, *ro; /* a RW page, then PROT_NONE, then RO */

static void pages(void)
{
	pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		abort();
	rw = m, none = m + pg, ro = m + 2 * pg;
	memset(ro, 'r', pg);
	mprotect(none, pg, PROT_NONE);
	mprotect(ro, pg, PROT_READ);
}
/* s copied to end (NUL included) at the RW page's end: the next byte faults */
static char *at_edge(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = none - n;
	memcpy(p, s, n);
	return p;
}
/* a buffer of n bytes that ends where the PROT_NONE page starts */
static void *buf_edge(size_t n)
{
	if (n > (size_t)pg)
		n = pg;
	memset(none - n, 0, n);
	return none - n;
}

/* ---- results ---- */

struct res {
	long ret;
	int err;
	int sig; /* filled by the parent: the child's signal, or 0 */
	uint64_t digest;
	bool volatile_out; /* outputs that change between reads (times, MHz) */
	bool unreadable_in; /* an argument the call reads (a path, a mask to
			     * set) points into a PROT_NONE page */
};
static struct res *R; /* the child's */

static void dig(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = R->digest ? R->digest : 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	R->digest = h;
}
static void dig_long(long v)
{
	dig(&v, sizeof(v));
}
static void dig_str(const char *s)
{
	dig(s, strlen(s) + 1);
}
static void result(long ret)
{
	R->ret = ret;
	R->err = errno;
	dig_long(ret);
}

/* state every case leaves: the working directory (raw, past any shim) */
static void dig_cwd(void)
{
	char b[PATH_MAX];
	long n = syscall(SYS_getcwd, b, sizeof(b));
	if (n > 0)
		dig(b, (size_t)n);
}

/* ---- argument domains ---- */

enum { P_NULL, P_NONE, P_EMPTY_EDGE, P_MISSING, P_CPUINFO, P_ONLINE, P_CPUDIR, P_CORE_ID,
       P_REL_CPU0, P_ONLINE_EDGE, P_STATUS, P_NODE, P_TMPFILE, P_BUS, P_DOTS, NPATH };
static const char *path_of(int i)
{
	switch (i) {
	case P_NULL: return NULL;
	case P_NONE: R->unreadable_in = true; return none;
	case P_EMPTY_EDGE: return at_edge("");
	case P_MISSING: return "/nonexistent/cpusetshim";
	case P_CPUINFO: return "/proc/cpuinfo";
	case P_ONLINE: return "/sys/devices/system/cpu/online";
	case P_CPUDIR: return "/sys/devices/system/cpu";
	case P_CORE_ID: return "/sys/devices/system/cpu/cpu0/topology/core_id";
	case P_REL_CPU0: return "cpu0";
	case P_ONLINE_EDGE: return at_edge("/sys/devices/system/cpu/online");
	case P_STATUS: return "/proc/self/status";
	case P_NODE: return "/sys/devices/system/node";
	case P_TMPFILE: return "difflibc.file";
	case P_BUS: return "/sys/bus/cpu/devices/cpu0";
	case P_DOTS: return "//sys/./devices/system/../system/cpu/online";
	}
	return NULL;
}
/* files whose contents change between two reads */
static bool path_volatile(int i)
{
	return i == P_CPUINFO || i == P_STATUS;
}
/* relative paths are relative to the CPU directory: the child goes there
 * first, through its side's chdir */
static void child_cwd(void)
{
	int (*ch)(const char *) = F(int (*)(const char *), "chdir");
	if (ch("/sys/devices/system/cpu") != 0)
		abort();
}

enum { D_CWD, D_MINUS1, D_CLOSED, D_OPATH, D_DIR, D_FILE, NDIRFD };
static int dirfd_of(int i)
{
	int (*op)(const char *, int, ...) = F(int (*)(const char *, int, ...), "open");
	switch (i) {
	case D_CWD: return AT_FDCWD;
	case D_MINUS1: return -1;
	case D_CLOSED: return 777;
	case D_OPATH: return op("/sys/devices/system/cpu", O_PATH | O_DIRECTORY);
	case D_DIR: return op("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	case D_FILE: return op("/sys/devices/system/cpu/online", O_RDONLY);
	}
	return -1;
}

/* O_APPEND, O_SYNC and O_ASYNC: flags a read keeps (F_GETFL shows them);
 * O_DIRECT: what /proc and /sys refuse */
static const int open_flags[] = {O_RDONLY, O_RDONLY | O_CLOEXEC, O_WRONLY, O_RDWR | O_CREAT,
				  O_RDONLY | O_DIRECTORY, O_PATH, O_RDONLY | O_NOFOLLOW, -1,
				  O_WRONLY | O_TRUNC, O_RDONLY | O_APPEND, O_RDONLY | O_DIRECT,
				  O_RDONLY | O_SYNC | O_ASYNC};
#define NOPENF (int)(sizeof(open_flags) / sizeof(open_flags[0]))

enum { B_NULL, B_NONE, B_RO, B_EDGE, B_OK, NBUF };
static void *buf_of(int i, size_t n, void *ok)
{
	switch (i) {
	case B_NULL: return NULL;
	case B_NONE: return none;
	case B_RO: return ro;
	case B_EDGE: return buf_edge(n);
	case B_OK: return ok;
	}
	return NULL;
}

static const size_t sizes[] = {0, 1, 4, 8, 128, 4096, SIZE_MAX / 2};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

/* an open descriptor's flags, offset and contents go in the digest */
static void dig_fd(int fd, bool vol)
{
	if (fd < 0)
		return;
	dig_long(fcntl(fd, F_GETFL) & ~O_LARGEFILE);
	dig_long(fcntl(fd, F_GETFD));
	if (vol) {
		R->volatile_out = true;
		return;
	}
	char b[8192];
	ssize_t n = read(fd, b, sizeof(b));
	dig_long(n);
	if (n > 0)
		dig(b, (size_t)n);
	dig_long(lseek(fd, 0, SEEK_CUR));
}

/* ---- drivers: each covers the names it lists, case by case ---- */

struct driver {
	const char *names[9];
	int ncases;
	/* runs case c with function name (one of names) */
	void (*run)(const char *name, int c);
	int dirfd_div; /* the dirfd's index is c / dirfd_div % NDIRFD (0: no dirfd) */
};

/* sysconf: every name from -1 to 300, and a huge one */
static void d_sysconf(const char *name, int c)
{
	long (*fn)(int) = F(long (*)(int), name);
	int v = c == 0 ? -1 : c == 1 ? 100000 : c == 2 ? INT_MIN : c - 3;
	result(fn(v));
	/* the free memory, the one name whose answer moves by itself */
	R->volatile_out = v == _SC_AVPHYS_PAGES;
}
static void d_nprocs(const char *name, int c)
{
	int (*fn)(void) = F(int (*)(void), name);
	result(fn());
}

static const pid_t pids[] = {0, -1, 999999, 1};
static void d_getaff(const char *name, int c)
{
	/* pid x size x buffer */
	int pi = c % 5, si = (c / 5) % NSIZES, bi = c / 5 / NSIZES;
	pid_t pid = pi == 4 ? getpid() : pids[pi];
	static unsigned char ok[4096];
	void *m = buf_of(bi, sizes[si], ok);
	long r;
	if (!strcmp(name, "sched_getaffinity"))
		r = F(int (*)(pid_t, size_t, void *), name)(pid, sizes[si], m);
	else if (pi != 0)
		return result(0); /* one thread: self */
	else
		r = F(int (*)(pthread_t, size_t, void *), name)(pthread_self(), sizes[si], m);
	result(r);
	if (m == ok)
		dig(ok, sizeof(ok));
}
static void d_setaff(const char *name, int c)
{
	/* pid x size x mask: NULL, NONE, the current mask, empty, CPU 1000 */
	int pi = c % 4, si = (c / 4) % NSIZES, mi = c / 4 / NSIZES;
	static unsigned char m[4096];
	void *mp = m;
	cpu_set_t cur;
	CPU_ZERO(&cur);
	syscall(SYS_sched_getaffinity, 0, sizeof(cur), &cur);
	memset(m, 0, sizeof(m));
	if (mi == 0)
		mp = NULL;
	else if (mi == 1)
		mp = none, R->unreadable_in = true;
	else if (mi == 2)
		memcpy(m, &cur, sizeof(cur));
	else if (mi == 4)
		m[1000 / 8] = 1;
	size_t sz = sizes[si] > sizeof(m) && mp == m ? sizes[si] : sizes[si];
	if (sz > sizeof(m) && mp == m && sz != SIZE_MAX / 2)
		sz = sizeof(m);
	long r;
	if (!strcmp(name, "sched_setaffinity"))
		r = F(int (*)(pid_t, size_t, const void *), name)(pids[pi] == 1 ? 999998 : pids[pi], sz, mp);
	else if (pi != 0)
		return result(0);
	else
		r = F(int (*)(pthread_t, size_t, const void *), name)(pthread_self(), sz, mp);
	result(r);
	cpu_set_t after;
	CPU_ZERO(&after);
	syscall(SYS_sched_getaffinity, 0, sizeof(after), &after);
	dig(&after, sizeof(after));
}
static void d_attraff(const char *name, int c)
{
	/* size x mask, set then read back through the same side */
	int si = c % NSIZES, mi = c / NSIZES;
	pthread_attr_t a;
	pthread_attr_init(&a);
	static unsigned char m[4096], back[4096];
	memset(m, 0, sizeof(m));
	m[0] = 1;
	void *mp = mi == 0 ? NULL : mi == 1 ? (void *)none : m;
	size_t sz = sizes[si];
	R->unreadable_in = mi == 1;
	long r = F(int (*)(pthread_attr_t *, size_t, const void *),
		   "pthread_attr_setaffinity_np")(&a, sz, mp);
	result(r);
	int (*get)(const pthread_attr_t *, size_t, void *) =
		F(int (*)(const pthread_attr_t *, size_t, void *), "pthread_attr_getaffinity_np");
	memset(back, 0xee, sizeof(back));
	dig_long(get(&a, sz > sizeof(back) ? sizeof(back) : sz, back));
	dig(back, sizeof(back));
	if (!strcmp(name, "pthread_attr_getaffinity_np")) {
		/* the getter's own edges */
		void *bp = mi == 0 ? NULL : mi == 1 ? (void *)none : back;
		dig_long(get(&a, sz, bp));
	}
	pthread_attr_destroy(&a);
}
static void d_getattr(const char *name, int c)
{
	pthread_attr_t a;
	long r = F(int (*)(pthread_t, pthread_attr_t *), name)(pthread_self(), &a);
	result(r);
	if (r == 0) {
		cpu_set_t m;
		CPU_ZERO(&m);
		dig_long(F(int (*)(const pthread_attr_t *, size_t, void *), "pthread_attr_getaffinity_np")(
			&a, sizes[c], sizes[c] > sizeof(m) ? NULL : &m));
		dig(&m, sizeof(m));
		pthread_attr_destroy(&a);
	}
}
static void *thr(void *arg)
{
	cpu_set_t m;
	CPU_ZERO(&m);
	syscall(SYS_sched_getaffinity, 0, sizeof(m), &m);
	return (void *)(long)CPU_COUNT(&m);
}
static void d_create(const char *name, int c)
{
	/* attr: NULL, default, affinity {0}, affinity {1000}, empty affinity */
	pthread_attr_t a, *ap = &a;
	pthread_attr_init(&a);
	if (c == 0)
		ap = NULL;
	if (c >= 2) {
		unsigned char m[256] = {0};
		if (c == 2) {
			cpu_set_t cur;
			CPU_ZERO(&cur);
			syscall(SYS_sched_getaffinity, 0, sizeof(cur), &cur);
			memcpy(m, &cur, sizeof(cur));
		} else if (c == 3)
			m[1000 / 8] = 1;
		F(int (*)(pthread_attr_t *, size_t, const void *), "pthread_attr_setaffinity_np")(&a, sizeof(m), m);
	}
	pthread_t t;
	long r = F(int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *), name)(
		&t, ap, thr, NULL);
	result(r);
	if (r == 0) {
		void *v;
		pthread_join(t, &v);
		dig_long((long)v);
	}
}
static void d_getcpu(const char *name, int c)
{
	if (!strcmp(name, "sched_getcpu")) {
		long r = F(int (*)(void), name)();
		result(r >= 0 ? 0 : r); /* which CPU depends on the scheduler */
		return;
	}
	static unsigned ok1, ok2;
	void *a = buf_of(c % NBUF, 4, &ok1), *b = buf_of(c / NBUF, 4, &ok2);
	long r = F(int (*)(unsigned *, unsigned *), name)(a, b);
	result(r);
}
/* syscall(2): the translated numbers with hostile arguments, and others */
#define NSYSCALL (9 * NSIZES * NBUF)
static void d_mempolicy(long (*fn)(long, ...), int c); /* below */
static void d_syscall(const char *name, int c)
{
	long (*fn)(long, ...) = F(long (*)(long, ...), name);
	if (c >= NSYSCALL)
		return d_mempolicy(fn, c - NSYSCALL);
	static unsigned char m[4096];
	int kind = c % 9, si = (c / 9) % NSIZES, bi = c / 9 / NSIZES;
	unsigned long maxnode = (unsigned long)sizes[si] * 16 + 1; /* 65537 bits: beyond a page */
	void *b = buf_of(bi, sizes[si], m);
	R->unreadable_in = kind == 1 && b == none;
	long r;
	switch (kind) {
	case 0: r = fn(SYS_sched_getaffinity, 0L, (long)sizes[si], b); break;
	case 1: r = fn(SYS_sched_setaffinity, 999998L, (long)sizes[si], b); break;
	case 2: r = fn(SYS_getcpu, b, b == m ? NULL : b, NULL); if (r == 0) r = 1; break;
	case 3: r = fn(SYS_getuid); break;
	case 4: r = fn(-1L); break;
	case 5: r = fn(100000L, 1L, 2L, 3L); break;
	/* the memory-policy numbers: the node masks (the set's nodes are
	 * the machine's here, numbered alike) */
	case 6: memset(m, 0, sizeof(m)); r = fn(SYS_get_mempolicy, 0L, b, maxnode, 0L, 4L); break;
	case 7: r = fn(SYS_set_mempolicy, 2L, b, maxnode); break;
	default: memset(m, 0, sizeof(m)); r = fn(SYS_get_mempolicy, b, b == m ? m + 64 : b, maxnode, 0L, 0L); break;
	}
	result(r);
	if ((kind == 0 || kind >= 6) && b == m)
		dig(m, sizeof(m));
}

/* syscall(2) with the memory-policy numbers the shim translates, beside
 * get_mempolicy above: set_mempolicy, mbind, migrate_pages, move_pages
 * and set_mempolicy_home_node, on masks the kernel refuses or trims
 * (maxnode 0, a bit at MAX_NUMNODES and beyond, beyond the shim's own
 * width, MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES) and nodes of no
 * set; the policy left behind goes in the digest. */
#define MP_PAGES 300 /* more than one of the shim's chunks of move_pages */
static const unsigned long mp_maxnodes[] = {0, 1, 2, 65, 1025, 1026, 8194, 20002, 32769, 32770};
#define NMPMAX (int)(sizeof(mp_maxnodes) / sizeof(mp_maxnodes[0]))
static const long mp_modes[] = {2, 1, 3, 0, 2 | 1 << 15, 2 | 1 << 14, 2 | 1 << 15 | 1 << 14, 99};
#define NMPMODE (int)(sizeof(mp_modes) / sizeof(mp_modes[0]))
/* masks: NULL, {0}, {1}, {0,1}, {0,1024}, {0,8192}, {0,20000}, unreadable */
#define NMPMASK 8
static unsigned long *mp_mask(int i)
{
	static const int bit[] = {-1, 0, 1, 1, 1024, 8192, 20000};
	static unsigned long m[8192 / sizeof(unsigned long)]; /* 65536 bits */
	if (i == 0)
		return NULL;
	if (i == 7) {
		R->unreadable_in = true;
		return (unsigned long *)none;
	}
	memset(m, 0, sizeof(m));
	m[0] = i == 2 ? 2 : 1;
	m[bit[i] / 64] |= 1ul << (bit[i] % 64);
	return m;
}
static void dig_policy(long (*fn)(long, ...))
{
	int mode = -1;
	unsigned long m[1024 / 64];
	memset(m, 0, sizeof(m));
	dig_long(fn(SYS_get_mempolicy, &mode, m, 1025L, 0L, 0L));
	dig_long(mode);
	dig(m, sizeof(m));
}
static void mp_move(long (*fn)(long, ...), int c)
{
	/* nodes: all 0; 1 at the end (past a chunk); 1 at 2; -1 first;
	 * 5000 at 270; no nodes (where the pages are); unreadable nodes;
	 * no status */
	static int nodes[MP_PAGES], status[MP_PAGES];
	static void *pg_at[MP_PAGES];
	char *p = mmap(NULL, (size_t)pg * MP_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return result(-3);
	for (int i = 0; i < MP_PAGES; i++) {
		p[(long)i * pg] = 1;
		pg_at[i] = p + (long)i * pg;
		nodes[i] = 0;
		status[i] = 77;
	}
	int k = c % 8;
	unsigned long count = k == 2 ? 3 : MP_PAGES;
	if (k == 1)
		nodes[MP_PAGES - 1] = 1;
	if (k == 2)
		nodes[2] = 1;
	if (k == 3)
		nodes[0] = -1;
	if (k == 4)
		nodes[270] = 5000;
	R->unreadable_in = k == 6;
	result(fn(SYS_move_pages, 0L, (long)count, pg_at, k == 5 ? NULL : k == 6 ? (void *)none : nodes,
		  k == 7 ? NULL : status, 0L));
	dig(status, sizeof(status));
}
static void d_mempolicy(long (*fn)(long, ...), int c)
{
	int call = c % 5, x = c / 5;
	int mi = x % NMPMASK, ni = x / NMPMASK % NMPMAX, oi = x / NMPMASK / NMPMAX % NMPMODE;
	unsigned long mx = mp_maxnodes[ni];
	char *p = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	switch (call) {
	case 0: result(fn(SYS_set_mempolicy, mp_modes[oi], mp_mask(mi), mx)); break;
	case 1: result(fn(SYS_mbind, p, (long)pg, mp_modes[oi], mp_mask(mi), mx, (long)(oi & 1 ? 3 : 0))); break;
	case 2: {
		/* old: the mask; new: {0}, {1}, NULL, or the same mask (as
		 * long as the longest maxnode: the kernel reads that much) */
		static unsigned long nw[8192 / sizeof(unsigned long)];
		unsigned long *old = mp_mask(mi);
		nw[0] = oi % 4 == 1 ? 2ul : 1ul;
		result(fn(SYS_migrate_pages, 0L, mx, old, oi % 4 == 2 ? NULL : oi % 4 == 3 ? old : nw));
		break;
	}
	case 3: return mp_move(fn, x);
	default: {
		/* after a bind of the page, or none: node 0, 1, -1, 5000;
		 * no range or a page; flags 0 or 1 */
		static const long home[] = {0, 1, -1, 5000};
		if (x & 1) {
			unsigned long m0 = 1;
			fn(SYS_mbind, p, (long)pg, 2L, &m0, 65L, 0L);
		}
		result(fn(SYS_set_mempolicy_home_node, p, x & 2 ? (long)pg : 0L, home[x / 4 % 4], (long)(x / 16 % 2)));
	}
	}
	/* a policy set with MPOL_F_STATIC_NODES or MPOL_F_RELATIVE_NODES
	 * reads back as the set's nodes under the static flag
	 * (doc/memory-nodes.md, "Memory nodes in the shim"): its answer is
	 * compared, not its read-back */
	if (call != 0 || !(mp_modes[oi] & (1 << 15 | 1 << 14)))
		dig_policy(fn);
}

/* open and its kin: path x flags (x dirfd) */
static void d_open(const char *name, int c)
{
	int pi = c % NPATH, fi = (c / NPATH) % NOPENF, di = c / NPATH / NOPENF;
	int fl = open_flags[fi];
	const char *p = path_of(pi);
	child_cwd();
	long r;
	if (!strcmp(name, "open") || !strcmp(name, "open64"))
		r = F(int (*)(const char *, int, ...), name)(p, fl, 0600);
	else if (!strcmp(name, "__open_2") || !strcmp(name, "__open64_2"))
		r = F(int (*)(const char *, int), name)(p, fl);
	else if (!strcmp(name, "openat") || !strcmp(name, "openat64"))
		r = F(int (*)(int, const char *, int, ...), name)(dirfd_of(di), p, fl, 0600);
	else
		r = F(int (*)(int, const char *, int), name)(dirfd_of(di), p, fl);
	result(r >= 0 ? 0 : r);
	dig_fd((int)r, path_volatile(pi));
	if (r >= 0)
		close((int)r);
}
static const char *modes[] = {"r", "re", "w", "r+", "", "z", NULL, "rm", "r,ccs=UTF-8"};
#define NMODES (int)(sizeof(modes) / sizeof(modes[0]))
static void dig_file(FILE *f, bool vol)
{
	if (!f)
		return;
	if (vol) {
		R->volatile_out = true;
		return;
	}
	char b[8192];
	size_t n = fread(b, 1, sizeof(b), f);
	dig_long((long)n);
	dig(b, n);
	dig_long(ftell(f));
}
static void d_fopen(const char *name, int c)
{
	int pi = c % NPATH, mi = (c / NPATH) % (NMODES + 1);
	const char *mode = mi == NMODES ? none : modes[mi];
	child_cwd();
	FILE *f;
	if (!strncmp(name, "freopen", 7)) {
		FILE *old = F(FILE * (*)(const char *, const char *), "fopen")("/sys/devices/system/cpu/possible", "r");
		f = F(FILE * (*)(const char *, const char *, FILE *), name)(path_of(pi), mode, old);
	} else
		f = F(FILE * (*)(const char *, const char *), name)(path_of(pi), mode);
	result(f ? 0 : -1);
	if (f && mi < NMODES && modes[mi] && strstr(modes[mi], ",ccs=")) {
		/* the stream's orientation and its first characters, read
		 * through the conversion (stable in every file of the list) */
		dig_long(fwide(f, 0));
		for (int i = 0; i < 4; i++)
			dig_long((long)fgetwc(f));
		return;
	}
	dig_file(f, path_volatile(pi));
}
/* seeks and positioned reads on descriptors of every kind */
static const off_t offs[] = {0, 5, -1, (off_t)1 << 40};
static const int whences[] = {SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 99};
static int fd_kind(int k)
{
	int (*op)(const char *, int, ...) = F(int (*)(const char *, int, ...), "open");
	switch (k) {
	case 0: return -1;
	case 1: return 777;
	case 2: return op("/sys/devices/system/cpu/online", O_RDONLY);
	case 3: return op("/sys/devices/system/cpu/cpu0/topology/core_id", O_RDONLY);
	case 4: return op("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	case 5: return op("/sys/devices/system/cpu/online", O_PATH);
	default: return op("/proc/self/status", O_RDONLY);
	}
}
#define NFDK 7
static void d_lseek(const char *name, int c)
{
	int k = c % NFDK, oi = (c / NFDK) % 4, wi = c / NFDK / 4;
	int fd = fd_kind(k);
	long r = F(off_t (*)(int, off_t, int), name)(fd, offs[oi], whences[wi]);
	result(r);
	if (k != 6)
		dig_fd(fd, false);
}
static void d_pread(const char *name, int c)
{
	int k = c % NFDK, bi = (c / NFDK) % NBUF, si = (c / NFDK / NBUF) % NSIZES,
	    oi = c / NFDK / NBUF / NSIZES;
	static char ok[8192];
	int fd = fd_kind(k);
	size_t n = sizes[si] > sizeof(ok) && bi == B_OK ? sizeof(ok) : sizes[si];
	void *b = buf_of(bi, n, ok);
	if (bi == B_EDGE && n > (size_t)pg)
		n = pg;
	long r = F(ssize_t (*)(int, void *, size_t, off_t), name)(fd, b, n, offs[oi]);
	result(r);
	if (k == 6)
		R->volatile_out = true;
	else if (r > 0)
		dig(b, (size_t)r);
}
static void d_stdio_seek(const char *name, int c)
{
	int pi = c % 4, oi = (c / 4) % 4, wi = c / 4 / 4;
	static const char *ps[] = {"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
				   "/sys/devices/system/cpu/cpu0/topology/core_id", "/proc/cpuinfo"};
	FILE *f = F(FILE * (*)(const char *, const char *), "fopen")(ps[pi], "r");
	if (!f)
		return result(-2);
	int ch = fgetc(f);
	dig_long(ch);
	long r = 0;
	if (!strcmp(name, "rewind"))
		F(void (*)(FILE *), name)(f);
	else if (!strcmp(name, "fseek"))
		r = F(int (*)(FILE *, long, int), name)(f, (long)offs[oi], whences[wi]);
	else
		r = F(int (*)(FILE *, off_t, int), name)(f, offs[oi], whences[wi]);
	result(r);
	if (pi == 3) /* cpuinfo: where the stream is, its contents move */
		dig_long((long)ftello(f));
	else
		dig_file(f, false);
}
static void d_access(const char *name, int c)
{
	static const int am[] = {F_OK, R_OK, W_OK, X_OK, 0xff};
	static const int af[] = {0, AT_EACCESS, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, (int)0x80000000};
	int pi = c % NPATH, mi = (c / NPATH) % 5, fi = (c / NPATH / 5) % 5, di = c / NPATH / 25;
	child_cwd();
	long r;
	if (!strcmp(name, "access"))
		r = F(int (*)(const char *, int), name)(path_of(pi), am[mi]);
	else
		r = F(int (*)(int, const char *, int, int), name)(dirfd_of(di), path_of(pi), am[mi], af[fi]);
	result(r);
}
static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
/* a listing, sorted, through the side's readdir */
static void dig_dir(DIR *d, const char *rd)
{
	char *names[4096];
	int n = 0;
	struct dirent *(*next)(DIR *) = F(struct dirent * (*)(DIR *), rd);
	struct dirent *e;
	while (n < 4096 && (e = next(d)))
		names[n++] = strdup(e->d_name);
	qsort(names, (size_t)n, sizeof(*names), cmpstr);
	dig_long(n);
	for (int i = 0; i < n; i++) {
		dig_str(names[i]);
		free(names[i]);
	}
}
static void d_dir(const char *name, int c)
{
	child_cwd();
	DIR *d;
	const char *rd = !strcmp(name, "readdir64") ? "readdir64" : "readdir";
	if (!strcmp(name, "fdopendir"))
		d = F(DIR * (*)(int), name)(dirfd_of(c % NDIRFD));
	else
		d = F(DIR * (*)(const char *), "opendir")(path_of(c % NPATH));
	result(d ? 0 : -1);
	if (!d)
		return;
	dig_dir(d, rd);
	dig_long(F(int (*)(DIR *), "closedir")(d));
}
static int flt_cpu(const struct dirent *e)
{
	return !strncmp(e->d_name, "cpu", 3);
}
static void d_scandir(const char *name, int c)
{
	int pi = c % NPATH, k = c / NPATH;
	struct dirent **list = NULL;
	child_cwd();
	long r = F(int (*)(const char *, struct dirent ***, int (*)(const struct dirent *),
			   int (*)(const struct dirent **, const struct dirent **)),
		   name)(path_of(pi), &list, k & 1 ? flt_cpu : NULL, k & 2 ? alphasort : NULL);
	result(r);
	if (r > 0) {
		char *names[4096];
		for (long i = 0; i < r && i < 4096; i++)
			names[i] = list[i]->d_name;
		qsort(names, (size_t)(r < 4096 ? r : 4096), sizeof(*names), cmpstr);
		for (long i = 0; i < r && i < 4096; i++)
			dig_str(names[i]);
		for (long i = 0; i < r; i++)
			free(list[i]);
		free(list);
	}
}
static void d_glob(const char *name, int c)
{
	static const char *pats[] = {"/sys/devices/system/cpu/cpu[0-9]*", "/sys/devices/system/cpu/*",
				     "/nonexistent/*", "", "cpu*", "/sys/devices/system/node/node*/cpu[0-9]*",
				     "/sys/devices/system/cpu/cpu*/topology/core_id"};
	static const int gf[] = {0, GLOB_NOSORT, GLOB_ERR, GLOB_ONLYDIR, GLOB_MARK};
	int pi = c % 7, fi = c / 7;
	child_cwd();
	glob_t g;
	memset(&g, 0, sizeof(g));
	long r = F(int (*)(const char *, int, int (*)(const char *, int), glob_t *), name)(pats[pi], gf[fi],
											  NULL, &g);
	result(r);
	if (r == 0) {
		qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmpstr);
		for (size_t i = 0; i < g.gl_pathc; i++)
			dig_str(g.gl_pathv[i]);
		globfree(&g);
	}
}
static uint64_t walk_digest;
static int walk_n;
static int walker(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	/* names and kinds only: what a walk sees, not the time it ran */
	uint64_t h = walk_digest ? walk_digest : 1469598103934665603ull;
	for (const char *q = p; *q; q++)
		h = (h ^ (unsigned char)*q) * 1099511628211ull;
	h = (h ^ (unsigned)type) * 1099511628211ull;
	h = (h ^ (st ? (unsigned)(st->st_mode & S_IFMT) : 0)) * 1099511628211ull;
	walk_digest ^= h; /* order-free: a listing's order is the file system's */
	walk_n++;
	return walk_n > 20000;
}
static void d_nftw(const char *name, int c)
{
	static const char *ps[] = {"/sys/devices/system/cpu/cpu0", "/sys/devices/system/node", "/nonexistent",
				   NULL, "", "cpu1"};
	static const int nf[] = {0, FTW_PHYS, FTW_DEPTH | FTW_PHYS, FTW_CHDIR | FTW_PHYS, FTW_MOUNT | FTW_PHYS};
	int pi = c % 6, fi = c / 6;
	child_cwd();
	long r = F(int (*)(const char *, __nftw_func_t, int, int), name)(ps[pi], walker, 8, nf[fi]);
	result(r);
	dig_long(walk_n);
	dig_long((long)walk_digest);
	dig_cwd();
}
static void d_readlink(const char *name, int c)
{
	static const char *ps[] = {"/sys/devices/system/cpu/cpu0/subsystem", "/sys/bus/cpu/devices/cpu0",
				   "/sys/devices/system/cpu/online", "cpu0/subsystem", "/nonexistent"};
	int pi = c % 8, bi = (c / 8) % NBUF, si = (c / 8 / NBUF) % NSIZES, di = c / 8 / NBUF / NSIZES;
	const char *p = pi < 5 ? ps[pi] : pi == 5 ? NULL : pi == 6 ? none : at_edge("");
	R->unreadable_in = pi == 6;
	static char ok[4096];
	size_t n = sizes[si];
	if (bi == B_OK && n > sizeof(ok) && n != SIZE_MAX / 2)
		n = sizeof(ok);
	void *b = buf_of(bi, n, ok);
	if (bi == B_EDGE && n > (size_t)pg)
		n = pg;
	child_cwd();
	long r;
	if (!strcmp(name, "readlink"))
		r = F(ssize_t (*)(const char *, char *, size_t), name)(p, b, n);
	else
		r = F(ssize_t (*)(int, const char *, char *, size_t), name)(dirfd_of(di), p, b, n);
	result(r);
	if (r > 0)
		dig(b, (size_t)r);
}
static void dig_stat(const struct stat *st)
{
	dig_long(st->st_mode);
	dig_long((long)st->st_ino);
	dig_long((long)st->st_dev);
	dig_long((long)st->st_nlink);
	dig_long(st->st_uid);
	dig_long((long)st->st_size);
}
static void d_stat(const char *name, int c)
{
	static const int sf[] = {0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, (int)0x80000000};
	int pi = c % NPATH, bi = (c / NPATH) % NBUF, fi = (c / NPATH / NBUF) % 4, di = c / NPATH / NBUF / 4;
	static struct stat ok;
	memset(&ok, 0, sizeof(ok));
	void *b = buf_of(bi, sizeof(struct stat), &ok);
	const char *p = path_of(pi);
	child_cwd();
	long r;
	if (!strncmp(name, "fstatat", 7))
		r = F(int (*)(int, const char *, void *, int), name)(dirfd_of(di), p, b, sf[fi]);
	else
		r = F(int (*)(const char *, void *), name)(p, b);
	result(r);
	/* the descriptor itself (AT_EMPTY_PATH) of a view: its own file's
	 * inode, one of the views' traces (doc/limits.md), as fstat shows it */
	R->volatile_out = (sf[fi] & AT_EMPTY_PATH) && (pi == P_NULL || pi == P_EMPTY_EDGE) && di == D_FILE;
	if (r == 0 && b == &ok && !path_volatile(pi) && pi != P_TMPFILE)
		dig_stat(&ok);
}
static void d_statx(const char *name, int c)
{
	static const int sf[] = {0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, (int)0x80000000};
	static const unsigned sm[] = {0, STATX_BASIC_STATS, 0xfff, 0x80000000u};
	int pi = c % NPATH, bi = (c / NPATH) % NBUF, fi = (c / NPATH / NBUF) % 4,
	    mi = (c / NPATH / NBUF / 4) % 4, di = c / NPATH / NBUF / 16;
	static struct statx ok;
	memset(&ok, 0, sizeof(ok));
	void *b = buf_of(bi, sizeof(struct statx), &ok);
	child_cwd();
	long r = F(int (*)(int, const char *, int, unsigned, void *), name)(dirfd_of(di), path_of(pi), sf[fi],
									     sm[mi], b);
	result(r);
	R->volatile_out = (sf[fi] & AT_EMPTY_PATH) && (pi == P_NULL || pi == P_EMPTY_EDGE) && di == D_FILE;
	if (r == 0 && b == &ok && !path_volatile(pi) && pi != P_TMPFILE) {
		dig_long(ok.stx_mode);
		dig_long((long)ok.stx_ino);
		dig_long((long)ok.stx_size);
	}
}
static void d_chdir(const char *name, int c)
{
	child_cwd();
	long r;
	if (!strcmp(name, "chdir"))
		r = F(int (*)(const char *), name)(path_of(c % NPATH));
	else
		r = F(int (*)(int), name)(dirfd_of(c % NDIRFD));
	result(r);
	dig_cwd();
	/* what the side believes: a relative open after the change */
	int fd = F(int (*)(const char *, int, ...), "open")("online", O_RDONLY);
	dig_long(fd >= 0);
	dig_fd(fd, false);
}

static const struct driver drivers[] = {
	{{"sysconf", "__sysconf"}, 304, d_sysconf},
	{{"get_nprocs", "get_nprocs_conf"}, 1, d_nprocs},
	{{"sched_getaffinity", "pthread_getaffinity_np"}, 5 * NSIZES * NBUF, d_getaff},
	{{"sched_setaffinity", "pthread_setaffinity_np"}, 4 * NSIZES * 5, d_setaff},
	{{"pthread_attr_setaffinity_np", "pthread_attr_getaffinity_np"}, NSIZES * 3, d_attraff},
	{{"pthread_getattr_np"}, NSIZES, d_getattr},
	{{"pthread_create"}, 5, d_create},
	{{"sched_getcpu", "getcpu"}, NBUF * NBUF, d_getcpu},
	{{"syscall"}, NSYSCALL + 5 * NMPMASK * NMPMAX * NMPMODE, d_syscall},
	{{"open", "open64", "__open_2", "__open64_2"}, NPATH * NOPENF, d_open},
	{{"openat", "openat64", "__openat_2", "__openat64_2"}, NPATH * NOPENF * NDIRFD, d_open, NPATH * NOPENF},
	{{"fopen", "fopen64", "freopen", "freopen64"}, NPATH * (NMODES + 1), d_fopen},
	{{"lseek", "lseek64"}, NFDK * 4 * 6, d_lseek},
	{{"pread", "pread64"}, NFDK * NBUF * NSIZES * 4, d_pread},
	{{"rewind", "fseek", "fseeko", "fseeko64"}, 4 * 4 * 6, d_stdio_seek},
	{{"access"}, NPATH * 5, d_access},
	{{"faccessat"}, NPATH * 25 * NDIRFD, d_access, NPATH * 25},
	{{"opendir", "readdir", "readdir64", "closedir"}, NPATH, d_dir},
	{{"fdopendir"}, NDIRFD, d_dir},
	{{"scandir", "scandir64"}, NPATH * 4, d_scandir},
	{{"glob", "glob64"}, 7 * 5, d_glob},
	{{"nftw", "nftw64"}, 6 * 5, d_nftw},
	{{"readlink"}, 8 * NBUF * NSIZES, d_readlink},
	{{"readlinkat"}, 8 * NBUF * NSIZES * NDIRFD, d_readlink},
	{{"stat", "stat64", "lstat", "lstat64"}, NPATH * NBUF, d_stat},
	{{"fstatat", "fstatat64"}, NPATH * NBUF * 4 * NDIRFD, d_stat, NPATH * NBUF * 4},
	{{"statx"}, NPATH * NBUF * 16 * NDIRFD, d_statx, NPATH * NBUF * 16},
	{{"chdir"}, NPATH, d_chdir},
	{{"fchdir"}, NDIRFD, d_chdir},
};
#define NDRIVERS (int)(sizeof(drivers) / sizeof(drivers[0]))

/* ---- running a case on one side ---- */

static struct res run_side(const struct side *side, const struct driver *d, const char *name, int c)
{
	struct res *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
	struct res out = {.ret = -99, .err = 0, .sig = -1};
	if (shared == MAP_FAILED)
		return out;
	memset(shared, 0, sizeof(*shared));
	shared->ret = -99;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		S = side;
		R = shared;
		/* a scratch directory of its own for the files a case makes */
		char dir[64];
		snprintf(dir, sizeof(dir), "/tmp/difflibc.%d", getpid());
		mkdir(dir, 0700);
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		(void)fd;
		alarm(10);
		/* libc's own aborts (an open with O_CREAT and no mode) say so
		 * on the terminal or stderr: neither is wanted here */
		setenv("LIBC_FATAL_STDERR_", "1", 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		errno = SENTINEL;
		d->run(name, c);
		/* the scratch file a case made, if any */
		char f[96];
		snprintf(f, sizeof(f), "%s/difflibc.file", dir);
		unlink("/sys/devices/system/cpu/difflibc.file");
		unlink(f);
		rmdir(dir);
		_exit(0);
	}
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	out = *shared;
	out.sig = WIFSIGNALED(st) ? WTERMSIG(st) : (WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1000 + WEXITSTATUS(st));
	munmap(shared, sizeof(*shared));
	return out;
}

static bool errors_only;
static int limits; /* cases of the documented limit */

/* Whether case c of a driver whose dirfd index is c / div (div 0: none)
 * can differ from the same case with AT_FDCWD: only for a path that is not
 * absolute. The others are not run. */
static bool relevant(const struct driver *d, int c)
{
	if (!d->dirfd_div || c / d->dirfd_div % NDIRFD == D_CWD)
		return true;
	int pi = c % NPATH;
	return pi == P_NULL || pi == P_EMPTY_EDGE || pi == P_REL_CPU0 || pi == P_TMPFILE;
}

/* "" if the two agree, else why not */
static const char *compare(const struct res *s, const struct res *l, char *why, size_t n)
{
	if (l->sig) {
		/* libc died: the shim may die the same way, or answer as the
		 * kernel would */
		if (s->sig == SIGSEGV && s->unreadable_in) {
			limits++;
			return "";
		}
		if (s->sig && s->sig != l->sig) {
			snprintf(why, n, "libc died of signal %d, the shim of %d", l->sig, s->sig);
			return why;
		}
		return "";
	}
	if (s->sig == SIGSEGV && s->unreadable_in) {
		/* doc/limits.md: the shim reads a path to know
		 * whether it is a view, and a mask to translate it; one in an
		 * unreadable page faults there, where the kernel would say
		 * EFAULT */
		limits++;
		return "";
	}
	if (s->sig) {
		snprintf(why, n, "the shim died (signal/status %d) where libc returned %ld errno %d", s->sig, l->ret,
			 l->err);
		return why;
	}
	bool lfail = l->ret < 0, sfail = s->ret < 0;
	if (lfail != sfail || (lfail && s->err != l->err)) {
		snprintf(why, n, "libc %ld errno %d, shim %ld errno %d", l->ret, l->err, s->ret, s->err);
		return why;
	}
	if (errors_only || (l->volatile_out && s->volatile_out))
		return "";
	if (s->ret != l->ret || s->err != l->err) {
		snprintf(why, n, "libc %ld errno %d, shim %ld errno %d", l->ret, l->err, s->ret, s->err);
		return why;
	}
	if (!l->volatile_out && s->digest != l->digest) {
		snprintf(why, n, "same return %ld, different outputs or state", l->ret);
		return why;
	}
	return "";
}

static bool exported_by_driver(const char *name, const struct driver **d)
{
	for (int i = 0; i < NDRIVERS; i++)
		for (int j = 0; drivers[i].names[j]; j++)
			if (!strcmp(drivers[i].names[j], name)) {
				*d = &drivers[i];
				return true;
			}
	return false;
}

/* a case number and its mismatch, for the report */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* DEADLINE: the monotonic time this name's share ends (0: none) */
static void test_name(const char *name, const char *only_case, double deadline)
{
	const struct driver *d;
	if (!exported_by_driver(name, &d)) {
		printf("MISSING %s\n", name);
		return;
	}
	void *mine = dlsym(RTLD_DEFAULT, name), *theirs = dlsym(libc_handle, name);
	Dl_info di;
	if (!mine || !theirs || mine == theirs || !dladdr(mine, &di) || !strstr(di.dli_fname, "cpusetshim")) {
		printf("FAIL %s 0: not interposed by the shim (bound to %s)\n", name,
		       mine && dladdr(mine, &di) ? di.dli_fname : "nothing");
		return;
	}
	int bad = 0, from = 0, to = d->ncases, ran = 0;
	limits = 0;
	if (only_case)
		from = atoi(only_case), to = from + 1;
	char report[2048] = "";
	size_t used = 0;
	/* a name with more cases than the budget runs a sample of them,
	 * drawn from the seed (DIFFLIBC_BUDGET=0: every case) */
	long budget = getenv("DIFFLIBC_BUDGET") ? atol(getenv("DIFFLIBC_BUDGET")) : 300;
	uint64_t rng = getenv("DIFFLIBC_SEED") ? strtoull(getenv("DIFFLIBC_SEED"), NULL, 0) : 1;
	rng = rng * 0x9e3779b97f4a7c15ull + (uint64_t)strlen(name) * 977 + (unsigned char)name[0];
	int nrel = 0;
	for (int c = from; c < to; c++)
		nrel += only_case || relevant(d, c);
	for (int c = from; c < to; c++) {
		if (!only_case && !relevant(d, c))
			continue;
		if (budget > 0 && nrel > budget) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			if (rng % (uint64_t)nrel >= (uint64_t)budget)
				continue;
		}
		if (deadline > 0 && ran >= 10 && now_s() > deadline)
			break; /* its share of the time is spent */
		ran++;
		struct res s = run_side(&SHIM, d, name, c), l = run_side(&LIBC, d, name, c);
		char why[256];
		const char *w = compare(&s, &l, why, sizeof(why));
		if (*w) {
			if (bad < 4 && used < sizeof(report) - 300)
				used += (size_t)snprintf(report + used, sizeof(report) - used, "%scase %d: %s",
							 bad ? "; " : "", c, w);
			bad++;
		}
	}
	if (bad)
		printf("FAIL %s %d: %d disagree: %s\n", name, ran, bad, report);
	else
		printf("PASS %s %d %d\n", name, ran, limits);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: difflibc MAP same|errors [NAME [CASE]]\n");
		return 2;
	}
	errors_only = !strcmp(argv[2], "errors");
	libc_handle = dlopen("libc.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!libc_handle) {
		fprintf(stderr, "difflibc: %s\n", dlerror());
		return 2;
	}
	pages();
	signal(SIGPIPE, SIG_IGN);
	FILE *m = fopen(argv[1], "r");
	if (!m) {
		perror(argv[1]);
		return 2;
	}
	/* the names of the map's global: section, up to local: */
	char line[512];
	bool global = false;
	int names = 0;
	static char list[512][64];
	while (names < 512 && fgets(line, sizeof(line), m)) {
		char *hash = strstr(line, "/*");
		if (hash)
			*hash = 0;
		if (strstr(line, "global:")) {
			global = true;
			continue;
		}
		if (strstr(line, "local:"))
			break;
		if (!global)
			continue;
		for (char *t = strtok(line, " \t;\n"); t; t = strtok(NULL, " \t;\n")) {
			if (!strcmp(t, "cpusetshim_copy"))
				continue; /* the shim's own, libc has none */
			if (argc > 3 && strcmp(t, argv[3]))
				continue;
			if (names < 512)
				snprintf(list[names++], sizeof(list[0]), "%s", t);
		}
	}
	fclose(m);
	if (!names) {
		fprintf(stderr, "difflibc: no names read from %s\n", argv[1]);
		return 2;
	}
	double secs = getenv("DIFFLIBC_SECONDS") ? atof(getenv("DIFFLIBC_SECONDS")) : 150.0;
	double end = now_s() + secs;
	for (int i = 0; i < names; i++) {
		double deadline = secs > 0 ? now_s() + (end - now_s()) / (double)(names - i) : 0;
		test_name(list[i], argc > 4 ? argv[4] : NULL, deadline);
		fflush(stdout);
	}
	return 0;
}
