#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Boots an arm64 Linux guest under QEMU (qemu-system-aarch64 -M virt
# -cpu max, TCG) on Debian's arm64 kernel and runs a script in it.
#
#     sh tests/guest/boot_arm64.sh DIR
#
# DIR/root (made by the caller) is the guest's root file system, shared
# read-write over 9p: arm64 programs and libraries at their own paths
# (a static busybox in bin/, the C library in lib/), and root/run.sh,
# the script the guest runs as root, chrooted there with the guest
# kernel's /proc, /sys and /dev and its own tmpfs on /dev/shm (its /tmp
# is root/tmp: the caller's files there, a build tree in /tmp, stay).
# The guest writes root/out/rc (run.sh's exit status), root/out/uptime
# (the guest's /proc/uptime when run.sh started: the boot time) and
# root/out/run.out (run.sh's output); the serial console goes to
# DIR/console.
#
# The machine (-cpu max with pointer authentication's implementation-
# defined algorithm, which TCG emulates far faster than QARMA): 2 sockets of GUEST_CORES cores (2 by default), 2 NUMA
# nodes with the CPUs (node 0 the first socket, node 1 the second) and
# node 2 with memory only, GUEST_MEM MiB a node (256).
#
# GUEST_ARM64: where scripts/deps.sh unpacked the arm64 kernel
# (boot/vmlinuz-V, lib/modules/V with its modules.dep) and busybox
# (bin/busybox); /usr/local/lib/cpusetshim-guest/arm64 by default.
#
# Time, as tests/guest/boot.sh: the guest runs while its console or
# root/out grows; QEMU is stopped after GUEST_STALL seconds (300)
# without any, and after GUEST_TIMEOUT seconds (0: none) in all; while it
# progresses the deadline of the test that runs it (CPS_TEST_EXTEND) is
# pushed on.
#
# Exit status: 0 when the guest ran run.sh to its end (root/out/rc
# exists), 1 when it did not, 2 for bad usage, 3 when the kernel or a
# tool is missing (named on stderr).
set -u
die() { echo "guest: $1" >&2; exit "${2:-1}"; }
[ $# -eq 1 ] && [ -f "$1/root/run.sh" ] || die "usage: boot_arm64.sh DIR (DIR/root holding run.sh)" 2
out=$(cd "$1" && pwd)
root=$out/root
cores=${GUEST_CORES:-2}
mem=${GUEST_MEM:-256}
stall=${GUEST_STALL:-300}
limit=${GUEST_TIMEOUT:-0}
case $stall$limit$cores in *[!0-9]*) die "GUEST_STALL, GUEST_TIMEOUT: seconds; GUEST_CORES: a number" 2 ;; esac
[ "$stall" -gt 0 ] && [ "$cores" -gt 0 ] || die "GUEST_STALL, GUEST_CORES: more than 0" 2
arm=${GUEST_ARM64:-/usr/local/lib/cpusetshim-guest/arm64}

qemu=$(command -v qemu-system-aarch64) || die "needs qemu-system-aarch64 (Debian package qemu-system-arm)" 3
command -v cpio >/dev/null || die "needs cpio (Debian package cpio)" 3
[ -x "$arm/bin/busybox" ] || die "needs arm64's static busybox in $arm/bin (sh scripts/deps.sh unpacks busybox-static:arm64 there)" 3
kernel= kver=
for k in $(ls "$arm"/boot/vmlinuz-* 2>/dev/null | sort -V); do
	v=${k##*/vmlinuz-}
	[ -f "$arm/lib/modules/$v/modules.dep" ] && kernel=$k kver=$v
done
[ -n "$kernel" ] || die "needs an arm64 kernel with its modules in $arm (sh scripts/deps.sh unpacks linux-image-arm64:arm64 there)" 3
mods=$arm/lib/modules/$kver

# ---- the initramfs: busybox, the modules of 9p over virtio, /init ----
ir=$out/initramfs
rm -rf "$ir"
mkdir -p "$ir/bin" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root" "$ir/modules" || exit 1
cp "$arm/bin/busybox" "$ir/bin/busybox" || exit 1
for a in sh mount insmod mkdir cat echo chroot poweroff sync; do
	ln -s busybox "$ir/bin/$a"
done
: >"$out/modules.list"
addmod() {
	grep -q "^$1\$" "$out/modules.list" && return 0
	for _d in $(sed -n "s|^$1: *||p" "$mods/modules.dep" | tr ' ' '\n' | sed '/^$/d' | tac); do
		addmod "$_d" || return 1
	done
	[ -f "$mods/$1" ] || { echo "guest: no module $mods/$1" >&2; return 1; }
	echo "$1" >>"$out/modules.list"
}
for m in kernel/drivers/virtio/virtio_pci.ko kernel/net/9p/9pnet_virtio.ko kernel/fs/9p/9p.ko; do
	for z in "" .xz .zst; do
		grep -q "^$m$z:" "$mods/modules.dep" && { addmod "$m$z" || die "the 9p modules of $kver" 3; }
	done
done
i=0
while read -r m; do
	i=$((i + 1))
	case $m in
	*.ko) cp "$mods/$m" "$ir/modules/$(printf %02d $i)-$(basename "$m")" ;;
	*.ko.xz) xz -dc "$mods/$m" >"$ir/modules/$(printf %02d $i)-$(basename "$m" .xz)" ;;
	*.ko.zst) zstd -qdc "$mods/$m" >"$ir/modules/$(printf %02d $i)-$(basename "$m" .zst)" ;;
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
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none root $R &&
	mkdir -p $R/proc $R/sys $R/dev $R/tmp $R/out &&
	mount -t proc proc $R/proc && mount -t sysfs sys $R/sys &&
	mount -t devtmpfs dev $R/dev &&
	mkdir -p $R/dev/shm && mount -t tmpfs shm $R/dev/shm; then
	mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
	echo "guest init: the root is mounted, running run.sh"
	cat /proc/uptime >$R/out/uptime
	chroot $R /bin/env -i PATH=/bin HOME=/tmp TMPDIR=/tmp LANG=C TERM=dumb \
		/bin/sh /run.sh </dev/null >$R/out/run.out 2>&1
	echo $? >$R/out/rc
	sync
else
	echo "guest init: the root is not there"
fi
poweroff -f
INIT
chmod +x "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz" ||
	die "making the initramfs" 1
rm -rf "$ir"

# ---- the machine ----
n=$((cores * 2))
rm -f "$root/out/rc" "$root/out/uptime" "$root/out/run.out"
mkdir -p "$root/out"
: >"$out/console"
start=$(date +%s.%N)
"$qemu" -M virt -cpu max,pauth-impdef=on -accel tcg -nodefaults -no-reboot -display none \
	-smp "$n,sockets=2,cores=$cores,threads=1" -m "$((mem * 3))M" \
	-object "memory-backend-ram,id=m0,size=${mem}M" \
	-object "memory-backend-ram,id=m1,size=${mem}M" \
	-object "memory-backend-ram,id=m2,size=${mem}M" \
	-numa "node,nodeid=0,cpus=0-$((cores - 1)),memdev=m0" \
	-numa "node,nodeid=1,cpus=$cores-$((n - 1)),memdev=m1" \
	-numa "node,nodeid=2,memdev=m2" \
	-kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=6" \
	-serial "file:$out/console" \
	-virtfs "local,path=$root,mount_tag=root,security_model=none,multidevs=remap" \
	</dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
written() {
	cat "$out/console" "$root"/out/* 2>/dev/null | wc -c
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
[ -f "$root/out/rc" ] && exit 0
ran=$(cat "$out/wall")
what="waited for the guest to boot (console output), mount its root, run run.sh and write out/rc"
case $why in
stall) echo "guest: no progress in $stall s (GUEST_STALL) after $ran s in all; it $what" >&2 ;;
limit) echo "guest: stopped after $limit s in all (GUEST_TIMEOUT), still making progress; it $what" >&2 ;;
*) echo "guest: QEMU exited $qs after $ran s without a result; its messages:" >&2
   cat "$out/qemu.log" >&2 ;;
esac
if [ ! -s "$out/console" ]; then
	echo "guest: the console is empty: the kernel never printed (kernel $kernel, $("$qemu" --version | head -n 1)); QEMU's messages follow" >&2
	cat "$out/qemu.log" >&2
else
	echo "guest: the console's end:" >&2
	tail -n 30 "$out/console" >&2
fi
exit 1
