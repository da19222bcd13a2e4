#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every row of the list of virtual files (src/vfiles.h), in every
# spelling: on captured machines through the shim's test root, in sets of
# several shapes, each file of the virtual tree (tests/topo/vtree: the
# pure transforms of the real files) read under the shim absolute, with
# "//" and "/./", ".." through a sibling, relative after chdir to each
# parent and to a descriptor of each parent, as /sys/bus/cpu/devices/cpuN
# for a CPU's file, and below the test root R, absolute and relative to R
# (tests/topo/spell). A row no capture has is added to a copy of one
# (its files made of the kind the row says) and read the same way: a row
# of the table is served in every spelling with nothing else.
. "$(dirname "$0")/common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
SPELL=$B/tests/topo/spell
VTREE=$B/tests/topo/vtree
need "$PY" python3
[ -x "$SPELL" ] && [ -x "$VTREE" ] || die "build tests/topo/spell and tests/topo/vtree first"
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"
"$CPUSET" init >/dev/null || die "cpuset init"

# spell_set R S LABEL: every file of R's virtual tree in set S
spell_set() {
	_r=$1 _s=$2 _what=$3
	rm -rf "$T/tree"
	mkdir "$T/tree"
	if ! "$VTREE" "$_r" "$_s" "$T/tree" 2>"$T/vtree.err"; then
		fail "$_what: the pure tree" "$(cat "$T/vtree.err")"
		return
	fi
	(cd "$T/tree" && find . -type f | sed 's/^\.//' | sort) >"$T/paths"
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$_r" \
		CPUSETSHIM_TEST_CPUS="$_s" "$SPELL" "$T/tree" "$_r" <"$T/paths" >"$T/out" 2>&1
	rc=$?
	sed -n 's/^row \([^ ]*\) .*/\1/p' "$T/out" >>"$T/covered"
	n=$(sed -n 's/^spellings \([0-9]*\) .*/\1/p' "$T/out")
	if [ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ]; then
		pass "$_what: $n spellings of $(grep -c '^row ' "$T/out") rows"
	else
		fail "$_what: every spelling reads the view" "$(grep -v '^row ' "$T/out" | head -20)"
	fi
}

: >"$T/covered"
for m in 64amd64-4s2n4ca2co 128arm-2pa2n8cluster4co 20s390-2g2g2s4co 48amd64-4d2n6c-sparse \
	offline-cpu0-node0; do
	F=$CPS_FIXTURES/$m
	[ -d "$F" ] || die "no capture $F"
	$CMP shapes "$F" >"$T/shapes"
	while read -r shape S; do
		case $shape in one | sparse | all | node) ;; *) continue ;; esac
		spell_set "$F" "$S" "$m $shape {$S}"
	done <"$T/shapes"
done

# The rows of /sys no capture above has: made in a copy of one, each file
# of a kind its row says (a list, a mask, a space list of the machine's
# CPUs), for every CPU (or node) of the machine.
M=64amd64-4s2n4ca2co
X=$T/$M-every
cp -R "$CPS_FIXTURES/$M" "$X" || die "cannot copy $M"
"$SPELL" --rows >"$T/rows" || die "spell --rows"
made=""
while read -r path kind flags; do
	grep -qx -- "$path" "$T/covered" && continue
	case $path in /sys/*) ;; *) continue ;; esac
	case $path in *'**'* | *'*'*) continue ;; esac
	[ "$flags" = 0 ] || continue
	case $kind in
	MASK) text=ff ;;
	LIST | OFFLINE) text=0-7 ;;
	SPACELIST) text="0 1 2 3 " ;;
	*) continue ;;
	esac
	# in every directory of the row's parent's pattern (cpu[0-9]*), made
	dir=$(dirname "$path") name=$(basename "$path")
	up=$(dirname "$dir") leaf=$(basename "$dir")
	for d in $(cd "$X" && eval "ls -d .$(echo "$up" | sed 's/#/[0-9]*/g')" 2>/dev/null); do
		[ -d "$X/$d" ] && [ ! -L "$X/$d" ] || continue
		case $leaf in *'#'*) continue ;; esac
		mkdir -p "$X/$d/$leaf" && printf '%s\n' "$text" >"$X/$d/$leaf/$name"
	done
	made="$made $path"
done <"$T/rows"
note "rows made in a copy of $M:$made"
[ -n "$made" ] || note "every row of /sys is on a capture"
: >"$T/covered"
spell_set "$X" "1,5,9,60" "$M with every row, {1,5,9,60}"
for p in $made; do
	expect_eq "row $p read in the copy" "$(grep -cx -- "$p" "$T/covered")" 1
done

# This machine, in a set of physical CPU 1, with no test root: here the
# path filters decide alone (under a test root every path is looked at).
# Files whose contents move by themselves (counters) are left out: those
# that differ between two pure trees made one after the other.
need taskset util-linux
if [ $((0x$(outside taskset -p $$ | sed 's/.*: //') & 2)) -ne 0 ]; then
	S1=$("$CPUSET" create --cpus 1 --name spell-one) || die "cpuset create --cpus 1"
	rm -rf "$T/tree" "$T/tree2"
	mkdir "$T/tree" "$T/tree2"
	v="/sys/devices/system/cpu /sys/devices/system/node"
	"$VTREE" / 1 "$T/tree" $v 2>"$T/vtree.err" && "$VTREE" / 1 "$T/tree2" $v 2>>"$T/vtree.err" ||
		die "the pure tree of this machine: $(cat "$T/vtree.err")"
	(cd "$T/tree" && find ./sys -type f | sed 's/^\.//' | sort) | while read -r p; do
		cmp -s "$T/tree$p" "$T/tree2$p" && echo "$p"
	done >"$T/paths"
	in_set "$S1" "$SPELL" "$T/tree" / <"$T/paths" >"$T/out" 2>&1
	rc=$?
	n=$(sed -n 's/^spellings \([0-9]*\) .*/\1/p' "$T/out")
	if [ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ]; then
		pass "this machine, set {1}: $n spellings of $(grep -c '^row ' "$T/out") rows"
	else
		fail "this machine, set {1}: every spelling reads the view" \
			"$(grep -v '^row ' "$T/out" | head -20)"
	fi
else
	note "CPU 1 is not ours: this machine's spellings left out"
fi
finish
