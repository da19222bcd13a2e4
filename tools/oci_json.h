/* SPDX-License-Identifier: BSD-3-Clause */
/* A strict reader of the little JSON an OCI hook is given (the
 * container's state on stdin, the bundle's config.json): a value found by
 * its path of object keys, bounded, never trusting the text. */
#ifndef CPS_TOOLS_OCI_JSON_H
#define CPS_TOOLS_OCI_JSON_H

#include <stddef.h>

/* The string at path (keys, NULL-terminated) of the JSON text js (len
 * bytes), unescaped into out (size bytes, NUL-terminated). 0; -ENOENT
 * when there is no such key; -EINVAL when the text is not JSON, the value
 * is not a string, or it holds a NUL; -ENAMETOOLONG when it does not fit.
 * The whole text is checked, not only the way to the key. */
int oj_string(const char *js, size_t len, const char *const *path, char *out, size_t size);
/* The same for a non-negative integer of at most max. */
int oj_uint(const char *js, size_t len, const char *const *path, unsigned long max,
	    unsigned long *out);

#endif
