/* SPDX-License-Identifier: BSD-3-Clause */
/* The environment the shim follows: its own variables (CPUSETSHIM_*) and
 * TMPDIR, as they were when libc came up, copied once. A program that
 * empties or edits its environment in main (clearenv, unsetenv, putenv)
 * stays in the set, the table and the test root it was started with; and
 * no call made before libc is up (a preinit function, a sanitizer
 * runtime's start) decides anything from an environment that getenv does
 * not show yet (shim_libc_up). The library below (shm/, src/) reads its
 * variables through cps_getenv, which points here in the shim. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/auxv.h>
#include <unistd.h>

#include "preload/shim.h"
#include "shm/table.h"

#define ENV_BYTES 8192
#define ENV_MAX 48

/* The copy, touched only when there is something to copy. */
static struct {
	const char *entry[ENV_MAX]; /* "NAME=VALUE" in buf */
	char buf[ENV_BYTES];
} copy;
/* What the constructor writes in every process: a program with none of
 * our variables writes one page of the shim's data before main, the one
 * the loader clears anyway (Makemodule.am: env.c is linked first, and the
 * compiler lays out the later definition first). */
static struct {
	int state;      /* 0 not taken, 1 being taken, 2 taken */
	bool ctor_ran;
	bool set_named; /* CPUSETSHIM_SET is not empty */
	int n;
} env;

/* The code of the copy lies beside the constructor (.text.startup), so that
 * a program's start faults in one page of the shim's code, not two. */
#define AT_START __attribute__((section(".text.startup"), noinline))

/* The copy runs in every process before main, so it calls nothing in
 * libc (the first call through the procedure linkage table costs a
 * symbol look-up) and reads no string constant (the first read of the
 * library's read-only data costs a page fault): the names are local
 * arrays, which the compiler builds from immediates. */
static bool has_prefix(const char *s, const char *p)
{
	while (*p && *s == *p)
		s++, p++;
	return !*p;
}

static bool wanted(const char *e)
{
	const char ours[] = "CPUSETSHIM_", tmpdir[] = "TMPDIR=";
	return e[0] == 'C' ? has_prefix(e, ours) : e[0] == 'T' && has_prefix(e, tmpdir);
}

AT_START static void take(void)
{
	const char set[] = "SET="; /* after CPUSETSHIM_ */
	size_t used = 0;
	bool set_seen = false; /* the first one counts, as in shim_getenv */

	for (char **p = environ; p && *p && env.n < ENV_MAX; p++) {
		const char *e = *p;
		if (!wanted(e))
			continue;
		size_t i = 0;
		while (used + i < ENV_BYTES && (copy.buf[used + i] = e[i]))
			i++;
		if (used + i == ENV_BYTES)
			continue; /* too long to keep: as if unset */
		copy.entry[env.n++] = copy.buf + used;
		used += i + 1;
		if (!set_seen && e[0] == 'C' && has_prefix(e + 11, set)) {
			set_seen = true;
			env.set_named = e[11 + sizeof(set) - 1] != 0;
		}
	}
	cps_getenv = shim_getenv;
}

/* Takes the copy, or waits for the thread taking it: libc is up. */
AT_START static void take_once(void)
{
	int st = 0;
	if (__atomic_compare_exchange_n(&env.state, &st, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		take();
		__atomic_store_n(&env.state, 2, __ATOMIC_RELEASE);
		return;
	}
	/* another thread takes it: a bounded copy of a few entries */
	while (__atomic_load_n(&env.state, __ATOMIC_ACQUIRE) != 2)
		cps_cpu_relax();
}

/* Takes the copy once libc is up: from our constructor, or from the
 * first call after libc's set-up that comes before it (a constructor of
 * a library loaded before us). */
bool shim_libc_up(void)
{
	if (CPS_LIKELY(__atomic_load_n(&env.state, __ATOMIC_ACQUIRE) == 2))
		return true;
	/* not environ alone: clearenv() makes it NULL in main */
	if (!__atomic_load_n(&env.ctor_ran, __ATOMIC_ACQUIRE) && environ == NULL)
		return false;
	take_once();
	return true;
}

AT_START bool shim_env_ctor(void)
{
	__atomic_store_n(&env.ctor_ran, true, __ATOMIC_RELEASE);
	take_once();
	return env.set_named;
}

const char *shim_getenv(const char *name)
{
	if (!shim_libc_up())
		return NULL;
	for (int i = 0; i < env.n; i++) {
		const char *e = copy.entry[i], *n = name;
		while (*n && *e == *n)
			e++, n++;
		if (!*n && *e == '=')
			return e + 1;
	}
	return NULL;
}

bool shim_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* (AT_SECURE asked here, not at load: the constructor calls nothing) */
const char *shim_secure_getenv(const char *name)
{
	const char *v = shim_getenv(name);
	return v && !shim_secure() ? v : NULL;
}
