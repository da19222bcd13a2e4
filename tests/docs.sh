#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Documents that cannot drift from the code: each check names what is
# missing and where it goes.
# - every test registered in the build (make's TESTS) has one row of
#   tests/README.md's tables, and every test a row names is registered;
# - every registered test (TESTS, SLOW_TESTS) is a file git holds
#   executable (mode 100755: the driver runs it as it is) or a program
#   make check builds;
# - every source file of base/, include/, shm/, src/, preload/, supervise/,
#   tools/ and slurm/ is named in DESIGN.md's file map (the block under "Layers"); a
#   header X.h is covered by its X.c;
# - DESIGN.md stays a map (at most 600 lines); it links every page of doc/
#   and each page exists; Makefile.am ships each page; every file name in
#   DESIGN.md and the pages (src/x.c, tests/y.sh, man/z.1, ...) exists,
#   every link of theirs leads to a file and a heading there, and every
#   file's reference to a page (doc/x.md, "Heading") or to a chapter of
#   DESIGN.md (DESIGN.md, "Heading") names one and its heading;
# - a comment of the code that sends the reader elsewhere leads somewhere:
#   "See NAME in FILE" names something FILE has, and a comment of a .c
#   file that repeats a header's word for word stands above the same
#   function the header's does;
# - every cpuset command (tools/cpuset.c's table, and init) has its entry
#   in man/cpuset.1's COMMANDS, its line in cpuset --help, and is one of
#   tests/crash.sh's operations unless it takes no write step of the
#   table (checked here with the fault points);
# - each tool's usage line (cpuset, cpuset-run, cpuset-inspect --help)
#   names every option of the tool's option table (--help and --version
#   have lines of their own), and each cpuset command's lines in --help
#   name every option of that command's table;
# - no file cites an issue by number.
. "$(dirname "$0")/common.sh"

# verdict DESC FOUND DETAIL...: the check passes when FOUND (what is
# missing or wrong) is empty, else fails with the details
verdict() {
	_desc=$1 _found=$2
	shift 2
	if [ -z "$_found" ]; then
		pass "$_desc"
	else
		fail "$_desc" "$@"
	fi
}

# make's own TESTS, whatever TESTS this run was given (make check
# TESTS=... passes it down in MAKEFLAGS)
bmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TESTS make -s --no-print-directory -C "$B" "$@"
}

# ---- tests/README.md ----

bmake print-fast-tests >"$T/fast" 2>"$T/make.err" && bmake print-slow-tests >"$T/slow" 2>>"$T/make.err" ||
	die "make print-fast-tests / print-slow-tests failed in $B" "$(cat "$T/make.err")"
sort -u "$T/fast" "$T/slow" >"$T/fast_slow"
sed 's|^tests/||' "$T/fast_slow" | sort -u >"$T/registered"
# the names in the first column of the tables' rows (`NAME`, relative to
# tests/), one per row they appear in
# (of the tables whose first column is headed "test")
awk -F'|' '!/^\|/ { in_table = 0; next }
!in_table { in_table = 1; tests = ($2 ~ /^ *test *$/); next }
tests && $2 !~ /^ *-+ *$/ {
	n = split($2, w, "`")
	for (i = 2; i <= n; i += 2) print w[i]
}' "$SRC/tests/README.md" | sort >"$T/rows"
sort -u "$T/rows" >"$T/named"
missing=$(comm -23 "$T/registered" "$T/named")
verdict "tests/README.md has a row for every registered test ($(wc -l <"$T/registered") tests)" "$missing" \
	"registered in TESTS (tests/Makemodule.am or another Makemodule.am) but in no row of" \
	"tests/README.md's table: add a row | \`NAME\` | what it tests |, for:" \
	"$(printf '%s\n' "$missing" | sed 's/^/  /')"
stale=$(comm -13 "$T/registered" "$T/named")
verdict "every test tests/README.md's table names is registered" "$stale" \
	"named in tests/README.md's table but not in make's TESTS (renamed, removed," \
	"or a pattern: name each test):" "$(printf '%s\n' "$stale" | sed 's/^/  /')"
# ---- the registered tests' modes ----

if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	m=
	while read -r t; do
		mode=$(git -C "$SRC" ls-files -s -- "$t" | awk '{ print $1; exit }')
		case $mode in
		100755) ;;
		'')
			# not in git: a program make check builds (no extension)
			case ${t##*/} in
			*.*) m="$m
  $t: not in git (git add it, executable)" ;;
			*) [ -x "$B/$t" ] || m="$m
  $t: neither in git nor built in $B" ;;
			esac
			;;
		*) m="$m
  $t: mode $mode in git (chmod +x $t; git add $t)" ;;
		esac
	done <"$T/fast_slow"
	verdict "every registered test is executable in git or a built program ($(wc -l <"$T/fast_slow") tests)" \
		"$m" "tests make check cannot run as they are:$m"
else
	skip "every registered test is executable in git" "$SRC is no git checkout"
fi

twice=$(uniq -d "$T/rows")
verdict "tests/README.md names each test in one row only" "$twice" \
	"in two rows or more (keep one):" "$(printf '%s\n' "$twice" | sed 's/^/  /')"

# ---- DESIGN.md's file map ----

# the map: the first code block after "## Layers"; its words, split at
# blanks, commas, colons and brackets, with "x.c/.h" standing for x.c and
# x.h, and a word "dir/x.c" for that file, whatever the folder
awk '/^## Layers/ { s = 1 } s && /^```/ { if (in_map) exit; in_map = 1; next } in_map' \
	"$SRC/DESIGN.md" >"$T/map"
[ -s "$T/map" ] || die "DESIGN.md: no file map (a code block under '## Layers')"
# each line of the map belongs to the folder whose label ("src/") last
# began a line; print FOLDER/WORD for each word
awk '
/^[a-z]+\/ / { dir = substr($1, 1, length($1) - 1) }
{
	gsub(/[,:;()]/, " ")
	for (i = 1; i <= NF; i++) {
		w = $i
		if (w ~ /\.c\/\.h$/) {
			b = substr(w, 1, length(w) - 5)
			print dir "/" b ".c"; print dir "/" b ".h"
		} else if (w ~ /^[a-z]+\/[A-Za-z0-9_.-]+\.(c|h|map)$/)
			print w
		else if (w ~ /^[A-Za-z0-9_.-]+\.(c|h|map)$/)
			print dir "/" w
	}
}' "$T/map" | sort -u >"$T/mapped"
(cd "$SRC" && ls base/*.[ch] include/*.[ch] shm/*.[ch] src/*.[ch] preload/*.[ch] \
	supervise/*.[ch] tools/*.[ch] slurm/*.[ch] preload/*.map src/*.map 2>/dev/null) | sort >"$T/sources"
unmapped=
while read -r f; do
	grep -qxF "$f" "$T/mapped" && continue
	case $f in
	*.h) grep -qxF "${f%.h}.c" "$T/mapped" && continue ;;
	esac
	unmapped="$unmapped
  $f"
done <"$T/sources"
verdict "DESIGN.md's file map names every source file ($(wc -l <"$T/sources") files)" "$unmapped" \
	"not in DESIGN.md's map (the block under '## Layers'; add a line under the" \
	"file's folder saying what it holds; a header X.h goes with its X.c):$unmapped"
gone=$(comm -13 "$T/sources" "$T/mapped" | while read -r f; do
	[ -e "$SRC/$f" ] || echo "  $f"
done)
verdict "every file DESIGN.md's map names exists" "$gone" \
	"named in DESIGN.md's map but not in the tree (renamed or removed):" "$gone"

# ---- cpuset's commands ----

# the commands: tools/cpuset.c's table ({ "NAME", CPS_OPEN_... }) and init
{
	echo init
	grep -o '{ "[a-z-]*", CPS_OPEN_' "$SRC/tools/cpuset.c" | sed 's/{ "\([a-z-]*\)".*/\1/'
} | sort -u >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 5 ] || die "tools/cpuset.c: its command table was not found" "$(cat "$T/cmds")"
# man/cpuset.1: each ".TP" entry of COMMANDS starts with ".B NAME" or ".BI NAME"
awk '/^\.SH COMMANDS/ { s = 1; next } /^\.SH/ { s = 0 }
	s && prev == ".TP" && $1 ~ /^\.BI?$/ && $2 !~ /^\\/ { print $2 } { prev = $0 }' \
	"$SRC/man/cpuset.1" | sort -u >"$T/man_cmds"
"$CPUSET" --help >"$T/help" 2>&1 || fail "cpuset --help exits 0" "$(cat "$T/help")"
# --help: the lines of "Commands:" that start with two spaces and a name
awk '/^Commands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-z]/ { print $1 }' "$T/help" |
	sort -u >"$T/help_cmds"
# crash.sh: the list its loop runs ("for op in ...; do")
sed -n 's/^for op in \(.*\); do$/\1/p' "$SRC/tests/crash.sh" | tr ' ' '\n' | sort -u >"$T/crash_ops"
[ -s "$T/crash_ops" ] || die "tests/crash.sh: its 'for op in ...; do' list was not found"

lacking() { # LISTFILE: the commands not in it
	comm -23 "$T/cmds" "$1" | tr '\n' ' ' | sed 's/ $//'
}
m=$(lacking "$T/man_cmds")
verdict "man/cpuset.1 has an entry for every cpuset command" "$m" \
	"not in man/cpuset.1's COMMANDS (a .TP entry starting '.B NAME'): $m"
m=$(lacking "$T/help_cmds")
verdict "cpuset --help has a line for every cpuset command" "$m" \
	"not in cpuset --help's Commands (tools/cpuset.c, usage()): $m"

# A command may stay out of crash.sh only if it takes no write step of the
# table: run each such command with the fault points counting.
readonly_cmds="init free cpus list show which cgroup"
m=
for c in $(lacking "$T/crash_ops"); do
	case " $readonly_cmds " in *" $c "*) ;; *) m="$m $c" ;; esac
done
verdict "tests/crash.sh kills every cpuset command that writes the table" "$m" \
	"not in tests/crash.sh's 'for op in' list (add it there and to run_op; a" \
	"command that never writes the table goes in readonly_cmds of tests/docs.sh):$m"
"$CPUSET" init --force >/dev/null 2>&1 || die "cpuset init failed"
CPUSETSHIM_FAULT_REPORT=$T/steps "$CPUSET" create --cpus 0 --name docs >/dev/null 2>"$T/err"
if [ ! -s "$T/steps" ]; then
	skip "the commands left out of tests/crash.sh take no write step" \
		"$NO_FAULTS"
else
	m=
	for c in $readonly_cmds; do
		case $c in
		init) set -- init --force ;;
		show) set -- show docs ;;
		cpus) set -- cpus all ;;
		*) set -- "$c" ;;
		esac
		rm -f "$T/steps"
		CPUSETSHIM_FAULT_REPORT=$T/steps "$CPUSET" "$@" >/dev/null 2>"$T/err" ||
			m="$m
  cpuset $*: exit status $? ($(head -c 300 "$T/err"))"
		if [ -s "$T/steps" ] && [ "$(cat "$T/steps")" != 0 ]; then
			m="$m
  cpuset $*: $(cat "$T/steps") write steps (so tests/crash.sh must kill it at each)"
		fi
		[ "$c" = init ] && "$CPUSET" create --cpus 0 --name docs >/dev/null 2>&1
	done
	verdict "the commands left out of tests/crash.sh ($readonly_cmds) take no write step" "$m" "$m"
fi

# ---- usage lines against the option tables ----

# opts FILE: FUNCTION OPTION for each long option of each option table
# ("struct option opts[] = { ... };") in FILE, by the function it is in
# (a tool's own options: main's, or parse_args' that main calls, both
# named main here)
opts() {
	awk '
	/^[a-z].*\(/ { fn = $0; sub(/\(.*/, "", fn); sub(/.* \**/, "", fn); if (fn == "parse_args") fn = "main" }
	/struct option [a-z_]*\[\] = \{/ { s = 1 }
	s {
		l = $0
		while (match(l, /\{ "[a-z-]+",/)) {
			print fn, substr(l, RSTART + 3, RLENGTH - 5)
			l = substr(l, RSTART + RLENGTH)
		}
	}
	s && /\};/ { s = 0 }' "$1"
}

# the usage line: from "Usage:" to the first blank line of --help
usage_line() {
	"$1" --help 2>&1 | awk '/^Usage:/ { s = 1 } s && /^$/ { exit } s'
}

for tool in cpuset cpuset-run cpuset-inspect; do
	opts "$SRC/tools/$tool.c" >"$T/opts"
	grep -q '^main ' "$T/opts" || { fail "$tool: option table of main() found in tools/$tool.c"; continue; }
	usage_line "$B/$tool" >"$T/usage"
	[ -s "$T/usage" ] || { fail "$tool --help starts with a usage line" "$("$B/$tool" --help 2>&1)"; continue; }
	m=
	while read -r fn o; do
		[ "$fn" = main ] || continue
		case $o in help | version) continue ;; esac
		grep -q -- "--$o\([^a-z-]\|$\)" "$T/usage" || m="$m --$o"
	done <"$T/opts"
	verdict "$tool's usage line names every option of its table" "$m" \
		"in tools/$tool.c's option table, not in the usage line of $tool --help:$m" \
		"$(sed 's/^/  | /' "$T/usage")"
	for o in help version; do
		grep -q "^main $o\$" "$T/opts" || continue
		"$B/$tool" --help 2>&1 | grep -q -- "--$o\([^a-z-]\|$\)" ||
			fail "$tool --help names --$o" "tools/$tool.c has --$o, its --help text does not"
	done
done

# each cpuset command's option table (in cmd_NAME) against its lines of
# --help's Commands (from "  NAME" to the next command)
{ opts "$SRC/tools/cpuset.c"; opts "$SRC/tools/cpuset-init.c"; } >"$T/opts"
m=
while read -r fn o; do
	case $fn in cmd_*) ;; *) continue ;; esac
	c=${fn#cmd_}
	awk -v c="$c" '/^Commands:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && /^  [a-z]/ { in_c = ($1 == c) } s && in_c' "$T/help" >"$T/cmd_help"
	grep -q -- "--$o\([^a-z-]\|$\)" "$T/cmd_help" || m="$m $c --$o;"
done <"$T/opts"
verdict "cpuset --help names every option of every command's table" "$m" \
	"in a command's option table (tools/cpuset.c, cmd_NAME), not in its lines" \
	"of cpuset --help's Commands:$m"

# ---- no citations a reader cannot look up ----

# Code and documents say what they mean, not "issue N, item M" of a list
# outside the repository.
(cd "$SRC" && find base include shm src preload tools slurm tests man scripts .ci doc \
	-path tests/fixtures -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.am' -o -name '*.md' \
	-o -name '*.[0-9]' -o -name '*.map' -o -name run \) -print 2>/dev/null
	ls ./*.md configure.ac Makefile.am) | grep -v -e '^tests/docs\.sh$' |
	sort >"$T/texts"
cited=$(cd "$SRC" && xargs grep -n -i -E '\bissues? *#?[0-9]' <"$T/texts")
verdict "no file cites an issue by number ($(wc -l <"$T/texts") files)" "$cited" \
	"say what is meant instead of the number (a reader cannot look it up):" \
	"$(printf '%s\n' "$cited" | sed 's/^/  /')"

# ---- DESIGN.md a map, the pages of doc/ beside it ----

n=$(wc -l <"$SRC/DESIGN.md")
m=
[ "$n" -le 600 ] || m="DESIGN.md has $n lines"
verdict "DESIGN.md is a map of at most 600 lines ($n)" "$m" \
	"$m: a reference chapter belongs on a page of doc/, linked from the map"

(cd "$SRC" && ls doc/*.md 2>/dev/null) | sort >"$T/pages"
[ -s "$T/pages" ] || die "doc/: no pages (doc/*.md)"
grep -o '](doc/[A-Za-z0-9_-]*\.md' "$SRC/DESIGN.md" | sed 's/^](//' | sort -u >"$T/linked"
m=$(comm -23 "$T/pages" "$T/linked" | sed 's/^/  /')
verdict "DESIGN.md links every page of doc/ ($(wc -l <"$T/pages") pages)" "$m" \
	"pages no link of DESIGN.md leads to (add a row to its list of pages):" "$m"
# Makefile.am's dist_design_DATA: the pages installed beside DESIGN.md
awk '/^dist_design_DATA *=/ { s = 1 } s { print; if (!/\\$/) exit }' "$SRC/Makefile.am" |
	tr ' \t\\' '\n\n\n' | grep '^doc/' | sort -u >"$T/shipped"
m=$(comm -3 "$T/pages" "$T/shipped" | sed 's/^/  /')
verdict "Makefile.am ships exactly the pages of doc/ (dist_design_DATA)" "$m" \
	"in doc/ but not in dist_design_DATA (left column), or the other way:" "$m"

# anchor FILE: the anchors of FILE's headings, as a Markdown renderer
# makes them (lower case, punctuation but '-' dropped, blanks as '-')
anchors() {
	sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' |
		sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# every file name and link of DESIGN.md and the pages
m=
for f in DESIGN.md $(cat "$T/pages"); do
	d=$(dirname "$f")
	# file names: FOLDER/NAME of the tree's folders (not /proc/... nor
	# /sys/...), in the tree or a target of a Makemodule.am; a name with
	# no extension is a program built from NAME.c; a name followed by '<'
	# is a pattern (base/arch_<cpu>.c)
	grep -oE '(^|[^A-Za-z0-9_./-])(base|include|shm|src|preload|supervise|tools|slurm|tests|man|doc|scripts|debian|\.ci)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*]<?' "$SRC/$f" |
		sed 's/^[^a-z.]//' | grep -v '<$' | sort -u >"$T/names"
	while read -r p; do
		# shellcheck disable=SC2086 # a pattern (tests/slurm/*.sh) is expanded
		(cd "$SRC" && ls -d $p >/dev/null 2>&1) && continue
		cat "$SRC"/*/Makemodule.am | grep -q "^$p:" && continue
		case $p in *.*) ;; *) [ -e "$SRC/$p.c" ] && continue ;; esac
		m="$m
  $f: $p"
	done <"$T/names"
	# links: [text](target) but web addresses
	grep -oE '\]\([^)#]*(#[^)]*)?\)' "$SRC/$f" | sed 's/^](//; s/)$//' |
		grep -v '^[a-z]*://' | sort -u >"$T/links"
	while read -r l; do
		file=${l%%#*} anchor=
		case $l in *'#'*) anchor=${l#*#} ;; esac
		if [ -z "$file" ]; then
			target=$SRC/$f
		else
			target=$SRC/$d/$file
		fi
		if [ ! -e "$target" ]; then
			m="$m
  $f: link to $l: no such file"
		elif [ -n "$anchor" ] && ! anchors "$target" | grep -qxF -- "$anchor"; then
			m="$m
  $f: link to $l: no such heading there"
		fi
	done <"$T/links"
done
verdict "every file name and link of DESIGN.md and doc/ leads somewhere" "$m" \
	"renamed or removed (a file), or a heading renamed (a link's #part):$m"

# references to a page from anywhere: doc/x.md, or doc/x.md, "Heading";
# to a chapter of DESIGN.md: DESIGN.md, "Heading" or (DESIGN.md, Heading)
# (read across a comment's line breaks)
m=
while read -r f; do
	awk '{ sub(/^[ \t]*(\*|#|\/\/|\.\\")?[ \t]*/, ""); printf "%s ", $0 }' "$SRC/$f" |
		grep -oE 'doc/[A-Za-z0-9_-]+\.md(, "[^"]*")?|DESIGN\.md,? "[^"]*"|\(DESIGN\.md, [^):;]*' |
		sed 's/^(//; s/^DESIGN\.md "/DESIGN.md, "/; s/^\(DESIGN\.md, \)\([^"].*\)/\1"\2"/' |
		sort -u >"$T/refs"
	while read -r r; do
		page=${r%%,*}
		if [ ! -e "$SRC/$page" ]; then
			m="$m
  $f: $page: no such page"
			continue
		fi
		case $r in *', "'*) ;; *) continue ;; esac
		h=${r#*, \"}
		h=${h%\"}
		sed -n 's/^#\{1,6\} \{1,\}//p' "$SRC/$page" | grep -qixF -- "$h" ||
			m="$m
  $f: $page has no heading \"$h\""
	done <"$T/refs"
done <"$T/texts"
verdict "every reference to a page of doc/ or a chapter of DESIGN.md names one" "$m" \
	"a page renamed, a heading changed or a chapter moved to a page (name the" \
	"page as doc/x.md, a part as doc/x.md, \"Heading\"):$m"

# ---- comments that send the reader elsewhere ----

(cd "$SRC" && ls base/*.[ch] include/*.h shm/*.[ch] src/*.[ch] preload/*.[ch] supervise/*.[ch] \
	tools/*.[ch] slurm/*.[ch] 2>/dev/null) >"$T/code"
# "See NAME in FILE": FILE beside the comment's file, or from the top
m=
while read -r f; do
	grep -n -o -E 'See [A-Za-z_][A-Za-z0-9_]* in [A-Za-z0-9_/.-]+\.[ch]' "$SRC/$f" |
		while IFS=: read -r l ref; do
			# shellcheck disable=SC2086 # its four words
			set -- $ref
			target=$SRC/$(dirname "$f")/$4
			[ -f "$target" ] || target=$SRC/$4
			[ -f "$target" ] && grep -q -w -- "$2" "$target" && continue
			echo "  $f:$l: \"$ref\": $4 has no $2"
		done
done <"$T/code" >"$T/see"
m=$(cat "$T/see")
verdict "every \"See NAME in FILE\" of a comment names something FILE has" "$m" \
	"name what the reader is to look at as FILE calls it:" "$m"

cat >"$T/comments.awk" <<'EOF_AWK'
# FILE<TAB>NAME<TAB>TEXT for each comment that begins a line: its words
# joined by one blank, and the name of the function (or macro) the next
# line declares or defines ("" if none)
FNR == 1 { incom = 0; want = 0 }
want && NF {
	name = ""
	if ($0 !~ /^[ \t]*(\/\*|\/\/|#[ \t]*(if|endif|else|include))/ && match($0, /[A-Za-z_][A-Za-z0-9_]*\(/))
		name = substr($0, RSTART, RLENGTH - 1)
	if (length(text) > 40) print FILENAME "\t" name "\t" text
	want = 0
}
!incom && /^[ \t]*\/\*/ { incom = 1; text = "" }
incom {
	l = $0
	sub(/^[ \t]*(\/\*|\*)?[ \t]*/, "", l)
	e = index(l, "*/")
	if (e) l = substr(l, 1, e - 1)
	gsub(/[ \t]+/, " ", l)
	text = text (text == "" || l == "" ? "" : " ") l
	if (e) { incom = 0; want = 1; sub(/ $/, "", text) }
}
EOF_AWK
(cd "$SRC" && xargs awk -f "$T/comments.awk" <"$T/code") >"$T/comments"
m=$(awk -F'\t' 'NR == FNR { if ($1 ~ /\.h$/) { h[$3] = $2; hf[$3] = $1 }; next }
	$1 ~ /\.c$/ && ($3 in h) && h[$3] != "" && $2 != "" && h[$3] != $2 {
		printf "  %s: the comment above %s is %s'\''s comment of %s\n", $1, $2, hf[$3], h[$3]
	}' "$T/comments" "$T/comments")
verdict "a .c file's comment repeated from a header stands above the same function ($(wc -l <"$T/comments") comments)" "$m" \
	"a comment left behind when its function moved, or pasted above another (say what" \
	"this function does, or nothing where the header says it):" "$m"

finish
