# Sourced by the shell tests, with $SHIM set. A sanitizer build links
# libasan into the shim, and libasan must be the first object loaded into
# any program that preloads the shim: SAN_PRELOAD is then the base of
# LD_PRELOAD for such programs (cpuset-run keeps a libasan entry first).
# Other programs (pgrep, sleep...) must not get it: some hang or die with
# the sanitizer runtimes forced into them. san_env prints the variables.
SAN_PRELOAD=
san_asan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libasan\.so/ { print $3; exit }')
if [ -n "$san_asan" ]; then
	san_ubsan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libubsan\.so/ { print $3; exit }')
	SAN_PRELOAD="$san_asan${san_ubsan:+:$san_ubsan}"
	echo "# sanitizer build: LD_PRELOAD base for the shim '$SAN_PRELOAD'"
fi
san_env() {
	[ -n "$SAN_PRELOAD" ] && echo "LD_PRELOAD=$SAN_PRELOAD ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
}
