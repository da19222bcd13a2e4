/* SPDX-License-Identifier: BSD-3-Clause */
/* supervise/filter.c: the supervisor's filter, built for every architecture
 * of base/arch.h and run here by a small classic-BPF interpreter on
 * sample seccomp_data: each call the rules name gives its action on its
 * architecture, every other call and a foreign architecture are allowed,
 * the 32-bit ABI's affinity calls fail with ENOSYS, a read marked physical
 * passes. A jump off by one lands on another action and fails. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <string.h>

#include "base/arch.h"
#include "src/rawsys.h"
#include "supervise/filter.h"
#include "tests/testlib.h"

#define BAD 0xdeadu /* the interpreter met something the kernel refuses */

/* The program on d, as the kernel runs it: loads of aligned words of
 * seccomp_data (in the target's byte order: be for a big-endian one, whose
 * d holds its fields byte-swapped), AND, JEQ, RET; anything else, a jump
 * or a fall off the end, is BAD. */
static uint32_t run(const struct sock_filter *f, int len, const struct seccomp_data *d, bool be)
{
	uint32_t acc = 0;
	for (int pc = 0; pc >= 0 && pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k % 4 || i->k + 4 > sizeof(*d))
				return BAD;
			memcpy(&acc, (const char *)d + i->k, 4);
			acc = be ? __builtin_bswap32(acc) : acc;
			break;
		case BPF_ALU | BPF_AND | BPF_K: acc &= i->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += acc == i->k ? i->jt : i->jf; break;
		case BPF_RET | BPF_K: return i->k;
		default: return BAD;
		}
	}
	return BAD;
}

static int build(const struct cps_arch *a, bool files, struct sock_filter *f)
{
	struct sv_rule r[SV_RULES_MAX];
	size_t n = sv_filter_rules(a, files, r);
	ck_assert_uint_le(n, SV_RULES_MAX);
	int len = sv_filter_build(r, n, f, SV_FILTER_MAX);
	ck_assert_int_gt(len, 0);
	return len;
}

static uint32_t call(const struct sock_filter *f, int len, uint32_t arch, int nr, uint64_t arg1)
{
	struct seccomp_data d;
	memset(&d, 0, sizeof(d));
	const bool be = !(arch & __AUDIT_ARCH_LE);
	d.arch = be ? __builtin_bswap32(arch) : arch;
	d.nr = be ? (int)__builtin_bswap32((uint32_t)nr) : nr;
	d.args[1] = be ? __builtin_bswap64(arg1) : arg1;
	return run(f, len, &d, be);
}

#define NOTIF SECCOMP_RET_USER_NOTIF
#define ALLOW SECCOMP_RET_ALLOW
#define ENOSYS_ (SECCOMP_RET_ERRNO | ENOSYS)

/* The calls of a, each with what it should give. */
static void check_arch(const struct cps_arch *a, bool files)
{
	struct sock_filter f[SV_FILTER_MAX];
	int len = build(a, files, f);
	const uint32_t open_act = files ? NOTIF : ALLOW;
	const struct {
		int nr;
		uint32_t want;
	} calls[] = {
		{ a->nr.sched_getaffinity, NOTIF }, { a->nr.sched_setaffinity, NOTIF },
		{ a->nr.getcpu, NOTIF },            { a->nr.io_uring_setup, NOTIF },
		{ a->nr.openat, open_act },         { a->nr.open, open_act },
		{ a->nr.openat2, files ? ENOSYS_ : ALLOW },
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (calls[i].nr == CPS_NO_CALL)
			continue;
		ck_assert_msg(call(f, len, a->audit, calls[i].nr, 8) == calls[i].want,
			      "%s: call %d (#%zu) gives %#x, not %#x", a->name, calls[i].nr, i,
			      call(f, len, a->audit, calls[i].nr, 8), calls[i].want);
		if (a->nr_mask) /* the other ABI of the same architecture (x32) */
			ck_assert_uint_eq(call(f, len, a->audit, calls[i].nr | (int)a->nr_mask, 8),
					  calls[i].want);
	}
	/* every other number is allowed; the mark lets a read pass */
	for (int nr = 0; nr < 600; nr++) {
		bool named = false;
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
			named |= calls[i].nr == nr;
		if (!named)
			ck_assert_msg(call(f, len, a->audit, nr, 8) == ALLOW, "%s: call %d not allowed",
				      a->name, nr);
	}
	uint64_t marked = (uint64_t)CPS_PHYS_MARK << 32 | 8;
	ck_assert_uint_eq(call(f, len, a->audit, a->nr.sched_getaffinity, marked), ALLOW);
	ck_assert_uint_eq(call(f, len, a->audit, a->nr.sched_setaffinity, marked), NOTIF);
	/* the 32-bit ABI: its affinity calls fail closed, the rest pass */
	if (a->compat_audit) {
		ck_assert_uint_eq(call(f, len, a->compat_audit, a->compat.sched_getaffinity, 8),
				  ENOSYS_);
		ck_assert_uint_eq(call(f, len, a->compat_audit, a->compat.sched_setaffinity, 8),
				  ENOSYS_);
		ck_assert_uint_eq(call(f, len, a->compat_audit, a->compat.getcpu, 8), ENOSYS_);
		ck_assert_uint_eq(call(f, len, a->compat_audit, 3, 8), ALLOW);
	}
	/* a foreign architecture: allowed whatever its call */
	ck_assert_uint_eq(call(f, len, 0x12345678u, a->nr.sched_getaffinity, 8), ALLOW);
}

START_TEST(every_architecture)
{
	int n = 0;
	for (size_t i = 0; cps_arches[i]; i++, n++) {
		check_arch(cps_arches[i], false);
		check_arch(cps_arches[i], true);
	}
	ck_assert_int_ge(n, 5);
}
END_TEST

/* each architecture's numbers: no open on arm64 and riscv64, openat2
 * everywhere, and one architecture is the host's */
START_TEST(numbers)
{
	const struct cps_arch *a = cps_arch_by_audit(AUDIT_ARCH_AARCH64);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->nr.open, CPS_NO_CALL);
	ck_assert_int_eq(cps_arch_by_audit(AUDIT_ARCH_RISCV64)->nr.open, CPS_NO_CALL);
	for (size_t i = 0; cps_arches[i]; i++)
		ck_assert_int_eq(cps_arches[i]->nr.openat2, 437);
	ck_assert_ptr_nonnull(cps_arch_host());
	ck_assert_ptr_null(cps_arch_by_audit(0x12345678u));
}
END_TEST

/* another table: two architectures, actions of every kind; too long a
 * program is refused, not cut */
START_TEST(any_table)
{
	const struct sv_rule r[] = {
		{ AUDIT_ARCH_X86_64, 0, true, 7, SV_ENOSYS },
		{ AUDIT_ARCH_X86_64, 0, true, 9, SV_NOTIFY },
		{ AUDIT_ARCH_I386, 0, true, 7, SV_NOTIFY },
		{ AUDIT_ARCH_I386, 0, true, 11, SV_ALLOW },
	};
	struct sock_filter f[SV_FILTER_MAX];
	int len = sv_filter_build(r, 4, f, SV_FILTER_MAX);
	ck_assert_int_gt(len, 0);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_X86_64, 7, 0), ENOSYS_);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_X86_64, 9, 0), NOTIF);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_X86_64, 11, 0), ALLOW);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_I386, 7, 0), NOTIF);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_I386, 9, 0), ALLOW);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_I386, 11, 0), ALLOW);
	ck_assert_int_eq(sv_filter_build(r, 4, f, (size_t)len - 1), -E2BIG);
	/* no rules: everything allowed */
	len = sv_filter_build(r, 0, f, SV_FILTER_MAX);
	ck_assert_int_gt(len, 0);
	ck_assert_uint_eq(call(f, len, AUDIT_ARCH_X86_64, 7, 0), ALLOW);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sv_filter");
	TCase *tc = tcase_create("filter");
	tcase_add_test(tc, every_architecture);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, any_table);
	suite_add_tcase(s, tc);
	return tl_run(s);
}
