#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One way into libc: no code of the shim calls one of its exports
# (preload/libcpusetshim.map) by name, which would meet its interposer
# again (a path test, a translation into virtual numbers); libc is reached
# through struct shim_real (preload/shim.h) or the raw system calls
# (base/rawsys.h, src/rawsys.h). The shim's code is every object
# libcpusetshim.so is linked from: preload's, and the core library's
# (libcps_core: src/, shm/, base/), linked whole. Read from the objects'
# relocations: a call, or a function's address taken, by the export's
# name; and the library's own relocations name no export that those
# objects do not (an object linked in but not read here). The few calls
# that mean to meet the interposer are listed below with their reason.
# And each of the library's relocations by an export's name is a PLT slot,
# looked up lazily at its first call: a GOT entry or an address taken by
# the name is a symbol look-up by the loader at every program's start
# (BENCHMARKS.md, "The shim's start-up at the floor of its interface").
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need readelf binutils

# FILE:NAME the shim calls on purpose through its own interposer
# preload/dir.c: scandir, glob and nftw list a directory through the
# shim's opendir/readdir and stat it through its stat, so that their
# entries are the views' (cpuN renamed, CPUs outside the set gone); its
# nftw64 is its nftw (one stat, as on every 64-bit host)
meant="dir.o:opendir dir.o:closedir dir.o:readdir dir.o:readdir64 dir.o:stat dir.o:stat64
dir.o:lstat dir.o:lstat64 dir.o:nftw"

objs=""
for o in "$B"/preload/.libs/*.o; do
	[ -e "$o" ] && objs="$objs $o"
done
[ -n "$objs" ] || die "no objects of the shim under $B (build it first)"
# the core library, an archive of objects (readelf reads each member)
[ -f "$B/.libs/libcps_core.a" ] || die "no $B/.libs/libcps_core.a (build it first)"
# shellcheck disable=SC2086
readelf -rW $objs "$B/.libs/libcps_core.a" >"$T/rel" 2>"$T/err" || die "readelf: $(cat "$T/err")"
readelf -rW "$SHIM" >"$T/sorel" 2>"$T/err" || die "readelf $SHIM: $(cat "$T/err")"

"$PYTHON3" - "$SRC/preload/libcpusetshim.map" "$T/rel" "$meant" "$T/sorel" >"$T/check" 2>&1 <<'PY'
import re, sys
mapf, relf, meant, sorelf = sys.argv[1:5]
m = re.sub(r"/\*.*?\*/", "", open(mapf).read(), flags=re.S)
glob = m.split("global:")[1].split("local:")[0]
exports = set(n.strip() for n in glob.replace("\n", " ").split(";") if n.strip())
exports.discard("cpusetshim_copy")  # the shim's own object, no libc function
allowed = set(meant.split())
cur, seen, bad, objects = "?", set(), set(), set()
for line in open(relf):
    f = re.match(r"^File: (.*)$", line)
    if f:
        cur = f.group(1).strip()
        a = re.search(r"([^/]*)\((.*)\)$", cur)
        cur = "%s(%s)" % (a.group(1), a.group(2)) if a else cur.rsplit("/", 1)[-1]
        objects.add(cur)
        continue
    cols = line.split()
    if len(cols) < 5 or not re.match(r"^[0-9a-f]{8,}$", cols[0]):
        continue
    sym = re.sub(r"@.*", "", cols[4])
    if sym in exports:
        key = "%s:%s" % (cur, sym)
        seen.add(key)
        if key not in allowed:
            bad.add(key)
# the library's relocations by an export's name: each must come from an
# object read above
named = set(k.split(":", 1)[1] for k in seen)
so, eager = set(), set()
for line in open(sorelf):
    cols = line.split()
    if len(cols) >= 5 and re.match(r"^[0-9a-f]{8,}$", cols[0]):
        sym = re.sub(r"@.*", "", cols[4])
        if sym in exports:
            so.add(sym)
            if not re.search(r"JU?MP_SLOT", cols[2]):
                eager.add("%s (%s)" % (sym, cols[2]))
unread = so - named
print("%d objects read; %d calls of an export by its name, %d meant" % (len(objects), len(seen), len(seen & allowed)))
for b in sorted(bad):
    print("calls its own interposer: %s" % b)
for a in sorted(allowed - seen):
    print("listed as meant, but not there: %s" % a)
for u in sorted(unread):
    print("libcpusetshim.so calls its export %s from an object not read here" % u)
for e in sorted(eager):
    print("libcpusetshim.so looks its export up at every start: %s" % e)
sys.exit(1 if bad or (allowed - seen) or unread or eager else 0)
PY
s=$?
note "$(head -n 1 "$T/check")"
expect_eq "the shim reaches libc through shim_real or rawsys.h, never its own interposers; no export looked up at start" \
	"$s $(tail -n +2 "$T/check" | tr '\n' ' ')" "0 "
finish
