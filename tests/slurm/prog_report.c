/* SPDX-License-Identifier: BSD-3-Clause */
/* What a task sees and what the kernel really does, on one line:
 *
 *   task T job J step S pid P ncpus N seen LIST real LIST node H table NAME
 *
 * T is $SLURM_PROCID, J $SLURM_JOB_ID, S $SLURM_STEP_ID, H the node's
 * name $SLURMD_NODENAME (each - when not set), N sysconf(_SC_NPROCESSORS_ONLN), "seen" the
 * affinity the program is told (sched_getaffinity through libc: the shim's
 * virtual CPUs when it is loaded), "real" the kernel's mask asked with the
 * system call instruction (the shim interposes syscall() too), and NAME
 * what the shim's environment names (CPUSETSHIM_TABLE), or -.
 * With "--hold FILE" it then waits (60 s at most) until FILE exists.
 * Built -DWITH_MPI it is an MPI program: the rank replaces T, and a line
 *
 *   allreduce size Z sum S max M
 *
 * follows from rank 0: over the ranks, the sum of their seen CPU numbers
 * and the largest one (MPI_Allreduce). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/raw.h"

#ifdef WITH_MPI
#include <mpi.h>
#endif

static void list(char *out, size_t len, const cpu_set_t *s)
{
	size_t n = 0;
	out[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && n + 12 < len; c++)
		if (CPU_ISSET(c, s))
			n += (size_t)snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
	if (!n)
		snprintf(out, len, "none");
}

int main(int argc, char **argv)
{
	cpu_set_t seen, real;
	char ls[4096], lr[4096];
	const char *task = getenv("SLURM_PROCID");
	char rank[16];
#ifdef WITH_MPI
	int r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	snprintf(rank, sizeof(rank), "%d", r);
	task = rank;
#else
	(void)rank;
#endif
	CPU_ZERO(&seen);
	CPU_ZERO(&real);
	if (sched_getaffinity(0, sizeof(seen), &seen) < 0)
		perror("sched_getaffinity");
	long k = raw_syscall3(NR_SCHED_GETAFFINITY, 0, sizeof(real), (long)&real);
	if (k < 0)
		CPU_ZERO(&real);
	list(ls, sizeof(ls), &seen);
	list(lr, sizeof(lr), &real);
	const char *t = getenv("CPUSETSHIM_TABLE"), *j = getenv("SLURM_JOB_ID"),
		   *st = getenv("SLURM_STEP_ID"), *h = getenv("SLURMD_NODENAME");
	printf("task %s job %s step %s pid %d ncpus %ld seen %s real %s node %s table %s\n",
	       task ? task : "-", j ? j : "-", st ? st : "-", (int)getpid(),
	       sysconf(_SC_NPROCESSORS_ONLN), ls, lr, h && *h ? h : "-", t && *t ? t : "-");
	fflush(stdout);
#ifdef WITH_MPI
	{
		long mine[2] = { 0, -1 }, all[2] = { 0, 0 };
		int size = 0;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &seen)) {
				mine[0] += c;
				mine[1] = c;
			}
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		MPI_Allreduce(&mine[0], &all[0], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(&mine[1], &all[1], 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
		if (r == 0) {
			printf("allreduce size %d sum %ld max %ld\n", size, all[0], all[1]);
			fflush(stdout);
		}
	}
#endif
	if (argc > 2 && !strcmp(argv[1], "--hold")) {
		struct timespec ts = { 0, 20000000 };
		for (int i = 0; i < 3000 && access(argv[2], F_OK) != 0; i++)
			nanosleep(&ts, NULL);
	}
#ifdef WITH_MPI
	MPI_Finalize();
#endif
	return 0;
}
