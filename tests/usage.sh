#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every tool's usage line names every option its --help lists: each
# option described in the help (a line starting with it) appears in the
# "Usage:" lines at its top.
. "$(dirname "$0")/common.sh"
for tool in "$CPUSET" "$CPUSET_RUN" "$CPUSET_INSPECT"; do
	name=$(basename "$tool")
	"$tool" --help >"$T/help" 2>&1 || { fail "$name --help exits 0"; continue; }
	# the usage block: from "Usage:" to the first empty line
	awk '/^Usage:/ { on = 1 } on && /^$/ { exit } on' "$T/help" >"$T/usage"
	[ -s "$T/usage" ] || { fail "$name --help starts with a usage line"; continue; }
	# the options described: "  --opt", "  -x, --opt", "  -d SECONDS"
	sed -n 's/^  \(-[a-zA-Z]\), \(--[a-z-]*\).*/\2/p; s/^  \(--[a-z-]*\).*/\1/p; s/^  \(-[a-zA-Z]\) [A-Z].*/\1/p' \
		"$T/help" | sort -u >"$T/opts"
	[ -s "$T/opts" ] || { fail "$name --help lists options"; continue; }
	missing=
	while read -r o; do
		case $o in --help | --version) continue ;; esac
		grep -q -- "$o\\b" "$T/usage" || missing="$missing $o"
	done <"$T/opts"
	expect_eq "$name: its usage line names every option ($(tr '\n' ' ' <"$T/opts"))" "${missing# }" ""
done
finish
