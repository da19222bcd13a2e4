#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Boots a multi-node Linux guest under QEMU (TCG: no KVM needed) and runs
# a script in it, with the host's root file system shared read-only.
#
#     sh tests/guest/boot.sh DIR
#
# DIR (made by the caller) holds `run.sh`, the script the guest runs as
# root, and receives what the guest writes: DIR is shared with the guest
# read-write and seen there as $GUEST_OUT (/tmp/guest-out). The guest's
# root is the host's (9p, read-only), so every tool and library is the
# host's at its own path, the build tree included; /tmp, /run, /dev/shm
# and /var/tmp are the guest's own tmpfs, /proc, /sys and /dev the guest
# kernel's. The guest's init writes DIR/rc (run.sh's exit status) and
# DIR/uptime (the guest's /proc/uptime when run.sh started: the boot
# time); the serial console goes to DIR/console.
#
# The machine: GUEST_SMP CPUs in 2 packages with 2 threads a core
# (default 8: 2 packages x 2 cores x 2 threads), 2 NUMA nodes with the
# CPUs (node 0 the first package, node 1 the second) and node 2 with
# memory only, GUEST_MEM MiB a node (256).
#
# GUEST_KERNEL: the kernel image (default: the newest /boot/vmlinuz-V
# whose /lib/modules/V exists); its modules give 9p and virtio.
# GUEST_KEEP: host paths (space-separated, no spaces within) that stay
# visible in the guest though under one of its tmpfs (a build tree in
# /tmp).
#
# Time: the guest's budget follows its progress, not the clock. It is
# making progress while its console (the kernel's boot messages, init's)
# or what it writes into DIR grows; QEMU is stopped after GUEST_STALL
# seconds (300) without any, however long it has run, and after
# GUEST_TIMEOUT seconds (0: none, the default) in all. A loaded host that
# slows the guest down gives it more time; a guest that hangs is stopped
# a stall after its last output. While it progresses, the deadline of the
# test that runs it (tests/run-test.sh) is pushed on too, through
# CPS_TEST_EXTEND when set. When QEMU is stopped, stderr says what it
# waited for, for how long, and, for an empty console (the kernel never
# printed), which kernel and which QEMU did not boot.
#
# Exit status: 0 when the guest ran run.sh to its end (DIR/rc exists;
# run.sh's own status is in it), 1 when it did not (a stall, a panic, no
# 9p), 2 for bad usage, 3 when the kernel or a tool is missing (named on
# stderr).
set -u
die() { echo "guest: $1" >&2; exit "${2:-1}"; }
[ $# -eq 1 ] && [ -d "$1" ] && [ -f "$1/run.sh" ] || die "usage: boot.sh DIR (DIR holding run.sh)" 2
out=$(cd "$1" && pwd)
smp=${GUEST_SMP:-8}
mem=${GUEST_MEM:-256}
stall=${GUEST_STALL:-300}
limit=${GUEST_TIMEOUT:-0}
case $stall$limit in *[!0-9]*) die "GUEST_STALL, GUEST_TIMEOUT: seconds" 2 ;; esac
[ "$stall" -gt 0 ] || die "GUEST_STALL: seconds, more than 0" 2
case $smp in '' | *[!0-9]*) die "GUEST_SMP: a number of CPUs, a multiple of 4" 2 ;; esac
[ $((smp % 4)) -eq 0 ] && [ "$smp" -ge 4 ] || die "GUEST_SMP=$smp: a multiple of 4 (2 packages of cores of 2 threads)" 2

qemu=$(command -v qemu-system-x86_64) || die "needs qemu-system-x86_64 (Debian package qemu-system-x86)" 3
busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	die "needs a static $busybox (Debian package busybox-static)" 3
command -v cpio >/dev/null || die "needs cpio (Debian package cpio)" 3

if [ -n "${GUEST_KERNEL:-}" ]; then
	kernel=$GUEST_KERNEL
	kver=$(basename "$kernel" | sed 's/^vmlinuz-//')
else
	kernel= kver=
	for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
		v=${k#/boot/vmlinuz-}
		[ -f "/lib/modules/$v/modules.dep" ] && kernel=$k kver=$v
	done
fi
[ -n "$kernel" ] && [ -r "$kernel" ] ||
	die "needs a kernel in /boot with its modules (Debian package linux-image-amd64)" 3
mods=/lib/modules/$kver
[ -f "$mods/modules.dep" ] || die "needs $mods/modules.dep for $kernel (linux-image-amd64)" 3

# ---- the initramfs: busybox, the modules of 9p over virtio, /init ----
ir=$out/initramfs
rm -rf "$ir"
mkdir -p "$ir/bin" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root" "$ir/modules" || exit 1
cp "$busybox" "$ir/bin/busybox" || exit 1
for a in sh mount umount insmod mkdir cat echo chroot poweroff sleep sync ln; do
	ln -s busybox "$ir/bin/$a"
done
# each module after the ones it needs (modules.dep lists a module's needs
# with the one loaded last first)
: >"$out/modules.list"
addmod() {
	grep -q "^$1\$" "$out/modules.list" && return 0
	_deps=$(sed -n "s|^$1: *||p" "$mods/modules.dep")
	for _d in $(echo "$_deps" | tr ' ' '\n' | sed '/^$/d' | tac); do
		addmod "$_d" || return 1
	done
	[ -f "$mods/$1" ] || { echo "guest: no module $mods/$1" >&2; return 1; }
	echo "$1" >>"$out/modules.list"
}
for m in kernel/drivers/virtio/virtio_pci.ko kernel/net/9p/9pnet_virtio.ko kernel/fs/9p/9p.ko; do
	if grep -q "^$m:" "$mods/modules.dep"; then
		addmod "$m" || die "the 9p modules of $kver" 3
	fi
	# (a kernel with it built in has no such module)
done
i=0
while read -r m; do
	i=$((i + 1))
	case $m in
	*.ko) cp "$mods/$m" "$ir/modules/$(printf %02d $i)-$(basename "$m")" ;;
	*.ko.xz) xz -dc "$mods/$m" >"$ir/modules/$(printf %02d $i)-$(basename "$m" .xz)" ;;
	*.ko.zst) zstd -qdc "$mods/$m" >"$ir/modules/$(printf %02d $i)-$(basename "$m" .zst)" ;;
	*) die "module $m: a compression this script does not know" 3 ;;
	esac || die "copying $m" 3
done <"$out/modules.list"

cat >"$ir/init" <<'INIT'
#!/bin/sh
PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "guest init: loading the 9p modules"
for m in /modules/*.ko; do insmod "$m" || echo "guest init: insmod $m failed"; done
R=/root
o=/tmp/guest-out
# the host's paths to keep under the guest's own tmpfs (/keep: a build
# tree in /tmp): held aside by bind mounts, then put back in place
keep() {
	i=0
	for p in $(cat /keep); do
		i=$((i + 1))
		case $1 in
		hold) mkdir -p /k/$i && mount -o bind $R$p /k/$i ;;
		back) mkdir -p $R$p && mount -o bind /k/$i $R$p ;;
		esac || return 1
	done
}
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose host $R &&
	keep hold &&
	mount -t proc proc $R/proc && mount -t sysfs sys $R/sys &&
	mount -t devtmpfs dev $R/dev && mount -t tmpfs tmp $R/tmp &&
	mount -t tmpfs run $R/run && mount -t tmpfs vtmp $R/var/tmp &&
	mkdir -p $R/dev/shm $R/dev/pts && mount -t tmpfs shm $R/dev/shm &&
	ln -sf /proc/self/fd $R/dev/fd && ln -sf /proc/self/fd/0 $R/dev/stdin &&
	ln -sf /proc/self/fd/1 $R/dev/stdout && ln -sf /proc/self/fd/2 $R/dev/stderr &&
	keep back &&
	mkdir $R$o && mount -t 9p -o trans=virtio,version=9p2000.L,cache=none out $R$o; then
	echo "guest init: the host's root is mounted, running run.sh"
	cat /proc/uptime >$R$o/uptime
	mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
	chroot $R /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		HOME=/root TMPDIR=/tmp LANG=C.UTF-8 TERM=dumb GUEST_OUT=$o \
		/bin/sh $o/run.sh </dev/null >$R$o/run.out 2>&1
	echo $? >$R$o/rc
	sync
else
	echo "guest init: the host's file system is not there"
fi
poweroff -f
INIT
chmod +x "$ir/init"
# GUEST_KEEP's paths under /tmp, /run, /var/tmp or /dev/shm, which the
# guest covers with its own tmpfs
: >"$ir/keep"
for p in ${GUEST_KEEP:-}; do
	case $p in
	/tmp/* | /run/* | /var/tmp/* | /dev/shm/*) echo "$p" >>"$ir/keep" ;;
	esac
done
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz" ||
	die "making the initramfs" 1
rm -rf "$ir"

# ---- the machine ----
half=$((smp / 2))
cores=$((half / 2))
rm -f "$out/rc" "$out/uptime" "$out/run.out"
: >"$out/console"
start=$(date +%s.%N)
# (the kernel's boot messages at loglevel 6 on the console: the first
# sign of progress, and what a boot that stops shows)
"$qemu" -accel tcg -nodefaults -no-reboot -display none \
	-cpu Nehalem -smp "$smp,sockets=2,cores=$cores,threads=2" -m "$((mem * 3))M" \
	-object "memory-backend-ram,id=m0,size=${mem}M" \
	-object "memory-backend-ram,id=m1,size=${mem}M" \
	-object "memory-backend-ram,id=m2,size=${mem}M" \
	-numa "node,nodeid=0,cpus=0-$((half - 1)),memdev=m0" \
	-numa "node,nodeid=1,cpus=$half-$((smp - 1)),memdev=m1" \
	-numa "node,nodeid=2,memdev=m2" \
	-kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 rdinit=/init panic=-1 loglevel=6" \
	-serial "file:$out/console" \
	-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$out,mount_tag=out,security_model=none" \
	</dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
# how much the guest has written: its console and its files in DIR
written() {
	cat "$out/console" "$out"/*.tap "$out"/*.err "$out/run.out" "$out/uptime" 2>/dev/null | wc -c
}
t0=$(date +%s)
last=$t0 seen=0 why=
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1 >/dev/null 2>&1 &
	wait $!
	now=$(date +%s)
	w=$(written)
	if [ "$w" != "$seen" ]; then
		seen=$w last=$now
		# the test's own deadline: not before this stall would end
		if [ -n "${CPS_TEST_EXTEND:-}" ]; then
			echo $((now + stall + 60)) >"$CPS_TEST_EXTEND.new" &&
				mv -f "$CPS_TEST_EXTEND.new" "$CPS_TEST_EXTEND"
		fi
	fi
	if [ $((now - last)) -ge "$stall" ]; then
		why=stall
	elif [ "$limit" -gt 0 ] && [ $((now - t0)) -ge "$limit" ]; then
		why=limit
	else
		continue
	fi
	kill "$qpid" 2>/dev/null
	i=0
	while kill -0 "$qpid" 2>/dev/null && [ $i -lt 10 ]; do
		sleep 1 >/dev/null 2>&1 &
		wait $!
		i=$((i + 1))
	done
	kill -KILL "$qpid" 2>/dev/null
	break
done
wait "$qpid"
qs=$?
end=$(date +%s.%N)
echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' >"$out/wall"
if [ ! -f "$out/rc" ]; then
	ran=$(cat "$out/wall")
	what="waited for the guest to boot (console output), mount the host's root, run $out/run.sh and write $out/rc"
	case $why in
	stall) echo "guest: no progress in $stall s (GUEST_STALL) after $ran s in all; it $what" >&2 ;;
	limit) echo "guest: stopped after $limit s in all (GUEST_TIMEOUT), still making progress; it $what" >&2 ;;
	*) echo "guest: QEMU exited $qs after $ran s without a result; its messages:" >&2
	   cat "$out/qemu.log" >&2 ;;
	esac
	if [ ! -s "$out/console" ]; then
		echo "guest: the console is empty: the kernel never printed (kernel $kernel, $("$qemu" --version | head -n 1), TCG, $smp CPUs, $((mem * 3)) MiB; QEMU's messages follow)" >&2
		cat "$out/qemu.log" >&2
	else
		echo "guest: the console's end:" >&2
		tail -n 30 "$out/console" >&2
	fi
	exit 1
fi
exit 0
