# SPDX-License-Identifier: BSD-3-Clause
# The cross build of a copy of this tree, for the tests that run another
# architecture's build (tests/cross.sh, tests/guest_arm64.sh,
# tests/guest_ppc64el.sh, tests/qemu_ppc64el.sh); sourced after
# tests/common.sh, never run.
#
#     cross_copy DIR          the sources as they are (tracked and new
#                             files) into DIR, with the generated build
#                             system when the tree has one (else
#                             autoreconf makes it)
#     cross_suites BD         the unit suites of build tree BD (make's
#                             CHECK_SUITES), space-separated
#     cross_build TRIPLET BD [--no-suites] [TARGET...]
#                             a copy ($T/src) configured in BD for
#                             TRIPLET with the target's Check (its
#                             pkg-config files in /usr/lib/TRIPLET),
#                             fault points on, -O2; the libraries and
#                             tools built, then the unit suites (not
#                             with --no-suites) and each TARGET;
#                             $suites: the suites. A failure dies,
#                             with make's last lines.

cross_copy() {
	git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || skip_all "needs a git work tree ($SRC is none)"
	mkdir -p "$1"
	(cd "$SRC" && { git ls-files -co --exclude-standard; for f in configure aclocal.m4 config.h.in \
		Makefile.in build-aux m4; do [ -e "$f" ] && echo "$f"; done; } |
		tar -cf - -T - 2>/dev/null) | tar -xf - -C "$1" || die "cannot copy $SRC"
	if [ ! -x "$1/configure" ]; then
		need autoreconf autoconf
		(cd "$1" && autoreconf -fi >/dev/null 2>&1) || die "autoreconf failed"
	fi
}

cross_suites() {
	printf 'cps-suites:\n\t@echo $(CHECK_SUITES)\n' >"$T/suites.mk"
	(cd "$1" && unset MAKEFLAGS MFLAGS MAKELEVEL && make -s --no-print-directory -f Makefile \
		-f "$T/suites.mk" cps-suites | tail -n 1)
}

cross_build() {
	_tr=$1 _bd=$2 _su=yes
	shift 2
	[ "${1:-}" = --no-suites ] && { _su=no; shift; }
	[ -d "$T/src" ] || cross_copy "$T/src"
	mkdir -p "$_bd"
	_t0=$(date +%s)
	(cd "$_bd" && PKG_CONFIG_LIBDIR=/usr/lib/$_tr/pkgconfig "$T/src/configure" -q --host="$_tr" \
		--without-slurm --enable-fault-injection CFLAGS=-O2 >"$_bd/cfg.out" 2>&1) ||
		die "configure --host=$_tr: $(tail -5 "$_bd/cfg.out")"
	progress
	suites=$(cross_suites "$_bd")
	# (the libraries first: the suites link them; a build of its own, no
	# jobserver from the make that runs the test)
	[ $_su = no ] || set -- $suites "$@"
	(cd "$_bd" && unset MAKEFLAGS MFLAGS MAKELEVEL && nice make -j2 all && { [ $# -eq 0 ] || nice make -j2 "$@"; }) \
		>"$_bd/make.out" 2>&1 || { show "$_bd/make.out" | tail -30; die "the $_tr build failed"; }
	progress
	note "$_tr build: $(($(date +%s) - _t0)) s"
}
