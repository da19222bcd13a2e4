#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Privileged programs in a set: the loader ignores a preload path with a
# '/' in secure-execution mode, so a set-user-id program of another user,
# a set-group-id one of another group, or one with file capabilities
# would see the machine's numbers (doc/limits.md). cpuset-run
# never leaves it so silently: one line on stderr names the program and
# why (and, under the supervisor, that it runs without its privilege);
# a plain program, or one whose privilege is the caller's own, gets none.
# Needs root, to make a user and the privileged copies.
. "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (it makes a user and set-user-id copies)"
need useradd passwd
need setpriv util-linux
need setcap libcap2-bin
need nproc coreutils
need "$PYTHON3" python3
for d in "$B" "$B/.libs"; do
	[ "$(stat -c %A "$d" | cut -c8,10)" = "rx" ] || skip_all "the build tree ($d) is not open to other users"
done

tag=$(($$ % 100000))
u=cpsu$tag grp=cpsug$tag
at_exit "userdel $u 2>/dev/null; groupdel $grp 2>/dev/null"
groupadd "$grp" || die "groupadd failed"
useradd -M -N -g nogroup -s /bin/sh "$u" || die "useradd failed"
uid=$(id -u "$u")
at_exit "rm -rf /dev/shm/cpusetshim.$uid /dev/shm/cpusetshim.$uid.views.*"

# copies of a small program: plain, set-user-id root, set-group-id of a
# group the user is not in, with a file capability
D=$T/bin
mkdir -p "$D" && chmod 755 "$T" "$D"
for k in plain suid sgid caps; do
	cp "$(command -v nproc)" "$D/$k" || die "cp failed"
	chmod 755 "$D/$k"
done
chown root:root "$D/suid" && chmod 4755 "$D/suid"
chgrp "$grp" "$D/sgid" && chmod 2755 "$D/sgid"
setcap cap_net_raw+ep "$D/caps" || die "setcap failed"
[ "$(findmnt -n -o OPTIONS -T "$D" | grep -c nosuid)" = 0 ] ||
	skip_all "$D is on a nosuid mount, where the bits mean nothing"

as() {
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
		env -u CPUSETSHIM_TABLE HOME=/ $(san_env) "$@"
}

# said [DESC] WHAT: the last run said one line naming $D/PROG and WHAT
said() {
	expect_eq "$1: one line" "$(grep -c . "$T/err")" 1
	check "$1: names the program and why" grep -qF "cpuset-run: $2" "$T/err"
}

expect_status "a plain program" 0 as "$CPUSET_RUN" --cpus 0 "$D/plain"
expect_eq "a plain program: not a word" "$(cat "$T/err")" ""
expect_status "set-user-id" 0 as "$CPUSET_RUN" --cpus 0 "$D/suid"
said "set-user-id" "$D/suid is set-user-id: the loader does not preload the shim into it, so it runs on the set's CPUs but sees the machine's numbers"
expect_status "set-group-id" 0 as "$CPUSET_RUN" --cpus 0 "$D/sgid"
said "set-group-id" "$D/sgid is set-group-id: the loader does not preload the shim"
expect_status "file capabilities" 0 as "$CPUSET_RUN" --cpus 0 "$D/caps"
said "file capabilities" "$D/caps is given file capabilities: the loader does not preload the shim"
expect_status "found through PATH" 0 as env PATH="$D:$PATH" "$CPUSET_RUN" --cpus 0 suid
said "found through PATH" "$D/suid is set-user-id"
expect_status "in an existing set" 0 as sh -c 'id=$("$1" create --cpus 0) && "$2" --set "$id" "$3"' - \
	"$CPUSET" "$CPUSET_RUN" "$D/suid"
said "in an existing set" "$D/suid is set-user-id"
expect_status "supervised" 0 as "$CPUSET_RUN" --cpus 0 --supervise "$D/suid"
said "supervised" "$D/suid is set-user-id: under the supervisor (no_new_privs) it runs in the set without its privilege"
# root running the set-user-id root copy: the loader is not in secure
# mode (its ids do not change), and the shim is there
expect_status "root's own set-user-id program" 0 with_san "$CPUSET_RUN" --cpus 1 "$D/suid"
expect_eq "root's own: not a word" "$(cat "$T/err")" ""
expect_eq "root's own: the shim answers" "$(cat "$T/out")" 1

# a process's own name in a message to root: root with the user's table
# may move only the user's processes; the refusal names the process, its
# name (set by itself, any bytes) escaped
"$PYTHON3" -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x1b]0;x\x07\x1b[2J", 0, 0, 0)
time.sleep(600)' &
renamed=$!
at_exit 'kill $renamed 2>/dev/null'
for _ in $(seq 600); do
	grep -q x "/proc/$renamed/comm" 2>/dev/null && break
	sleep 0.1
done
expect_status "the user's set" 0 as "$CPUSET" create --cpus 0 --name uset
expect_status "root may not move its own process with the user's table" 1 \
	env -u CPUSETSHIM_TABLE "$CPUSET" --table "cpusetshim.$uid" --table-owner "$u" attach uset $renamed
cp "$T/err" "$T/e"
check "the refusal names it, escaped" grep -qF "$renamed (\\033]0;x\\007\\033[2J) is not of uid $uid" "$T/e"
expect_eq "no control byte in it" "$(tr -d '\n' <"$T/e" | tr -d '[:print:]' | wc -c)" 0
finish
