#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Command-line input of the tools: process ids are
# decimal only ("010" is ten, never eight; "0x10" is no number), 0 is no
# process id, a thread id is refused naming its process, and a set name
# that starts with a digit (but is not all digits) names its set
# everywhere.
. "$(dirname "$0")/common.sh"

"$CPUSET" create --cpus 0 --name s >/dev/null
sleep 600 &
p=$!
at_exit 'kill $p $tp 2>/dev/null'

# decimal: a leading zero does not make octal (and 8 or 9 would make no
# octal number at all)
expect_status "attach 0PID" 0 "$CPUSET" attach s "0$p"
expect_eq "0PID is PID, in decimal" "$("$CPUSET" which $p)" "2 s"
expect_eq "0PID moved PID" "$(real_cpus $p)" "0"
expect_status "attach 0xPID" 2 "$CPUSET" attach s "0x$p"
expect_stderr "0x is no process id" "is not a process id"
expect_status "attach +PID" 2 "$CPUSET" attach s "+$p"
expect_status "which 0PID" 0 "$CPUSET" which "00$p"
expect_eq "which 00PID" "$(cat "$T/out")" "2 s"
expect_status "init --max-sets 0x10" 2 "$CPUSET" init --force --max-sets 0x10
expect_stderr "0x10 is no number" "'0x10' is not a number"
# a number too large is said to be too large, not no number
for opt in --max-sets --max-procs --max-threads --mask-bits; do
	expect_status "init $opt 4294967295" 2 "$CPUSET" init --force $opt 4294967295
	expect_stderr "init $opt 4294967295: too large, with the bound" "$opt 4294967295 is too large (at most "
done
expect_status "init --max-sets 18446744073709551616" 2 "$CPUSET" init --force --max-sets 18446744073709551616
expect_stderr "beyond any integer: too large too" "is too large"
expect_status "init --mode 0640 stays octal" 0 "$CPUSET" --table "$CPUSETSHIM_TABLE.m" init --mode 0640
expect_eq "mode 0640" "$(stat -c %a /dev/shm/$CPUSETSHIM_TABLE.m)" "640"
rm -f /dev/shm/$CPUSETSHIM_TABLE.m
expect_status "init --mode 0680" 2 "$CPUSET" --table "$CPUSETSHIM_TABLE.m" init --mode 0680

# 0 would be the tool itself, gone when it returns
expect_status "attach s 0" 2 "$CPUSET" attach s 0
expect_stderr "attach 0 says why" "'0' is not a process id"
expect_status "which 0" 2 "$CPUSET" which 0

# a thread id: refused, naming the process to attach instead
"$B/tests/bench/bench_threads" 3 "$T/ready" &
tp=$!
wait_until [ -e "$T/ready" ]
tid=$(ls /proc/$tp/task | grep -vx "$tp" | head -1)
expect_ne "a second thread in $tp" "${tid:-$tp}" "$tp"
before=$(real_cpus $tid)
expect_status "attach a thread id" 1 "$CPUSET" attach s "$tid"
expect_stderr "thread id refused, naming its process" "thread of process $tp"
expect_eq "the thread was not moved" "$(real_cpus $tid)" "$before"
expect_eq "no record of the thread id" "$("$CPUSET" --json show s | $PYTHON3 -c 'import json,sys; print(sorted(m["pid"] for m in json.load(sys.stdin)["members"]))')" "[$p]"
expect_status "its process attaches" 0 "$CPUSET" attach s "$tp"
expect_eq "every thread moved" "$(cat /proc/$tp/task/*/status | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' | sort -u)" "0"

# a name with a leading digit: made, then named again by every command
expect_status "create 1abc" 0 "$CPUSET" create --cpus 0 --name 1abc
id=$(cat "$T/out")
expect_status "show 1abc" 0 "$CPUSET" show 1abc
expect_eq "show 1abc is that set" "$(sed -n 's/^id: *//p' "$T/out")" "$id"
expect_status "alloc 1abc" 0 "$CPUSET" alloc 1abc 0
expect_status "create --parent 1abc" 0 "$CPUSET" create --parent 1abc --cpus 0 --name 2nd
expect_status "destroy 2nd" 0 "$CPUSET" destroy 2nd
expect_status "destroy 1abc" 0 "$CPUSET" destroy 1abc
expect_status "an all-digit name is bad usage" 2 "$CPUSET" create --cpus 0 --name 123
expect_status "an id still names its set" 0 "$CPUSET" show 2
expect_status "no set 99" 1 "$CPUSET" show 99
expect_status "no set named a-b" 1 "$CPUSET" show a-b
finish
