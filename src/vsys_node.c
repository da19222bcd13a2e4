/* The NUMA node family: /sys/devices/system/node (src/vsys.h). Nodes keep
 * their numbers and their memory; what they say of CPUs is the set's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "src/cpulist.h"
#include "src/mask.h"
#include "src/vsys.h"

int cps_vsys_node_resolve(const char *canon, const char *rel, const struct cps_view_input *s,
			  char *phys, size_t len)
{
	size_t cl = strlen(canon);
	const char *p;
	unsigned v;

	if (cl + 1 > len)
		return -ENAMETOOLONG;
	memcpy(phys, canon, cl + 1);
	if (!*rel)
		return CPS_VSYS_SAME;
	rel++;
	if (!strcmp(rel, "has_cpu"))
		return CPS_VSYS_HAS_CPU;
	if (strncmp(rel, "node", 4) || !cps_is_digit(rel[4]))
		return CPS_VSYS_SAME;
	for (p = rel + 4; cps_is_digit(*p); p++)
		;
	if (!*p)
		return CPS_VSYS_DIR; /* nodeK: its cpuN links */
	if (*p != '/')
		return CPS_VSYS_SAME;
	p++;
	if (!strcmp(p, "cpumap"))
		return CPS_VSYS_MASK;
	if (!strcmp(p, "cpulist"))
		return CPS_VSYS_LIST;
	if (cps_vsys_cpu_name(p, &v, NULL))
		return cps_vsys_cpu_entry(canon, p, s, phys, len);
	return CPS_VSYS_SAME;
}

int cps_view_has_cpu(struct cps_buf *out, const char *real, size_t len, const char *const *maps,
		     const size_t *lens, unsigned nnodes, const struct cps_view_input *s)
{
	static const size_t nw = CPS_MAX_WORDS;
	struct cps_parse_error err;
	uint64_t *listed, *cpus, *keep;
	size_t start = out->len;
	char *t = NULL;
	int r = -ENOMEM;

	listed = calloc(3 * nw, sizeof(uint64_t));
	if (!listed || len > 65536)
		goto out;
	cpus = listed + nw;
	keep = cpus + nw;
	t = malloc(len + 1);
	if (!t)
		goto out;
	memcpy(t, real, len);
	t[len] = '\0';
	r = -EINVAL;
	if (strcmp(t, "\n") && *t && cps_cpulist_parse(t, listed, nw, &err))
		goto out;
	for (int k = cps_mask_next(listed, nw, -1); k >= 0; k = cps_mask_next(listed, nw, k)) {
		char *m;

		if ((unsigned)k >= nnodes || !maps[k] || lens[k] > 65536)
			continue;
		m = malloc(lens[k] + 1);
		if (!m) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(m, maps[k], lens[k]);
		m[lens[k]] = '\0';
		if (cps_hexmask_parse(m, cpus, nw, &err) == 0 &&
		    cps_mask_intersects(cpus, s->set, s->nw < nw ? s->nw : nw))
			cps_mask_set(keep, nw, (unsigned)k);
		free(m);
	}
	{
		char small[512];
		size_t need = cps_cpulist_format(small, sizeof(small), keep, nw);

		r = need < sizeof(small) ? cps_buf_append(out, small, need) : -EINVAL;
		if (!r)
			r = cps_buf_append(out, "\n", 1);
	}
out:
	free(t);
	free(listed);
	if (r) {
		out->len = start;
		if (out->p)
			out->p[start] = '\0';
	}
	return r;
}
