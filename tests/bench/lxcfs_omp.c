/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenMP program's threads and the CPU each runs on (tests/bench/lxcfs.sh). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
int main(void)
{
	int n = omp_get_max_threads(), cpu[256] = { 0 };
#pragma omp parallel
	cpu[omp_get_thread_num()] = sched_getcpu();
	printf("%d threads on", n);
	for (int i = 0; i < n && i < 256; i++)
		printf(" %d", cpu[i]);
	printf("\n");
	return 0;
}
