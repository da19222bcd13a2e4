/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory-policy system calls through syscall(3): set_mempolicy,
 * get_mempolicy, mbind, migrate_pages, move_pages and
 * set_mempolicy_home_node with their node numbers translated between the
 * set's virtual nodes (virtual node v is the v-th node of its nodes) and
 * the machine's (src/vnodes.h). glibc has no wrappers of its own for
 * them; libnuma's, which numactl and every libnuma program use, call
 * syscall(3), so all of them come here.
 *
 * The caller's buffers are read and written through process_vm_readv and
 * process_vm_writev on itself: an unreadable or unwritable mask is the
 * kernel's EFAULT, never a fault in the shim. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/shim.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/rawsys.h"
#include "src/vnodes.h"

#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_STATIC_NODES (1 << 15)

/* The largest virtual mask read or written at once (bits). */
#define VN_BITS (CPS_MAX_WORDS * 64)
#define VN_WORDS (VN_BITS / CPS_ULONG_BITS)
/* move_pages' nodes translated this many at a time. */
#define MP_CHUNK 256

static bool mpol_own; /* below */

bool shim_is_mempolicy(long nr)
{
	return nr == SYS_set_mempolicy || nr == SYS_get_mempolicy || nr == SYS_mbind ||
	       nr == SYS_migrate_pages || nr == SYS_move_pages ||
	       nr == SYS_set_mempolicy_home_node;
}

static long fail(int e)
{
	errno = e;
	return -1;
}

int shim_user_read(void *dst, const void *src, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)src, len };
	long n = cps_sys6(SYS_process_vm_readv, shim_self_pid, (long)&l, 1, (long)&r, 1, 0);
	if (n == (long)len)
		return 0;
	if (n == -ENOSYS || n == -EPERM) { /* no such call here: read it as the kernel would */
		memcpy(dst, src, len);
		return 0;
	}
	return -EFAULT;
}

int shim_user_write(void *dst, const void *src, size_t len)
{
	struct iovec l = { (void *)src, len }, r = { dst, len };
	long n = cps_sys6(SYS_process_vm_writev, shim_self_pid, (long)&l, 1, (long)&r, 1, 0);
	if (n == (long)len)
		return 0;
	if (n == -ENOSYS || n == -EPERM) {
		memcpy(dst, src, len);
		return 0;
	}
	return -EFAULT;
}

/* The kernel's MAX_NUMNODES (a power of two): the first one whose bit
 * its get_nodes() refuses, asked once of mbind over no range (which reads
 * the mask and then does nothing: no policy changes). None refused up to
 * KN_PROBE_BITS: every bit of a page's mask is below it. When it cannot
 * be asked (no such call) the shim's width stands in. */
#define KN_PROBE_BITS 16384u
static unsigned long kernel_numnodes(void)
{
	static unsigned long kn; /* 0: not asked yet */
	unsigned long k = __atomic_load_n(&kn, __ATOMIC_RELAXED);
	if (k)
		return k;
	unsigned long m[KN_PROBE_BITS / CPS_ULONG_BITS + 1];
	k = 2 * KN_PROBE_BITS;
	for (unsigned long b = 1; b <= KN_PROBE_BITS; b <<= 1) {
		memset(m, 0, sizeof(m));
		m[b / CPS_ULONG_BITS] = 1ul << (b % CPS_ULONG_BITS);
		long r = cps_sys6(SYS_mbind, 0, 0, 0 /* MPOL_DEFAULT */, (long)m, (long)(b + 2), 0);
		if (r == -EINVAL) {
			k = b;
			break;
		}
		if (r != 0) {
			k = VN_BITS; /* not asked */
			break;
		}
	}
	__atomic_store_n(&kn, k, __ATOMIC_RELAXED);
	return k;
}

/* The highest bit set of the caller's mask of maxnode - 1 bits (as the
 * kernel reads it: the last word cut at the mask's end), read from the
 * end a chunk at a time; -1 none, -2 unreadable. */
static long high_bit(const unsigned long *um, unsigned long maxnode)
{
	unsigned long buf[VN_WORDS];
	size_t words = cps_vnodes_words(maxnode);
	while (words) {
		size_t k = words < VN_WORDS ? words : VN_WORDS, from = words - k;
		if (shim_user_read(buf, um + from, k * sizeof(unsigned long)) < 0)
			return -2;
		for (size_t w = k; w-- > 0;) {
			unsigned long bits = buf[w], b0 = (from + w) * CPS_ULONG_BITS;
			if (b0 + CPS_ULONG_BITS > maxnode - 1)
				bits &= (1ul << ((maxnode - 1) % CPS_ULONG_BITS)) - 1;
			if (bits)
				return (long)(b0 + CPS_ULONG_BITS - 1 - (unsigned long)__builtin_clzl(bits));
		}
		words = from;
	}
	return -1;
}

/* How mask_in answers a mask whose nodes are none of the set's. */
enum { MI_EMPTY_EINVAL, MI_EMPTY_OK };

/* The caller's virtual mask as physical nodes in phys: 0, or -errno
 * (EFAULT unreadable, EINVAL a mask the kernel refuses, or with
 * MI_EMPTY_EINVAL nodes given but none of the set's). The kernel's rules
 * (get_nodes() in mm/mempolicy.c): a mask and maxnode 0 or more than a
 * page of bits is EINVAL, a bit at or beyond MAX_NUMNODES too; bits
 * below it that name no node the caller may use are left out, as the
 * kernel leaves out nodes outside the cpuset (*dropped). With *mode's
 * MPOL_F_RELATIVE_NODES the nodes fold onto the set and the flag becomes
 * MPOL_F_STATIC_NODES: the set's nodes are the frame. */
static int mask_in(uint64_t *phys, const struct shim_cpus *v, const void *um, unsigned long maxnode,
		   long *mode, int empty, bool *dropped)
{
	unsigned long vm[VN_WORDS];
	*dropped = false;
	cps_mask_zero(phys, v->nw);
	if (!um || maxnode == 1)
		return 0;
	if (maxnode - 1 > (unsigned long)getpagesize() * 8) /* maxnode 0 too */
		return -EINVAL;
	long h = high_bit(um, maxnode);
	if (h == -2)
		return -EFAULT;
	if (h >= (long)v->n && (unsigned long)h >= kernel_numnodes())
		return -EINVAL;
	if (maxnode > VN_BITS + 1)
		maxnode = VN_BITS + 1; /* bits beyond: no node of the set, none set */
	if (shim_user_read(vm, um, cps_vnodes_words(maxnode) * sizeof(unsigned long)) < 0)
		return -EFAULT;
	bool rel = mode && (*mode & MPOL_F_RELATIVE_NODES);
	unsigned k = cps_vnodes_in(phys, v->cpus, v->nw, v->n, vm, maxnode, rel, dropped);
	if (rel)
		*mode = (*mode & ~MPOL_F_RELATIVE_NODES) | MPOL_F_STATIC_NODES;
	return k == 0 && *dropped && empty == MI_EMPTY_EINVAL ? -EINVAL : 0;
}

/* Physical nodes as the caller's virtual mask of maxnode - 1 bits. */
static int mask_out(void *um, unsigned long maxnode, const struct shim_cpus *v, const uint64_t *phys)
{
	unsigned long vm[VN_WORDS];
	size_t words = cps_vnodes_words(maxnode), done = 0;
	cps_vnodes_out(vm, maxnode < VN_BITS + 1 ? maxnode : VN_BITS + 1, v->cpus, v->nw, phys);
	while (done < words) {
		size_t k = words - done < VN_WORDS ? words - done : VN_WORDS;
		if (shim_user_write((unsigned long *)um + done, vm, k * sizeof(unsigned long)) < 0)
			return -EFAULT;
		memset(vm, 0, sizeof(vm)); /* beyond the first chunk: no node */
		done += k;
	}
	return 0;
}

/* A mask the shim cannot read: the call as it was, so that the kernel
 * answers as it would have, in its own order of checks (a bad mode before
 * the unreadable mask, EFAULT after). */
#define RAW(nr, a) shim_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5])

static long get_mempolicy_v(const long *a, const struct shim_cpus *v)
{
	int *mode = (int *)a[0];
	void *um = (void *)a[1];
	unsigned long maxnode = (unsigned long)a[2];
	long flags = a[4];
	uint64_t phys[CPS_MAX_WORDS];
	/* the kernel wants room for every node: here, the set's */
	if (um && maxnode < v->n)
		return fail(EINVAL);
	cps_mask_zero(phys, v->nw);
	long r = shim_real.syscall(SYS_get_mempolicy, (long)mode, um ? (long)phys : 0L,
				   um ? (long)(v->nw * 64 + 1) : 0L, a[3], flags);
	if (r < 0)
		return r;
	int e = 0;
	{
		SHIM_KEEP_ERRNO;
		if (mode && (flags & MPOL_F_NODE) && !(flags & MPOL_F_MEMS_ALLOWED))
			*mode = (int)cps_pnode_virt(v->cpus, v->nw, v->n, *mode);
		/* the mode is out; the mask is a page at most (the kernel's order) */
		if (um && cps_vnodes_words(maxnode) * sizeof(unsigned long) > (size_t)getpagesize())
			e = EINVAL;
		else if (um && mask_out(um, maxnode, v, phys) < 0)
			e = EFAULT;
	}
	return e ? fail(e) : r;
}

/* The first k of the caller's virtual nodes (from nodes) as physical
 * ones in pn: how many were, up to the first the set lacks (k: all). */
static unsigned long nodes_phys(int *pn, unsigned long k, const struct shim_cpus *v)
{
	for (unsigned long j = 0; j < k; j++) {
		long p = cps_vnode_phys(v->cpus, v->nw, v->n, pn[j]);
		if (p < 0)
			return j;
		pn[j] = (int)p;
	}
	return k;
}

/* move_pages as the kernel's do_pages_move: the entries in order, each
 * page's status written; at a node the set lacks (the kernel's ENODEV
 * for no such node) the entries before it are moved, their statuses
 * written, and the call ends with ENODEV. */
static long move_pages_v(const long *a, const struct shim_cpus *v)
{
	unsigned long count = (unsigned long)a[1];
	void **pages = (void **)a[2];
	const int *nodes = (const int *)a[3];
	int *status = (int *)a[4];
	long total = 0;
	if (!count || !status)
		return shim_real.syscall(SYS_move_pages, a[0], a[1], a[2], a[3], a[4], a[5]);
	for (unsigned long i = 0; i < count; i += MP_CHUNK) {
		unsigned long k = count - i < MP_CHUNK ? count - i : MP_CHUNK, good = k;
		int pn[MP_CHUNK], st[MP_CHUNK];
		if (nodes) {
			if (shim_user_read(pn, nodes + i, k * sizeof(int)) < 0)
				return i ? fail(EFAULT) : RAW(SYS_move_pages, a);
			good = nodes_phys(pn, k, v);
		}
		long r = good ? shim_real.syscall(SYS_move_pages, a[0], (long)good, (long)(pages + i),
						  nodes ? (long)pn : 0L, (long)(status + i), a[5])
			      : 0;
		if (r < 0)
			return r;
		total += r;
		{
			SHIM_KEEP_ERRNO;
			if (good && shim_user_read(st, status + i, good * sizeof(int)) == 0) {
				for (unsigned long j = 0; j < good; j++)
					st[j] = (int)cps_pnode_virt(v->cpus, v->nw, v->n, st[j]);
				shim_user_write(status + i, st, good * sizeof(int));
			}
		}
		if (good < k)
			return fail(ENODEV);
	}
	return total;
}

/* migrate_pages: old nodes the set lacks are nodes no page of the set is
 * on, left out (none left: nothing to move, 0, as the kernel answers for
 * old nodes outside the caller's cpuset); new ones too (none left: the
 * kernel's EINVAL for no node to move to). */
static long migrate_pages_v(const long *a, const struct shim_cpus *v)
{
	uint64_t p1[CPS_MAX_WORDS], p2[CPS_MAX_WORDS];
	bool dropped;
	int e;
	if ((e = mask_in(p1, v, (const void *)a[2], (unsigned long)a[1], NULL, MI_EMPTY_OK, &dropped)) < 0 ||
	    (e = mask_in(p2, v, (const void *)a[3], (unsigned long)a[1], NULL, MI_EMPTY_OK, &dropped)) < 0)
		return e == -EFAULT ? RAW(SYS_migrate_pages, a) : fail(-e);
	return shim_real.syscall(SYS_migrate_pages, a[0], (long)(v->nw * 64 + 1), (long)p1, (long)p2);
}

/* MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES: the kernel refuses the
 * pair before it reads the mask; the call goes to it as it is. */
static bool both_node_flags(long mode)
{
	return (mode & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) ==
	       (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
}

long shim_mempolicy(long nr, const long *a)
{
	struct shim_cpus v;
	uint64_t p1[CPS_MAX_WORDS];
	bool dropped;
	pid_t who = nr == SYS_migrate_pages || nr == SYS_move_pages ? (pid_t)a[0] : 0;
	bool self = who == 0 || who == shim_self_pid;
	if (!shim_ready() || !(self ? shim_sys_mems(&v) : shim_nodes_of(who, &v)) || v.n == 0)
		return shim_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	long mode;
	int e;
	switch (nr) {
	case SYS_set_mempolicy:
		__atomic_store_n(&mpol_own, true, __ATOMIC_RELEASE); /* kept from now on */
		mode = a[0];
		if (both_node_flags(mode))
			return RAW(nr, a);
		if ((e = mask_in(p1, &v, (const void *)a[1], (unsigned long)a[2], &mode, MI_EMPTY_EINVAL,
				 &dropped)) < 0)
			return e == -EFAULT ? RAW(nr, a) : fail(-e);
		return shim_real.syscall(nr, mode, (long)p1, (long)(v.nw * 64 + 1));
	case SYS_mbind:
		mode = a[2];
		if (both_node_flags(mode))
			return RAW(nr, a);
		if ((e = mask_in(p1, &v, (const void *)a[3], (unsigned long)a[4], &mode, MI_EMPTY_EINVAL,
				 &dropped)) < 0)
			return e == -EFAULT ? RAW(nr, a) : fail(-e);
		return shim_real.syscall(nr, a[0], a[1], mode, (long)p1, (long)(v.nw * 64 + 1), a[5]);
	case SYS_get_mempolicy:
		return get_mempolicy_v(a, &v);
	case SYS_migrate_pages:
		return migrate_pages_v(a, &v);
	case SYS_move_pages:
		return move_pages_v(a, &v);
	default: { /* SYS_set_mempolicy_home_node */
		long p = cps_vnode_phys(v.cpus, v.nw, v.n, a[2]);
		if (p < 0)
			return fail(EINVAL);
		return shim_real.syscall(nr, a[0], a[1], p, a[3]);
	}
	}
}

/* ---- the set's nodes as the default policy ----
 *
 * A member that sets no policy of its own is bound (MPOL_BIND) to its
 * set's nodes when they are not all the table's (the root set's), at
 * set-up and at the first refresh that sees them change; only the
 * calling thread's policy can be set (doc/memory-nodes.md, "Memory
 * nodes in the shim"). A policy the program set (through
 * shim_mempolicy) or inherited (numactl --membind, say: not the set's
 * nodes bound) is kept. The
 * common case, a set of all the nodes, costs no system call. Called with
 * the refresh lock held. */
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
/* mpol_own: the program's own task policy, never touched (above) */
static bool mpol_bound; /* the shim bound the process to mpol_last */
static bool mpol_seen;
static uint64_t mpol_last[CPS_MAX_WORDS];

/* The root set's nodes equal mems (nw words)? Lock-free: fixed with the table. */
static bool mems_all(const uint64_t *mems, uint32_t nw)
{
	struct shm_set *root = shm_set_by_id(&shim_ctx.t, shim_ctx.t.root_id);
	return !root || cps_mask_equal(shm_set_mask(&shim_ctx.t, root, SHM_MASK_MEMS), mems, nw);
}

/* At set-up: a policy inherited through exec. The set's nodes bound (by
 * the parent's shim), or the nodes cpuset-run bound and named in
 * CPUSETSHIM_MEMS_BOUND, are the shim's; any other policy is the
 * program's. True if the set's nodes are bound already. */
static bool mpol_inherited(const uint64_t *mems, uint32_t nw)
{
	uint64_t m[CPS_MAX_WORDS] = { 0 }, tool[CPS_MAX_WORDS];
	int mode = MPOL_DEFAULT;
	struct cps_parse_error err;
	if (shim_real.syscall(SYS_get_mempolicy, (long)&mode, (long)m, (long)(CPS_MAX_WORDS * 64),
			      0L, 0L) < 0)
		return false;
	const char *b = shim_getenv("CPUSETSHIM_MEMS_BOUND");
	bool same = cps_mask_equal(m, mems, nw);
	if (mode == MPOL_BIND && (same || (b && cps_cpulist_parse(b, tool, CPS_MAX_WORDS, &err) == 0 &&
					   cps_mask_equal(m, tool, nw))))
		mpol_bound = true;
	else if (mode != MPOL_DEFAULT)
		mpol_own = true;
	return mode == MPOL_BIND && same;
}

void shim_mempolicy_follow(const uint64_t *mems, uint32_t nw)
{
	if (__atomic_load_n(&mpol_own, __ATOMIC_ACQUIRE) || nw > CPS_MAX_WORDS)
		return;
	if (mpol_seen && cps_mask_equal(mpol_last, mems, nw))
		return;
	bool first = !mpol_seen, all = mems_all(mems, nw);
	cps_mask_copy(mpol_last, mems, nw);
	mpol_seen = true;
	/* all the nodes and nothing bound: nothing to do, no system call
	 * (unless cpuset-run bound nodes the set no longer has all of) */
	if (all && !mpol_bound && !(first && shim_getenv("CPUSETSHIM_MEMS_BOUND")))
		return;
	int e = errno;
	if (first && (mpol_inherited(mems, nw) || mpol_own || (all && !mpol_bound)))
		goto out;
	long r = all ? shim_real.syscall(SYS_set_mempolicy, (long)MPOL_DEFAULT, 0L, 0L)
		     : shim_real.syscall(SYS_set_mempolicy, (long)MPOL_BIND, (long)mems,
					 (long)(nw * 64 + 1));
	mpol_bound = !all && r == 0;
	if (r < 0)
		shim_debug("cannot bind to the set's nodes: %s", strerror(errno));
out:
	errno = e;
}
