#!/bin/sh
# The fuzz targets (tests/fuzz/): table validation and the undo journal
# (fuzz_table), the CPU-list parser (fuzz_cpulist). Each is built with
# clang's libFuzzer under ASan and UBSan and run for $FUZZ_SECONDS (20 by
# default; CI asks for 60) from the corpus in tests/fuzz/corpus/, with a
# fixed seed. New inputs go to a scratch copy, never into the source tree;
# a crashing input is kept as tests/fuzz/crash-* in the build tree.
# Exit 77 without a clang that can build libFuzzer targets.
B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/.." && pwd)}
SRC=${CPS_SRCDIR:-$B}
CLANG=${CLANG:-clang}
SECONDS_EACH=${FUZZ_SECONDS:-20}
unset LD_PRELOAD CPUSETSHIM_TABLE_OWNER
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "SKIP: clang not found: the fuzz targets need clang with libFuzzer"
	exit 77
fi
OUT=$B/tests/fuzz
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
# a 64 KiB undo journal (instead of 4 MiB): each input starts from a fresh
# copy of the whole table
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-DSHM_JOURNAL_BYTES=65536 -DHAVE_CONFIG_H -include $B/config.h -I$SRC -I$SRC/include -I$B -pthread -w"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$TMP/t.c"
if ! $CLANG $FLAGS -o "$TMP/t" "$TMP/t.c" >"$TMP/err" 2>&1; then
	echo "SKIP: clang cannot build libFuzzer targets (clang's runtime, libclang-rt-dev, missing?):"
	head -n 5 "$TMP/err"
	exit 77
fi

build() {
	_name=$1
	shift
	echo "# building $_name"
	$CLANG $FLAGS -o "$OUT/$_name" "$@" 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
}
# the library floors as they are, whatever their files are called
core=$(ls "$SRC"/shm/*.c "$SRC"/src/*.c | grep -v '/src/api\.c$')
$CLANG $FLAGS -Dmain=inspect_main -c -o "$TMP/inspect.o" "$SRC/tools/cpuset-inspect.c" ||
	exit 1
build fuzz_table "$SRC/tests/fuzz/fuzz_table.c" $core "$TMP/inspect.o" \
	"$SRC/tools/cli.c" "$SRC/tools/cli-user.c"
build fuzz_cpulist "$SRC/tests/fuzz/fuzz_cpulist.c" "$SRC/src/cpulist.c" "$SRC/src/mask.c"

rc=0
for t in table cpulist; do
	mkdir -p "$TMP/corpus-$t"
	echo "# fuzz_$t: $SECONDS_EACH s from $(ls "$SRC/tests/fuzz/corpus/$t" | wc -l) seeds"
	ASAN_OPTIONS=detect_leaks=0:allow_user_segv_handler=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$OUT/fuzz_$t" -seed=1 -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$OUT/crash-$t-" \
		"$TMP/corpus-$t" "$SRC/tests/fuzz/corpus/$t" >"$TMP/log-$t" 2>&1
	r=$?
	grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$TMP/log-$t"
	if [ "$r" -ne 0 ]; then
		echo "FAIL: fuzz_$t exit $r"
		tail -n 60 "$TMP/log-$t"
		rc=1
	else
		echo "ok: fuzz_$t"
	fi
done
exit $rc
