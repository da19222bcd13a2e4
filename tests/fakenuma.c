/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake kernel of several NUMA nodes for the memory-policy system calls,
 * preloaded after the shim (whose syscall(3) then reaches this one as
 * libc's): FAKENUMA_NODES (a node list, default 0-3) are the machine's
 * nodes. It keeps the process's policy, answers as the kernel would for
 * those nodes (EINVAL for a mask with a node it lacks, ENODEV for
 * move_pages to one), and writes each call's physical arguments to
 * FAKENUMA_LOG, so the test sees what the shim handed the kernel.
 * MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES is EINVAL, as the
 * kernel checks it before the mask.
 * FAKENUMA_PAGES (a list of ints) are the nodes (or negative errors) of
 * the pages move_pages is asked about. Every other number goes to libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif
#define LB (8 * sizeof(unsigned long))
#define MAXN 1024
#define STATIC_RELATIVE (3 << 14) /* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES */

static unsigned long machine[MAXN / LB], policy[MAXN / LB];
static int policy_mode, ready;

static void parse(const char *s, unsigned long *m)
{
	memset(m, 0, MAXN / 8);
	while (s && *s) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long i = a; i <= b && i < MAXN; i++)
			m[i / LB] |= 1ul << (i % LB);
		s = *e ? e + 1 : e;
	}
}

static void setup(void)
{
	if (ready)
		return;
	const char *n = getenv("FAKENUMA_NODES");
	parse(n ? n : "0-3", machine);
	ready = 1;
}

static void logf_(const char *fmt, ...)
{
	const char *p = getenv("FAKENUMA_LOG");
	FILE *f = p ? fopen(p, "a") : NULL;
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* maxnode - 1 bits of m as a list, in buf */
static const char *list(const unsigned long *m, unsigned long maxnode, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned long i = 0; m && maxnode && i < maxnode - 1 && i < MAXN; i++)
		if (m[i / LB] >> (i % LB) & 1)
			n += (size_t)snprintf(buf + n, len - n, "%s%lu", n ? "," : "", i);
	return n ? buf : "-";
}

/* the mask's nodes must all be the machine's */
static int known(const unsigned long *m, unsigned long maxnode)
{
	for (unsigned long i = 0; m && maxnode && i < maxnode - 1 && i < MAXN; i++)
		if ((m[i / LB] >> (i % LB) & 1) && !(machine[i / LB] >> (i % LB) & 1))
			return 0;
	return 1;
}

static long err(int e)
{
	errno = e;
	return -1;
}

/* The kernel reads the caller's mask or says EFAULT. */
static int readable(const unsigned long *m, unsigned long maxnode)
{
	unsigned long buf[MAXN / LB];
	size_t len = maxnode > 1 ? ((maxnode - 1 + LB - 1) / LB) * sizeof(long) : 0;
	if (!m || !len)
		return 1;
	if (len > sizeof(buf))
		len = sizeof(buf);
	struct iovec l = { buf, len }, r = { (void *)m, len };
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len;
}

__attribute__((visibility("default"))) long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	char b1[512], b2[512];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	setup();
	switch (nr) {
	case SYS_set_mempolicy:
		if ((a[0] & STATIC_RELATIVE) == STATIC_RELATIVE)
			return err(EINVAL);
		if (!readable((unsigned long *)a[1], (unsigned long)a[2]))
			return err(EFAULT);
		logf_("set_mempolicy %ld %s\n", a[0], list((unsigned long *)a[1], (unsigned long)a[2], b1, sizeof(b1)));
		if (!known((unsigned long *)a[1], (unsigned long)a[2]))
			return err(EINVAL);
		policy_mode = (int)a[0];
		memset(policy, 0, sizeof(policy));
		for (unsigned long i = 0; a[1] && i + 1 < (unsigned long)a[2] && i < MAXN; i++)
			if (((unsigned long *)a[1])[i / LB] >> (i % LB) & 1)
				policy[i / LB] |= 1ul << (i % LB);
		return 0;
	case SYS_mbind:
		if ((a[2] & STATIC_RELATIVE) == STATIC_RELATIVE)
			return err(EINVAL);
		if (!readable((unsigned long *)a[3], (unsigned long)a[4]))
			return err(EFAULT);
		logf_("mbind %ld %s %ld\n", a[2], list((unsigned long *)a[3], (unsigned long)a[4], b1, sizeof(b1)), a[5]);
		return known((unsigned long *)a[3], (unsigned long)a[4]) ? 0 : err(EINVAL);
	case SYS_get_mempolicy: {
		int *mode = (int *)a[0];
		unsigned long *m = (unsigned long *)a[1], maxnode = (unsigned long)a[2];
		long flags = a[4];
		logf_("get_mempolicy %lu %ld\n", maxnode, flags);
		if (m && maxnode < MAXN + 1)
			return err(EINVAL); /* as a kernel of MAXN nodes */
		if (m)
			memcpy(m, flags & 4 ? machine : policy, sizeof(machine));
		if (mode && !(flags & 4))
			*mode = flags & 1 ? (int)strtol(getenv("FAKENUMA_NODE") ? getenv("FAKENUMA_NODE") : "0", NULL, 10)
					  : policy_mode;
		return 0;
	}
	case SYS_migrate_pages:
		logf_("migrate_pages %ld %s %s\n", a[0], list((unsigned long *)a[2], (unsigned long)a[1], b1, sizeof(b1)),
		      list((unsigned long *)a[3], (unsigned long)a[1], b2, sizeof(b2)));
		return 0;
	case SYS_move_pages: {
		unsigned long count = (unsigned long)a[1];
		const int *nodes = (const int *)a[3];
		int *status = (int *)a[4];
		const char *pg = getenv("FAKENUMA_PAGES");
		logf_("move_pages %lu", count);
		for (unsigned long i = 0; i < count; i++) {
			if (nodes) {
				logf_(" %d", nodes[i]);
				if (nodes[i] < 0 || nodes[i] >= MAXN || !(machine[nodes[i] / LB] >> (nodes[i] % LB) & 1))
					return err(ENODEV);
				status[i] = nodes[i];
			} else {
				status[i] = pg ? (int)strtol(pg, (char **)&pg, 10) : 0;
				if (pg && *pg == ',')
					pg++;
			}
		}
		logf_("\n");
		return 0;
	}
	case SYS_set_mempolicy_home_node:
		logf_("home_node %ld\n", a[2]);
		return 0;
	default: {
		long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
		return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	}
}
