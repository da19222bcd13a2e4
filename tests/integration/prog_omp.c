/* An unmodified-style OpenMP program: what the runtime believes about the
 * machine, and where each thread really runs.
 *
 *   procs N                      omp_get_num_procs()
 *   max_threads N                omp_get_max_threads()
 *   thread T vcpu V pcpu P       V: sched_getcpu(), what the program sees;
 *                                P: the physical CPU, asked of the kernel
 *                                without any libc function the shim could
 *                                interpose (it wraps syscall() too)
 *   nthreads N                   omp_get_num_threads() in the region
 *
 * Built with gcc (libgomp) by the Makefile and with clang (LLVM libomp,
 * which asks the kernel through syscall(SYS_sched_getaffinity)) by the
 * integration test.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
static long raw_syscall3(long nr, long a, long b, long c)
{
	long r;
	__asm__ __volatile__("syscall"
			     : "=a"(r)
			     : "0"(nr), "D"(a), "S"(b), "d"(c)
			     : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
static long raw_syscall3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ __volatile__("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}
#else
/* No inline system call for this architecture: syscall() forwards every
 * number but the affinity and getcpu ones untouched, which is enough for
 * the open/read/close used below. */
static long raw_syscall3(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}
#endif

/* The physical CPU this thread runs on, or -1. */
static int real_cpu(void)
{
#if defined(__x86_64__)
	unsigned cpu = 0;
	if (raw_syscall3(309 /* __NR_getcpu */, (long)&cpu, 0, 0) != 0)
		return -1;
	return (int)cpu;
#else
	/* Field 39 of /proc/thread-self/stat; the shim may one day virtualise
	 * that file, so it is opened with the system call, not open(). */
	char buf[1024];
	long fd = raw_syscall3(SYS_openat, AT_FDCWD, (long)"/proc/thread-self/stat", O_RDONLY);
	if (fd < 0)
		return -1;
	long n = raw_syscall3(SYS_read, fd, (long)buf, sizeof(buf) - 1);
	raw_syscall3(SYS_close, fd, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* comm (field 2) may hold blanks: count from its closing paren */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	int field = 2;
	for (p++; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	return field == 39 ? atoi(p) : -1;
#endif
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	int nthreads = 0;

	printf("procs %d\n", omp_get_num_procs());
	printf("max_threads %d\n", omp_get_max_threads());
	fflush(stdout);

#pragma omp parallel
	{
		/* Stay busy ~20 ms so the scheduler has a reason to spread the
		 * threads over the CPUs the runtime may use. */
		double end = now() + 0.020;
		volatile unsigned long spin = 0;
		while (now() < end)
			spin++;
		int v = sched_getcpu();
		int p = real_cpu();
#pragma omp critical
		{
			printf("thread %d vcpu %d pcpu %d\n", omp_get_thread_num(), v, p);
			fflush(stdout);
		}
#pragma omp single
		nthreads = omp_get_num_threads();
		/* With PROG_OMP_HOLD=FILE each thread writes "THREAD TID" to
		 * FILE.tids and stays until FILE exists (the resize test). */
		const char *hold = getenv("PROG_OMP_HOLD");
		if (hold) {
			char tids[512];
			snprintf(tids, sizeof(tids), "%s.tids", hold);
#pragma omp critical
			{
				FILE *f = fopen(tids, "a");
				if (f) {
					fprintf(f, "%d %ld\n", omp_get_thread_num(), (long)syscall(SYS_gettid));
					fclose(f);
				}
			}
			while (access(hold, F_OK) != 0)
				usleep(5000);
		}
	}
	printf("nthreads %d\n", nthreads);
	return 0;
}
