/* SPDX-License-Identifier: BSD-3-Clause */
/* cli_user, alone in its file: it looks names up through NSS, which a
 * statically linked cpuset-run must not pull in (and does not need). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pwd.h>
#include <stdio.h>

#include "tools/cli.h"

const char *cli_user(uid_t uid)
{
	static char buf[64];
	struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(buf, sizeof(buf), "%s", pw->pw_name);
	else
		snprintf(buf, sizeof(buf), "%u", (unsigned)uid);
	return buf;
}

int cli_uid_of(const char *name, uid_t *uid)
{
	struct passwd *pw = getpwnam(name);
	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	return 0;
}
