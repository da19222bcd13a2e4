#!/bin/sh
# cpuset-run: exit codes like env's (127 not found, 126 not executable,
# 1 set refused, 125 its own trouble, else the program's), --set by name
# and id, --cpus beyond the machine, and autoclean sets made by --cpus,
# gone after the program (or when it could not start) and a write.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need nproc coreutils
need getconf libc-bin
REAL_CONF=$(outside getconf _NPROCESSORS_CONF)
two_sets

note "---- cpuset-run ----"
printf '#!/bin/sh\ntrue\n' >"$T/noexec"
chmod 644 "$T/noexec"
expect_status "cpuset-run: a missing program (path)" 127 \
	"$CPUSET_RUN" --set "$S1" "$T/no/such/program"
expect_status "cpuset-run: a missing program (PATH search)" 127 \
	"$CPUSET_RUN" --set "$S1" cpusetshim-itest-no-such-program
expect_status "cpuset-run: a file that is not executable" 126 \
	"$CPUSET_RUN" --set "$S1" "$T/noexec"
expect_eq "cpuset-run --set NAME" "$(in_set itest-one nproc)" 1
expect_status "cpuset-run --set nosuch" 1 "$CPUSET_RUN" --set nosuch true
expect_status "cpuset-run --set 9999 (no such id)" 1 "$CPUSET_RUN" --set 9999 true
beyond=$((REAL_CONF + 3))
expect_status "cpuset-run --cpus $beyond on a $REAL_CONF-CPU machine" 1 \
	"$CPUSET_RUN" --cpus "$beyond" true
expect_status "cpuset-run with no program" 125 "$CPUSET_RUN" --set "$S1"
expect_status "cpuset-run --no-such-option" 125 "$CPUSET_RUN" --no-such-option true
expect_status "cpuset-run --set and --cpus together" 125 \
	"$CPUSET_RUN" --set "$S1" --cpus 1 true
expect_status "cpuset-run: the program's own exit status" 42 \
	with_san "$CPUSET_RUN" --set "$S1" sh -c 'exit 42'

note "---- cpuset-run --cpus: an autoclean set ----"
inside=$(with_san timeout 120 "$CPUSET_RUN" --cpus 1 --name itest-auto sh -c "nproc; \"$CPUSET\" list")
note "$inside"
expect_eq "cpuset-run --cpus 1: nproc inside" "$(printf '%s\n' "$inside" | head -n 1)" 1
expect_match "cpuset-run --cpus 1: the set exists while it runs, autoclean" "$inside" \
	'itest-auto +autoclean'
expect_status "cpuset-run --cpus 1 with a missing program" 127 \
	"$CPUSET_RUN" --cpus 1 --name itest-noexec "$T/no/such/program"
expect_status "cpuset sweep" 0 "$CPUSET" sweep
after=$("$CPUSET" list)
note "$after"
expect_nomatch "cpuset-run --cpus 1: the set is gone after the program and a write" \
	"$after" 'itest-auto'
expect_nomatch "cpuset-run --cpus 1: the set is gone when the program could not start" \
	"$after" 'itest-noexec'
expect_status "cpuset-inspect --check after everything" 0 "$CPUSET_INSPECT" --check

finish
