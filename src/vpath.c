/* SPDX-License-Identifier: BSD-3-Clause */
/* Which family of views a canonical path belongs to (src/vpath.h): its
 * row's in the list of virtual files (src/vfiles.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>
#include <string.h>

#include "base/util.h"
#include "src/vfiles.h"
#include "src/vpath.h"

enum cps_vfamily cps_vpath_family(const char *canon)
{
	const struct cps_vfile *r = cps_vfile_find(canon, true, NULL);

	return r ? (enum cps_vfamily)r->family : CPS_VF_NONE;
}

const char *cps_vpath_below(const char *canon, const char *root)
{
	size_t n = strlen(root);

	if (!n || strncmp(canon, root, n))
		return NULL;
	if (!canon[n])
		return "/";
	return canon[n] == '/' ? canon + n : NULL;
}
