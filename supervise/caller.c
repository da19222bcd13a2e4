/* SPDX-License-Identifier: BSD-3-Clause */
/* The caller of a notification: its memory (read and written while it
 * waits), its notification still valid, its call, whether it belongs to
 * the supervised tree, and the set it sees. What the answers
 * (supervise/answer.c) and the files mode (supervise/files.c) share. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "base/arch.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "src/sets.h"
#include "supervise/sv.h"

/* ---- the tree -------------------------------------------------------- */

/* True if process tgid descends from the supervisor other than through
 * being the keeper or the warden: every process of the tree does (the
 * three are subreapers, so orphans come back to them), and nothing else
 * does. */
bool sv_in_tree(struct sv *s, pid_t tgid)
{
	if (tgid <= 0 || tgid == s->self || tgid == s->keeper || tgid == s->warden)
		return false;
	pid_t p = tgid;
	for (int depth = 0; depth < 65536; depth++) {
		struct cps_procinfo pi;
		if (cps_proc_stat(p, &pi) < 0)
			return false;
		if (pi.ppid == s->self || pi.ppid == s->keeper || pi.ppid == s->warden)
			return true;
		if (pi.ppid <= 1)
			return false;
		p = pi.ppid;
	}
	return false;
}

/* ---- memory of the caller ------------------------------------------- */

int sv_peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

int sv_poke(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_writev(tid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

int sv_peek_str(pid_t tid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;
	const size_t page = 4096;
	while (got < len - 1) {
		uint64_t a = addr + got;
		size_t chunk = page - (size_t)(a % page);
		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		int r = sv_peek(tid, a, buf + got, chunk);
		if (r < 0)
			return r;
		char *z = memchr(buf + got, 0, chunk);
		if (z)
			return 0;
		got += chunk;
	}
	buf[len - 1] = 0;
	return -ENAMETOOLONG;
}

bool sv_id_valid(struct sv *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

unsigned sv_call_nr(const struct seccomp_notif *q)
{
	const struct cps_arch *a = cps_arch_host();
	return q->data.nr & ~(a ? a->nr_mask : 0);
}

bool sv_is_open(unsigned nr)
{
	const struct cps_arch *a = cps_arch_host();
	return a && ((int)nr == a->nr.openat || (int)nr == a->nr.open);
}

/* ---- the set a caller sees ------------------------------------------- */

/* Which set a caller is in: its process's record, else its nearest
 * registered ancestor's (a nested cpuset-run registers itself), else the
 * launched set. Kept per thread while the table's counter does not move
 * (a set's records change it): a caller's answer then costs no /proc
 * read. Numbering only: what is set on a thread is checked afresh. */
struct set_memo {
	pid_t tid, tgid;
	uint32_t set;
	uint64_t seq;
};
static struct set_memo memo[256];

static int caller_fallback(struct sv *s, pid_t tid, pid_t *tgid, uint32_t *set)
{
	uint64_t seq = __atomic_load_n(&s->c->t.h->seq, __ATOMIC_ACQUIRE);
	struct set_memo *m = &memo[(unsigned)tid % 256];
	if (m->tid == tid && m->seq == seq && !(seq & 1) && (!*tgid || *tgid == m->tgid)) {
		*tgid = m->tgid;
		*set = m->set;
		return 0;
	}
	if (!*tgid) {
		pid_t g = cps_proc_tgid(tid);
		if (g < 0)
			return g;
		*tgid = g;
	}
	/* cps_which: the record, else the nearest registered ancestor's;
	 * the root means neither (the tree's processes descend from the
	 * supervisor, a member of the launched set) */
	uint32_t id = s->set;
	if (cps_which(s->c, *tgid, &id) < 0 || !id || id == s->c->t.root_id)
		id = s->set;
	*m = (struct set_memo){ tid, *tgid, id, seq };
	*set = id;
	return 0;
}

int sv_caller_set(struct sv *s, pid_t tid, pid_t *tgid, struct cps_placement *pl)
{
	uint32_t fallback;
	int e = caller_fallback(s, tid, tgid, &fallback);
	if (e < 0)
		return e;
	int r = -EAGAIN;
	for (int i = 0; i < 100 && r == -EAGAIN; i++)
		r = cps_placement_read(&s->c->t, *tgid, 0, fallback, pl);
	if (r == -EAGAIN || r == -EOWNERDEAD)
		r = cps_placement_read_committed(&s->c->t, *tgid, 0, fallback, pl);
	if (r < 0)
		return r;
	/* the tree's confinement: the CPUs the kernel lets the supervisor
	 * run on (its set's, moved with the set by a resize) */
	uint64_t own[CPS_MAX_WORDS];
	cps_mask_zero(own, s->nw);
	long k = cps_sys_getaffinity(0, s->nw * 8, own);
	if (k < 0)
		return (int)k;
	cps_mask_and(pl->cpus, pl->cpus, own, pl->nw);
	pl->n = cps_mask_count(pl->cpus, pl->nw);
	return pl->n ? 0 : -EINVAL;
}
