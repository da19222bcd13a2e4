/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks, from inside a CPU set, every way a program asks about or binds
 * to CPUs (CLIENTS.md), against what the kernel really did.
 *
 *   prog_affinity N LIST [nowrap]
 *       N: the set's size; LIST: its physical CPUs (e.g. "1" or "0-1");
 *       nowrap: CPUSETSHIM_WRAP=0 is set, so a virtual CPU beyond the set
 *       is refused instead of wrapped.
 *   prog_affinity --filtered N LIST [flock|kill]
 *       the views under a seccomp filter that refuses memfd_create (and
 *       flock): all still delivered, virtual. Exit 77 if no filter can be
 *       installed.
 *   prog_affinity --hold FILE
 *       print "pid P vmask L real_mask L real_cpu C" (lists of CPUs), then
 *       wait (at most 60 s) until FILE exists, so the caller can look at
 *       the process from outside.
 *
 * Prints one "ok: ..." or "FAIL: ..." line per check and exits 1 if any
 * failed. The truth ("real") is always asked of the kernel with the system
 * call instruction itself, since the shim interposes syscall() too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define MAXCPU 1024
#define SETSZ (MAXCPU / 8) /* bytes of a mask buffer */

/* ---- the kernel, without libc ---- */

#include "raw.h"
#ifndef RAW_SYSCALL_INLINE
#error "prog_affinity needs an inline system call for this architecture"
#endif

/* Real mask of thread tid (0: the caller) into m; the kernel's return
 * value: its mask size in bytes, or -errno. */
static long real_mask(pid_t tid, cpu_set_t *m, size_t size)
{
	memset(m, 0, size);
	return raw_syscall3(NR_SCHED_GETAFFINITY, tid, (long)size, (long)m);
}


/* ---- reporting ---- */

static int failures, passes;

__attribute__((format(printf, 2, 3))) static void check(int ok, const char *fmt, ...)
{
	va_list ap;
	fputs(ok ? "ok: " : "FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passes++;
	else
		failures++;
}

/* A mask as a comma list ("" when empty); rotating static buffers so a
 * message can hold several. */
static const char *lst(const cpu_set_t *m, size_t size)
{
	static char bufs[4][MAXCPU * 5];
	static int k;
	char *b = bufs[k++ & 3];
	size_t n = 0;
	b[0] = 0;
	for (unsigned c = 0; c < size * 8 && c < MAXCPU; c++) {
		if (!CPU_ISSET_S(c, size, m))
			continue;
		n += (size_t)snprintf(b + n, sizeof(bufs[0]) - n, "%s%u", n ? "," : "", c);
		if (n >= sizeof(bufs[0]) - 8)
			break;
	}
	return b;
}

static int n;		 /* set size */
static int phys[MAXCPU]; /* its physical CPUs, ascending */
static bool wrap = true;

/* The libc prototypes say nonnull, yet programs pass NULL and expect the
 * kernel's EFAULT. Call through pointers the compiler cannot see through,
 * so neither the optimiser nor -fsanitize=nonnull-attribute acts on it. */
static void *volatile null_ptr;
static int (*volatile sched_getaffinity_p)(pid_t, size_t, cpu_set_t *) = sched_getaffinity;
static int (*volatile sched_setaffinity_p)(pid_t, size_t, const cpu_set_t *) = sched_setaffinity;
static int (*volatile pthread_getaffinity_np_p)(pthread_t, size_t,
						cpu_set_t *) = pthread_getaffinity_np;
static int (*volatile pthread_setaffinity_np_p)(pthread_t, size_t,
						const cpu_set_t *) = pthread_setaffinity_np;

/* {0..k-1} */
static void fill(cpu_set_t *m, int k)
{
	CPU_ZERO_S(SETSZ, m);
	for (int i = 0; i < k; i++)
		CPU_SET_S((unsigned)i, SETSZ, m);
}

static void one(cpu_set_t *m, int c)
{
	CPU_ZERO_S(SETSZ, m);
	CPU_SET_S((unsigned)c, SETSZ, m);
}

static cpu_set_t *the_set(void)
{
	static cpu_set_t s[MAXCPU / CPU_SETSIZE + 1];
	CPU_ZERO_S(SETSZ, s);
	for (int i = 0; i < n; i++)
		CPU_SET_S((unsigned)phys[i], SETSZ, s);
	return s;
}

static int parse_list(const char *s)
{
	int k = 0;
	while (*s) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s)
				return -1;
		}
		for (long c = a; c <= b && k < MAXCPU; c++)
			phys[k++] = (int)c;
		s = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return -1;
	}
	return k;
}

/* ---- counting ---- */

static void test_counts(void)
{
	errno = 1234;
	long on = sysconf(_SC_NPROCESSORS_ONLN);
	check(on == n && errno == 1234, "sysconf(_SC_NPROCESSORS_ONLN) = %ld (want %d), errno %d",
	      on, n, errno);
	errno = 1234;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	check(conf == n && errno == 1234, "sysconf(_SC_NPROCESSORS_CONF) = %ld (want %d), errno %d",
	      conf, n, errno);
	errno = 1234;
	int gn = get_nprocs();
	check(gn == n && errno == 1234, "get_nprocs() = %d (want %d), errno %d", gn, n, errno);
	errno = 1234;
	int gc = get_nprocs_conf();
	check(gc == n && errno == 1234, "get_nprocs_conf() = %d (want %d), errno %d", gc, n, errno);
	/* other names must pass through untouched */
	long pg = sysconf(_SC_PAGESIZE);
	check(pg == getpagesize(), "sysconf(_SC_PAGESIZE) = %ld (want %d)", pg, getpagesize());
}

/* ---- reading the mask ---- */

static void test_getaffinity(void)
{
	cpu_set_t want[SETSZ / sizeof(cpu_set_t) + 1], m[SETSZ / sizeof(cpu_set_t) + 1],
		r[SETSZ / sizeof(cpu_set_t) + 1];
	fill(want, n);

	long kr = real_mask(0, r, SETSZ);
	check(kr > 0 && CPU_EQUAL_S(SETSZ, r, the_set()),
	      "real kernel mask (raw syscall) = {%s} (want {%s}), returned %ld", lst(r, SETSZ),
	      lst(the_set(), SETSZ), kr);

	memset(m, 0xff, SETSZ);
	errno = 1234;
	int rc = sched_getaffinity(0, SETSZ, m);
	check(rc == 0 && errno == 1234 && CPU_EQUAL_S(SETSZ, m, want),
	      "sched_getaffinity(0) = %d, {%s} (want {%s}), errno %d", rc, lst(m, SETSZ),
	      lst(want, SETSZ), errno);

	memset(m, 0xff, SETSZ);
	errno = 1234;
	rc = sched_getaffinity(getpid(), SETSZ, m);
	check(rc == 0 && errno == 1234 && CPU_EQUAL_S(SETSZ, m, want),
	      "sched_getaffinity(getpid()) = %d, {%s} (want {%s}), errno %d", rc, lst(m, SETSZ),
	      lst(want, SETSZ), errno);

	memset(m, 0xff, SETSZ);
	errno = 1234;
	rc = pthread_getaffinity_np(pthread_self(), SETSZ, m);
	check(rc == 0 && errno == 1234 && CPU_EQUAL_S(SETSZ, m, want),
	      "pthread_getaffinity_np(self) = %d, {%s} (want {%s}), errno %d", rc, lst(m, SETSZ),
	      lst(want, SETSZ), errno);

	/* syscall(): the kernel's byte count, virtual bits in those bytes */
	memset(m, 0, SETSZ);
	errno = 1234;
	long sr = syscall(SYS_sched_getaffinity, 0, SETSZ, m);
	int e = errno;
	check(sr == kr && e == 1234,
	      "syscall(SYS_sched_getaffinity, 0, %d) = %ld (raw: %ld), errno %d", SETSZ, sr, kr, e);
	check(sr > 0 && CPU_EQUAL_S(SETSZ, m, want),
	      "syscall(SYS_sched_getaffinity) mask {%s} (want {%s})", lst(m, SETSZ),
	      lst(want, SETSZ));
}

/* The buffer sizes programs pass (8 bytes up to glibc's and beyond),
 * filled with garbage first: the answer is the set's virtual CPUs and
 * zero everywhere else, both below the kernel's mask (as wide as its
 * NR_CPUS, up to the size) and beyond it (libc's zeroing). Then the same
 * with a kernel mask wider than the set (CPUs outside it, as a thread the
 * shim never confined has): those do not count. */
static void test_buffer_sizes(void)
{
	static const size_t sizes[] = { 8, 16, 24, 32, 40, 64, 128, 256, 1024 };
	enum { BIG = 1024 + 64 }; /* the largest size, and room beyond it */
	static cpu_set_t want[BIG / sizeof(cpu_set_t) + 1], m[BIG / sizeof(cpu_set_t) + 1];
	cpu_set_t orig[SETSZ / sizeof(cpu_set_t) + 1], wide[SETSZ / sizeof(cpu_set_t) + 1];
	CPU_ZERO_S(sizeof(want), want);
	fill(want, n);
	long kr = real_mask(0, orig, SETSZ);
	int extra = -1;
	for (int pass = 0; pass < 2; pass++) {
		const char *how = pass ? "kernel mask wider than the set" : "kernel mask = the set";
		/* widen: a CPU outside the set that the kernel lets us have */
		for (int c = 0; pass && kr > 0 && c < 64 && extra < 0; c++) {
			if (CPU_ISSET_S(c, SETSZ, orig))
				continue;
			memcpy(wide, orig, SETSZ);
			CPU_SET_S(c, SETSZ, wide);
			if (raw_syscall3(NR_SCHED_SETAFFINITY, 0, SETSZ, (long)wide) == 0 &&
			    real_mask(0, m, SETSZ) > 0 && CPU_ISSET_S(c, SETSZ, m))
				extra = c;
		}
		if (pass && extra < 0) {
			check(1, "no CPU outside the set to widen the mask with: skipped");
			break;
		}
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t s = sizes[i];
			memset(m, 0xa5, sizeof(m));
			errno = 1234;
			int rc = sched_getaffinity(0, s, m);
			check(rc == 0 && errno == 1234 && CPU_EQUAL_S(s, m, want) &&
				      ((unsigned char *)m)[s] == 0xa5,
			      "%s: sched_getaffinity(0, %zu) over garbage = %d, {%s} (want {%s}), errno %d",
			      how, s, rc, lst(m, s), lst(want, s), errno);
			memset(m, 0xa5, sizeof(m));
			errno = 1234;
			rc = pthread_getaffinity_np(pthread_self(), s, m);
			check(rc == 0 && errno == 1234 && CPU_EQUAL_S(s, m, want) &&
				      ((unsigned char *)m)[s] == 0xa5,
			      "%s: pthread_getaffinity_np(self, %zu) over garbage = %d, {%s} (want {%s})",
			      how, s, rc, lst(m, s), lst(want, s));
		}
	}
	if (extra >= 0 && kr > 0)
		raw_syscall3(NR_SCHED_SETAFFINITY, 0, SETSZ, (long)orig);
}

/* Sizes the kernel refuses must be refused the same way (EINVAL: callers
 * grow their buffer on it), sizes it takes must work. */
static void test_sizes(void)
{
	cpu_set_t m[SETSZ / sizeof(cpu_set_t) + 1], want[SETSZ / sizeof(cpu_set_t) + 1];
	size_t kmin = 0;
	for (size_t s = 1; s <= SETSZ; s++) {
		if (real_mask(0, m, s) > 0) {
			kmin = s;
			break;
		}
	}
	check(kmin > 1, "the kernel's smallest accepted cpusetsize is %zu bytes (size 1: %ld)",
	      kmin, real_mask(0, m, 1));
	if (!kmin)
		return;
	fill(want, n);
	int bad = 0;
	for (size_t s = 1; s <= kmin + 16 && s <= SETSZ; s++) {
		long kr = real_mask(0, m, s);
		bool k_ok = kr > 0;

		memset(m, 0, SETSZ);
		errno = 1234;
		int r1 = sched_getaffinity(0, s, m);
		int e1 = errno;
		bool ok1 = k_ok ? (r1 == 0 && e1 == 1234 && CPU_EQUAL_S(s, m, want))
				: (r1 == -1 && e1 == EINVAL);
		if (!ok1) {
			bad++;
			check(0, "sched_getaffinity(0, %zu) = %d errno %d {%s}; kernel says %ld", s,
			      r1, e1, lst(m, s), kr);
		}

		memset(m, 0, SETSZ);
		errno = 1234;
		int r2 = pthread_getaffinity_np(pthread_self(), s, m);
		bool ok2 = k_ok ? (r2 == 0 && errno == 1234 && CPU_EQUAL_S(s, m, want))
				: (r2 == EINVAL);
		if (!ok2) {
			bad++;
			check(0, "pthread_getaffinity_np(self, %zu) = %d {%s}; kernel says %ld", s,
			      r2, lst(m, s), kr);
		}

		memset(m, 0, SETSZ);
		errno = 1234;
		long r3 = syscall(SYS_sched_getaffinity, 0, s, m);
		int e3 = errno;
		bool ok3 = k_ok ? (r3 == kr && e3 == 1234 && CPU_EQUAL_S((size_t)kr, m, want))
				: (r3 == -1 && e3 == -kr);
		if (!ok3) {
			bad++;
			check(0,
			      "syscall(SYS_sched_getaffinity, 0, %zu) = %ld errno %d {%s}; kernel says %ld",
			      s, r3, e3, lst(m, s), kr);
		}
	}
	check(bad == 0,
	      "cpusetsize 1..%zu: the shim refuses (EINVAL) and accepts the sizes the kernel does",
	      kmin + 16);

	errno = 0;
	int r = sched_getaffinity(0, 1, m);
	check(r == -1 && errno == EINVAL,
	      "sched_getaffinity(0, 1 byte) = %d errno %d (want -1 EINVAL)", r, errno);
	r = pthread_getaffinity_np(pthread_self(), 1, m);
	check(r == EINVAL, "pthread_getaffinity_np(self, 1 byte) = %d (want EINVAL %d)", r, EINVAL);
}

static void test_null(void)
{
	errno = 0;
	int r = sched_getaffinity_p(0, SETSZ, null_ptr);
	check(r == -1 && errno == EFAULT,
	      "sched_getaffinity(0, %d, NULL) = %d errno %d (want -1 EFAULT)", SETSZ, r, errno);
	errno = 0;
	r = sched_setaffinity_p(0, SETSZ, null_ptr);
	check(r == -1 && errno == EFAULT,
	      "sched_setaffinity(0, %d, NULL) = %d errno %d (want -1 EFAULT)", SETSZ, r, errno);
	r = pthread_getaffinity_np_p(pthread_self(), SETSZ, null_ptr);
	check(r == EFAULT, "pthread_getaffinity_np(self, %d, NULL) = %d (want EFAULT %d)", SETSZ, r,
	      EFAULT);
	r = pthread_setaffinity_np_p(pthread_self(), SETSZ, null_ptr);
	check(r == EFAULT, "pthread_setaffinity_np(self, %d, NULL) = %d (want EFAULT %d)", SETSZ, r,
	      EFAULT);
	errno = 0;
	long l = syscall(SYS_sched_getaffinity, 0, SETSZ, null_ptr);
	check(l == -1 && errno == EFAULT,
	      "syscall(SYS_sched_getaffinity, NULL) = %ld errno %d (want -1 EFAULT)", l, errno);
	errno = 0;
	l = syscall(SYS_sched_setaffinity, 0, SETSZ, null_ptr);
	check(l == -1 && errno == EFAULT,
	      "syscall(SYS_sched_setaffinity, NULL) = %ld errno %d (want -1 EFAULT)", l, errno);
}

/* ---- binding ---- */

enum api { A_PTHREAD, A_SCHED, A_SYSCALL };
static const char *const api_name[] = { "pthread_setaffinity_np", "sched_setaffinity(0)",
					"syscall(SYS_sched_setaffinity)" };

/* Sets mask m through api; returns 0 or the error number, errno kept in *e. */
static int set_by(enum api a, const cpu_set_t *m, int *e)
{
	int r;
	errno = 1234;
	switch (a) {
	case A_PTHREAD:
		r = pthread_setaffinity_np(pthread_self(), SETSZ, m);
		break;
	case A_SCHED:
		r = sched_setaffinity(0, SETSZ, m) == 0 ? 0 : errno;
		break;
	default:
		r = syscall(SYS_sched_setaffinity, 0, SETSZ, m) == 0 ? 0 : errno;
		break;
	}
	*e = errno;
	return r;
}

static void test_pin(enum api a)
{
	cpu_set_t m[SETSZ / sizeof(cpu_set_t) + 1], g[SETSZ / sizeof(cpu_set_t) + 1],
		r[SETSZ / sizeof(cpu_set_t) + 1], w[SETSZ / sizeof(cpu_set_t) + 1];
	const char *an = api_name[a];
	int e;

	for (int v = 0; v <= n; v++) {
		if (v == n && !wrap)
			break;
		int vv = v % n; /* where the 2003 CPUSETS proposal's rule puts it */
		one(m, v);
		int rc = set_by(a, m, &e);
		check(rc == 0 && e == 1234, "%s({%d}) = %d, errno %d", an, v, rc, e);
		one(w, vv);
		memset(g, 0, SETSZ);
		int gr = pthread_getaffinity_np(pthread_self(), SETSZ, g);
		check(gr == 0 && CPU_EQUAL_S(SETSZ, g, w),
		      "%s({%d}): pthread_getaffinity_np gives {%s} (want {%s})", an, v,
		      lst(g, SETSZ), lst(w, SETSZ));
		memset(g, 0, SETSZ);
		gr = sched_getaffinity(0, SETSZ, g);
		check(gr == 0 && CPU_EQUAL_S(SETSZ, g, w),
		      "%s({%d}): sched_getaffinity gives {%s} (want {%s})", an, v, lst(g, SETSZ),
		      lst(w, SETSZ));
		one(w, phys[vv]);
		real_mask(0, r, SETSZ);
		check(CPU_EQUAL_S(SETSZ, r, w), "%s({%d}): real kernel mask {%s} (want {%s})", an,
		      v, lst(r, SETSZ), lst(w, SETSZ));
		int vc = sched_getcpu(), pc = real_cpu();
		check(vc == vv && pc == phys[vv],
		      "%s({%d}): runs on virtual %d (want %d), physical %d (want %d)", an, v, vc,
		      vv, pc, phys[vv]);
	}

	if (!wrap) {
		/* the kernel's rule: CPUs beyond the set are ignored; none left
		 * is EINVAL, and nothing changes */
		real_mask(0, w, SETSZ);
		one(m, n);
		int rc = set_by(a, m, &e);
		check(rc == EINVAL, "%s({%d}) beyond the set, no wrapping = %d (want EINVAL %d)",
		      an, n, rc, EINVAL);
		real_mask(0, r, SETSZ);
		check(CPU_EQUAL_S(SETSZ, r, w), "%s({%d}) refused: real mask still {%s} (is {%s})",
		      an, n, lst(w, SETSZ), lst(r, SETSZ));
		one(m, 0);
		CPU_SET_S((unsigned)n, SETSZ, m);
		rc = set_by(a, m, &e);
		one(w, phys[0]);
		real_mask(0, r, SETSZ);
		check(rc == 0 && CPU_EQUAL_S(SETSZ, r, w),
		      "%s({0,%d}), no wrapping = %d, real mask {%s} (want {%s})", an, n, rc,
		      lst(r, SETSZ), lst(w, SETSZ));
	}

	/* back to the whole set */
	fill(m, n);
	int rc = set_by(a, m, &e);
	real_mask(0, r, SETSZ);
	check(rc == 0 && CPU_EQUAL_S(SETSZ, r, the_set()),
	      "%s({0..%d}) = %d: real mask {%s} (want {%s})", an, n - 1, rc, lst(r, SETSZ),
	      lst(the_set(), SETSZ));
}

/* ---- where we run ---- */

static void test_getcpu(void)
{
	int bad = -1, errbad = 0;
	for (int i = 0; i < 2000; i++) {
		errno = 1234;
		int c = sched_getcpu();
		if (errno != 1234)
			errbad++;
		if (c < 0 || c >= n)
			bad = c;
		if (i % 100 == 0)
			sched_yield();
	}
	check(bad == -1 && !errbad,
	      "sched_getcpu() < %d 2000 times (bad value %d, errno changed %d times)", n, bad,
	      errbad);

	unsigned c = 9999, node = 9999;
	errno = 1234;
	long r = syscall(SYS_getcpu, &c, NULL, NULL);
	check(r == 0 && c < (unsigned)n && errno == 1234,
	      "syscall(SYS_getcpu, &c, NULL, NULL) = %ld, c %u (want < %d), errno %d", r, c, n,
	      errno);
	c = 9999;
	errno = 1234;
	int ir = getcpu(&c, &node);
	check(ir == 0 && c < (unsigned)n && errno == 1234,
	      "getcpu(&c, &node) = %d, c %u (want < %d), errno %d", ir, c, n, errno);
}

/* ---- files ---- */

static char *read_fd(int fd, size_t *len)
{
	size_t cap = 1 << 16, k = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (k == cap) {
			cap *= 2;
			b = realloc(b, cap + 1);
		}
		ssize_t r = read(fd, b + k, cap - k);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		k += (size_t)r;
	}
	b[k] = 0;
	*len = k;
	return b;
}

static int open_errno_changed; /* successful opens that touched errno */

static char *read_path(const char *p, size_t *len)
{
	errno = 1234;
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (errno != 1234) {
		open_errno_changed++;
		printf("    open(%s) succeeded but changed errno to %d\n", p, errno);
	}
	char *b = read_fd(fd, len);
	close(fd);
	return b;
}

/* "0" or "0-(n-1)" */
static const char *range(void)
{
	static char b[32];
	if (n == 1)
		snprintf(b, sizeof(b), "0");
	else
		snprintf(b, sizeof(b), "0-%d", n - 1);
	return b;
}

/* Checks the processor lines of a cpuinfo text: 0..n-1 in order. */
static void check_cpuinfo(const char *how, const char *t)
{
	int k = 0, order_ok = 1;
	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "processor", 9))
			continue;
		const char *c = strchr(p, ':');
		if (!c || atoi(c + 1) != k)
			order_ok = 0;
		k++;
	}
	check(k == n && order_ok,
	      "%s /proc/cpuinfo: %d processor lines (want %d), numbered 0..%d: %s", how, k, n,
	      n - 1, order_ok ? "yes" : "no");
}

static void check_stat(const char *how, const char *t)
{
	int k = 0, tot = 0, order_ok = 1;
	for (const char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "cpu ", 4))
			tot++;
		else if (!strncmp(p, "cpu", 3) && p[3] >= '0' && p[3] <= '9') {
			if (atoi(p + 3) != k)
				order_ok = 0;
			k++;
		}
	}
	check(k == n && tot == 1 && order_ok,
	      "%s /proc/stat: %d cpuN lines (want %d), numbered 0..%d: %s, %d total line(s)", how,
	      k, n, n - 1, order_ok ? "yes" : "no", tot);
}

/* Cpus_allowed_list of a status file into out ("" if none). */
static void status_list(const char *path, char *out, size_t len)
{
	size_t n_;
	char *t = read_path(path, &n_);
	char *l = t ? strstr(t, "Cpus_allowed_list:") : NULL;
	out[0] = 0;
	if (l) {
		l += 18;
		l += strspn(l, " \t");
		size_t k = strcspn(l, "\n");
		snprintf(out, len, "%.*s", (int)(k < len ? k : len - 1), l);
	}
	free(t);
}

static void check_status(const char *path)
{
	size_t len;
	char *t = read_path(path, &len);
	if (!t) {
		check(0, "%s: cannot open: %s", path, strerror(errno));
		return;
	}
	char *l = strstr(t, "Cpus_allowed_list:");
	char got[64] = "";
	if (l)
		sscanf(l + 18, " %63s", got);
	check(!strcmp(got, range()), "%s: Cpus_allowed_list '%s' (want '%s')", path, got, range());
	/* Cpus_allowed: hex words separated by commas, lowest word last */
	l = strstr(t, "Cpus_allowed:");
	unsigned long long low = 0;
	if (l) {
		char *e = strchr(l, '\n'), *c = e;
		while (c > l && c[-1] != ',' && c[-1] != '\t' && c[-1] != ' ')
			c--;
		low = strtoull(c, NULL, 16);
	}
	unsigned long long want = n >= 32 ? 0xffffffffull : (1ull << n) - 1;
	check(low == want, "%s: Cpus_allowed lowest word %llx (want %llx)", path, low, want);
	free(t);
}

static void check_range_file(const char *path)
{
	size_t len;
	char *t = read_path(path, &len);
	char want[40];
	snprintf(want, sizeof(want), "%s\n", range());
	check(t && !strcmp(t, want), "%s = '%.*s' (want '%s' and a newline)", path,
	      t ? (int)strcspn(t, "\n") : 40, t ? t : strerror(errno), range());
	free(t);
}

/* The names of a view's lines ("cpu0", "Cpus_allowed:", ...), one per
 * line: what stays when a view that changes at every read is made again. */
static char *line_keys(const char *t, size_t len)
{
	char *k = malloc(len + 2);
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && t[e] != '\n')
			e++;
		size_t w = i;
		while (w < e && t[w] != ' ' && t[w] != '\t' && t[w] != ':')
			w++;
		memcpy(k + o, t + i, w - i);
		o += w - i;
		k[o++] = '\n';
		i = e + 1;
	}
	k[o] = 0;
	return k;
}

/* The properties of a regular file, on a virtual one. changes: its
 * contents are made again when read from the start (stat, status). */
static void check_fd_semantics(const char *path, bool changes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		check(0, "%s: open: %s", path, strerror(errno));
		return;
	}
	int fl = fcntl(fd, F_GETFD);
	check(fl >= 0 && (fl & FD_CLOEXEC), "%s opened O_CLOEXEC: FD_CLOEXEC kept (flags %d)", path,
	      fl);
	size_t len;
	char *t = read_fd(fd, &len);
	struct stat st;
	int sr = fstat(fd, &st);
	check(sr == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len,
	      "%s: fstat regular file of %lld bytes (read %zu, mode %o)", path,
	      (long long)st.st_size, len, (unsigned)st.st_mode);
	/* lseek to the end answers as the real file's (sysfs: from its
	 * page; procfs: EINVAL), asked here past the shim */
	off_t end = lseek(fd, 0, SEEK_END);
	long rfd = raw_syscall3(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC);
	long want_end = rfd >= 0 ? raw_syscall3(SYS_lseek, rfd, 0, SEEK_END) : -1;
	if (rfd >= 0)
		raw_syscall3(SYS_close, rfd, 0, 0);
	if (want_end < 0)
		want_end = -1;
	off_t set = lseek(fd, 0, SEEK_SET);
	size_t len2;
	char *t2 = read_fd(fd, &len2);
	if (!changes) {
		check(end == (off_t)want_end && set == 0 && len2 == len && !memcmp(t, t2, len),
		      "%s: lseek(SEEK_END) = %lld (want the real file's %ld), SEEK_SET then read again: same %zu bytes",
		      path, (long long)end, want_end, len2);
	} else {
		char *k1 = line_keys(t, len), *k2 = line_keys(t2, len2);
		check(end == (off_t)want_end && set == 0 && !strcmp(k1, k2),
		      "%s: lseek(SEEK_END) = %lld (want the real file's %ld), SEEK_SET then read again: the same lines",
		      path, (long long)end, want_end);
		free(k1);
		free(k2);
		free(t);
		t = t2;
		t2 = NULL;
		len = len2;
	}
	size_t off = len / 2;
	char *p = malloc(len + 1);
	ssize_t pr = pread(fd, p, len - off, (off_t)off);
	check(pr == (ssize_t)(len - off) && !memcmp(p, t + off, len - off),
	      "%s: pread(%zu bytes at %zu) = %zd, same bytes as read", path, len - off, off, pr);
	free(p);
	free(t);
	free(t2);
	close(fd);

	fd = open(path, O_RDONLY);
	fl = fd >= 0 ? fcntl(fd, F_GETFD) : -1;
	check(fl >= 0 && !(fl & FD_CLOEXEC),
	      "%s opened without O_CLOEXEC: FD_CLOEXEC clear (flags %d)", path, fl);
	if (fd >= 0)
		close(fd);
}

/* The number after "key" in a view's text, or -1. */
static long long field_of(const char *t, const char *key)
{
	const char *p = t ? strstr(t, key) : NULL;
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* Sum of the "cpu " line of /proc/stat text, or -1. */
static long long stat_total(const char *t)
{
	const char *p = t && !strncmp(t, "cpu ", 4) ? t + 4 : NULL;
	long long sum = 0;
	char *e;
	if (!p)
		return -1;
	for (;;) {
		long long x = strtoll(p, &e, 10);
		if (e == p)
			break;
		sum += x;
		p = e;
	}
	return sum;
}

static void pause_a_little(int ms)
{
	for (int i = 0; i < ms; i++) {
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* As the real files, the views of status and stat are made again when a
 * program that keeps them open goes back to the start: top's rewind and
 * fflush, lseek to 0, pread at 0, fseek to 0. Each sleep switches context
 * voluntarily, so status's count must grow; /proc/stat's total grows with
 * time on every CPU. */
static void test_reread(void)
{
	const char *key = "voluntary_ctxt_switches:";
	char b1[8192], b2[8192];
	size_t got;

	FILE *f = fopen("/proc/self/status", "r");
	if (!f) {
		check(0, "fopen(/proc/self/status): %s", strerror(errno));
		return;
	}
	got = fread(b1, 1, sizeof(b1) - 1, f);
	b1[got] = 0;
	pause_a_little(3);
	rewind(f);
	fflush(f);
	got = fread(b2, 1, sizeof(b2) - 1, f);
	b2[got] = 0;
	long long a = field_of(b1, key), b = field_of(b2, key);
	check(a >= 0 && b > a, "status kept open, rewind+fflush (as top): %s %lld then %lld", key,
	      a, b);
	pause_a_little(3);
	fseek(f, 0, SEEK_SET);
	got = fread(b1, 1, sizeof(b1) - 1, f);
	b1[got] = 0;
	a = field_of(b1, key);
	check(a > b, "status kept open, fseek to 0: %s %lld then %lld", key, b, a);
	fclose(f);

	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t r = read(fd, b1, sizeof(b1) - 1);
	b1[r > 0 ? r : 0] = 0;
	pause_a_little(3);
	lseek(fd, 0, SEEK_SET);
	r = read(fd, b2, sizeof(b2) - 1);
	b2[r > 0 ? r : 0] = 0;
	a = field_of(b1, key);
	b = field_of(b2, key);
	check(a >= 0 && b > a, "status kept open, lseek to 0: %s %lld then %lld", key, a, b);
	pause_a_little(3);
	r = pread(fd, b1, sizeof(b1) - 1, 0);
	b1[r > 0 ? r : 0] = 0;
	a = field_of(b1, key);
	check(a > b, "status kept open, pread at 0: %s %lld then %lld", key, b, a);
	check(field_of(b1, "Cpus_allowed_list:") == 0,
	      "status made again: still the virtual Cpus_allowed_list");
	close(fd);

	f = fopen("/proc/stat", "r");
	if (!f) {
		check(0, "fopen(/proc/stat): %s", strerror(errno));
		return;
	}
	got = fread(b1, 1, sizeof(b1) - 1, f);
	b1[got] = 0;
	pause_a_little(60);
	rewind(f);
	fflush(f);
	got = fread(b2, 1, sizeof(b2) - 1, f);
	b2[got] = 0;
	a = stat_total(b1);
	b = stat_total(b2);
	check(a >= 0 && b > a, "/proc/stat kept open, rewind+fflush: cpu total %lld then %lld", a,
	      b);
	check(strstr(b2, "cpu0 ") && !strstr(b2, "cpu1 ") == (n == 1),
	      "/proc/stat made again: still the set's cpuN lines");
	fclose(f);
}

static void test_files(void)
{
	char path[64];
	size_t len;
	char *t;

	check_status("/proc/self/status");
	check_status("/proc/thread-self/status");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)getpid());
	check_status(path);
	check_range_file("/sys/devices/system/cpu/online");
	check_range_file("/sys/devices/system/cpu/possible");
	check_range_file("/sys/devices/system/cpu/present");

	errno = 1234;
	int fd = open("/proc/cpuinfo", O_RDONLY);
	check(fd >= 0 && errno == 1234, "open(/proc/cpuinfo) = %d, errno %d", fd, errno);
	if (fd >= 0) {
		t = read_fd(fd, &len);
		close(fd);
		check_cpuinfo("open+read", t);
		free(t);
	}
	t = read_path("/proc/stat", &len);
	check_stat("open+read", t ? t : "");
	free(t);

	/* stdio */
	const char *const fp[] = { "/proc/cpuinfo", "/proc/stat" };
	for (int i = 0; i < 2; i++) {
		errno = 1234;
		FILE *f = fopen(fp[i], "r");
		check(f != NULL && errno == 1234, "fopen(%s) = %p, errno %d", fp[i], (void *)f,
		      errno);
		if (!f)
			continue;
		size_t cap = 1 << 20, k = 0;
		char *b = malloc(cap), line[4096];
		b[0] = 0;
		while (fgets(line, sizeof(line), f) && k + strlen(line) < cap) {
			strcpy(b + k, line);
			k += strlen(line);
		}
		fclose(f);
		if (i == 0)
			check_cpuinfo("fopen+fgets", b);
		else
			check_stat("fopen+fgets", b);
		free(b);
	}

	/* relative to a directory fd, and absolute with a bad dirfd */
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "cpuinfo", O_RDONLY);
	if (fd >= 0) {
		t = read_fd(fd, &len);
		close(fd);
		check_cpuinfo("openat(dirfd of /proc, cpuinfo)", t);
		free(t);
	} else {
		check(0, "openat(dirfd of /proc, cpuinfo): %s", strerror(errno));
	}
	fd = openat(dfd, "stat", O_RDONLY);
	if (fd >= 0) {
		t = read_fd(fd, &len);
		close(fd);
		check_stat("openat(dirfd of /proc, stat)", t);
		free(t);
	} else {
		check(0, "openat(dirfd of /proc, stat): %s", strerror(errno));
	}
	close(dfd);
	fd = openat(-1, "/proc/cpuinfo", O_RDONLY);
	if (fd >= 0) {
		t = read_fd(fd, &len);
		close(fd);
		check_cpuinfo("openat(-1, /proc/cpuinfo)", t);
		free(t);
	} else {
		check(0, "openat(-1, /proc/cpuinfo): %s", strerror(errno));
	}
	dfd = open("/sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "online", O_RDONLY);
	t = fd >= 0 ? read_fd(fd, &len) : NULL;
	char want[40];
	snprintf(want, sizeof(want), "%s\n", range());
	check(t && !strcmp(t, want),
	      "openat(dirfd of /sys/devices/system/cpu, online) = '%.*s' (want '%s' and a newline)",
	      t ? (int)strcspn(t, "\n") : 40, t ? t : strerror(errno), range());
	free(t);
	if (fd >= 0)
		close(fd);
	close(dfd);

	FILE *f = fopen("/proc/cpuinfo", "re");
	int fl = f ? fcntl(fileno(f), F_GETFD) : -1;
	check(f && fl >= 0 && (fl & FD_CLOEXEC),
	      "fopen(/proc/cpuinfo, \"re\"): FD_CLOEXEC set (flags %d)", fl);
	if (f)
		fclose(f);
	f = fopen("/etc/hostname", "r");
	if (f) {
		f = freopen("/proc/cpuinfo", "r", f);
		if (f) {
			size_t cap = 1 << 20, k = 0;
			char *b = malloc(cap), line[4096];
			b[0] = 0;
			while (fgets(line, sizeof(line), f) && k + strlen(line) < cap) {
				strcpy(b + k, line);
				k += strlen(line);
			}
			check_cpuinfo("freopen+fgets", b);
			free(b);
			fclose(f);
		} else {
			check(0, "freopen(/proc/cpuinfo): %s", strerror(errno));
		}
	}

	/* status relative to a directory fd of /proc/self, /proc/thread-self */
	const char *const sd[] = { "/proc/self", "/proc/thread-self" };
	for (int i = 0; i < 2; i++) {
		char got[64] = "";
		dfd = open(sd[i], O_RDONLY | O_DIRECTORY);
		fd = openat(dfd, "status", O_RDONLY);
		t = fd >= 0 ? read_fd(fd, &len) : NULL;
		char *l = t ? strstr(t, "Cpus_allowed_list:") : NULL;
		if (l)
			sscanf(l + 18, " %63s", got);
		check(!strcmp(got, range()),
		      "openat(dirfd of %s, status): Cpus_allowed_list '%s' (want '%s')", sd[i], got,
		      range());
		free(t);
		if (fd >= 0)
			close(fd);
		close(dfd);
	}

	check_fd_semantics("/proc/cpuinfo", false);
	check_fd_semantics("/proc/stat", true);
	check_fd_semantics("/sys/devices/system/cpu/online", false);
	check_fd_semantics("/proc/self/status", true);
	test_reread();
}

/* ---- a thread created with an affinity attribute ---- */

struct tinfo {
	char self_status[64], thread_status[64], task_status[64];
	cpu_set_t real[SETSZ / sizeof(cpu_set_t) + 1];
	cpu_set_t virt[SETSZ / sizeof(cpu_set_t) + 1];
	cpu_set_t attr[SETSZ / sizeof(cpu_set_t) + 1];
	int cpu, vcpu, attr_rc;
};

/* Views made at each open come from a small pool of files per process,
 * each reused once no open file description of it is left. A view still
 * open in a child (forked, or forked and exec'd), or mapped after its
 * descriptor was closed, must keep its own contents while the parent
 * opens view after view (more than the pool holds). */
static void churn_views(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		size_t len;
		free(read_path(i % 2 ? "/proc/self/status" : "/proc/stat", &len));
	}
}

static void test_views_outlive(void)
{
	static const char *const how[] = { "a forked child's", "an exec'd child's (cat)",
					   "a mapped", "a freopen'd" };
	for (int mode = 0; mode < 4; mode++) {
		if (mode == 3) {
			FILE *f = freopen("/proc/stat", "r", tmpfile());
			check(f != NULL, "freopen(/proc/stat) on a stream: %s",
			      f ? "yes" : strerror(errno));
			if (!f)
				continue;
			churn_views(40);
			size_t len;
			char *t = read_fd(fileno(f), &len);
			check(len > 0 && !strstr(t, "Cpus_allowed"),
			      "%s stat view kept its contents while 40 views were opened", how[mode]);
			check_stat(how[mode], t);
			free(t);
			fclose(f);
			continue;
		}
		int fd = open("/proc/stat", O_RDONLY); /* no O_CLOEXEC: it survives exec */
		if (fd < 0) {
			check(0, "open(/proc/stat): %s", strerror(errno));
			return;
		}
		if (mode == 2) {
			struct stat sb;
			char *m = fstat(fd, &sb) == 0 && sb.st_size > 0
					  ? mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0)
					  : MAP_FAILED;
			close(fd);
			check(m != MAP_FAILED, "a stat view can be mapped (size %lld)",
			      (long long)sb.st_size);
			if (m == MAP_FAILED)
				continue;
			churn_views(40);
			char *t = malloc((size_t)sb.st_size + 1);
			memcpy(t, m, (size_t)sb.st_size);
			t[sb.st_size] = 0;
			check(strstr(t, "Cpus_allowed") == NULL,
			      "%s stat view kept its contents while 40 views were opened", how[mode]);
			check_stat(how[mode], t);
			free(t);
			munmap(m, (size_t)sb.st_size);
			continue;
		}
		int go[2], out[2];
		if (pipe(go) < 0 || pipe(out) < 0) {
			check(0, "pipe: %s", strerror(errno));
			return;
		}
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			char tok;
			close(go[1]);
			close(out[0]);
			if (read(go[0], &tok, 1) != 1)
				_exit(2);
			if (mode == 1) {
				dup2(fd, 0);
				dup2(out[1], 1);
				execlp("cat", "cat", (char *)NULL);
				_exit(127);
			}
			size_t len;
			char *t = read_fd(fd, &len);
			_exit(write(out[1], t, len) == (ssize_t)len ? 0 : 3);
		}
		close(go[0]);
		close(out[1]);
		close(fd); /* the child's description is the only one left */
		churn_views(40);
		if (write(go[1], "x", 1) != 1)
			check(0, "write to the child: %s", strerror(errno));
		close(go[1]);
		size_t len;
		char *t = read_fd(out[0], &len);
		close(out[0]);
		int st = 0;
		waitpid(c, &st, 0);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0 && len > 0 && !strstr(t, "Cpus_allowed"),
		      "%s stat view kept its contents while the parent opened 40 views (status %d, "
		      "%zu bytes)", how[mode], st, len);
		check_stat(how[mode], t);
		free(t);
	}
}

static void *attr_thread(void *p)
{
	struct tinfo *ti = p;
	pthread_attr_t at;
	real_mask(0, ti->real, SETSZ);
	ti->cpu = real_cpu();
	ti->vcpu = sched_getcpu();
	sched_getaffinity(0, SETSZ, ti->virt);
	/* /proc/self/status is the process's (its main thread's) mask; the
	 * thread's own files show this thread's */
	char path[96];
	status_list("/proc/self/status", ti->self_status, sizeof(ti->self_status));
	status_list("/proc/thread-self/status", ti->thread_status, sizeof(ti->thread_status));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)getpid(), (int)gettid());
	status_list(path, ti->task_status, sizeof(ti->task_status));
	ti->attr_rc = pthread_getattr_np(pthread_self(), &at);
	if (ti->attr_rc == 0) {
		ti->attr_rc = pthread_attr_getaffinity_np(&at, SETSZ, ti->attr);
		pthread_attr_destroy(&at);
	}
	return NULL;
}

static void test_attr(void)
{
	pthread_attr_t a;
	pthread_t th;
	cpu_set_t m[SETSZ / sizeof(cpu_set_t) + 1], g[SETSZ / sizeof(cpu_set_t) + 1],
		w[SETSZ / sizeof(cpu_set_t) + 1];
	static struct tinfo ti;

	pthread_attr_init(&a);
	one(m, 0);
	int r = pthread_attr_setaffinity_np(&a, SETSZ, m);
	check(r == 0, "pthread_attr_setaffinity_np({0}) = %d", r);
	memset(g, 0, SETSZ);
	r = pthread_attr_getaffinity_np(&a, SETSZ, g);
	check(r == 0 && CPU_EQUAL_S(SETSZ, g, m),
	      "pthread_attr_getaffinity_np = %d, {%s} (want {0})", r, lst(g, SETSZ));
	r = pthread_create(&th, &a, attr_thread, &ti);
	check(r == 0, "pthread_create with the attribute = %d", r);
	pthread_attr_destroy(&a);
	if (r)
		return;
	pthread_join(th, NULL);
	one(w, phys[0]);
	check(CPU_EQUAL_S(SETSZ, ti.real, w) && ti.cpu == phys[0],
	      "new thread: real mask {%s}, real cpu %d (want {%d} and %d)", lst(ti.real, SETSZ),
	      ti.cpu, phys[0], phys[0]);
	check(CPU_EQUAL_S(SETSZ, ti.virt, m) && ti.vcpu == 0,
	      "new thread: sched_getaffinity {%s}, sched_getcpu %d (want {0} and 0)",
	      lst(ti.virt, SETSZ), ti.vcpu);
	check(!strcmp(ti.thread_status, "0"),
	      "new thread: /proc/thread-self/status Cpus_allowed_list '%s' (want '0')",
	      ti.thread_status);
	check(!strcmp(ti.task_status, "0"),
	      "new thread: /proc/<pid>/task/<tid>/status Cpus_allowed_list '%s' (want '0')",
	      ti.task_status);
	check(!strcmp(ti.self_status, range()),
	      "new thread: /proc/self/status Cpus_allowed_list '%s' (want the process's '%s')",
	      ti.self_status, range());
	check(ti.attr_rc == 0 && CPU_EQUAL_S(SETSZ, ti.attr, m),
	      "new thread: pthread_getattr_np + pthread_attr_getaffinity_np = %d, {%s} (want {0})",
	      ti.attr_rc, lst(ti.attr, SETSZ));
}

/* ---- another thread, bound from outside itself ---- */

static pthread_barrier_t other_bar;
static cpu_set_t other_real[SETSZ / sizeof(cpu_set_t) + 1];
static int other_cpu;
static pid_t other_tid;

static void *other_thread(void *unused)
{
	(void)unused;
	other_tid = gettid();
	pthread_barrier_wait(&other_bar); /* tid known */
	pthread_barrier_wait(&other_bar); /* main has bound us */
	real_mask(0, other_real, SETSZ);
	other_cpu = real_cpu();
	pthread_barrier_wait(&other_bar); /* looked */
	pthread_barrier_wait(&other_bar); /* main bound us again */
	real_mask(0, other_real, SETSZ);
	other_cpu = real_cpu();
	pthread_barrier_wait(&other_bar); /* looked */
	pthread_barrier_wait(&other_bar); /* main is done asking about us */
	return NULL;
}

static void test_other_thread(void)
{
	pthread_t th;
	cpu_set_t m[SETSZ / sizeof(cpu_set_t) + 1], g[SETSZ / sizeof(cpu_set_t) + 1],
		w[SETSZ / sizeof(cpu_set_t) + 1];
	int last = n - 1;

	pthread_barrier_init(&other_bar, NULL, 2);
	if (pthread_create(&th, NULL, other_thread, NULL)) {
		check(0, "pthread_create: %s", strerror(errno));
		return;
	}
	pthread_barrier_wait(&other_bar);

	one(m, last);
	int r = pthread_setaffinity_np(th, SETSZ, m);
	pthread_barrier_wait(&other_bar);
	pthread_barrier_wait(&other_bar);
	one(w, phys[last]);
	check(r == 0 && CPU_EQUAL_S(SETSZ, other_real, w) && other_cpu == phys[last],
	      "pthread_setaffinity_np(other thread, {%d}) = %d: its real mask {%s}, cpu %d (want {%d})",
	      last, r, lst(other_real, SETSZ), other_cpu, phys[last]);
	memset(g, 0, SETSZ);
	r = pthread_getaffinity_np(th, SETSZ, g);
	check(r == 0 && CPU_EQUAL_S(SETSZ, g, m),
	      "pthread_getaffinity_np(other thread) = %d, {%s} (want {%d})", r, lst(g, SETSZ),
	      last);
	memset(g, 0, SETSZ);
	r = sched_getaffinity(other_tid, SETSZ, g);
	check(r == 0 && CPU_EQUAL_S(SETSZ, g, m),
	      "sched_getaffinity(other thread's tid) = %d, {%s} (want {%d})", r, lst(g, SETSZ),
	      last);

	one(m, 0);
	r = sched_setaffinity(other_tid, SETSZ, m);
	pthread_barrier_wait(&other_bar);
	pthread_barrier_wait(&other_bar);
	one(w, phys[0]);
	check(r == 0 && CPU_EQUAL_S(SETSZ, other_real, w) && other_cpu == phys[0],
	      "sched_setaffinity(other thread's tid, {0}) = %d: its real mask {%s}, cpu %d (want {%d})",
	      r, lst(other_real, SETSZ), other_cpu, phys[0]);
	memset(g, 0, SETSZ);
	r = pthread_getaffinity_np(th, SETSZ, g);
	check(r == 0 && CPU_EQUAL_S(SETSZ, g, m),
	      "pthread_getaffinity_np(other thread) = %d, {%s} (want {0})", r, lst(g, SETSZ));
	pthread_barrier_wait(&other_bar);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&other_bar);
}

/* ---- held for a look from outside ---- */

static int hold(const char *file)
{
	cpu_set_t v[SETSZ / sizeof(cpu_set_t) + 1], r[SETSZ / sizeof(cpu_set_t) + 1];
	memset(v, 0, SETSZ);
	sched_getaffinity(0, SETSZ, v);
	real_mask(0, r, SETSZ);
	printf("pid %d vmask %s real_mask %s real_cpu %d\n", (int)getpid(), lst(v, SETSZ),
	       lst(r, SETSZ), real_cpu());
	fflush(stdout);
	for (int i = 0; i < 6000 && access(file, F_OK) != 0; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* --race N: the process's first calls to the shim come from 8 threads at
 * once. Set-up runs in one of them; the others must wait for it, not
 * answer with the machine's numbers meanwhile. */
#define RACERS 8
static pthread_barrier_t race_go;
static int race_n, race_bad;

static void *racer(void *arg)
{
	(void)arg;
	cpu_set_t m;
	pthread_barrier_wait(&race_go);
	int r = sched_getaffinity(0, sizeof(m), &m);
	int cpu = sched_getcpu();
	/* the set's CPUs are 0..n-1: a machine's mask shows itself as CPU 0
	 * missing in a set of the last CPU */
	if (r != 0 || CPU_COUNT(&m) != race_n || !CPU_ISSET(0, &m) || cpu < 0 || cpu >= race_n)
		__atomic_add_fetch(&race_bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int race(int want)
{
	pthread_t t[RACERS];
	race_n = want;
	pthread_barrier_init(&race_go, NULL, RACERS);
	for (int i = 0; i < RACERS; i++)
		if (pthread_create(&t[i], NULL, racer, NULL) != 0)
			return 2;
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	printf("race: %d of %d threads saw another count\n", race_bad, RACERS);
	return race_bad ? 1 : 0;
}

/* ---- views under a seccomp filter ----
 *
 * A program whose seccomp filter refuses memfd_create (EPERM), and with
 * "flock" flock too (so no pool file can be claimed either), must still
 * get every view: nothing it does may fail because the shim is loaded. */
#if defined(__x86_64__) || defined(__aarch64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#define HAVE_FILTER 1
#if defined(__x86_64__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#else
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#endif

static int refuse(bool flock_too, bool kill)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, flock_too ? SYS_flock : (unsigned)-1, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, kill ? SECCOMP_RET_KILL_PROCESS
					      : SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return -1;
	return 0;
}
#endif

static int views_filtered(bool flock_too, bool kill)
{
#ifdef HAVE_FILTER
	if (refuse(flock_too, kill) != 0) {
		printf("SKIP: cannot install a seccomp filter: %s\n", strerror(errno));
		return 77;
	}
	errno = 0;
	/* with kill, a memfd_create ends the process: the views must
	 * never need one */
	long m = kill ? -1 : syscall(SYS_memfd_create, "probe", 0);
	int me = kill ? EPERM : errno;
	check(m < 0 && me == EPERM, "the filter refuses memfd_create (%ld, errno %d)", m, me);
	if (flock_too) {
		errno = 0;
		int fr = flock(0, LOCK_SH | LOCK_NB), fe = errno;
		check(fr < 0 && fe == EPERM, "the filter refuses flock (%d, errno %d)", fr, fe);
	}
	const char *how = kill		? "memfd_create kills:"
			  : flock_too ? "memfd_create and flock refused:"
				      : "memfd_create refused:";
	for (int i = 0; i < 3; i++) {
		size_t len;
		char *t = read_path("/proc/stat", &len);
		check(t != NULL, "%s /proc/stat opens (%s)", how, t ? "yes" : strerror(errno));
		if (t)
			check_stat(how, t);
		free(t);
		check_status("/proc/self/status");
		check_status("/proc/thread-self/status");
	}
	check_range_file("/sys/devices/system/cpu/online");
	size_t len;
	char *t = read_path("/proc/cpuinfo", &len);
	if (t)
		check_cpuinfo(how, t);
	check(t != NULL, "%s /proc/cpuinfo opens", how);
	free(t);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
#else
	(void)flock_too;
	(void)kill;
	printf("SKIP: no seccomp filter for this architecture in the test\n");
	return 77;
#endif
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--hold"))
		return hold(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--race"))
		return race(atoi(argv[2]));
	/* prog_affinity --filtered N LIST [flock] */
	if (argc >= 4 && !strcmp(argv[1], "--filtered")) {
		n = atoi(argv[2]);
		if (n < 1 || parse_list(argv[3]) != n)
			return 2;
		return views_filtered(argc == 5 && !strcmp(argv[4], "flock"),
				      argc == 5 && !strcmp(argv[4], "kill"));
	}
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "nowrap"))) {
		fprintf(stderr, "usage: prog_affinity N LIST [nowrap] | --hold FILE | --race N\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (n < 1 || parse_list(argv[2]) != n) {
		fprintf(stderr, "prog_affinity: LIST '%s' does not hold N=%d CPUs\n", argv[2], n);
		return 2;
	}
	wrap = argc == 3;

	test_counts();
	test_getaffinity();
	test_sizes();
	test_buffer_sizes();
	test_null();
	test_pin(A_PTHREAD);
	test_pin(A_SCHED);
	test_pin(A_SYSCALL);
	test_getcpu();
	test_files();
	test_views_outlive();
	test_attr();
	test_other_thread();
	check(open_errno_changed == 0,
	      "successful opens of /proc and /sys files left errno alone (%d did not)",
	      open_errno_changed);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
