/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: what the shim makes of text it reads inside its host
 * program, where a crash would be the program's: the views' transforms
 * (src/views.c, src/vcpuinfo.c, src/vproc_pidstat.c, src/vcgroup.c), the
 * cgroup directories found in /proc/self/cgroup and mountinfo, and the
 * canonical form of a path (src/path.c).
 *
 * Input: byte 0 picks the transform, byte 1 the set (and whether the
 * output buffer starts on the stack, and the pid and tid a path expands
 * with), the rest is the text. Checked beyond ASan and UBSan: a
 * transform answers 0 or a negative errno, and on 0 its output is
 * NUL-terminated at its length; a stat line keeps everything up to its
 * name's closing parenthesis; the one-pass canonical form equals the
 * component walk's. Run by tests/fuzz.sh. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/mask.h"
#include "src/path.h"
#include "src/vcgroup.h"
#include "src/vcpuinfo.h"
#include "src/views.h"
#include "src/vproc_pidstat.h"

#define NW 4 /* sets of up to 256 CPUs */

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_views: %s\n", what);
		abort();
	}
}

/* A few shapes of set: one CPU, the first two, sparse, high, wide. */
static unsigned make_set(unsigned sel, uint64_t *set)
{
	static const unsigned one[] = { 1 }, two[] = { 0, 1 }, sparse[] = { 4, 6, 8, 63, 64 },
			      high[] = { 70, 100, 255 };
	const unsigned *c = one;
	unsigned n = 1;
	memset(set, 0, NW * sizeof(uint64_t));
	switch (sel % 5) {
	case 1: c = two, n = 2; break;
	case 2: c = sparse, n = 5; break;
	case 3: c = high, n = 3; break;
	case 4:
		for (unsigned i = 0; i < 200; i += 3)
			set[i / 64] |= 1ull << (i % 64);
		return cps_mask_count(set, NW);
	}
	for (unsigned i = 0; i < n; i++)
		set[c[i] / 64] |= 1ull << (c[i] % 64);
	return n;
}

static void done(int r, struct cps_buf *out, const char *what)
{
	check(r <= 0, what);
	if (r == 0)
		check(out->p && out->p[out->len] == '\0', what);
	cps_buf_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint64_t set[NW], vallowed[NW];
	char stack[64];

	if (n < 2)
		return 0;
	unsigned pick = d[0] % 8, sel = d[1];
	const char *txt = (const char *)d + 2;
	size_t len = n - 2;
	unsigned cpus = make_set(sel, set);
	/* the thread's own mask: the set's first CPUs, or none given */
	memset(vallowed, 0, sizeof(vallowed));
	cps_mask_fill(vallowed, NW, cpus > 1 ? cpus - 1 : 1);
	struct cps_view_input in = { set, NW, cpus, (sel & 8) ? vallowed : NULL,
				     (sel & 8) ? NW : 0 };
	struct cps_buf out = (sel & 16) ? cps_buf_on(stack, sizeof(stack)) : (struct cps_buf){ 0 };
	int r;

	switch (pick) {
	case 0:
		done(cps_view_status(&out, txt, len, &in), &out, "status");
		break;
	case 1:
		done(cps_view_stat(&out, txt, len, &in), &out, "stat");
		break;
	case 2: {
		r = cps_view_pidstat(&out, txt, len, &in);
		if (r == 0) {
			/* everything up to the name's end stays */
			const char *rp = memrchr(txt, ')', len);
			check(rp != NULL, "pidstat accepted a line without ')'");
			size_t k = (size_t)(rp - txt) + 1;
			check(out.len >= k && memcmp(out.p, txt, k) == 0, "pidstat changed the name");
		}
		done(r, &out, "pidstat");
		break;
	}
	case 3:
		done(cps_view_cgroup_cpus(&out, txt, len, &in), &out, "cgroup");
		break;
	case 4:
		done(cps_view_cpuinfo(&out, txt, len, &in), &out, "cpuinfo");
		break;
	case 5:
		done(cps_view_cpuinfo_set(&out, txt, len, &in), &out, "cpuinfo_set");
		break;
	case 6: {
		/* /proc/self/cgroup, a NUL, then mountinfo */
		const char *z = memchr(txt, '\0', len);
		size_t cl = z ? (size_t)(z - txt) : len;
		char v1[256], v2[256];
		r = cps_cgroup_cpuset_dirs(txt, cl, z ? z + 1 : "", z ? len - cl - 1 : 0, v1,
					   sizeof(v1), v2, sizeof(v2));
		check(r >= 0 && r <= 3, "cgroup dirs: an answer out of range");
		if (r & 1)
			check(memchr(v1, '\0', sizeof(v1)) != NULL, "cgroup v1 dir not terminated");
		if (r & 2)
			check(memchr(v2, '\0', sizeof(v2)) != NULL, "cgroup v2 dir not terminated");
		cps_buf_free(&out);
		break;
	}
	default: {
		/* a path: the one-pass form against the walk */
		char *p = malloc(len + 1), a[512], b[512];
		size_t ca = 0, cb = 0, outlen = 2 + sel % 250;
		if (!p)
			break;
		memcpy(p, txt, len);
		p[len] = '\0';
		pid_t pid = (sel & 32) ? 4242 : 0, tid = (sel & 64) ? 4250 : 0;
		int fl = (sel & 128) ? CPS_CANON_NOFOLLOW : 0;
		enum cps_canon ra = cps_path_canon(a, outlen, "/proc/4242", p, pid, tid, fl, &ca);
		enum cps_canon rb = cps_path_canon_walk(b, outlen, "/proc/4242", p, pid, tid, fl, &cb);
		check(ra == rb, "canonical form: the one pass and the walk disagree");
		if (ra == CPS_CANON_OK || ra == CPS_CANON_DIR)
			check(strcmp(a, b) == 0, "canonical form: the one pass and the walk differ");
		if (ra == CPS_CANON_KERNEL)
			check(ca == cb && ca <= len, "canonical form: consumed differs");
		free(p);
		cps_buf_free(&out);
		break;
	}
	}
	return 0;
}
