/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_omp — an OpenMP compute kernel, natively and through the shim.
 *
 *   bench_omp REPS          run the kernel REPS times; print
 *                           "seconds=S procs=P threads=T checksum=C"
 *   bench_omp --calibrate S print the REPS that take about S seconds here
 *
 * Each rep is one parallel region over a 64 Ki-element array (in cache),
 * a static schedule, and a reduction: the team's creation at the first
 * region and every barrier are part of the time (the runtime asks the shim
 * about CPUs when it starts, before main); the shim has nothing to do
 * inside the loop. procs and threads are what the OpenMP runtime found
 * (omp_get_num_procs, the team size).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (64 * 1024)
static double a[N];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double kernel(long reps, int *team)
{
	double sum = 0;
	for (long r = 0; r < reps; r++) {
#pragma omp parallel reduction(+ : sum)
		{
#pragma omp single nowait
			*team = omp_get_num_threads();
#pragma omp for schedule(static)
			for (int i = 0; i < N; i++) {
				double x = a[i] + (double)r;
				for (int k = 0; k < 16; k++)
					x = sqrt(x * x + 1.0);
				sum += x;
			}
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++)
		a[i] = (double)(i % 1000) / 1000.0;
	int team = 0;
	if (argc == 3 && !strcmp(argv[1], "--calibrate")) {
		double want = atof(argv[2]);
		long reps = 1;
		for (;;) {
			double t0 = now();
			kernel(reps, &team);
			double t = now() - t0;
			if (t >= want / 8 || reps > (1L << 30)) {
				long r = (long)((double)reps * want / (t > 0 ? t : 1e-9));
				printf("%ld\n", r > 0 ? r : 1);
				return 0;
			}
			reps *= 2;
		}
	}
	if (argc != 2 || atol(argv[1]) < 1) {
		fprintf(stderr, "usage: bench_omp REPS | --calibrate SECONDS\n");
		return 2;
	}
	long reps = atol(argv[1]);
	double t0 = now();
	double sum = kernel(reps, &team);
	double t = now() - t0;
	printf("seconds=%.6f procs=%d threads=%d checksum=%.6e\n", t, omp_get_num_procs(), team, sum);
	return 0;
}
