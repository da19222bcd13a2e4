# Sourced by the shell tests, with $SHIM set. A sanitizer build links
# libasan into the shim, and libasan must be the first object loaded into
# any program that preloads it: make it (and libubsan) the base of
# LD_PRELOAD. cpuset-run keeps a libasan entry first.
SHIM_PRELOAD=$SHIM
san_asan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libasan\.so/ { print $3; exit }')
if [ -n "$san_asan" ]; then
	san_ubsan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libubsan\.so/ { print $3; exit }')
	LD_PRELOAD="$san_asan${san_ubsan:+ $san_ubsan}"
	ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS
	SHIM_PRELOAD="$LD_PRELOAD $SHIM"
	echo "# sanitizer build: LD_PRELOAD base '$LD_PRELOAD'"
else
	unset LD_PRELOAD
fi
