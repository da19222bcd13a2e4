/* SPDX-License-Identifier: BSD-3-Clause */
/* A per-CPU program: arrays sized by each CPU count a program may take,
 * indexed by each CPU number it may read, and whether an index would run
 * past its array. Nothing is ever written out of bounds: each index is
 * compared with its array's size, and only an index below it is used.
 *
 * Sizes:   onln (sysconf _SC_NPROCESSORS_ONLN), conf (_SC_NPROCESSORS_CONF),
 *          nprocs (get_nprocs), nprocs_conf (get_nprocs_conf), possible
 *          (the highest CPU of /sys/devices/system/cpu/possible, plus one)
 * Indices: sched_getcpu (libc's function, through the PLT), rseq (the
 *          cpu_id of the area glibc registered, __rseq_offset), rdpid and
 *          rdtscp (TSC_AUX, which Linux sets to node << 12 | cpu; each if
 *          CPUID says the CPU has it), syscall (getcpu by the syscall
 *          instruction itself, as a static program or Go's runtime does)
 *
 * Prints "size NAME N", "index NAME CPU" or "index NAME none REASON",
 * then "past INDEX SIZE CPU N" for each index at or past an array's size,
 * and "pasts K". Exits 0, or 1 when a count cannot be read. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_GLIBC_RSEQ 1
#endif
#endif

struct src {
	const char *name;
	long v; /* -1: none */
	const char *why;
};

/* The highest CPU of a kernel CPU list ("0-3,8\n"), plus one; -1 if bad. */
static long list_width(const char *path)
{
	char b[4096];
	FILE *f = fopen(path, "r");
	long hi = -1;

	if (!f)
		return -1;
	if (!fgets(b, sizeof(b), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (char *p = b; *p && *p != '\n';) {
		char *e;
		long a = strtol(p, &e, 10);

		if (e == p || a < 0)
			return -1;
		if (*e == '-') {
			p = e + 1;
			a = strtol(p, &e, 10);
			if (e == p || a < 0)
				return -1;
		}
		if (a > hi)
			hi = a;
		p = *e == ',' ? e + 1 : e;
		if (*p && *p != '\n' && (*p < '0' || *p > '9'))
			return -1;
	}
	return hi < 0 ? -1 : hi + 1;
}

static void rseq_index(struct src *s)
{
	s->v = -1;
#if defined(HAVE_GLIBC_RSEQ)
	if (__rseq_size == 0) {
		s->why = "glibc-did-not-register";
		return;
	}
	{
		const volatile struct rseq *r =
			(const void *)((char *)__builtin_thread_pointer() + __rseq_offset);
		int32_t c = r->cpu_id;

		if (c < 0) {
			s->why = "uninitialised";
			return;
		}
		s->v = c;
	}
#else
	s->why = "no-sys/rseq.h";
#endif
}

#if defined(__x86_64__)
static void x86_indices(struct src *rdpid, struct src *rdtscp, struct src *sys)
{
	unsigned a, b, c, d;
	long r;
	unsigned cpu = 0, node = 0;

	rdpid->v = rdtscp->v = -1;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 22))) {
		unsigned long aux;

		__asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0xf8" /* rdpid %rax */
				 : "=a"(aux));
		rdpid->v = (long)(aux & 0xfff);
	} else {
		rdpid->why = "cpu-lacks-it";
	}
	if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27))) {
		unsigned aux;

		(void)__builtin_ia32_rdtscp(&aux);
		rdtscp->v = (long)(aux & 0xfff);
	} else {
		rdtscp->why = "cpu-lacks-it";
	}
	/* getcpu(2) by the instruction itself: no libc, no shim */
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(309L /* __NR_getcpu */), "D"(&cpu), "S"(&node), "d"(0L)
			 : "rcx", "r11", "memory");
	sys->v = r == 0 ? (long)cpu : -1;
	sys->why = "getcpu-failed";
}
#endif

int main(void)
{
	struct src size[] = {
		{ "onln", sysconf(_SC_NPROCESSORS_ONLN), NULL },
		{ "conf", sysconf(_SC_NPROCESSORS_CONF), NULL },
		{ "nprocs", get_nprocs(), NULL },
		{ "nprocs_conf", get_nprocs_conf(), NULL },
		{ "possible", list_width("/sys/devices/system/cpu/possible"), NULL },
	};
	struct src idx[] = {
		{ "sched_getcpu", sched_getcpu(), "failed" },
		{ "rseq", -1, NULL },
		{ "rdpid", -1, "not-x86-64" },
		{ "rdtscp", -1, "not-x86-64" },
		{ "syscall", -1, "not-x86-64" },
	};
	const size_t ns = sizeof(size) / sizeof(size[0]), ni = sizeof(idx) / sizeof(idx[0]);
	unsigned long pasts = 0;

	rseq_index(&idx[1]);
#if defined(__x86_64__)
	x86_indices(&idx[2], &idx[3], &idx[4]);
#endif
	for (size_t i = 0; i < ns; i++) {
		if (size[i].v <= 0) {
			fprintf(stderr, "prog_percpu: no count from %s\n", size[i].name);
			return 1;
		}
		printf("size %s %ld\n", size[i].name, size[i].v);
	}
	for (size_t j = 0; j < ni; j++) {
		if (idx[j].v < 0)
			printf("index %s none %s\n", idx[j].name, idx[j].why);
		else
			printf("index %s %ld\n", idx[j].name, idx[j].v);
	}
	/* the arrays, and a write at each index that fits */
	for (size_t i = 0; i < ns; i++) {
		unsigned long *a = calloc((size_t)size[i].v, sizeof(*a));

		if (!a) {
			fprintf(stderr, "prog_percpu: no memory for %ld slots\n", size[i].v);
			return 1;
		}
		for (size_t j = 0; j < ni; j++) {
			if (idx[j].v < 0)
				continue;
			if (idx[j].v >= size[i].v) {
				printf("past %s %s %ld %ld\n", idx[j].name, size[i].name, idx[j].v,
				       size[i].v);
				pasts++;
			} else {
				a[idx[j].v]++;
			}
		}
		free(a);
	}
	printf("pasts %lu\n", pasts);
	return 0;
}
