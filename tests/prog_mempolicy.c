/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory-policy system calls through syscall(3), as libnuma makes
 * them, one line of output per command (tests/mempolicy.sh):
 *   allowed MAXNODE        get_mempolicy(MPOL_F_MEMS_ALLOWED): rc errno nodes
 *   bind LIST MAXNODE      set_mempolicy(MPOL_BIND): rc errno
 *   relbind LIST MAXNODE   the same with MPOL_F_RELATIVE_NODES
 *   staticrel LIST MAXNODE the same with MPOL_F_RELATIVE_NODES and
 *                          MPOL_F_STATIC_NODES
 *   policy MAXNODE         get_mempolicy(0): rc errno mode nodes
 *   next                   get_mempolicy(MPOL_F_NODE): rc errno node
 *   pagenode               get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR): rc errno node
 *   mbind LIST MAXNODE     mbind of a page: rc errno
 *   move LIST              move_pages of one page per node: rc errno statuses
 *   query N                move_pages without nodes: rc errno statuses
 *   movemany N BAD NODE    move_pages of N entries (N <= 512) to node 0 but
 *                          entry BAD to NODE: rc errno, how many statuses
 *                          were written, how many read 0
 *   migrate OLD NEW        migrate_pages(0): rc errno
 *   home NODE              set_mempolicy_home_node: rc errno
 *   fault                  set_mempolicy with an unreadable mask: rc errno
 *   badmode                the same with an unknown mode: rc errno
 *   highbit                bind to node 0 and node 4000 (beyond MAX_NUMNODES): rc errno */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif
#define LB (8 * sizeof(unsigned long))
#define W 520 /* 33,280 bits: beyond a page of bits */

static void parse(const char *s, unsigned long *m)
{
	memset(m, 0, W * sizeof(unsigned long));
	while (s && *s && strcmp(s, "-")) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long i = a; i <= b; i++)
			m[i / LB] |= 1ul << (i % LB);
		s = *e ? e + 1 : e;
	}
}

static void show(const unsigned long *m, unsigned long maxnode)
{
	int any = 0;
	for (unsigned long i = 0; maxnode && i < maxnode - 1 && i < W * LB; i++)
		if (m[i / LB] >> (i % LB) & 1)
			printf("%s%lu", any++ ? "," : " ", i);
	if (!any)
		printf(" -");
}

int main(int argc, char **argv)
{
	unsigned long m[W], m2[W];
	long ps = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, (size_t)ps * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 1; i < argc; i++) {
		const char *c = argv[i];
		long r;
		int mode = -1;
		errno = 0;
		if (!strcmp(c, "allowed")) {
			unsigned long mx = strtoul(argv[++i], NULL, 10);
			memset(m, 0xff, sizeof(m));
			r = syscall(SYS_get_mempolicy, NULL, m, mx, NULL, 4);
			printf("%ld %d", r, r < 0 ? errno : 0);
			if (r == 0)
				show(m, mx);
		} else if (!strcmp(c, "bind") || !strcmp(c, "relbind") || !strcmp(c, "staticrel")) {
			parse(argv[++i], m);
			unsigned long mx = strtoul(argv[++i], NULL, 10);
			r = syscall(SYS_set_mempolicy, 2 | (c[0] == 'r' ? 1 << 14 : c[0] == 's' ? 3 << 14 : 0), m, mx);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else if (!strcmp(c, "policy")) {
			unsigned long mx = strtoul(argv[++i], NULL, 10);
			memset(m, 0, sizeof(m));
			r = syscall(SYS_get_mempolicy, &mode, m, mx, NULL, 0);
			printf("%ld %d %d", r, r < 0 ? errno : 0, mode);
			if (r == 0)
				show(m, mx);
		} else if (!strcmp(c, "next") || !strcmp(c, "pagenode")) {
			int addr = c[0] == 'p';
			r = syscall(SYS_get_mempolicy, &mode, NULL, 0, addr ? page : NULL, addr ? 3 : 1);
			printf("%ld %d %d", r, r < 0 ? errno : 0, mode);
		} else if (!strcmp(c, "mbind")) {
			parse(argv[++i], m);
			unsigned long mx = strtoul(argv[++i], NULL, 10);
			r = syscall(SYS_mbind, page, ps, 2, m, mx, 0);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else if (!strcmp(c, "move") || !strcmp(c, "query")) {
			int nodes[64], status[64], n = 0;
			void *pages[64];
			if (c[0] == 'm') {
				for (char *s = argv[++i], *e; *s && n < 64; s = *e ? e + 1 : e)
					nodes[n++] = (int)strtol(s, &e, 10);
			} else {
				n = atoi(argv[++i]);
			}
			for (int k = 0; k < n; k++) {
				pages[k] = page + k * ps;
				status[k] = 12345;
			}
			r = syscall(SYS_move_pages, 0, n, pages, c[0] == 'm' ? nodes : NULL, status, 0);
			printf("%ld %d", r, r < 0 ? errno : 0);
			for (int k = 0; k < n; k++)
				printf(" %d", status[k]);
		} else if (!strcmp(c, "movemany")) {
			static int nodes[512], status[512];
			static void *pages[512];
			int n = atoi(argv[++i]), bad = atoi(argv[++i]), written = 0, zero = 0;
			long node = atol(argv[++i]);
			for (int k = 0; k < n && k < 512; k++) {
				pages[k] = page + (k % 64) * ps;
				nodes[k] = k == bad ? (int)node : 0;
				status[k] = 12345;
			}
			r = syscall(SYS_move_pages, 0, n, pages, nodes, status, 0);
			for (int k = 0; k < n && k < 512; k++) {
				written += status[k] != 12345;
				zero += status[k] == 0;
			}
			printf("%ld %d %d %d", r, r < 0 ? errno : 0, written, zero);
		} else if (!strcmp(c, "migrate")) {
			parse(argv[++i], m);
			parse(argv[++i], m2);
			r = syscall(SYS_migrate_pages, 0, 65, m, m2);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else if (!strcmp(c, "home")) {
			r = syscall(SYS_set_mempolicy_home_node, page, ps, atol(argv[++i]), 0);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else if (!strcmp(c, "highbit")) {
			parse("0,4000", m);
			r = syscall(SYS_set_mempolicy, 2, m, 4002);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else if (!strcmp(c, "fault") || !strcmp(c, "badmode")) {
			void *none = mmap(NULL, (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			r = syscall(SYS_set_mempolicy, c[0] == 'f' ? 2 : 99, none, 64);
			printf("%ld %d", r, r < 0 ? errno : 0);
		} else {
			fprintf(stderr, "unknown command %s\n", c);
			return 2;
		}
		printf("\n");
	}
	return 0;
}
