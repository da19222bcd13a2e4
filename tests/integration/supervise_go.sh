#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Go programs (their system calls go around libc and the preload) under
# cpuset-run's supervisor, built static (CGO_ENABLED=0) and dynamic (cgo,
# external linking): counts, the views, affinity both ways, threads and
# os/exec children, in sets {1} and {0,1} and nested, each compared with
# the kernel's truth read outside the program. Slow: two go builds.
. "$(dirname "$0")/../common.sh"

need go golang-go
need taskset util-linux
cp "$SRC/tests/integration/prog_supervised.go" "$T/"
export GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
(cd "$T" && CGO_ENABLED=0 go build -o go_static prog_supervised.go) 2>"$T/go.err" ||
	skip_all "go build fails here: $(head -1 "$T/go.err")"
kinds=go_static
if (cd "$T" && CGO_ENABLED=1 go build -ldflags=-linkmode=external -o go_dyn prog_supervised.go) 2>"$T/go.err"; then
	kinds="go_static go_dyn"
else
	note "no cgo build here: $(head -1 "$T/go.err")"
fi
two_sets

for k in $kinds; do
	G=$T/$k
	with_san env CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set "$S1" "$G" counts >/dev/null 2>"$T/err"
	expect_match "$k: chosen for supervision as a Go binary" "$(cat "$T/err")" "Go binary: supervised"
	out=$(with_san "$CPUSET_RUN" --no-supervise --set "$S1" "$G" files | cut -d' ' -f1,2,4)
	expect_eq "$k: unsupervised, it reads the machine's cpuinfo, stat, online" "$out" \
		"$(outside "$G" files | cut -d' ' -f1,2,4)"
	per_set() {
		vlist=$(seq -s, 0 $((n - 1)))
		expect_eq "$k, $t: NumCPU GOMAXPROCS raw affinity" "$(with_san "$CPUSET_RUN" --set "$s" "$G" counts)" \
			"$n $n $vlist"
		expect_eq "$k, $t: cpuinfo, stat, status, online" "$(with_san "$CPUSET_RUN" --set "$s" "$G" files)" \
			"$n $n $vrange $vrange"
		expect_eq "$k, $t: goroutines on their own threads" \
			"$(with_san "$CPUSET_RUN" --set "$s" "$G" threads 6)" "$vlist"
		expect_eq "$k, $t: an os/exec child's counts" "$(with_san "$CPUSET_RUN" --set "$s" "$G" exec counts)" \
			"$n $n $vlist"
		expect_eq "$k, $t: an os/exec child's files" "$(with_san "$CPUSET_RUN" --set "$s" "$G" exec files)" \
			"$n $n $vrange $vrange"
		for v in $(seq 0 $((n - 1))); do
			mkfifo "$T/fifo.$k.$s.$v"
			with_san "$CPUSET_RUN" --set "$s" "$G" bind "$v" <"$T/fifo.$k.$s.$v" >"$T/bind" 2>&1 &
			bg=$!
			exec 9>"$T/fifo.$k.$s.$v"
			wait_until [ -s "$T/bind" ]
			set -- $(cat "$T/bind")
			want=$(echo "$phys" | cut -d' ' -f$((v + 1)))
			expect_eq "$k, $t: a thread bound to virtual $v says $v" "$1 ${4-}" "ok $v"
			expect_eq "$k, $t: and the kernel has it on $want" \
				"$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/${2-0}/task/${3-0}/status")" "$want"
			echo >&9
			exec 9>&-
			wait $bg
		done
	}
	each_set per_set
	out=$(with_san "$CPUSET_RUN" --set "$S2" "$CPUSET_RUN" --cpus 1 "$G" exec counts)
	expect_eq "$k: nested cpuset-run --cpus 1 in a supervised {0,1}: one numbering" "$out" "1 1 0"
done
finish
