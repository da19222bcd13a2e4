#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The words of DESIGN.md ("Words": one word per idea, in the code and in
# the documents) against their synonyms: each word of the glossary below
# with the words that must not stand for it, looked for, as whole words
# and case-blind, in every document (the *.md files, the man pages) and
# in every comment of the code (C comments; '#' comments of shell,
# Python, automake, m4), also across a comment's line break. A hit names
# the file, the line, the synonym and the word to say instead.
# GLOSSARY_EXTRA=FILE adds FILE to the files read (to show a hit).
. "$(dirname "$0")/common.sh"

# WORD|SYNONYMS: an extended regular expression of what must not stand
# for WORD. Every word of DESIGN.md's "Words" has its line, and a line's
# word is one of them.
cat >"$T/glossary" <<'EOF'
table|shm segment|shared[- ]memory segment|table's segment|segment's layout|shared table file
layout|table version|format version
set|cpu ?group|cpu partition|partition of cpus
root|top set|machine set
member|registered process(es)?|registrant
thread record|thread entr(y|ies)|thread slot record
wanted mask|desired mask|requested mask|wish mask
placement|set lookup result|placement snapshot
set copy|snapshots?|snapshotted|set cache|cached set
virtual|logical cpus?|logical numbers?|renumbered cpus?
physical|hardware cpu numbers?|real cpu numbers?|host cpu numbers?
view|fake files?|faked files?|synthetic files?
kept view|cached views?|view cache|shared views?
fresh view|temporary views?|one-off views?
pool|view pool files?|per-process view files?
kept open|held open|held (descriptors?|fds?)|(descriptors?|fds?) (is |are )?held|holds? (it|them) open
redirect|redirections?|path rewrites?
allowance|allowed cpu set|kernel mask allowance
transaction|critical write|write batch
journal|undo log|rollback log|write-ahead log|wal
sequence|generation counter|version counter|seqlock
migration|repinning|rebinding of members
sweep|garbage[- ]collect(ion|or|s|ed)?|dead[- ]member purge
supervisor|seccomp monitor|seccomp agent|syscall proxy|tracer process
test root|fake root|fake sysfs|test prefix|sysfs root
layer|tiers?|module level
EOF

# DESIGN.md's words: the bold words of its "Words" section
awk '/^## Words/ { s = 1; next } s && /^## / { exit } s' "$SRC/DESIGN.md" |
	grep -o '\*\*[^*]*\*\*' | tr -d '*' | sort -u >"$T/words"
[ "$(wc -l <"$T/words")" -ge 10 ] || die "DESIGN.md: no glossary found (its bold words under '## Words')" "$(cat "$T/words")"
cut -d'|' -f1 "$T/glossary" | sort -u >"$T/listed"
m=$(comm -23 "$T/words" "$T/listed" | sed 's/^/  /')
[ -z "$m" ] && pass "every word of DESIGN.md's glossary has its synonyms here ($(wc -l <"$T/words") words)" ||
	fail "every word of DESIGN.md's glossary has its synonyms here" \
		"words of DESIGN.md's 'Words' without a line in tests/glossary.sh:" "$m"
m=$(comm -13 "$T/words" "$T/listed" | sed 's/^/  /')
[ -z "$m" ] && pass "every word listed here is in DESIGN.md's glossary" ||
	fail "every word listed here is in DESIGN.md's glossary" \
		"lines of tests/glossary.sh whose word DESIGN.md's 'Words' does not define:" "$m"

# the files: the documents, and the code whose comments are read
(cd "$SRC" && find base include shm src preload supervise tools slurm tests scripts man doc m4 .ci \
	-path tests/fixtures -prune -o -path '*/corpus' -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.am' -o -name '*.m4' \
	-o -name '*.md' -o -name '*.[1-8]' -o -name run \) -print 2>/dev/null
	ls ./*.md configure.ac Makefile.am) | sed 's|^\./||' |
	grep -v -e '^tests/glossary\.sh$' -e '^m4/libtool\.m4$' -e '^m4/lt[a-z~]*\.m4$' | sort >"$T/files"
[ -n "${GLOSSARY_EXTRA:-}" ] && echo "$GLOSSARY_EXTRA" >>"$T/files"

# text FILE: "LINE<TAB>TEXT" for each line of FILE's documentation: a
# document whole, the comments of code
text() {
	case $1 in
	/*) _f=$1 ;;
	*) _f=$SRC/$1 ;;
	esac
	case $1 in
	*.md | *.[1-8] | *.txt) awk '{ print NR "\t" $0 }' "$_f" ;;
	*.[ch])
		# C comments, outside strings and character constants
		awk '{
			out = ""; i = 1; n = length($0)
			while (i <= n) {
				c = substr($0, i, 1); d = substr($0, i, 2)
				if (incom) {
					if (d == "*/") { incom = 0; i += 2; out = out " "; continue }
					out = out c
				} else if (q != "") {
					if (c == "\\") { i += 2; continue }
					if (c == q) q = ""
				} else if (d == "/*") { incom = 1; i += 2; continue }
				else if (d == "//") { out = out " " substr($0, i + 2); break }
				else if (c == "\"" || c == "'\''") q = c
				i++
			}
			q = ""
			if (out ~ /[A-Za-z]/) print NR "\t" out
		}' "$_f" ;;
	*)
		# "#" comments: a line that starts with one, or " # " after code
		awk 'NR == 1 && /^#!/ { next }
			/^[ \t]*#/ { sub(/^[ \t]*#+/, ""); print NR "\t" $0; next }
			/[ \t]#[ \t]/ { sub(/.*[ \t]#[ \t]/, ""); print NR "\t" $0 }' "$_f" ;;
	esac
}

# every file's lines: "FILE<TAB>LINE<TAB>TEXT", and each line with the
# next joined (a phrase broken across two lines, found at its first)
nfiles=0
: >"$T/lines"
: >"$T/pairs"
while IFS= read -r f; do
	nfiles=$((nfiles + 1))
	text "$f" | awk -F'\t' -v f="$f" -v lines="$T/lines" -v pairs="$T/pairs" '{
		t = $0; sub(/^[^\t]*\t/, "", t)
		gsub(/^[ \t*\/#-]+/, "", t)
		print f "\t" $1 "\t" t >>lines
		if (NR > 1 && pn == $1 - 1) print f "\t" pn "\t" pt " " t >>pairs
		pn = $1; pt = t
	}'
done <"$T/files"

# hits SYN FILE: "FILE<TAB>LINE<TAB>HIT" for each line of FILE that says SYN
hits() {
	grep -i -w -E -- "$1" "$2" | while IFS="$(printf '\t')" read -r f l t; do
		printf '%s\t%s\t%s\n' "$f" "$l" "$(printf '%s\n' "$t" | grep -o -i -w -E -- "$1" | head -n 1 | tr 'A-Z' 'a-z')"
	done
}
: >"$T/hits"
while IFS='|' read -r word syn; do
	hits "$syn" "$T/lines" >"$T/one"
	hits "$syn" "$T/pairs" >"$T/two"
	# a joined pair's hit that is one line's own is that line's
	awk -F'\t' -v w="$word" 'FILENAME == ARGV[1] { seen[$1 "\t" $2 "\t" $3] = 1 }
		FILENAME == ARGV[1] || !(seen[$1 "\t" $2 "\t" $3] || seen[$1 "\t" ($2 + 1) "\t" $3]) {
			printf "  %s:%s: \"%s\" for \"%s\" (say \"%s\")\n", $1, $2, $3, w, w
		}' "$T/one" "$T/two" >>"$T/hits"
done <"$T/glossary"
sort -u "$T/hits" -o "$T/hits"
if [ -s "$T/hits" ]; then
	fail "no document or comment says a synonym of a glossary word ($nfiles files)" \
		"DESIGN.md's 'Words' gives one word per idea; a synonym found (a phrase" \
		"across a line break is named at its first line):" "$(cat "$T/hits")"
else
	pass "no document or comment says a synonym of a glossary word ($nfiles files)"
fi

finish
