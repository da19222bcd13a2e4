/* Which family of views a canonical path belongs to (src/vpath.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>
#include <string.h>

#include "base/util.h"
#include "src/vpath.h"

/* s starts with lit, followed by the end or by a '/'. */
static const char *component(const char *s, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(s, lit, n) || (s[n] && s[n] != '/'))
		return NULL;
	return s + n;
}

/* "<digits>" then the end or '/': past it, else NULL. */
static const char *digits(const char *s)
{
	if (!cps_is_digit(*s))
		return NULL;
	while (cps_is_digit(*s))
		s++;
	return *s == '/' || !*s ? s : NULL;
}

static bool ends_with(const char *s, const char *lit)
{
	size_t a = strlen(s), b = strlen(lit);

	return a >= b && !strcmp(s + a - b, lit);
}

/* r is below "/proc/". */
static enum cps_vfamily proc_family(const char *r)
{
	const char *p;

	if (!strcmp(r, "cpuinfo"))
		return CPS_VF_CPUINFO;
	if (!strcmp(r, "stat"))
		return CPS_VF_STAT;
	/* self, thread-self or a pid, then optionally task/<tid> */
	if (!(p = component(r, "self")) && !(p = component(r, "thread-self")) && !(p = digits(r)))
		return CPS_VF_NONE;
	if (!strncmp(p, "/task/", 6)) {
		p = digits(p + 6);
		if (!p)
			return CPS_VF_NONE;
	}
	if (!strcmp(p, "/status"))
		return CPS_VF_STATUS;
	if (!strcmp(p, "/stat"))
		return CPS_VF_PIDSTAT;
	return CPS_VF_NONE;
}

enum cps_vfamily cps_vpath_family(const char *canon)
{
	const char *r;

	if (canon[0] != '/')
		return CPS_VF_NONE;
	if (canon[1] == 'p') {
		if (strncmp(canon, "/proc/", 6))
			return CPS_VF_NONE;
		return proc_family(canon + 6);
	}
	if (canon[1] != 's' || strncmp(canon, "/sys/", 5))
		return CPS_VF_NONE;
	r = canon + 5;
	if ((r = component(canon + 5, "devices/system/cpu")))
		return CPS_VF_CPUDIR;
	if ((r = component(canon + 5, "bus/cpu/devices")))
		return CPS_VF_CPUDIR;
	if ((r = component(canon + 5, "devices/system/node")))
		return CPS_VF_NODE;
	/* a cgroup CPU file; which cgroup is the family's business */
	if (!strncmp(canon + 5, "fs/cgroup/", 10) &&
	    (ends_with(canon, "/cpuset.cpus") || ends_with(canon, "/cpuset.cpus.effective") ||
	     ends_with(canon, "/cpuset.effective_cpus") || ends_with(canon, "/cpus") ||
	     ends_with(canon, "/effective_cpus")))
		return CPS_VF_CGROUP;
	return CPS_VF_NONE;
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
