#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fuzz targets (tests/fuzz/): table validation and the undo journal
# (fuzz_table), the CPU-list parser (fuzz_cpulist), the views' text
# transforms, the cgroup directories and the canonical path (fuzz_views).
# Each is built with clang's libFuzzer under ASan and UBSan and run for
# $FUZZ_SECONDS (20 by default) from the corpus in tests/fuzz/corpus/,
# with a fixed seed. New inputs go to a scratch copy, never into the source tree;
# a crashing input is kept as tests/fuzz/crash-* in the build tree.
# Skipped (exit 77) without a clang that can build libFuzzer targets.
. "$(dirname "$0")/common.sh"
CLANG=${CLANG:-clang}
SECONDS_EACH=${FUZZ_SECONDS:-20}
unset CPUSETSHIM_TABLE_OWNER
need "$CLANG" clang
OUT=$B/tests/fuzz
mkdir -p "$OUT"
# a 64 KiB undo journal (instead of 4 MiB): each input starts from a fresh
# copy of the whole table
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-DSHM_JOURNAL_BYTES=65536 -DHAVE_CONFIG_H -include $B/config.h -I$SRC -I$SRC/include -I$B -pthread -w"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$T/t.c"
if ! $CLANG $FLAGS -o "$T/t" "$T/t.c" >"$T/cc.err" 2>&1; then
	show "$T/cc.err"
	skip_all "needs clang's libFuzzer and sanitizer runtimes (Debian package libclang-rt-14-dev)"
fi

build() {
	_name=$1
	shift
	check "clang builds $_name with libFuzzer" $CLANG $FLAGS -o "$OUT/$_name" "$@" ||
		finish
}
# the library floors as they are, whatever their files are called
core=$(ls "$SRC"/base/*.c "$SRC"/shm/*.c "$SRC"/src/*.c | grep -v '/src/api\.c$')
check "clang builds cpuset-inspect's checker for fuzz_table" \
	$CLANG $FLAGS -Dmain=inspect_main -c -o "$T/inspect.o" "$SRC/tools/cpuset-inspect.c" || finish
build fuzz_table "$SRC/tests/fuzz/fuzz_table.c" $core "$T/inspect.o" \
	"$SRC/tools/cli.c" "$SRC/tools/cli-user.c" "$SRC/tools/top.c" "$SRC/tools/top_loop.c" \
	"$SRC/tools/top_print.c" "$SRC/tools/where.c"
build fuzz_cpulist "$SRC/tests/fuzz/fuzz_cpulist.c" "$SRC/src/cpulist.c" "$SRC/src/mask.c"
build fuzz_views "$SRC/tests/fuzz/fuzz_views.c" $core

# the fuzzed table's name, removed at exit (libFuzzer ends without atexit)
CPUSETSHIM_FUZZ_TABLE=cpusetshim-fuzz.$$
export CPUSETSHIM_FUZZ_TABLE
at_exit 'rm -f "/dev/shm/$CPUSETSHIM_FUZZ_TABLE"; rm -rf "/dev/shm/$CPUSETSHIM_FUZZ_TABLE.views."*'
for t in table cpulist views; do
	mkdir -p "$T/corpus-$t"
	note "fuzz_$t: $SECONDS_EACH s from $(ls "$SRC/tests/fuzz/corpus/$t" | wc -l) seeds"
	ASAN_OPTIONS=detect_leaks=0:allow_user_segv_handler=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$OUT/fuzz_$t" -seed=1 -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$OUT/crash-$t-" \
		"$T/corpus-$t" "$SRC/tests/fuzz/corpus/$t" >"$T/log-$t" 2>&1
	r=$?
	note "$(grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$T/log-$t")"
	if [ "$r" -ne 0 ]; then
		fail "fuzz_$t runs $SECONDS_EACH s without a finding" "exit $r" "$(tail -n 60 "$T/log-$t")"
	else
		pass "fuzz_$t runs $SECONDS_EACH s without a finding"
	fi
done
finish
