# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests that boot the x86-64 guest (tests/guest/boot.sh),
# after tests/common.sh (and, for guest_relay, by tests/guest/foreign.sh,
# for the guests of other architectures):
#
#   guest_need      exit 77 naming what the guest needs and is missing
#                   (QEMU, cpio, a static busybox, a kernel with its
#                   modules); $kernel is the kernel found
#   guest_relay PREFIX TAP
#                   the guest's TAP file as this test's checks, each
#                   named "PREFIX: ..." (a SKIP passed on, the "#" lines
#                   kept); the guest's plan in $G/plan
guest_need() {
	need qemu-system-x86_64 qemu-system-x86
	need cpio cpio
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
		skip_all "needs a static /bin/busybox (Debian package busybox-static)"
	kernel=
	for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
		[ -f "/lib/modules/${k#/boot/vmlinuz-}/modules.dep" ] && kernel=$k
	done
	[ -n "$kernel" ] && [ -r "$kernel" ] ||
		skip_all "needs a kernel in /boot with its modules (Debian package linux-image-amd64)"
}

guest_relay() {
	: >"$G/plan"
	while IFS= read -r l; do
		case $l in
		"ok "*" # SKIP "*) skip "$1: ${l#ok * - }" "${l##* # SKIP }" ;;
		"ok "*) pass "$1: ${l#ok [0-9]* - }" ;;
		"not ok "*" # TODO "*) cps_n=$((cps_n + 1)); echo "not ok $cps_n - $1: ${l#not ok [0-9]* - }" ;;
		"not ok "*) fail "$1: ${l#not ok [0-9]* - }" ;;
		"1..0 # SKIP"*) skip_all "in the guest: ${l#1..0 # SKIP }" ;;
		"1.."*) echo "${l#1..}" >"$G/plan" ;;
		"#"*) echo "$l" ;;
		*) note "$l" ;;
		esac
	done <"$2"
}
