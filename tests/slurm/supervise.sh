#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin's supervisor on a private one-node Slurm cluster: a
# static program (gcc -static) and a Go program (go build, when golang-go
# is here) in a task see the task's CPUs as 0..n-1 (counts, affinity,
# /proc/cpuinfo, /proc/stat, status, online), each compared with the
# kernel's truth read outside the program (its /proc status, Slurm's
# binding); the automatic choice and --cpusetshim=supervise|preload|off;
# the program's exit status; the supervisor killed ends the task's tree;
# chroot into an image as the task (a container runtime: its tree
# supervised, a dynamic, a static glibc, a static musl and a Go program
# of the image, the kernel's mask read outside); runc run on an OCI
# bundle of the image as the task.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
need gcc gcc
P=$T/prog_static
gcc -O2 -static -pthread -o "$P" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
	skip_all "gcc -static cannot link here (libc6-dev's static libc): $(head -1 "$T/cc.err")"
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"

# field NAME LINE: the word after NAME in a line
field() { echo "$2" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }
# after NAME, N words
words() { echo "$2" | sed -n "s/.* $1 \(.*\)/\1/p" | cut -d' ' -f1-"$3"; }
# Slurm's binding of task T, from --cpu-bind=verbose in FILE, as a list
bound() {
	_m=$(sed -n "s/.*task *$1 *[0-9]* \[[0-9]*\]: mask \(0x[0-9a-fA-F]*\) set.*/\1/p" "$2" | head -n 1)
	[ -n "$_m" ] && /usr/bin/python3 -c "import sys; m=int(sys.argv[1],16); print(','.join(str(i) for i in range(m.bit_length()) if m>>i&1))" "$_m"
}
# vrange N: "0" or "0-(N-1)", as the kernel writes a list of N CPUs
vrange() { [ "$1" -eq 1 ] && echo 0 || echo "0-$(($1 - 1))"; }
count() { echo "$1" | tr , '\n' | grep -c .; }

# run_held N SRUN-ARGS... PROG: srun PROG held $T/go with --label, until
# its N lines are there
run_held() {
	_n=$1
	shift
	sl_held "$_n" ' pid ' --label --cpu-bind=verbose "$@" held "$T/go"
}

# ---- a static program, automatically supervised: srun -n2 -c1 ----
run_held 2 -n2 -c1 "$P"
for t in 0 1; do
	l=$(grep "^ *$t: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
	pid=$(field pid "$l")
	# the kernel's truth, read outside the program: its mask, and Slurm's
	# binding of the task
	real=$(expand "$(real_cpus "$pid")")
	expect_eq "static, -n2 -c1 task $t: its real CPUs (outside) are Slurm's binding" "$real" \
		"$(bound $t "$T/held.err")"
	n=$(count "$real")
	expect_eq "static, -n2 -c1 task $t: ONLN CONF get_nprocs and the raw affinity" \
		"$(words counts "$l" 4)" "$n $n $n $(seq -s, 0 $((n - 1)))"
	expect_eq "static, -n2 -c1 task $t: cpuinfo's processors, stat's cpuN, status, online" \
		"$(words files "$l" 4)" "$n $n $(vrange "$n") $(vrange "$n")"
	expect_match "static, -n2 -c1 task $t: the program runs under a seccomp filter" \
		"$(grep '^Seccomp:' "/proc/$pid/status")" '^Seccomp:[[:space:]]+2$'
done
release
expect_eq "static, -n2 -c1: srun exit" "$held_rc" 0
check_clean "static -n2 -c1"

# -c2: two CPUs, 0,1
out=$(sl srun -n1 -c2 "$P" counts)
expect_eq "static, -c2: counts and affinity" "$out" "2 2 2 0,1"
out=$(sl srun -n1 -c2 "$P" files | tr '\n' ' ')
expect_eq "static, -c2: cpuinfo, stat, status, online" "$out" "2 2 0-1 0-1 "
# map_cpu:1 on a two-CPU allocation: real CPU 1 (outside), seen 0
run_held 1 -n1 -c2 --cpu-bind=map_cpu:1 "$P"
l=$(grep "^ *0: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
expect_eq "static, map_cpu:1: its real CPU (outside)" "$(real_cpus "$(field pid "$l")")" 1
expect_eq "static, map_cpu:1: counts" "$(words counts "$l" 4)" "1 1 1 0"
expect_eq "static, map_cpu:1: files" "$(words files "$l" 4)" "1 1 0 0"
release
check_clean "static map_cpu:1"

# ---- the program's exit status is the task's ----
expect_status "static: the program's exit status is srun's" 2 sl srun -n1 -c1 "$P"

# ---- the supervisor killed: the task's tree ends ----
run_held 1 -n1 -c1 "$P"
l=$(grep "^ *0: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
pid=$(field pid "$l")
# the task's process, which Slurm started and waits for: the supervisor
sup=$(sed -n 's/.*task *0 *[0-9]* \[\([0-9]*\)\]: mask.*/\1/p' "$T/held.err" | head -n 1)
expect_ne "supervisor: the program is not the task's process" "$pid" "$sup"
expect_eq "supervisor: the task's process is the supervisor, outside the filter" \
	"$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$sup/status")" 0
kill -9 "$sup"
i=0
while [ -d "/proc/$pid" ] && [ $i -lt 2400 ]; do
	sleep 0.05
	i=$((i + 1))
done
expect_eq "supervisor killed: the program is gone (without its hold file)" \
	"$(ls -d "/proc/$pid" 2>/dev/null)" ""
sl_wait "$held_pid"
expect_ne "supervisor killed: srun reports a failure" "$?" 0
rm -f "$T/go"
check_clean "supervisor killed"

# ---- a batch job: its script (dash: the preload) runs a static program,
# and srun runs it as a step (supervised by the choice); with
# --cpusetshim=supervise the script is supervised too, and its children ----
printf '#!/bin/sh\n"%s" counts\nsrun -n1 -c1 "%s" counts\n' "$P" "$P" >"$T/batch.sh"
expect_status "sbatch --wait: the job" 0 sl sbatch --wait -n1 -c1 -o "$T/batch.out" "$T/batch.sh"
expect_eq "sbatch: a static program in its step is supervised" "$(sed -n 2p "$T/batch.out")" "1 1 1 0"
expect_status "sbatch --wait --cpusetshim=supervise: the job" 0 \
	sl sbatch --wait --cpusetshim=supervise -n1 -c1 -o "$T/batch.out" "$T/batch.sh"
expect_eq "sbatch --cpusetshim=supervise: the script's static child and the step's program" \
	"$(cat "$T/batch.out")" "$(printf '1 1 1 0\n1 1 1 0')"
check_clean "batch"

# ---- the options ----
out=$(sl srun -n1 -c1 sh -c 'grep "^Seccomp:" /proc/self/status; echo "[$CPUSETSHIM_SUPERVISED]"' | tr -s '\t\n' '  ')
expect_eq "auto, a dynamic program: no filter" "$out" "Seccomp: 0 [] "
expect_match "auto, a dynamic program: the preload" "$(sl srun -n1 -c1 sh -c 'echo "$LD_PRELOAD"')" libcpusetshim
out=$(sl srun -n1 -c1 --cpusetshim=supervise sh -c 'grep "^Seccomp:" /proc/self/status; echo "[$CPUSETSHIM_SUPERVISED]"' | tr -s '\t\n' '  ')
expect_eq "--cpusetshim=supervise, a dynamic program: the filter, files mode" "$out" "Seccomp: 2 [files] "
out=$(sl srun -n1 -c1 --cpusetshim=supervise=calls "$P" files | head -n 1 | cut -d' ' -f1)
expect_eq "--cpusetshim=supervise=calls: cpuinfo is the kernel's" "$out" "$NCPU"
out=$(sl srun -n1 -c1 --cpusetshim=supervise=calls "$P" counts | cut -d' ' -f4)
expect_eq "--cpusetshim=supervise=calls: the affinity is virtual" "$out" 0
run_held 1 -n1 -c2 --cpu-bind=map_cpu:1 --cpusetshim=preload "$P"
l=$(grep "^ *0: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
expect_eq "--cpusetshim=preload, static: the machine's counts, the real CPU, no filter" \
	"$(words counts "$l" 4) $(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$(field pid "$l")/status")" \
	"$NCPU $NCPU $NCPU 1 0"
release
run_held 1 -n1 -c2 --cpu-bind=map_cpu:1 --cpusetshim=off "$P"
l=$(grep "^ *0: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
pid=$(field pid "$l")
expect_eq "--cpusetshim=off, static: the machine's counts and its real CPU" \
	"$(words counts "$l" 4)" "$NCPU $NCPU $NCPU $(real_cpus "$pid")"
expect_eq "--cpusetshim=off, static: the machine's cpuinfo and stat" \
	"$(words files "$l" 2)" "$(grep -c ^processor /proc/cpuinfo) $(grep -c '^cpu[0-9]' /proc/stat)"
expect_eq "--cpusetshim=off: no filter" "$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$pid/status")" 0
release
out=$(sl srun -n1 -c1 --cpusetshim=off sh -c 'echo "[$CPUSETSHIM_SUPERVISED][$CPUSETSHIM_RUN_SET]"')
expect_eq "--cpusetshim=off: nothing of the supervisor in the environment" "$out" "[][]"
expect_status "--cpusetshim=bogus refused" 255 sl srun -n1 --cpusetshim=bogus true
expect_stderr "--cpusetshim=bogus says what it takes" "on, off, preload, supervise or supervise=calls"
check_clean "options"

# ---- a container runtime as the task: its whole tree supervised ----
# an image of the static busybox, a dynamic glibc program with its loader
# and libraries, and the static one; the task runs chroot into it
IMG=$T/img
mkdir -p "$IMG/bin"
if command -v busybox >/dev/null && file -L "$(command -v busybox)" | grep -q 'statically linked'; then
	cp "$(command -v busybox)" "$IMG/bin/busybox"
	ln -s busybox "$IMG/bin/sh"
	gcc -O2 -pthread -o "$IMG/bin/dyn" "$SRC/tests/integration/prog_supervised.c" || die "gcc"
	cp "$P" "$IMG/bin/st"
	progs="dyn st"
	if command -v musl-gcc >/dev/null 2>&1; then
		musl-gcc -O2 -static -pthread -o "$IMG/bin/musl" "$SRC/tests/integration/prog_supervised.c" ||
			die "musl-gcc cannot build"
		progs="$progs musl"
	else
		skip "a static musl program as the task" "needs musl-gcc (Debian package musl-tools; sh scripts/deps.sh installs it)"
	fi
	for l in $(ldd "$IMG/bin/dyn" | grep -o '/[^ ]*'); do
		mkdir -p "$IMG$(dirname "$l")"
		cp -L "$l" "$IMG$l"
	done
	for p in $progs; do
		# the kernel's truth, read outside the image: the program held
		# in the task (it waits for /go_on of the image)
		rm -f "$IMG/go_on"
		sl_held 1 ' pid ' --label --cpu-bind=verbose -n1 -c1 chroot "$IMG" /bin/$p held /go_on
		l=$(grep "^ *0: pid " "$T/held.out" | sed 's/^ *[0-9]*: */x /')
		pid=$(field pid "$l")
		real=$(expand "$(real_cpus "$pid")")
		expect_eq "chroot $p as the task, -c1: its real CPU (outside) is Slurm's binding" "$real" \
			"$(bound 0 "$T/held.err")"
		expect_eq "chroot $p as the task, -c1, held: counts, files" \
			"$(words counts "$l" 4) $(words files "$l" 4)" "1 1 1 0 1 1 0 0"
		touch "$IMG/go_on"
		release
		rm -f "$IMG/go_on"
		sl srun -n1 -c1 chroot "$IMG" /bin/$p counts >"$T/out" 2>"$T/err"
		expect_eq "chroot $p as the task, -c1: ONLN CONF nprocs raw affinity" "$(cat "$T/out")" "1 1 1 0"
		# (a sanitizer build's tests preload its runtimes too, which the
		# image lacks: ld.so's words about them are the harness's)
		expect_nomatch "chroot $p as the task: no ld.so text" \
			"$(grep -v -e '/libasan\.so' -e '/libubsan\.so' "$T/err")" "ld\.so|cannot be preloaded"
		expect_eq "chroot $p as the task, -c2: cpuinfo, stat, status, online" \
			"$(sl srun -n1 -c2 chroot "$IMG" /bin/$p files | tr '\n' ' ')" "2 2 0-1 0-1 "
	done
	# runc run directly on an OCI bundle of the image as the task (as
	# root, whom the cluster runs tasks as): its tree supervised too
	if command -v runc >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		mkdir -p "$T/bundle"
		(cd "$T/bundle" && runc spec && mv config.json config.spec) || die "runc spec failed"
		for p in $progs; do
			for c in 1 2; do
				"$PYTHON3" - "$T/bundle" "$IMG" "/bin/$p" <<-'PY'
					import json, sys
					c = json.load(open(sys.argv[1] + "/config.spec"))
					c["process"]["terminal"] = False
					c["process"]["args"] = [sys.argv[3], "counts"]
					c["root"] = {"path": sys.argv[2], "readonly": True}
					json.dump(c, open(sys.argv[1] + "/config.json", "w"))
				PY
				expect_eq "runc $p as the task, -c$c: ONLN CONF nprocs raw affinity" \
					"$(sl srun -n1 -c$c runc run --bundle "$T/bundle" "cps-slurm-$$-$p-$c" 2>"$T/err")" \
					"$c $c $c $(seq -s, 0 $((c - 1)))"
			done
		done
	else
		skip "runc as the task" "needs runc (Debian package runc) and root"
	fi
	check_clean "container runtime"
else
	skip "a container runtime as the task" "needs a static busybox (Debian package busybox-static)"
fi

# ---- Go ----
if command -v go >/dev/null 2>&1; then
	cp "$SRC/tests/integration/prog_supervised.go" "$T/"
	if (cd "$T" && GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= \
		CGO_ENABLED=0 go build -o go_static prog_supervised.go) 2>"$T/go.err"; then
		G=$T/go_static
		out=$(sl srun --label --cpu-bind=verbose -n2 -c1 "$G" counts 2>"$T/go.bind")
		for t in 0 1; do
			n=$(count "$(bound $t "$T/go.bind")")
			expect_eq "Go, -n2 -c1 task $t: NumCPU GOMAXPROCS raw affinity (Slurm bound $n)" \
				"$(echo "$out" | sed -n "s/^ *$t: //p")" "$n $n $(seq -s, 0 $((n - 1)))"
		done
		out=$(sl srun --label --cpu-bind=verbose -n2 -c1 "$G" files 2>"$T/go.bind")
		for t in 0 1; do
			n=$(count "$(bound $t "$T/go.bind")")
			expect_eq "Go, -n2 -c1 task $t: cpuinfo, stat, status, online" \
				"$(echo "$out" | sed -n "s/^ *$t: //p")" "$n $n $(vrange "$n") $(vrange "$n")"
		done
		expect_eq "Go, -c2: NumCPU GOMAXPROCS raw affinity" "$(sl srun -n1 -c2 "$G" counts)" "2 2 0,1"
		# in an image, chroot as the task
		if [ -x "$IMG/bin/busybox" ]; then
			cp "$G" "$IMG/bin/go"
			expect_eq "chroot go as the task, -c1: NumCPU GOMAXPROCS raw affinity" \
				"$(sl srun -n1 -c1 chroot "$IMG" /bin/go counts)" "1 1 0"
			expect_eq "chroot go as the task, -c2: cpuinfo, stat, status, online" \
				"$(sl srun -n1 -c2 chroot "$IMG" /bin/go files)" "2 2 0-1 0-1"
		fi
		expect_eq "Go, --cpusetshim=off: the machine's cpuinfo" \
			"$(sl srun -n1 -c1 --cpusetshim=off "$G" files | cut -d' ' -f1)" \
			"$(grep -c ^processor /proc/cpuinfo)"
		check_clean "Go"
	else
		skip "Go programs in a task" "go build fails here: $(head -1 "$T/go.err")"
	fi
else
	skip "Go programs in a task" "needs go (Debian package golang-go; sh scripts/deps.sh installs it)"
fi

finish
