/* SPDX-License-Identifier: BSD-3-Clause */
/* preinit [--clearenv]: asks for the CPUs in a preinit function, before
 * libc has set itself up (as a sanitizer runtime does), then again in
 * main, and lists /sys/devices/system/cpu's CPU directories there.
 * Prints "pre ONLN AFF", then "main ONLN AFF DIRS". With --clearenv, main
 * empties the environment (environ becomes NULL) before it asks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long pre_onln = -2;
static int pre_aff = -2;

static int affinity_count(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	return sched_getaffinity(0, sizeof(s), &s) == 0 ? CPU_COUNT(&s) : -1;
}

static void early(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	pre_onln = sysconf(_SC_NPROCESSORS_ONLN);
	pre_aff = affinity_count();
}
__attribute__((section(".preinit_array"), used)) static void (*early_p)(int, char **, char **) = early;

static int cpu_dirs(void)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "cpu", 3) && e->d_name[3] >= '0' && e->d_name[3] <= '9')
			n++;
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--clearenv"))
		clearenv();
	printf("pre %ld %d\n", pre_onln, pre_aff);
	printf("main %ld %d %d\n", sysconf(_SC_NPROCESSORS_ONLN), affinity_count(), cpu_dirs());
	return 0;
}
