#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Real toolchains under the shim, each in a one-CPU set (cpuset-run --cpus
# with one CPU this process may use): cargo, go build and go run, javac and
# java, node, python3 -m compileall, cmake with ninja, make -j, gcc
# -flto=auto, git on a local repository. Each runs natively (no preload)
# and in the set, from the same state in the same directory: the same exit
# status, the same output (timings masked; the lines of parallel builds
# sorted) and the same files built. Each program that asks for a CPU count
# gets the set's, 1, where doc/shim.md says the shim answers (sched_getaffinity,
# sysconf, /proc/cpuinfo and /proc/stat); Go asks the kernel directly
# (raw system calls, an honest limit) and gets the set's kernel mask, whose
# count is 1 too, its CPU number the physical one.
#
# Offline: Cargo's, Go's and git's homes and caches are in $T. Debian's
# toolchains (scripts/deps.sh installs them) come first on PATH, never a
# rustup, pyenv or other one that the user's PATH puts ahead. Slow (a few
# seconds per toolchain on one CPU): one of the tests the sanitizer pass
# leaves out (SLOW_TESTS in tests/Makemodule.am).
. "$(dirname "$0")/../common.sh"
PATH=/usr/bin:/bin:$PATH
export PATH
need timeout coreutils
need cargo cargo
need rustc rustc
need go golang-go
need javac default-jdk-headless
need java default-jdk-headless
need node nodejs
need "$PYTHON3" python3
need cmake cmake
need ninja ninja-build
need make make
need gcc gcc
need git git
need getconf libc-bin

# Nothing from the caller's environment decides what the tools do.
unset MAKEFLAGS MFLAGS MAKELEVEL CC CFLAGS CPPFLAGS LDFLAGS CMAKE_GENERATOR \
	CMAKE_BUILD_PARALLEL_LEVEL NINJA_STATUS RUSTFLAGS RUSTC RUSTC_WRAPPER \
	CARGO_BUILD_JOBS CARGO_TARGET_DIR GOROOT GOPATH GOCACHE GOFLAGS GOPROXY \
	GOMAXPROCS GOENV JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS JAVA_HOME \
	NODE_OPTIONS NODE_PATH PYTHONPATH PYTHONHOME PYTHONDONTWRITEBYTECODE \
	GIT_DIR GIT_WORK_TREE GIT_CONFIG_PARAMETERS
HOME=$T/home
mkdir -p "$HOME"
export HOME
export CARGO_HOME="$T/cargo-home" CARGO_NET_OFFLINE=true
export GOPATH="$T/gopath" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOENV=off \
	GOTELEMETRY=off GO111MODULE=on CGO_ENABLED=0
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=Test \
	GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=Test \
	GIT_COMMITTER_EMAIL=test@example.com GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
	GIT_COMMITTER_DATE=2000-01-01T00:00:00Z
export LC_ALL=C

# The one CPU of the set: the highest this process may use (on a machine
# of more than one CPU its virtual number 0 is then not its physical one).
allowed=$(real_cpus $$)
CPU=$(printf '%s\n' "$allowed" | tr ',' '\n' | tail -n 1 | sed 's/.*-//')
HOST_ONLN=$(outside getconf _NPROCESSORS_ONLN)
note "this process may use CPUs $allowed; the set is {$CPU}; $HOST_ONLN CPUs online"
expect_status "cpuset init (private table $CPUSETSHIM_TABLE)" 0 "$CPUSET" init

# in_cpu CMD...: CMD in a one-CPU set {CPU} of its own (an autoclean set
# made by cpuset-run --cpus), bounded in time
in_cpu() {
	with_san timeout 300 "$CPUSET_RUN" --cpus "$CPU" "$@"
}

# Output filters: as it is; build times masked (cargo); lines sorted
# (parallel builds finish in any order)
as_is() { cat; }
no_times() { sed 's/ in [0-9][0-9.]*s$/ in Ns/'; }
sorted() { sort; }

# same_built DESC: the file (or directory) KEEP names as built in the set
# ($T/kept.set) is the same as built natively ($T/kept.native), byte for
# byte
same_built() {
	if [ ! -e "$T/kept.native" ]; then
		fail "$1" "$KEEP was not built natively"
	elif [ ! -e "$T/kept.set" ]; then
		fail "$1" "$KEEP was not built in the set"
	elif diff -r -q "$T/kept.native" "$T/kept.set" >"$T/diff" 2>&1; then
		pass "$1"
	else
		fail "$1" "built in the set, it differs from the native build:" "$(cat "$T/diff")"
	fi
}

# both NAME WANT FILTER RESET CMD...: CMD natively (bounded in time as in
# the set), then in the set, each
# after RESET (a shell command bringing back the state before it). Checks
# that natively it exits WANT, and that in the set it exits with the same
# status and writes the same stdout and stderr (through FILTER). The
# outputs stay in $T/NAME.{native,set}.{out,err}. With KEEP set (a file or
# directory the command builds), each run's is kept as $T/kept.native and
# $T/kept.set.
both() {
	_n=$1 _w=$2 _flt=$3 _reset=$4
	shift 4
	eval "$_reset"
	outside timeout 300 "$@" >"$T/$_n.native.out" 2>"$T/$_n.native.err"
	_ns=$?
	if [ -n "${KEEP:-}" ]; then
		rm -rf "$T/kept.native" "$T/kept.set"
		[ ! -e "$KEEP" ] || cp -R "$KEEP" "$T/kept.native"
	fi
	eval "$_reset"
	in_cpu "$@" >"$T/$_n.set.out" 2>"$T/$_n.set.err"
	_ss=$?
	[ -z "${KEEP:-}" ] || [ ! -e "$KEEP" ] || cp -R "$KEEP" "$T/kept.set"
	if [ "$_ns" != "$_w" ]; then
		fail "$_n: natively, exit status $_w" "exit status $_ns" \
			"stdout: $(head -c 2000 "$T/$_n.native.out")" \
			"stderr: $(head -c 2000 "$T/$_n.native.err")"
	else
		pass "$_n: natively, exit status $_w"
	fi
	if [ "$_ss" = "$_ns" ]; then
		pass "$_n: in set {$CPU}, the same exit status ($_ns)"
	else
		fail "$_n: in set {$CPU}, the same exit status" "got $_ss, natively $_ns" \
			"stdout: $(head -c 2000 "$T/$_n.set.out")" \
			"stderr: $(head -c 2000 "$T/$_n.set.err")"
	fi
	for _f in out err; do
		$_flt <"$T/$_n.native.$_f" >"$T/$_n.native.$_f.cmp"
		$_flt <"$T/$_n.set.$_f" >"$T/$_n.set.$_f.cmp"
		if cmp -s "$T/$_n.native.$_f.cmp" "$T/$_n.set.$_f.cmp"; then
			pass "$_n: in set {$CPU}, the same std$_f"
		else
			fail "$_n: in set {$CPU}, the same std$_f" "native (-) against the set's (+):" \
				"$(diff -u "$T/$_n.native.$_f.cmp" "$T/$_n.set.$_f.cmp" | tail -n +3 | head -n 40)"
		fi
	done
}

# in_cpu_out CMD...: CMD's stdout in the set (its stderr in $T/err)
in_cpu_out() {
	in_cpu "$@" 2>"$T/err"
}

# ---- cargo: a crate with no dependencies ----
cargo_checks() {
	note "---- cargo ($(cargo --version 2>&1), $(rustc --version 2>&1)) ----"
	C=$T/crate
	mkdir -p "$C/src"
	cat >"$C/Cargo.toml" <<'EOF'
[package]
name = "hello"
version = "0.1.0"
edition = "2021"

[dependencies]
EOF
	cat >"$C/src/main.rs" <<'EOF'
fn main() {
    if std::env::args().nth(1).as_deref() == Some("cpus") {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
        println!("available_parallelism {}", n);
        return;
    }
    // a failed lookup: std probes statx with a NULL path after it
    let missing = std::fs::metadata("/nonexistent/file").is_err();
    println!("hello from rust, missing file: {}", missing);
}
EOF
	cd "$C" || die "cd $C"
	KEEP=$C/target/debug/hello
	both "cargo build" 0 no_times "rm -rf '$C/target' '$C/Cargo.lock'" cargo build --offline
	same_built "cargo build: the binary built in the set is the native build's"
	KEEP=
	both "cargo run" 0 no_times ":" cargo run --offline -q
	expect_eq "cargo run: the program's output" "$(cat "$T/cargo run.set.out")" \
		"hello from rust, missing file: true"
	expect_eq "rust: std::thread::available_parallelism in set {$CPU}" \
		"$(in_cpu_out "$C/target/debug/hello" cpus)" "available_parallelism 1"
}
if [ -n "$SAN_PRELOAD" ]; then
	# (ASan's runtime alone, without the shim, does the same)
	skip "cargo build and cargo run in set {$CPU}" \
		"a sanitizer build: with ASan's runtime preloaded cargo hangs at its exit (libp11-kit's destructor waits in freelocale for glibc's locale lock) and rustc stops at an alloc-dealloc mismatch of its LLVM"
else
	cargo_checks
fi

# ---- go build, go run ----
note "---- go ($(go version 2>&1)) ----"
G=$T/gomod
mkdir -p "$G"
cat >"$G/go.mod" <<'EOF'
module example.com/hello

go 1.19
EOF
cat >"$G/main.go" <<'EOF'
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// the kernel's mask of this thread, by a raw system call as Go's runtime
// asks it
func kernelCPUs() string {
	var mask [16]uint64
	r, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0,
		uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0])))
	if e != 0 {
		return "error " + e.Error()
	}
	list := ""
	for i := 0; i < int(r)*8; i++ {
		if mask[i/64]>>(uint(i)%64)&1 != 0 {
			if list != "" {
				list += ","
			}
			list += fmt.Sprint(i)
		}
	}
	return list
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "cpus" {
		fmt.Printf("NumCPU %d GOMAXPROCS %d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
		fmt.Printf("kernel %s\n", kernelCPUs())
		return
	}
	fmt.Println("hello from go")
}
EOF
cd "$G" || die "cd $G"
# an empty cache for each run, so that the set's build is a build
GOCACHE=$T/gocache
export GOCACHE
KEEP=$T/go-hello
both "go build" 0 as_is "rm -rf '$T/gocache' '$KEEP'" go build -o "$KEEP" .
same_built "go build: the binary built in the set is the native build's"
KEEP=
both "go run" 0 as_is "rm -rf '$T/gocache'" go run .
expect_eq "go run: the program's output" "$(cat "$T/go run.set.out")" "hello from go"
go_cpus=$(in_cpu_out go run . cpus)
note "go in set {$CPU}: $(echo $go_cpus)"
expect_eq "go: runtime.NumCPU and GOMAXPROCS in set {$CPU} (the kernel mask's count)" \
	"$(printf '%s\n' "$go_cpus" | head -n 1)" "NumCPU 1 GOMAXPROCS 1"
# go, and the program it builds, are Go binaries: cpuset-run supervises
# them, and their raw calls are answered in virtual CPUs
expect_eq "go: the raw mask is virtual CPU 0 (cpuset-run's supervisor)" \
	"$(printf '%s\n' "$go_cpus" | sed -n 's/^kernel //p')" "0"

# ---- javac, java ----
note "---- java ($(java -version 2>&1 | head -n 1)) ----"
J=$T/java
mkdir -p "$J"
cat >"$J/Hello.java" <<'EOF'
import java.util.stream.LongStream;

public class Hello {
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("cpus")) {
            System.out.println("availableProcessors "
                + Runtime.getRuntime().availableProcessors());
            return;
        }
        long sum = LongStream.rangeClosed(1, 1000000).parallel().sum();
        System.out.println("hello from java " + sum);
    }
}
EOF
cd "$J" || die "cd $J"
KEEP=$J/classes
both "javac" 0 as_is "rm -rf '$J/classes'" javac -d "$J/classes" Hello.java
same_built "javac: the class compiled in the set is the native one"
KEEP=
both "java" 0 as_is ":" java -cp "$J/classes" Hello
expect_eq "java: the program's output" "$(cat "$T/java.set.out")" "hello from java 500000500000"
expect_eq "java: Runtime.availableProcessors in set {$CPU}" \
	"$(in_cpu_out java -cp "$J/classes" Hello cpus)" "availableProcessors 1"

# ---- node ----
note "---- node ($(node --version 2>&1)) ----"
N=$T/node
mkdir -p "$N"
cat >"$N/hello.js" <<'EOF'
const os = require('os');
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
if (process.argv[2] === 'cpus') {
  const ap = typeof os.availableParallelism === 'function' ? os.availableParallelism() : 'none';
  console.log(`cpus ${os.cpus().length} availableParallelism ${ap}`);
} else {
  // files, and the libuv thread pool
  const f = path.join(process.argv[2], 'f');
  fs.writeFileSync(f, 'x'.repeat(1000));
  crypto.pbkdf2('secret', 'salt', 1000, 32, 'sha256', (err, key) => {
    if (err) throw err;
    console.log(`hello from node ${fs.statSync(f).size} ${key.toString('hex')}`);
  });
}
EOF
both "node" 0 as_is "rm -f '$N/f'" node "$N/hello.js" "$N"
expect_match "node: the program's output" "$(cat "$T/node.set.out")" '^hello from node 1000 [0-9a-f]{64}$'
expect_eq "node: os.cpus().length and os.availableParallelism() in set {$CPU}" \
	"$(in_cpu_out node "$N/hello.js" cpus)" "cpus 1 availableParallelism 1"

# ---- python3 -m compileall ----
note "---- python3 -m compileall ($("$PYTHON3" --version 2>&1)) ----"
P=$T/py
mkdir -p "$P/pkg/sub"
for i in 1 2 3 4 5 6; do
	printf 'def f%d(x):\n    return x * %d\n' "$i" "$i" >"$P/pkg/m$i.py"
done
printf 'import os\n' >"$P/pkg/sub/__init__.py"
# one file that does not compile: the exit status is 1 both ways
printf 'def broken(:\n' >"$P/pkg/bad.py"
cd "$P" || die "cd $P"
# -j 0: as many workers as os.cpu_count(); hashes, not times, in the pyc
KEEP=$P/pkg
both "python3 -m compileall" 1 sorted "find '$P/pkg' -name __pycache__ -exec rm -rf {} +" \
	"$PYTHON3" -m compileall -q -j 0 --invalidation-mode checked-hash pkg
expect_eq "python3 -m compileall: every file but the broken one compiled in the set" \
	"$(find "$T/kept.set" -name '*.pyc' | wc -l)" 7
same_built "python3 -m compileall: the .pyc files compiled in the set are the native ones"
KEEP=
expect_eq "python3: os.cpu_count() in set {$CPU}" \
	"$(in_cpu_out "$PYTHON3" -c 'import os; print(os.cpu_count())')" 1

# ---- cmake with ninja ----
note "---- cmake ($(cmake --version 2>&1 | head -n 1)), ninja $(ninja --version 2>&1) ----"
M=$T/cmake
mkdir -p "$M"
cat >"$M/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(hello C)
add_library(parts STATIC a.c b.c c.c)
add_executable(hello main.c)
target_link_libraries(hello parts)
EOF
printf 'int a(void) { return 1; }\n' >"$M/a.c"
printf 'int b(void) { return 2; }\n' >"$M/b.c"
printf 'int c(void) { return 3; }\n' >"$M/c.c"
printf '#include <stdio.h>\nint a(void);\nint b(void);\nint c(void);\nint main(void)\n{\n\tprintf("hello from cmake %%d\\n", a() + b() + c());\n\treturn 0;\n}\n' >"$M/main.c"
cd "$M" || die "cd $M"
both "cmake -G Ninja" 0 as_is "rm -rf '$M/build'" cmake -G Ninja -S . -B build
# ninja's status line without its counters, which follow the finishing order
NINJA_STATUS='ninja: '
export NINJA_STATUS
KEEP=$M/build/hello
both "cmake --build (ninja)" 0 sorted \
	"rm -rf '$M/build'; outside cmake -G Ninja -S . -B build >/dev/null 2>&1" \
	cmake --build build
same_built "cmake --build: the program built in the set is the native one"
expect_eq "cmake: the program's output" "$(outside "$T/kept.set")" "hello from cmake 6"
KEEP=
cat >"$T/count.cmake" <<'EOF'
include(ProcessorCount)
ProcessorCount(N)
cmake_host_system_information(RESULT L QUERY NUMBER_OF_LOGICAL_CORES)
message("ProcessorCount ${N} NUMBER_OF_LOGICAL_CORES ${L}")
EOF
in_cpu cmake -P "$T/count.cmake" >"$T/out" 2>&1
expect_eq "cmake: ProcessorCount and NUMBER_OF_LOGICAL_CORES in set {$CPU}" \
	"$(cat "$T/out")" "ProcessorCount 1 NUMBER_OF_LOGICAL_CORES 1"
# ninja's default parallelism is its guess from the CPU count: 2 for 1 CPU
expect_match "ninja: its default parallelism in set {$CPU} is the one of 1 CPU" \
	"$(in_cpu ninja -h 2>&1)" '\[default=2 on this system\]'

# ---- make -j, gcc -flto=auto ----
note "---- make -j ($(make --version 2>&1 | head -n 1)), gcc -flto=auto ($(gcc --version 2>&1 | head -n 1)) ----"
K=$T/make
mkdir -p "$K"
for i in 1 2 3 4 5 6; do
	printf 'int f%d(int x)\n{\n\treturn x + %d;\n}\n' "$i" "$i" >"$K/f$i.c"
done
{
	printf '#include <stdio.h>\n'
	for i in 1 2 3 4 5 6; do
		printf 'int f%d(int);\n' "$i"
	done
	printf 'int main(void)\n{\n\tprintf("hello from lto %%d\\n", f1(f2(f3(f4(f5(f6(0)))))));\n\treturn 0;\n}\n'
} >"$K/main.c"
printf 'OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o\nCFLAGS = -O2 -flto=auto\nhello: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' >"$K/Makefile"
cd "$K" || die "cd $K"
KEEP=$K/hello
both "make -j (gcc -flto=auto)" 0 sorted "rm -f '$K'/*.o '$K/hello'" make -j
same_built "make -j: the program built in the set is the native one"
expect_eq "make -j: the program's output" "$(outside "$T/kept.set")" "hello from lto 21"
KEEP=
# gcc -flto=auto alone (no make jobserver): its parallelism is the CPU count
KEEP=$K/hello2
both "gcc -flto=auto" 0 as_is "rm -f '$K/hello2'" gcc -O2 -flto=auto -o hello2 \
	main.o f1.o f2.o f3.o f4.o f5.o f6.o
same_built "gcc -flto=auto: the program linked in the set is the native one"
KEEP=
in_cpu gcc -O2 -flto=auto -flto-partition=max -v -o hello3 main.o f1.o f2.o f3.o f4.o \
	f5.o f6.o >"$T/out" 2>&1
expect_match "gcc -flto=auto: its LTO parallelism in set {$CPU}" \
	"$(cat "$T/out")" '^LTO parallelism level set to 1$'

# ---- git on a local repository ----
note "---- git ($(git --version 2>&1)) ----"
R=$T/repo
# (fixed names and dates above: the same commits every time)
cat >"$T/git_steps.sh" <<'EOF'
set -e
git init -q "$1"
cd "$1"
git symbolic-ref HEAD refs/heads/main
printf 'a\n' >a
git add a
git commit -q -m first
seq 1 3000 >big
git add big
git commit -m second
seq 1 3001 >big
git commit -q -a -m third
git log --stat
git gc --aggressive
git count-objects -v
git fsck
git log --oneline
EOF
cd "$T" || die "cd $T"
KEEP=$R/.git/objects/pack
both "git init, add, commit, log, gc" 0 as_is "cd '$T'; rm -rf '$R'" sh "$T/git_steps.sh" "$R"
same_built "git gc: the pack written in the set is the native one"
KEEP=
expect_match "git: the log in the set" "$(cat "$T/git init, add, commit, log, gc.set.out")" \
	'^[0-9a-f]+ third$'
# pack-objects names its thread count when it uses more than one
cd "$R" || die "cd $R"
in_cpu git pack-objects --progress --all --revs "$T/pk" </dev/null >/dev/null 2>"$T/err"
tr '\r' '\n' <"$T/err" >"$T/progress"
expect_match "git pack-objects in set {$CPU}: progress shown" "$(cat "$T/progress")" \
	'^Compressing objects: 100%'
expect_nomatch "git pack-objects in set {$CPU}: one delta thread (online_cpus 1)" \
	"$(cat "$T/progress")" 'Delta compression using up to'
if [ "$HOST_ONLN" -gt 1 ]; then
	outside git pack-objects --progress --all --revs "$T/pk" </dev/null >/dev/null 2>"$T/err"
	expect_match "git pack-objects natively: $HOST_ONLN delta threads" \
		"$(tr '\r' '\n' <"$T/err")" "^Delta compression using up to $HOST_ONLN threads"
fi

cd "$T" || die "cd $T"
expect_status "cpuset-inspect --check after the toolchains" 0 "$CPUSET_INSPECT" --check
finish
