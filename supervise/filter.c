/* SPDX-License-Identifier: BSD-3-Clause */
/* The supervisor's seccomp filter from a table of {architecture, system
 * call, action}: each architecture's check, then a compare per call
 * jumping to its action's block, with every jump computed from the
 * positions (classic BPF jumps forward only, at most 255). Pure. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <string.h>

#include "src/rawsys.h"
#include "supervise/filter.h"

#define ARG_HI(i, le) (offsetof(struct seccomp_data, args) + 8 * (i) + ((le) ? 4 : 0))

static void add(struct sv_rule *out, size_t *n, const struct cps_arch *a, bool compat, int nr,
		enum sv_act act)
{
	if (nr == CPS_NO_CALL)
		return;
	uint32_t audit = compat ? a->compat_audit : a->audit;
	out[(*n)++] = (struct sv_rule){ audit, compat ? 0 : a->nr_mask,
					(audit & __AUDIT_ARCH_LE) != 0, nr, act };
}

size_t sv_filter_rules(const struct cps_arch *a, bool files, struct sv_rule *out)
{
	size_t n = 0;
	add(out, &n, a, false, a->nr.sched_getaffinity, SV_NOTIFY_UNMARKED);
	add(out, &n, a, false, a->nr.sched_setaffinity, SV_NOTIFY);
	add(out, &n, a, false, a->nr.getcpu, SV_NOTIFY);
	add(out, &n, a, false, a->nr.io_uring_setup, SV_NOTIFY);
	if (files) {
		add(out, &n, a, false, a->nr.openat, SV_NOTIFY);
		add(out, &n, a, false, a->nr.open, SV_NOTIFY);
		/* its struct open_how is not read: the caller falls back to
		 * openat, which is answered */
		add(out, &n, a, false, a->nr.openat2, SV_ENOSYS);
	}
	if (a->compat_audit) {
		/* the 32-bit ABI's affinity calls fail closed */
		add(out, &n, a, true, a->compat.sched_setaffinity, SV_ENOSYS);
		add(out, &n, a, true, a->compat.sched_getaffinity, SV_ENOSYS);
		add(out, &n, a, true, a->compat.getcpu, SV_ENOSYS);
	}
	return n;
}

/* where each action's block starts */
struct layout {
	size_t allow, act[SV_ENOSYS + 1];
};

/* The filter's shape: per architecture its check, its number's load (and
 * mask), a compare per rule and its own allow; then the common allow for
 * other architectures, then the actions' blocks. */
static size_t plan(const struct sv_rule *r, size_t n, struct layout *l)
{
	size_t pc = 1; /* the load of the architecture */
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || r[i].arch != r[i - 1].arch)
			pc += 3 + (r[i].nr_mask != 0); /* check, load, mask, allow */
		pc++;
	}
	l->allow = l->act[SV_ALLOW] = pc++;
	l->act[SV_NOTIFY_UNMARKED] = pc;
	pc += 3; /* load the size's high half, compare with the mark, allow */
	l->act[SV_NOTIFY] = pc++;
	l->act[SV_ENOSYS] = pc++;
	return pc;
}

static bool jump(struct sock_filter *f, size_t pc, uint32_t k, size_t t, size_t e)
{
	if (t <= pc || e <= pc || t - pc - 1 > 255 || e - pc - 1 > 255)
		return false;
	f[pc] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, (uint8_t)(t - pc - 1),
					     (uint8_t)(e - pc - 1));
	return true;
}

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(off))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))

/* The rules of one architecture from r[i], at pc; the next rule's index. */
static size_t emit_arch(const struct sv_rule *r, size_t i, size_t n, struct sock_filter *f,
			size_t *pc, const struct layout *l, bool *ok)
{
	size_t j = i;
	while (j < n && r[j].arch == r[i].arch)
		j++;
	size_t next = *pc + 3 + (r[i].nr_mask != 0) + (j - i); /* the next check */
	*ok &= jump(f, *pc, r[i].arch, *pc + 1, next);
	(*pc)++;
	f[(*pc)++] = (struct sock_filter)LD(offsetof(struct seccomp_data, nr));
	if (r[i].nr_mask)
		f[(*pc)++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~r[i].nr_mask);
	for (size_t k = i; k < j; k++, (*pc)++)
		*ok &= jump(f, *pc, (uint32_t)r[k].nr, l->act[r[k].act], *pc + 1);
	f[(*pc)++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	return j;
}

int sv_filter_build(const struct sv_rule *r, size_t n, struct sock_filter *out, size_t cap)
{
	struct layout l;
	size_t len = plan(r, n, &l), pc = 0;
	bool ok = true, le = n ? r[0].le : true;
	if (len > cap)
		return -E2BIG;
	out[pc++] = (struct sock_filter)LD(offsetof(struct seccomp_data, arch));
	for (size_t i = 0; i < n;)
		i = emit_arch(r, i, n, out, &pc, &l, &ok);
	out[pc++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW); /* l.allow */
	out[pc++] = (struct sock_filter)LD(ARG_HI(1, le));
	ok &= jump(out, pc, CPS_PHYS_MARK, pc + 1, pc + 2);
	pc++;
	out[pc++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	out[pc++] = (struct sock_filter)RET(SECCOMP_RET_USER_NOTIF);
	out[pc++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | ENOSYS);
	return ok && pc == len ? (int)len : -E2BIG;
}
