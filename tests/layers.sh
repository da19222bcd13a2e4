#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The layers of DESIGN.md, as the code has them:
# - no file includes a header of a layer above its own, nor of a peer
#   (base and include/ below shm, shm below src, src below preload/ and
#   supervise/, which are peers, supervise/ below tools/ and slurm/,
#   which are peers; preload/ is no one's);
# - every file DESIGN.md's map marks "(pure)" is pure in its object: the
#   symbols it takes from outside are other pure files' or C library
#   functions that make no system call (below). This is what keeps the
#   views and the path code usable by the shim, the supervisor and the
#   tests alike, and what a folder of their own would only have implied.
. "$(dirname "$0")/common.sh"
need nm binutils

# below FOLDER: the layers FOLDER may include ("x": no such layer)
below() {
	case $1 in
	base | include) echo "" ;;
	shm) echo "base include" ;;
	src) echo "shm base include" ;;
	preload | supervise) echo "src shm base include" ;;
	tools | slurm) echo "supervise src shm base include" ;;
	*) echo x ;;
	esac
}

: >"$T/bad"
for d in base include shm src preload supervise tools slurm; do
	for f in "$SRC/$d"/*.c "$SRC/$d"/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
			while read -r inc; do
				case $inc in
				*/*) ;;
				*) continue ;; # config.h, and a file's neighbour
				esac
				to=${inc%%/*}
				if [ "$(below "$to")" = x ]; then
					echo "  $d/${f##*/} includes $inc: no such layer" >>"$T/bad"
				elif [ "$to" != "$d" ] && ! case " $(below "$d") " in *" $to "*) true ;; *) false ;; esac then
					echo "  $d/${f##*/} includes $inc: a layer above its own or a peer" >>"$T/bad"
				fi
			done
	done
done
if [ -s "$T/bad" ]; then
	fail "no file includes a header of a layer above its own or of a peer" "$(cat "$T/bad")"
else
	pass "no file includes a header of a layer above its own or of a peer"
fi

# The pure files: in the map's block (under "## Layers"), each entry of a
# folder is a line indented to the names' column; an entry whose text
# says "(pure" makes each of its .c and .h names pure.
awk '
	/^## Layers/ { inmap = 1; next }
	inmap && /^```/ { blk++; if (blk == 2) exit; next }
	blk != 1 { next }
	/^[a-z]+\/ / { folder = $1; sub(/\/$/, "", folder); names = ""; next }
	/^          [a-zA-Z_][a-zA-Z0-9_.,\/]* / || /^          [a-zA-Z_][a-zA-Z0-9_.]*, / {
		line = substr($0, 11)
		names = ""
		while (match(line, /^[a-zA-Z_][a-zA-Z0-9_]*(\.[ch]|\.c\/\.h)(, ?)?/)) {
			names = names " " substr(line, 1, RLENGTH)
			line = substr(line, RLENGTH + 1)
		}
		gsub(/,/, " ", names)
	}
	folder != "" && names != "" && /\(pure/ {
		n = split(names, a, " ")
		for (i = 1; i <= n; i++) if (a[i] != "") print folder "/" a[i]
		names = ""
	}
' "$SRC/DESIGN.md" | sed 's#\.c/\.h$#.c#' | sort -u >"$T/pure"
grep '\.c$' "$T/pure" | sed 's#\.c$##' >"$T/purec"
[ "$(wc -l <"$T/purec")" -ge 10 ] ||
	die "DESIGN.md's map marks fewer than ten .c files (pure): the map's shape changed?" "$(cat "$T/pure")"
note "pure by DESIGN.md: $(tr '\n' ' ' <"$T/purec")"

# The C library functions a pure file may call: none makes a system call
# (malloc's are its own business); their fortified forms too; the
# compiler's and the sanitizers' own symbols.
ALLOWED='memchr memcmp memcpy memmem memmove memrchr memset strchr strcmp strcspn
strlen strncmp strnlen strpbrk strrchr strspn strstr strtol strtoul strtoll strtoull
malloc calloc realloc free qsort bsearch snprintf vsnprintf __errno_location
__stack_chk_fail _GLOBAL_OFFSET_TABLE_ __tls_get_addr abort'
echo "$ALLOWED" | tr ' ' '\n' | sed '/^$/d' >"$T/allowed"

: >"$T/objs"
while read -r p; do
	n=${p##*/} d=${p%%/*}
	o=
	# libtool's object, or one that automake named for its program
	for c in "$B/$d/.libs/$n.o" "$B/$d/$n.o" "$B/$d/.libs/"*"-$n.o" "$B/$d/"*"-$n.o"; do
		[ -f "$c" ] && { o=$c; break; }
	done
	[ -n "$o" ] || die "no object of $p.c under $B/$d: build first"
	echo "$p $o" >>"$T/objs"
done <"$T/purec"
# what the pure objects define between them
while read -r p o; do
	nm --defined-only "$o" | awk '$2 ~ /[TDBRVW]/ { print $3 }'
done <"$T/objs" | sort -u >"$T/defined"
: >"$T/bad"
while read -r p o; do
	nm -u "$o" | awk '{ print $2 }' | while read -r s; do
		case $s in
		__asan_* | __ubsan_* | __sanitizer_* | __lsan_* | __msan_*) continue ;;
		esac
		base=$s
		case $s in
		__*_chk) base=${s#__}; base=${base%_chk} ;;
		esac
		grep -qx "$base" "$T/allowed" && continue
		grep -qx "$s" "$T/defined" && continue
		echo "  $p.c uses $s" >>"$T/bad"
	done
done <"$T/objs"
if [ -s "$T/bad" ]; then
	fail "every file DESIGN.md marks pure uses only pure files and C library functions without system calls" \
		"$(cat "$T/bad")" "(make it pure again, or take \"(pure)\" from its entry in DESIGN.md's map)"
else
	pass "every file DESIGN.md marks pure uses only pure files and C library functions without system calls ($(wc -l <"$T/objs") files)"
fi
finish
