/* SPDX-License-Identifier: BSD-3-Clause */
/* The test-only root override, and the set the /sys views show.
 *
 * CPUSETSHIM_TEST_ROOT=R (for the tests only; never in a set-user-id
 * program: shim_secure_getenv): the shim takes a captured machine under
 * R for the real /sys and /proc of the /sys families (preload/view_sys.c).
 * A path below R is taken as the same path below /, and the real files of
 * the views are read below R; with CPUSETSHIM_TEST_CPUS (a CPU list of
 * the captured machine) as the set of these views instead of the
 * process's own, and CPUSETSHIM_TEST_MEMS (a node list of it) as its
 * nodes, for these views and for the memory-policy calls
 * (preload/mempolicy.c). It changes nothing but what this process reads
 * of these files, all of them files the user can read anyway. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/rawsys.h"

/* 0 not read yet, 1 set, -1 not set (preload/shim.h) */
int shim_troot_state;

static struct {
	char root[PATH_MAX];
	bool has_cpus, has_mems;
	struct shim_cpus cpus, mems;
} troot;

const char *shim_test_root_read(void)
{
	int st = __atomic_load_n(&shim_troot_state, __ATOMIC_ACQUIRE);

	if (CPS_LIKELY(st))
		return st > 0 ? troot.root : NULL;
	if (!shim_libc_up())
		return NULL; /* no environment yet: asked again later */
	/* racing first callers read the same environment into the same
	 * bytes; the state is published last */
	const char *r = shim_secure_getenv("CPUSETSHIM_TEST_ROOT");
	const char *c = shim_secure_getenv("CPUSETSHIM_TEST_CPUS");
	const char *m = shim_secure_getenv("CPUSETSHIM_TEST_MEMS");
	size_t len = r ? strlen(r) : 0;
	st = -1;
	while (len > 1 && r[len - 1] == '/')
		len--;
	if (r && r[0] == '/' && len > 1 && len < sizeof(troot.root)) {
		memcpy(troot.root, r, len);
		troot.root[len] = 0;
		st = 1;
		struct cps_parse_error err;
		if (c && cps_cpulist_parse(c, troot.cpus.cpus, CPS_MAX_WORDS, &err) == 0 &&
		    (troot.cpus.n = cps_mask_count(troot.cpus.cpus, CPS_MAX_WORDS)) > 0) {
			troot.cpus.nw = CPS_MAX_WORDS;
			troot.has_cpus = true;
		}
		if (m && cps_cpulist_parse(m, troot.mems.cpus, CPS_MAX_WORDS, &err) == 0 &&
		    (troot.mems.n = cps_mask_count(troot.mems.cpus, CPS_MAX_WORDS)) > 0) {
			troot.mems.nw = CPS_MAX_WORDS;
			troot.has_mems = true;
		}
	}
	__atomic_store_n(&shim_troot_state, st, __ATOMIC_RELEASE);
	return st > 0 ? troot.root : NULL;
}

/* Read once, racing first callers computing the same value: 0 not read,
 * else the count + 1 (1: none, the file unreadable). */
static unsigned troot_nr_cpu_ids;

unsigned shim_troot_nr_cpu_ids(void)
{
	const char *r = shim_test_root();
	if (CPS_LIKELY(!r))
		return 0;
	unsigned n = __atomic_load_n(&troot_nr_cpu_ids, __ATOMIC_RELAXED);
	if (n)
		return n - 1;
	char path[PATH_MAX], buf[4096];
	uint64_t m[CPS_MAX_WORDS];
	struct cps_parse_error err;
	int pn = snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/possible", r);
	long len = pn > 0 && (size_t)pn < sizeof(path) ? cps_sys_read_file(path, buf, sizeof(buf) - 1) : -1;
	n = 0;
	if (len > 0) {
		buf[len] = 0;
		buf[strcspn(buf, "\n")] = 0;
		int last = cps_cpulist_parse(buf, m, CPS_MAX_WORDS, &err) == 0 ? cps_mask_last(m, CPS_MAX_WORDS) : -1;
		n = last >= 0 ? (unsigned)last + 1 : 0;
	}
	__atomic_store_n(&troot_nr_cpu_ids, n + 1, __ATOMIC_RELAXED);
	return n;
}

/* The set these views show: the test's, else the process's. */
bool shim_sys_cpus(struct shim_cpus *v)
{
	if (CPS_UNLIKELY(shim_test_root() != NULL) && troot.has_cpus) {
		v->n = troot.cpus.n;
		v->nw = troot.cpus.nw;
		memcpy(v->cpus, troot.cpus.cpus, sizeof(v->cpus));
		return true;
	}
	return shim_cpus_now(v);
}

/* The nodes these views and the memory-policy calls show: the test's
 * (CPUSETSHIM_TEST_MEMS, a node list of the captured machine), else the
 * process's set's. */
bool shim_sys_mems(struct shim_cpus *v)
{
	if (CPS_UNLIKELY(shim_test_root() != NULL) && troot.has_mems) {
		v->n = troot.mems.n;
		v->nw = troot.mems.nw;
		memcpy(v->cpus, troot.mems.cpus, sizeof(v->cpus));
		return true;
	}
	return shim_nodes_of(0, v);
}

/* The set's nodes into in (m holds them): none when the shim has none,
 * and then the nodes keep their numbers. */
void shim_sys_nodes(struct cps_view_input *in, struct shim_cpus *m)
{
	/* a captured machine without CPUSETSHIM_TEST_MEMS: its own nodes */
	if (CPS_UNLIKELY(shim_test_root() != NULL) && !troot.has_mems)
		return;
	if (shim_sys_mems(m) && m->n > 0) {
		in->mems = m->cpus;
		in->mnw = m->nw;
		in->k = m->n;
	}
}

bool shim_rooted(const char *phys, char *out, size_t len)
{
	const char *root = shim_test_root();
	size_t rl = root ? strlen(root) : 0, pl = strlen(phys);

	if (rl + pl + 1 > len)
		return false;
	if (rl)
		memcpy(out, root, rl);
	memcpy(out + rl, phys, pl + 1);
	return true;
}
