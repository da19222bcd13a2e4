/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual views of /proc and /sys files: pure text transforms.
 *
 * Each takes the real file's contents and one copy of the caller's set
 * and produces what a program inside the set must see. They never read
 * files themselves (the shim and the tests do), so they can be tested
 * against captures of bigger machines.
 *
 * Output is appended to a growable buffer (malloc'd); on failure the
 * buffer is cut back to its length before the call. Functions return 0, or
 * -ENOMEM / -EINVAL (unparseable input: the caller then passes the real
 * file through untouched). The set mask is authoritative; n must equal its
 * count (the shim takes both from one set copy).
 */
#ifndef CPS_VIEWS_H
#define CPS_VIEWS_H

#include <stddef.h>
#include <stdint.h>

/* A growable buffer, NUL-terminated. { 0 }: empty, on the heap when
 * written. cps_buf_on(a, n): starts in the caller's n bytes at a (no malloc
 * while it fits; moved to the heap when it does not); either way
 * cps_buf_free, and p is the caller's to free only when !borrowed. */
struct cps_buf {
	char *p;
	size_t len, cap;
	int borrowed; /* p is the caller's storage */
};
static inline struct cps_buf cps_buf_on(char *a, size_t n)
{
	a[0] = '\0';
	return (struct cps_buf){ a, 0, n, 1 };
}
void cps_buf_free(struct cps_buf *b);
int cps_buf_append(struct cps_buf *b, const char *s, size_t n);
/* n in decimal after what b holds (no stdio) */
int cps_buf_append_dec(struct cps_buf *b, unsigned long long n);
/* Room for extra more bytes and a NUL, at once. */
int cps_buf_reserve(struct cps_buf *b, size_t extra);
int cps_buf_printf(struct cps_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What one view is made from. set is the set's physical CPUs (nw
 * words); vallowed is the virtual image of the calling thread's kernel
 * mask (vnw words, bits 0..n-1): the thread-group leader's for
 * /proc/PID/status, the calling thread's for /proc/thread-self/status. */
struct cps_view_input {
	const uint64_t *set;
	size_t nw;
	unsigned n; /* CPUs in set */
	const uint64_t *vallowed;
	size_t vnw;
	/* The set's memory nodes (physical, mnw words, k of them; virtual
	 * node v the v-th): k 0 keeps the nodes' own numbers. */
	const uint64_t *mems;
	size_t mnw;
	unsigned k;
};

/* The input of a transform over a set of n CPUs in nw words: no allowed
 * mask, no nodes of its own (k 0) until the caller adds them. The one
 * way a set becomes a transform's input. */
static inline struct cps_view_input cps_view_input_of(const uint64_t *set, size_t nw, unsigned n)
{
	return (struct cps_view_input){ set, nw, n, NULL, 0, NULL, 0, 0 };
}

/* /proc/cpuinfo: keep only the blocks of "processor : P" with P in set,
 * in order, renumbering processor to 0..n-1; everything else in a block is
 * kept. On x86 blocks are separated by blank lines; architectures whose
 * file has a global header (lines before the first processor) keep it. */
int cps_view_cpuinfo(struct cps_buf *out, const char *real, size_t len,
		     const struct cps_view_input *s);

/* /proc/stat: the "cpu  " total line is replaced by the sum, field by field,
 * of the cpuP lines of CPUs in set; cpuP lines of CPUs in set are kept,
 * renumbered cpu0..cpu(n-1); other cpuP lines dropped; every other line is
 * untouched. */
int cps_view_stat(struct cps_buf *out, const char *real, size_t len,
		  const struct cps_view_input *s);

/* /proc/<pid>/status: Cpus_allowed and Cpus_allowed_list from vallowed
 * (NULL: from the file's own Cpus_allowed_list, the task's kernel mask,
 * translated through the set; a mask sharing no CPU with it reads as all
 * of them),
 * Cpus_allowed as the kernel prints it on a machine of w possible CPUs
 * (cps_view_width; w bits: 32-bit groups, the first only as wide as its
 * bits: "3" for two CPUs, "ff,ffffffff" for forty); other lines
 * untouched. */
int cps_view_status(struct cps_buf *out, const char *real, size_t len,
		    const struct cps_view_input *s);
/* The same file's Mems_allowed and Mems_allowed_list as a machine of the
 * set's memory nodes (mems, nw words, k of them, virtual node v the v-th)
 * prints them: the task's allowed nodes of the set by their ranks, the
 * hex mask as wide as the real one (the kernel prints MAX_NUMNODES bits). A file without them goes out as it is. */
int cps_view_status_mems(struct cps_buf *out, const char *real, size_t len, const uint64_t *mems,
			 size_t nw, unsigned k);

/* /proc/PID/numa_maps: each N<node>= field and the policy's node list
 * (the kernel prints the physical nodes, whatever the flags) by virtual node,
 * virtual node v the v-th of the set's memory nodes (mems, mnw, k); a
 * node outside them reads as k + its number, as MPOL_F_NODE answers do.
 * A line's N fields go out in the order of their new numbers. k 0: the
 * file as it is. */
int cps_view_numa_maps(struct cps_buf *out, const char *real, size_t len,
		       const struct cps_view_input *s);

/* /sys/devices/system/cpu/{online,present}: "0-(n-1)\n" ("0\n" for one
 * CPU). */
int cps_view_cpurange(struct cps_buf *out, const struct cps_view_input *s);

/* The set's possible CPUs, w: n; with cps_view_wide_possible (the shim's
 * CPUSETSHIM_WIDE_POSSIBLE=1) the highest physical CPU of the set plus
 * one if that is more, so that an array sized by the possible CPUs
 * (sysconf(_SC_NPROCESSORS_CONF), get_nprocs_conf) holds every CPU
 * number a program reads without the shim (rseq, RDPID, RDTSCP). Virtual
 * CPUs n..w-1 are then possible and offline; masks are printed w bits
 * wide, as the kernel prints them nr_cpu_ids wide. */
extern bool cps_view_wide_possible;
unsigned cps_view_width(const struct cps_view_input *s);

/* /sys/devices/system/cpu/possible: "0-(w-1)\n". */
int cps_view_possible(struct cps_buf *out, const struct cps_view_input *s);

#endif
