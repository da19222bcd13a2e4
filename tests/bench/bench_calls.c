/* bench_calls — the cost of one call, for the shim-against-native benchmark.
 *
 *   bench_calls CASE [MS [BATCHES]]   time CASE: calibrate a batch to about
 *                                     MS milliseconds (default 20), run
 *                                     BATCHES batches (default 7) and print
 *                                     "CASE NS_MEDIAN NS_MIN ITERS RESULT"
 *   bench_calls --count CASE N        run CASE exactly N times, untimed (for
 *                                     strace -c: system calls per call)
 *   bench_calls --list                the case names
 *
 * It is the same binary natively and under the shim: run.sh starts it both
 * ways, interleaved. RESULT is what the call answered the last time (a CPU
 * count, a mask's CPU count, bytes read), so the driver can check that the
 * shim was really in the way. Exit 1 when a case fails (a call returns an
 * error): a benchmark that cannot run its case must not print a figure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static cpu_set_t held;          /* the mask the thread holds, for setaffinity */
static char buf[1 << 16];       /* read buffer of the file cases */

static void die(const char *what)
{
	fprintf(stderr, "bench_calls: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Each case does one call (or one open+read+close) and returns a value
 * that depends on its result; < 0 is a failure. */
static long c_sched_getaffinity(void)
{
	cpu_set_t m;
	if (sched_getaffinity(0, sizeof(m), &m) != 0)
		return -1;
	return CPU_COUNT(&m);
}

static long c_pthread_getaffinity_np(void)
{
	cpu_set_t m;
	if (pthread_getaffinity_np(pthread_self(), sizeof(m), &m) != 0)
		return -1;
	return CPU_COUNT(&m);
}

static long c_sched_setaffinity_same(void)
{
	if (sched_setaffinity(0, sizeof(held), &held) != 0)
		return -1;
	return CPU_COUNT(&held);
}

static long c_sysconf_onln(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

static long c_sysconf_conf(void)
{
	return sysconf(_SC_NPROCESSORS_CONF);
}

static long c_get_nprocs(void)
{
	return get_nprocs();
}

static long c_get_nprocs_conf(void)
{
	return get_nprocs_conf();
}

static long c_sysconf_pagesize(void)
{
	return sysconf(_SC_PAGESIZE);
}

static long c_sysconf_clk_tck(void)
{
	return sysconf(_SC_CLK_TCK);
}

static long c_syscall_getppid(void)
{
	return syscall(SYS_getppid);
}

static long c_open_close_devnull(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long c_openat_close_devnull(void)
{
	int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long c_fopen_fclose_devnull(void)
{
	FILE *f = fopen("/dev/null", "re");
	if (!f)
		return -1;
	fclose(f);
	return 1;
}

static long c_sched_getcpu(void)
{
	return sched_getcpu();
}

static long read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long total = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	return total;
}

static long c_read_cpuinfo(void)
{
	return read_file("/proc/cpuinfo");
}

static long c_read_stat(void)
{
	return read_file("/proc/stat");
}

static long c_read_online(void)
{
	return read_file("/sys/devices/system/cpu/online");
}

static long c_read_self_status(void)
{
	return read_file("/proc/self/status");
}

static const struct {
	const char *name;
	long (*fn)(void);
} cases[] = {
	{ "sched_getaffinity", c_sched_getaffinity },
	{ "pthread_getaffinity_np", c_pthread_getaffinity_np },
	{ "sched_setaffinity_same", c_sched_setaffinity_same },
	{ "sysconf_nprocessors_onln", c_sysconf_onln },
	{ "sysconf_nprocessors_conf", c_sysconf_conf },
	{ "get_nprocs", c_get_nprocs },
	{ "get_nprocs_conf", c_get_nprocs_conf },
	{ "sysconf_pagesize", c_sysconf_pagesize },
	{ "sysconf_clk_tck", c_sysconf_clk_tck },
	{ "syscall_getppid", c_syscall_getppid },
	{ "open_close_devnull", c_open_close_devnull },
	{ "openat_close_devnull", c_openat_close_devnull },
	{ "fopen_fclose_devnull", c_fopen_fclose_devnull },
	{ "sched_getcpu", c_sched_getcpu },
	{ "read_proc_cpuinfo", c_read_cpuinfo },
	{ "read_proc_stat", c_read_stat },
	{ "read_sys_cpu_online", c_read_online },
	{ "read_proc_self_status", c_read_self_status },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* iters calls; the last result in *last, -1 on the first failure. */
static double run(long (*fn)(void), long iters, long *last)
{
	long v = 0;
	double t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		v = fn();
		if (v < 0) {
			*last = -1;
			return 0;
		}
	}
	double t1 = now_ns();
	sink = v;
	*last = v;
	return t1 - t0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NCASES; i++)
			puts(cases[i].name);
		return 0;
	}
	int count = argc >= 2 && !strcmp(argv[1], "--count");
	const char *name = argc >= 2 + count ? argv[1 + count] : NULL;
	size_t k;
	for (k = 0; name && k < NCASES; k++)
		if (!strcmp(cases[k].name, name))
			break;
	if (!name || k == NCASES) {
		fprintf(stderr, "usage: bench_calls CASE [MS [BATCHES]] | --count CASE N | --list\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(held), &held) != 0)
		die("sched_getaffinity");
	long last;
	if (count) {
		long n = argc >= 4 ? atol(argv[3]) : 1;
		run(cases[k].fn, n, &last);
		if (n > 0 && last < 0)
			die(name);
		printf("%s %ld\n", name, last);
		return 0;
	}
	double ms = argc >= 3 ? atof(argv[2]) : 20;
	int batches = argc >= 4 ? atoi(argv[3]) : 7;
	if (ms <= 0 || batches < 1 || batches > 1000) {
		fprintf(stderr, "bench_calls: bad MS or BATCHES\n");
		return 2;
	}
	/* warm up (the shim's set-up, first-call records, caches), then
	 * calibrate the batch length */
	long iters = 1;
	for (;;) {
		double t = run(cases[k].fn, iters, &last);
		if (last < 0)
			die(name);
		if (t >= ms * 1e6 / 4 || iters >= (1L << 40))
			break;
		iters *= t > 0 && t < ms * 1e6 / 64 ? 8 : 2;
	}
	iters = iters * 4 > 0 ? iters * 4 : iters;
	double ns[1000];
	for (int b = 0; b < batches; b++) {
		ns[b] = run(cases[k].fn, iters, &last) / (double)iters;
		if (last < 0)
			die(name);
	}
	qsort(ns, (size_t)batches, sizeof(double), cmp_d);
	printf("%s %.3f %.3f %ld %ld\n", name, ns[batches / 2], ns[0], iters, last);
	return 0;
}
