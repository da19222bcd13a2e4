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

#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "preload/shim.h"
#include "shm/table.h"

#define ENV_BYTES 8192
#define ENV_MAX 48

static struct {
	char buf[ENV_BYTES];
	const char *entry[ENV_MAX]; /* "NAME=VALUE" in buf */
	int n;
	bool secure; /* AT_SECURE: a set-user-id start, no test variables */
} env;
static int env_state; /* 0 not taken, 1 being taken, 2 taken */
static bool ctor_ran;

static bool wanted(const char *e)
{
	return !strncmp(e, "CPUSETSHIM_", 11) || !strncmp(e, "TMPDIR=", 7);
}

static void take(void)
{
	size_t used = 0;

	env.secure = getauxval(AT_SECURE) != 0;
	for (char **p = environ; p && *p && env.n < ENV_MAX; p++) {
		if (!wanted(*p))
			continue;
		size_t len = strlen(*p) + 1;
		if (len > ENV_BYTES - used)
			continue; /* too long to keep: as if unset */
		memcpy(env.buf + used, *p, len);
		env.entry[env.n++] = env.buf + used;
		used += len;
	}
	cps_getenv = shim_getenv;
}

/* Takes the copy once libc is up: from our constructor, or from the
 * first call after libc's set-up that comes before it (a constructor of
 * a library loaded before us). */
bool shim_libc_up(void)
{
	int st = __atomic_load_n(&env_state, __ATOMIC_ACQUIRE);
	if (CPS_LIKELY(st == 2))
		return true;
	/* not environ alone: clearenv() makes it NULL in main */
	if (!__atomic_load_n(&ctor_ran, __ATOMIC_ACQUIRE) && environ == NULL)
		return false;
	if (st == 0 && __atomic_compare_exchange_n(&env_state, &st, 1, false, __ATOMIC_ACQ_REL,
						     __ATOMIC_ACQUIRE)) {
		take();
		__atomic_store_n(&env_state, 2, __ATOMIC_RELEASE);
		return true;
	}
	/* another thread takes it: a bounded copy of a few entries */
	while (__atomic_load_n(&env_state, __ATOMIC_ACQUIRE) != 2)
		cps_cpu_relax();
	return true;
}

void shim_env_ctor(void)
{
	__atomic_store_n(&ctor_ran, true, __ATOMIC_RELEASE);
	shim_libc_up();
}

const char *shim_getenv(const char *name)
{
	if (!shim_libc_up())
		return NULL;
	size_t len = strlen(name);
	for (int i = 0; i < env.n; i++)
		if (!strncmp(env.entry[i], name, len) && env.entry[i][len] == '=')
			return env.entry[i] + len + 1;
	return NULL;
}

bool shim_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

const char *shim_secure_getenv(const char *name)
{
	return shim_getenv(name) && !env.secure ? shim_getenv(name) : NULL;
}
