/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "raw.h"

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
