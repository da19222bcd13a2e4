/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_calls — the cost of one call, for the shim-against-native benchmark.
 *
 *   bench_calls CASE [MS [BATCHES]]   time CASE: calibrate a batch to about
 *                                     MS milliseconds (default 20), run
 *                                     BATCHES batches (default 7) and print
 *                                     "CASE NS_MEDIAN NS_MIN ITERS RESULT"
 *   bench_calls --count CASE N        run CASE exactly N times, untimed (for
 *                                     strace -c: system calls per call)
 *   bench_calls --ab CASE [MS [BATCHES]]
 *                                     for a pass-through, an affinity or a
 *                                     stat/status view case: alternate
 *                                     batches of the call as the program
 *                                     makes it (through the shim when it is
 *                                     preloaded) and of libc's own function
 *                                     (looked up in libc.so.6), BATCHES
 *                                     pairs, and print "CASE NS_CALL
 *                                     NS_LIBC DIFF_MEDIAN DIFF_MIN DIFF_MAX
 *                                     DIFF_P10" over the pairs (medians of
 *                                     each side, the pairs' differences;
 *                                     DIFF_P10: the difference of each
 *                                     side's 10th percentile)
 *   bench_calls --list                the case names
 *   bench_calls --file CASE           the file CASE reads, as virtual CPU 0's
 *                                     (nothing for a case that reads none)
 *
 * It is the same binary natively and under the shim: run.sh starts it both
 * ways, interleaved. RESULT is what the call answered the last time (a CPU
 * count, a mask's CPU count, bytes read), so the driver can check that the
 * shim was really in the way. Exit 1 when a case fails (a call returns an
 * error): a benchmark that cannot run its case must not print a figure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
/* Buffers are static, not on the stack: the environment differs between
 * the native and the shim runs, which moves the stack within its page and
 * with it the cache behaviour of stack buffers; static ones sit at the
 * same place in both. */
static cpu_set_t held;          /* the mask the thread holds, for setaffinity */
static cpu_set_t mask;          /* what the getaffinity cases read */
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
	if (sched_getaffinity(0, sizeof(mask), &mask) != 0)
		return -1;
	return CPU_COUNT(&mask);
}

static long c_pthread_getaffinity_np(void)
{
	if (pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask) != 0)
		return -1;
	return CPU_COUNT(&mask);
}

/* The affinity reads at the buffer sizes a program passes (8, 16, 128
 * and 1024 bytes), through one call site: a pointer that --ab points at
 * the function the program would call (the shim's, when it is preloaded)
 * or at libc's own, batch by batch. Both sides run the same machine code
 * up to the call, so the control (no shim: both pointers are libc's) has
 * nothing to tell apart but the noise. */
static unsigned char aff_buf[1024] __attribute__((aligned(64)));
static int (*getaff_ptr)(pid_t, size_t, cpu_set_t *);
static int (*pgetaff_ptr)(pthread_t, size_t, cpu_set_t *);
static int (*getaff_prog)(pid_t, size_t, cpu_set_t *);   /* as the program links it */
static int (*pgetaff_prog)(pthread_t, size_t, cpu_set_t *);

/* the mask's CPU count in its first word (all CPUs here are below 64):
 * the same either side, physical or virtual */
static long aff_first_count(void)
{
	uint64_t w;
	memcpy(&w, aff_buf, 8);
	return __builtin_popcountll(w);
}

#define AFF_SIZED(sz)                                                                 \
	static long c_sched_getaffinity_##sz(void)                                    \
	{                                                                             \
		if (getaff_ptr(0, sz, (cpu_set_t *)(void *)aff_buf) != 0)              \
			return -1;                                                    \
		return aff_first_count();                                             \
	}                                                                             \
	static long c_pthread_getaffinity_np_##sz(void)                               \
	{                                                                             \
		if (pgetaff_ptr(pthread_self(), sz, (cpu_set_t *)(void *)aff_buf) != 0) \
			return -1;                                                    \
		return aff_first_count();                                             \
	}
AFF_SIZED(8)
AFF_SIZED(16)
AFF_SIZED(128)
AFF_SIZED(1024)

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

/* lseek to 0 and pread at 0 are interposed (a view made at its open is
 * made again there); on other files they pass through. _after_view: the
 * process has opened such a view once before, so the shim checks the
 * descriptor against its list. */
static int devnull = -1;

static int devnull_fd(bool after_view)
{
	if (devnull < 0) {
		if (after_view) {
			int v = open("/proc/stat", O_RDONLY | O_CLOEXEC);
			if (v >= 0)
				close(v);
		}
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	return devnull;
}

static long c_lseek_devnull(void)
{
	return lseek(devnull_fd(false), 0, SEEK_SET) == 0 ? 1 : -1;
}

static long c_lseek_devnull_after_view(void)
{
	return lseek(devnull_fd(true), 0, SEEK_SET) == 0 ? 1 : -1;
}

static long c_pread_devnull(void)
{
	char c;
	return pread(devnull_fd(false), &c, 1, 0) == 0 ? 1 : -1;
}

/* Relative names that can be no view: "null" from the working directory
 * /dev (neither / nor in /proc or /sys, no ".."), and from a descriptor of
 * /dev (no name of a view) are passed on without a system call. */
static int dev_fd = -1;

static int dev_dirfd(void)
{
	if (dev_fd < 0) {
		dev_fd = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (chdir("/dev") != 0)
			return -1;
	}
	return dev_fd;
}

static long c_open_close_relative(void)
{
	int fd = dev_dirfd() < 0 ? -1 : open("null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long c_openat_close_dirfd(void)
{
	int d = dev_dirfd();
	int fd = d < 0 ? -1 : openat(d, "null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

/* stat and access of a path that can be no view (the shim's are in the
 * way of every one) */
static long c_stat_devnull(void)
{
	struct stat st;
	return stat("/dev/null", &st) == 0 ? 1 : -1;
}

static long c_access_devnull(void)
{
	return access("/dev/null", R_OK) == 0 ? 1 : -1;
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

/* open as the program links it (the shim's, when it is preloaded), or
 * libc's own for --ab: one call site either way (see aff_select) */
static int (*open_ptr)(const char *, int, ...);
static int (*open_prog)(const char *, int, ...);

/* The files the read_ and list_ cases read (--file names them: a machine
 * may lack some, which run.sh then leaves out, saying so). */
static const char f_cpuinfo[] = "/proc/cpuinfo";
static const char f_stat[] = "/proc/stat";
static const char f_online[] = "/sys/devices/system/cpu/online";
static const char f_self_status[] = "/proc/self/status";
static const char f_self_stat[] = "/proc/self/stat";
static const char f_core_cpus_list[] = "/sys/devices/system/cpu/cpu0/topology/core_cpus_list";
static const char f_shared_cpu_map[] = "/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_map";
static const char f_node_cpumap[] = "/sys/devices/system/node/node0/cpumap";
static const char f_cpu_dir[] = "/sys/devices/system/cpu";

static long read_file(const char *path)
{
	int fd = open_ptr(path, O_RDONLY | O_CLOEXEC);
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
	return read_file(f_cpuinfo);
}

static long c_read_stat(void)
{
	return read_file(f_stat);
}

static long c_read_online(void)
{
	return read_file(f_online);
}

static long c_read_self_status(void)
{
	return read_file(f_self_status);
}

/* The last CPU, field 39 (ps -o psr), is a view in a set that is not CPUs
 * 0..n-1 of an n-CPU machine: made at each open, as the status is. */
static long c_read_self_stat(void)
{
	return read_file(f_self_stat);
}

/* The topology views: a CPU list of a CPU (a view kept beside the table),
 * a cache's CPU mask, a node's CPU mask, and a file that names no CPU (the
 * physical CPU's own file, opened by its virtual name). */
static long c_read_core_cpus_list(void)
{
	return read_file(f_core_cpus_list);
}

static long c_read_shared_cpu_map(void)
{
	return read_file(f_shared_cpu_map);
}

static long c_read_node_cpumap(void)
{
	return read_file(f_node_cpumap);
}

/* The process's own cgroup CPU file (its path from run.sh, which found
 * one that is a view here: BENCH_CGROUP_FILE); cannot run without it. */
static long c_read_cgroup_cpus(void)
{
	const char *p = getenv("BENCH_CGROUP_FILE");
	return p && *p ? read_file(p) : -1;
}

/* CPU 0's core id; in one process (--ab, core_select) libc's side reads the
 * file the view serves: that of the first CPU held (physical) */
static const char core0[] = "/sys/devices/system/cpu/cpu0/topology/core_id";
static const char *core_path = core0;
static char core_phys[80];

static long c_read_core_id(void)
{
	return read_file(core_path);
}

/* A listing of the CPU directory: opendir, every readdir, closedir; the
 * number of cpuN entries. In one process (--ab, dir_select) through
 * pointers: the program's functions (the shim's) or libc's. */
static DIR *(*opendir_ptr)(const char *) = opendir;
static struct dirent *(*readdir_ptr)(DIR *) = readdir;
static int (*closedir_ptr)(DIR *) = closedir;

static long c_list_sys_cpu(void)
{
	DIR *d = opendir_ptr(f_cpu_dir);
	struct dirent *e;
	long cpus = 0;

	if (!d)
		return -1;
	while ((e = readdir_ptr(d)))
		cpus += e->d_name[0] == 'c' && e->d_name[1] == 'p' && e->d_name[2] == 'u' &&
			e->d_name[3] >= '0' && e->d_name[3] <= '9';
	closedir_ptr(d);
	return cpus;
}

/* References, run natively only: what a virtual file costs to deliver.
 * ref_memfd_view: the shim's way for a view made at each open (stat,
 * status; any view with CPUSETSHIM_KEEP_VIEWS=0): memfd_create, write,
 * seal, fchmod 0444, reopen read-only through /proc/self/fd, close; then
 * the reader's read and close, of a 2-byte file as for the online view.
 * ref_tmpfs_file: open, read and close of a 2-byte file in /dev/shm made
 * once: the way of a kept view (the CPU ranges, cpuinfo), at its floor. */
static char tmpfs_path[64];

static long reopen_read(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

static long c_ref_memfd_view(void)
{
	int m = memfd_create("bench-view", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m < 0 || write(m, "0\n", 2) != 2) {
		if (m >= 0)
			close(m);
		return -1;
	}
	fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	fchmod(m, 0444);
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", m);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	close(m);
	if (fd < 0)
		return -1;
	long total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

static void remove_tmpfs_file(void)
{
	unlink(tmpfs_path);
}

static long c_ref_tmpfs_file(void)
{
	if (!tmpfs_path[0]) {
		snprintf(tmpfs_path, sizeof(tmpfs_path), "/dev/shm/cpusetshim-bench-ref.%d",
			 (int)getpid());
		int fd = open(tmpfs_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
		if (fd < 0)
			return -1;
		atexit(remove_tmpfs_file);
		if (write(fd, "0\n", 2) != 2) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return reopen_read(tmpfs_path);
}

/* libc's own functions, for --ab: what the call costs without the shim,
 * in the same process. */
static long (*libc_sysconf)(int);
static long (*libc_syscall)(long, ...);
static int (*libc_open)(const char *, int, ...);
static int (*libc_openat)(int, const char *, int, ...);
static FILE *(*libc_fopen)(const char *, const char *);
static off_t (*libc_lseek)(int, off_t, int);
static ssize_t (*libc_pread)(int, void *, size_t, off_t);
static int (*libc_getaff)(pid_t, size_t, cpu_set_t *);
static int (*libc_pgetaff)(pthread_t, size_t, cpu_set_t *);
static int (*libc_setaff)(pid_t, size_t, const cpu_set_t *);
static int (*libc_getcpu)(void);
static int (*libc_stat)(const char *, struct stat *);
static int (*libc_access)(const char *, int);
static DIR *(*libc_opendir)(const char *);
static struct dirent *(*libc_readdir)(DIR *);
static int (*libc_closedir)(DIR *);
static cpu_set_t held_phys; /* the mask held, as libc (the kernel) sees it */

static void libc_resolve(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!h) {
		fprintf(stderr, "bench_calls: no libc.so.6 handle\n");
		exit(1);
	}
	*(void **)&libc_sysconf = dlsym(h, "sysconf");
	*(void **)&libc_syscall = dlsym(h, "syscall");
	*(void **)&libc_open = dlsym(h, "open");
	*(void **)&libc_openat = dlsym(h, "openat");
	*(void **)&libc_fopen = dlsym(h, "fopen");
	*(void **)&libc_lseek = dlsym(h, "lseek");
	*(void **)&libc_pread = dlsym(h, "pread");
	*(void **)&libc_getaff = dlsym(h, "sched_getaffinity");
	*(void **)&libc_pgetaff = dlsym(h, "pthread_getaffinity_np");
	*(void **)&libc_setaff = dlsym(h, "sched_setaffinity");
	*(void **)&libc_getcpu = dlsym(h, "sched_getcpu");
	*(void **)&libc_stat = dlsym(h, "stat");
	*(void **)&libc_access = dlsym(h, "access");
	*(void **)&libc_opendir = dlsym(h, "opendir");
	*(void **)&libc_readdir = dlsym(h, "readdir");
	*(void **)&libc_closedir = dlsym(h, "closedir");
	if (!libc_sysconf || !libc_syscall || !libc_open || !libc_openat || !libc_fopen ||
	    !libc_lseek || !libc_pread ||
	    !libc_getaff || !libc_pgetaff || !libc_setaff || !libc_getcpu || !libc_stat ||
	    !libc_access || !libc_opendir || !libc_readdir || !libc_closedir ||
	    libc_getaff(0, sizeof(held_phys), &held_phys) != 0) {
		fprintf(stderr, "bench_calls: libc's functions not found\n");
		exit(1);
	}
	int first = 0;
	while (first < CPU_SETSIZE - 1 && !CPU_ISSET(first, &held_phys))
		first++;
	snprintf(core_phys, sizeof(core_phys), "/sys/devices/system/cpu/cpu%d/topology/core_id", first);
}

static void open_select(bool libc)
{
	open_ptr = libc ? libc_open : open_prog;
}

static void core_select(bool libc)
{
	open_select(libc);
	core_path = libc ? core_phys : core0;
}

static void dir_select(bool libc)
{
	opendir_ptr = libc ? libc_opendir : opendir;
	readdir_ptr = libc ? libc_readdir : readdir;
	closedir_ptr = libc ? libc_closedir : closedir;
}

static void aff_select(bool libc)
{
	getaff_ptr = libc ? libc_getaff : getaff_prog;
	pgetaff_ptr = libc ? libc_pgetaff : pgetaff_prog;
}

/* Under the shim these answer in physical numbers: only their cost
 * compares (the setaffinity one holds the same physical CPUs as the
 * shim's, so that no batch moves the thread). */
static long d_sched_getaffinity(void)
{
	if (libc_getaff(0, sizeof(mask), &mask) != 0)
		return -1;
	return CPU_COUNT(&mask);
}

static long d_pthread_getaffinity_np(void)
{
	if (libc_pgetaff(pthread_self(), sizeof(mask), &mask) != 0)
		return -1;
	return CPU_COUNT(&mask);
}

static long d_sched_setaffinity_same(void)
{
	if (libc_setaff(0, sizeof(held_phys), &held_phys) != 0)
		return -1;
	return CPU_COUNT(&held_phys);
}

static long d_sched_getcpu(void)
{
	return libc_getcpu();
}

static long d_sysconf_pagesize(void)
{
	return libc_sysconf(_SC_PAGESIZE);
}

static long d_sysconf_clk_tck(void)
{
	return libc_sysconf(_SC_CLK_TCK);
}

static long d_syscall_getppid(void)
{
	return libc_syscall(SYS_getppid);
}

/* The memory-policy calls, as libnuma makes them (syscall(3)): the shim
 * translates their node masks. Modes by number (numaif.h's MPOL_DEFAULT,
 * MPOL_BIND), the mask as wide as the kernel's default MAX_NUMNODES.
 * syscall is the program's own (the shim's when preloaded); libc_syscall
 * libc's, through one call site. */
static unsigned long nodemask[1024 / (8 * sizeof(unsigned long))];
static long mp_get(long (*call)(long, ...))
{
	int mode = -1;
	if (call(SYS_get_mempolicy, &mode, nodemask, 1024 + 1, NULL, 0L) != 0)
		die("get_mempolicy");
	return mode;
}
static long mp_allowed(long (*call)(long, ...))
{
	/* MPOL_F_MEMS_ALLOWED (4): the nodes the caller may use */
	if (call(SYS_get_mempolicy, NULL, nodemask, 1024 + 1, NULL, 4L) != 0)
		die("get_mempolicy(MPOL_F_MEMS_ALLOWED)");
	return (long)__builtin_popcountl(nodemask[0]);
}
static long mp_bind0(long (*call)(long, ...))
{
	/* MPOL_BIND (2) to (virtual) node 0, the policy the thread has after
	 * the first call */
	unsigned long one[1] = { 1 };
	if (call(SYS_set_mempolicy, 2L, one, 64L + 1) != 0)
		die("set_mempolicy(MPOL_BIND, {0})");
	return 1;
}
static long c_get_mempolicy(void)
{
	return mp_get(syscall);
}
static long d_get_mempolicy(void)
{
	return mp_get(libc_syscall);
}
static long c_mems_allowed(void)
{
	return mp_allowed(syscall);
}
static long d_mems_allowed(void)
{
	return mp_allowed(libc_syscall);
}
static long c_set_mempolicy_bind(void)
{
	return mp_bind0(syscall);
}
static long d_set_mempolicy_bind(void)
{
	return mp_bind0(libc_syscall);
}

static long d_open_close_devnull(void)
{
	int fd = libc_open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long d_open_close_relative(void)
{
	int fd = dev_dirfd() < 0 ? -1 : libc_open("null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long d_openat_close_dirfd(void)
{
	int d = dev_dirfd();
	int fd = d < 0 ? -1 : libc_openat(d, "null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long d_stat_devnull(void)
{
	struct stat st;
	return libc_stat("/dev/null", &st) == 0 ? 1 : -1;
}

static long d_access_devnull(void)
{
	return libc_access("/dev/null", R_OK) == 0 ? 1 : -1;
}

static long d_openat_close_devnull(void)
{
	int fd = libc_openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

static long d_fopen_fclose_devnull(void)
{
	FILE *f = libc_fopen("/dev/null", "re");
	if (!f)
		return -1;
	fclose(f);
	return 1;
}

static long d_lseek_devnull(void)
{
	return libc_lseek(devnull_fd(false), 0, SEEK_SET) == 0 ? 1 : -1;
}

static long d_lseek_devnull_after_view(void)
{
	return libc_lseek(devnull_fd(true), 0, SEEK_SET) == 0 ? 1 : -1;
}

static long d_pread_devnull(void)
{
	char c;
	return libc_pread(devnull_fd(false), &c, 1, 0) == 0 ? 1 : -1;
}

static void aff_select(bool libc);
static void open_select(bool libc);

static const struct {
	const char *name;
	long (*fn)(void);
	long (*libc)(void); /* the same through libc's own function (--ab) */
	void (*select)(bool libc); /* --ab: one call site, this says where it goes */
	const char *file; /* the file it reads (virtual CPU 0's), or NULL */
} cases[] = {
	{ "sched_getaffinity", c_sched_getaffinity, d_sched_getaffinity, NULL, NULL },
	{ "pthread_getaffinity_np", c_pthread_getaffinity_np, d_pthread_getaffinity_np,
	  NULL, NULL },
	{ "sched_setaffinity_same", c_sched_setaffinity_same, d_sched_setaffinity_same,
	  NULL, NULL },
	{ "sysconf_nprocessors_onln", c_sysconf_onln, NULL, NULL, NULL },
	{ "sysconf_nprocessors_conf", c_sysconf_conf, NULL, NULL, NULL },
	{ "get_nprocs", c_get_nprocs, NULL, NULL, NULL },
	{ "get_nprocs_conf", c_get_nprocs_conf, NULL, NULL, NULL },
	{ "sysconf_pagesize", c_sysconf_pagesize, d_sysconf_pagesize, NULL, NULL },
	{ "sysconf_clk_tck", c_sysconf_clk_tck, d_sysconf_clk_tck, NULL, NULL },
	{ "syscall_getppid", c_syscall_getppid, d_syscall_getppid, NULL, NULL },
	{ "get_mempolicy", c_get_mempolicy, d_get_mempolicy, NULL, NULL },
	{ "get_mempolicy_mems_allowed", c_mems_allowed, d_mems_allowed, NULL, NULL },
	{ "set_mempolicy_bind", c_set_mempolicy_bind, d_set_mempolicy_bind, NULL, NULL },
	{ "open_close_devnull", c_open_close_devnull, d_open_close_devnull, NULL, NULL },
	{ "openat_close_devnull", c_openat_close_devnull, d_openat_close_devnull, NULL, NULL },
	{ "open_close_relative", c_open_close_relative, d_open_close_relative, NULL, NULL },
	{ "openat_close_dirfd", c_openat_close_dirfd, d_openat_close_dirfd, NULL, NULL },
	{ "stat_devnull", c_stat_devnull, d_stat_devnull, NULL, NULL },
	{ "access_devnull", c_access_devnull, d_access_devnull, NULL, NULL },
	{ "fopen_fclose_devnull", c_fopen_fclose_devnull, d_fopen_fclose_devnull, NULL, NULL },
	{ "lseek_devnull", c_lseek_devnull, d_lseek_devnull, NULL, NULL },
	{ "lseek_devnull_after_view", c_lseek_devnull_after_view, d_lseek_devnull_after_view,
	  NULL, NULL },
	{ "pread_devnull", c_pread_devnull, d_pread_devnull, NULL, NULL },
	{ "sched_getcpu", c_sched_getcpu, d_sched_getcpu, NULL, NULL },
	{ "sched_getaffinity_8", c_sched_getaffinity_8, c_sched_getaffinity_8, aff_select, NULL },
	{ "sched_getaffinity_16", c_sched_getaffinity_16, c_sched_getaffinity_16,
	  aff_select, NULL },
	{ "sched_getaffinity_128", c_sched_getaffinity_128, c_sched_getaffinity_128,
	  aff_select, NULL },
	{ "sched_getaffinity_1024", c_sched_getaffinity_1024, c_sched_getaffinity_1024,
	  aff_select, NULL },
	{ "pthread_getaffinity_np_8", c_pthread_getaffinity_np_8, c_pthread_getaffinity_np_8,
	  aff_select, NULL },
	{ "pthread_getaffinity_np_16", c_pthread_getaffinity_np_16, c_pthread_getaffinity_np_16,
	  aff_select, NULL },
	{ "pthread_getaffinity_np_128", c_pthread_getaffinity_np_128, c_pthread_getaffinity_np_128,
	  aff_select, NULL },
	{ "pthread_getaffinity_np_1024", c_pthread_getaffinity_np_1024,
	  c_pthread_getaffinity_np_1024, aff_select, NULL },
	{ "read_proc_cpuinfo", c_read_cpuinfo, NULL, NULL, f_cpuinfo },
	{ "read_proc_stat", c_read_stat, c_read_stat, open_select, f_stat },
	{ "read_sys_cpu_online", c_read_online, NULL, NULL, f_online },
	{ "read_proc_self_status", c_read_self_status, c_read_self_status,
	  open_select, f_self_status },
	{ "read_proc_self_stat", c_read_self_stat, c_read_self_stat, open_select, f_self_stat },
	{ "read_sys_cpu_core_cpus_list", c_read_core_cpus_list, NULL, NULL, f_core_cpus_list },
	{ "read_sys_cpu_shared_cpu_map", c_read_shared_cpu_map, NULL, NULL, f_shared_cpu_map },
	{ "read_sys_node_cpumap", c_read_node_cpumap, NULL, NULL, f_node_cpumap },
	{ "read_cgroup_cpus", c_read_cgroup_cpus, c_read_cgroup_cpus, open_select, NULL },
	{ "read_sys_cpu_core_id", c_read_core_id, c_read_core_id, core_select, core0 },
	{ "list_sys_cpu", c_list_sys_cpu, c_list_sys_cpu, dir_select, f_cpu_dir },
	{ "ref_memfd_view", c_ref_memfd_view, NULL, NULL, NULL },
	{ "ref_tmpfs_file", c_ref_tmpfs_file, NULL, NULL, NULL },
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
	if (argc == 3 && !strcmp(argv[1], "--file")) {
		for (size_t i = 0; i < NCASES; i++)
			if (!strcmp(cases[i].name, argv[2])) {
				if (cases[i].file)
					puts(cases[i].file);
				return 0;
			}
		fprintf(stderr, "bench_calls: no case %s\n", argv[2]);
		return 2;
	}
	open_ptr = open_prog = open;
	getaff_ptr = getaff_prog = sched_getaffinity;
	pgetaff_ptr = pgetaff_prog = pthread_getaffinity_np;
	int count = argc >= 2 && !strcmp(argv[1], "--count");
	int ab = argc >= 2 && !strcmp(argv[1], "--ab");
	const char *name = argc >= 2 + count + ab ? argv[1 + count + ab] : NULL;
	size_t k;
	for (k = 0; name && k < NCASES; k++)
		if (!strcmp(cases[k].name, name))
			break;
	if (!name || k == NCASES) {
		fprintf(stderr, "usage: bench_calls CASE [MS [BATCHES]] | --count CASE N | "
				"--ab CASE [MS [BATCHES]] | --list | --file CASE\n");
		return 2;
	}
	if (ab) {
		argv++;
		argc--;
		if (!cases[k].libc) {
			fprintf(stderr, "bench_calls: %s is not a pass-through case\n", name);
			return 2;
		}
		libc_resolve();
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
	if (ms <= 0 || batches < 1 || batches > 10000) {
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
	static double ns[10000];
	if (ab) {
		/* pairs of batches, the order flipping: call, libc, libc, call, ... */
		static double dn[10000], lib[10000];
		long lastd;
		void (*sel)(bool) = cases[k].select;
		if (sel)
			sel(true);
		run(cases[k].libc, iters, &lastd);
		for (int b = 0; b < batches; b++) {
			double x, y;
			if (b % 2 == 0) {
				if (sel)
					sel(false);
				x = run(cases[k].fn, iters, &last);
				if (sel)
					sel(true);
				y = run(cases[k].libc, iters, &lastd);
			} else {
				if (sel)
					sel(true);
				y = run(cases[k].libc, iters, &lastd);
				if (sel)
					sel(false);
				x = run(cases[k].fn, iters, &last);
			}
			/* the same answer, but where the shim translates */
			if (last < 0 || lastd < 0 ||
			    (last != lastd && strcmp(name, "sched_getcpu") != 0 &&
			     strncmp(name, "read_", 5) != 0 && strncmp(name, "list_", 5) != 0))
				die(name);
			ns[b] = x / (double)iters;
			lib[b] = y / (double)iters;
			dn[b] = ns[b] - lib[b];
		}
		qsort(ns, (size_t)batches, sizeof(double), cmp_d);
		qsort(lib, (size_t)batches, sizeof(double), cmp_d);
		qsort(dn, (size_t)batches, sizeof(double), cmp_d);
		printf("%s %.3f %.3f %.3f %.3f %.3f %.3f\n", name, ns[batches / 2], lib[batches / 2],
		       dn[batches / 2], dn[0], dn[batches - 1], ns[batches / 10] - lib[batches / 10]);
		return 0;
	}
	for (int b = 0; b < batches; b++) {
		ns[b] = run(cases[k].fn, iters, &last) / (double)iters;
		if (last < 0)
			die(name);
	}
	qsort(ns, (size_t)batches, sizeof(double), cmp_d);
	printf("%s %.3f %.3f %ld %ld\n", name, ns[batches / 2], ns[0], iters, last);
	return 0;
}
