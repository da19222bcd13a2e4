#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One way to call libc from the shim: every libc name the shim exports
# (preload/libcpusetshim.map) has its real function in struct shim_real
# (preload/shim.h), resolved in one place (preload/real.c's
# shim_resolve_all), and every field of the table is an export: one for
# one. The few exports that pass through to another real function are
# listed below with it. The built library exports exactly the map's names.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need nm binutils

# exports served by another export's real function: NAME:REAL
served_by="stat:fstatat stat64:fstatat lstat:fstatat lstat64:fstatat fstatat64:fstatat
nftw64:nftw readlink:readlinkat"

"$PYTHON3" - "$SRC/preload/libcpusetshim.map" "$SRC/preload/shim.h" "$SRC/preload/real.c" \
	"$served_by" >"$T/check" 2>&1 <<'PY'
import re, sys
mapf, shimh, realc, served = sys.argv[1:5]
m = open(mapf).read()
m = re.sub(r"/\*.*?\*/", "", m, flags=re.S)
glob = m.split("global:")[1].split("local:")[0]
exports = set(n.strip() for n in glob.replace("\n", " ").split(";") if n.strip())
exports.discard("cpusetshim_copy")  # the shim's own symbol, no libc function
h = open(shimh).read()
body = h[h.index("struct shim_real {"):]
body = body[:body.index("\n};")]
fields = set(re.findall(r"\(\*\s*(\w+)\)\s*\(", body))
resolved = set(re.findall(r"\bR\((\w+)\)", open(realc).read()))
by = dict(p.split(":") for p in served.split())
bad = []
for e in sorted(exports):
    if e not in fields and e not in by:
        bad.append("exported, but no field of struct shim_real: %s" % e)
for e, r in sorted(by.items()):
    if e not in exports:
        bad.append("listed as served by %s, but not exported: %s" % (r, e))
    if r not in fields:
        bad.append("%s is served by %s, which is no field" % (e, r))
for f in sorted(fields - exports):
    bad.append("a field of struct shim_real that is not exported: %s" % f)
for f in sorted(fields - resolved):
    bad.append("a field that shim_resolve_all does not resolve: %s" % f)
print("%d exports, %d fields" % (len(exports), len(fields)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
s=$?
note "$(head -n 1 "$T/check")"
expect_eq "every export has its real function in struct shim_real, resolved in real.c, and no field is more" \
	"$s $(tail -n +2 "$T/check")" "0 "

# the library's dynamic symbols are the map's names
nm -D --defined-only "$SHIM" | awk '$2 ~ /^[TWiVDBRu]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u >"$T/dyn"
sed 's|/\*.*\*/||' "$SRC/preload/libcpusetshim.map" | tr -d '\n' | sed 's/.*global://; s/local:.*//' |
	tr ';' '\n' | tr -d ' \t' | grep . | sort -u >"$T/map"
expect_eq "the library exports exactly the map's names" "$(comm -3 "$T/dyn" "$T/map" | tr '\n\t' '  ')" ""
finish
