/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_exec — the floor of a launcher: linked as cpuset-run is
 * (statically when the build can), it does nothing but exec its
 * arguments, so its start-up beside cpuset-run's says what cpuset-run's
 * own work costs.
 *
 *   bench_exec PROGRAM [ARGS...]
 *
 * Exits 127 when PROGRAM cannot be run. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: bench_exec PROGRAM [ARGS...]\n", stderr);
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
