#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Boots a multi-node Linux guest of an architecture under QEMU (TCG: no
# KVM needed) and runs a script in it: the boot helper of tests/guest.sh
# (x86_64), tests/guest_arm64.sh (arm64) and tests/guest_ppc64el.sh
# (ppc64el).
#
#     sh tests/guest/boot.sh ARCH DIR
#
# ARCH: x86_64, arm64 or ppc64el; what differs is in arch_params below
# (QEMU's program, machine and CPU, threads a core, the console, where
# the kernel, its modules and a static busybox are found).
#
# The root, one of two:
# - DIR/root/run.sh exists: DIR/root is the guest's root file system,
#   shared read-write over 9p: programs and libraries of ARCH at their
#   own paths (the caller puts arm64's C library in lib/, busybox in
#   bin/). The guest runs /run.sh there as root, chrooted with PATH=/bin,
#   the guest kernel's /proc, /sys and /dev and its own tmpfs on
#   /dev/shm; its /tmp is root/tmp (a build tree in /tmp stays). What the
#   guest writes ($GUEST_OUT, /out) is DIR/root/out.
# - else DIR/run.sh: the guest's root is the host's (9p, read-only; ARCH
#   must be the host's), so every tool and library is the host's at its
#   own path, the build tree included; /tmp, /run, /dev/shm and /var/tmp
#   are the guest's own tmpfs, /proc, /sys and /dev the guest kernel's.
#   The guest runs DIR/run.sh as root; DIR is shared with it read-write
#   and seen there as $GUEST_OUT (/tmp/guest-out). GUEST_KEEP: host paths
#   (space-separated, no spaces within) that stay visible in the guest
#   though under one of its tmpfs (a build tree in /tmp).
# In $GUEST_OUT the guest's init writes rc (run.sh's exit status), uptime
# (the guest's /proc/uptime when run.sh started: the boot time) and
# run.out (run.sh's output); the serial console goes to DIR/console and
# QEMU's wall time to DIR/wall.
#
# The machine: GUEST_SMP CPUs in 2 packages (sockets) of cores of the
# architecture's threads (x86_64: 2 a core, 8 CPUs by default; arm64: 1,
# 4 CPUs; ppc64el: 1, 8 CPUs), 2 NUMA nodes with the CPUs (node 0 the first package, node 1
# the second) and node 2 with memory only, GUEST_MEM MiB a node (256).
# GUEST_KERNEL: the kernel image, its modules in lib/modules/V beside
# its boot/ (default: the newest vmlinuz-V of the architecture's kernel
# directory with its modules.dep, vmlinux-V for ppc64el; x86_64: the
# host's /boot, arm64: GUEST_ARM64, /usr/local/lib/cpusetshim-guest/arm64,
# ppc64el: GUEST_PPC64EL, /usr/local/lib/cpusetshim-guest/ppc64el, where
# scripts/deps.sh unpacks each one's kernel and busybox-static).
#
# Time: the guest's budget follows its progress, not the clock. It is
# making progress while its console (the kernel's boot messages, init's)
# or what it writes into $GUEST_OUT grows: the helper waits for that, or
# for QEMU's end, and QEMU is stopped after GUEST_STALL seconds (300)
# without any, however long it has run, and after GUEST_TIMEOUT seconds
# (0: none, the default) in all. A loaded host that slows the guest down
# gives it more time; a guest that hangs is stopped a stall after its
# last output. While it progresses, the deadline of the test that runs it
# (tests/run-test.sh) is pushed on too, through CPS_TEST_EXTEND when set.
# When QEMU is stopped, stderr says what it waited for, for how long,
# and, for an empty console (the kernel never printed), which kernel and
# which QEMU did not boot.
#
# Exit status: 0 when the guest ran run.sh to its end (rc exists; run.sh's
# own status is in it), 1 when it did not (a stall, a panic, no 9p), 2
# for bad usage, 3 when the kernel or a tool is missing (named on stderr).
set -u
die() { echo "guest: $1" >&2; exit "${2:-1}"; }
[ $# -eq 2 ] && [ -d "$2" ] || die "usage: boot.sh ARCH DIR (DIR holding run.sh or root/run.sh)" 2
arch=$1
out=$(cd "$2" && pwd)

# arch_params: what differs by architecture. qemu (its Debian package
# qpkg), machine (QEMU's options), threads a core, the default of
# GUEST_SMP, the console, kdir (where boot/vmlinuz-V and lib/modules/V
# are), kpkg (the kernel's package), busybox and hostm (`uname -m` on
# a host of that architecture)
arch_params() {
	kimg=vmlinuz
	case $arch in
	x86_64)
		qemu=qemu-system-x86_64 qpkg=qemu-system-x86 machine="-cpu Nehalem"
		threads=2 smp_default=8 console=ttyS0 kdir= kpkg=linux-image-amd64
		busybox=/bin/busybox hostm=x86_64
		where="(Debian package busybox-static)" ;;
	arm64)
		# (pointer authentication's implementation-defined algorithm:
		# TCG emulates it far faster than QARMA)
		qemu=qemu-system-aarch64 qpkg=qemu-system-arm
		machine="-M virt -cpu max,pauth-impdef=on"
		threads=1 smp_default=4 console=ttyAMA0
		kdir=${GUEST_ARM64:-/usr/local/lib/cpusetshim-guest/arm64}
		kpkg="linux-image-arm64:arm64; sh scripts/deps.sh unpacks it in $kdir"
		busybox=$kdir/bin/busybox hostm=aarch64
		where="(busybox-static:arm64; sh scripts/deps.sh unpacks it in $kdir/bin)" ;;
	ppc64el)
		# (pseries, POWER9. One thread a core: QEMU before 8.1 refuses
		# more on pseries under TCG ("TCG cannot support more than 1
		# thread/core on a pseries machine"). The Spectre mitigations'
		# capabilities off, which TCG cannot give. The console is the
		# hypervisor's virtual terminal, QEMU's first serial; Debian's
		# kernel is an uncompressed vmlinux)
		qemu=qemu-system-ppc64 qpkg=qemu-system-ppc
		machine="-M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -cpu power9"
		threads=1 smp_default=8 console=hvc0 kimg=vmlinux
		kdir=${GUEST_PPC64EL:-/usr/local/lib/cpusetshim-guest/ppc64el}
		kpkg="linux-image-powerpc64le:ppc64el; sh scripts/deps.sh unpacks it in $kdir"
		busybox=$kdir/bin/busybox hostm=ppc64le
		where="(busybox-static:ppc64el; sh scripts/deps.sh unpacks it in $kdir/bin)" ;;
	*) die "ARCH $arch: x86_64, arm64 or ppc64el" 2 ;;
	esac
}
arch_params
if [ -f "$out/root/run.sh" ]; then
	mode=own res=$out/root/out
else
	mode=host res=$out
	[ -f "$out/run.sh" ] || die "usage: boot.sh ARCH DIR (DIR holding run.sh or root/run.sh)" 2
	[ "$(uname -m)" = "$hostm" ] || die "$arch: the host's root is $(uname -m)'s; give the guest DIR/root" 2
fi
smp=${GUEST_SMP:-$smp_default}
mem=${GUEST_MEM:-256}
stall=${GUEST_STALL:-300}
limit=${GUEST_TIMEOUT:-0}
case $stall$limit in *[!0-9]*) die "GUEST_STALL, GUEST_TIMEOUT: seconds" 2 ;; esac
[ "$stall" -gt 0 ] || die "GUEST_STALL: seconds, more than 0" 2
per=$((2 * threads))
case $smp in '' | *[!0-9]*) die "GUEST_SMP: a number of CPUs, a multiple of $per" 2 ;; esac
[ $((smp % per)) -eq 0 ] && [ "$smp" -ge $per ] ||
	die "GUEST_SMP=$smp: a multiple of $per (2 packages of cores of $threads threads)" 2

qemu=$(command -v $qemu) || die "needs $qemu (Debian package $qpkg)" 3
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 || die "needs a static $busybox $where" 3
command -v cpio >/dev/null || die "needs cpio (Debian package cpio)" 3
if [ -n "${GUEST_KERNEL:-}" ]; then
	kernel=$GUEST_KERNEL
	kver=${kernel##*/$kimg-}
	kdir=$(cd "$(dirname "$kernel")/.." && pwd)
else
	kernel= kver=
	for k in $(ls "$kdir"/boot/$kimg-* 2>/dev/null | sort -V); do
		v=${k##*/$kimg-}
		[ -f "$kdir/lib/modules/$v/modules.dep" ] && kernel=$k kver=$v
	done
fi
[ -n "$kernel" ] && [ -r "$kernel" ] || die "needs a kernel in $kdir/boot with its modules ($kpkg)" 3
mods=$kdir/lib/modules/$kver
[ -f "$mods/modules.dep" ] || die "needs $mods/modules.dep for $kernel ($kpkg)" 3

# ---- the initramfs: busybox, the modules of 9p over virtio, /init ----
ir=$out/initramfs
rm -rf "$ir"
mkdir -p "$ir/bin" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/root" "$ir/modules" || exit 1
cp "$busybox" "$ir/bin/busybox" || exit 1
for a in sh mount umount insmod mkdir cat echo chroot poweroff sync ln; do
	ln -s busybox "$ir/bin/$a"
done
# each module after the ones it needs (modules.dep lists a module's needs
# with the one loaded last first)
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
	# (a kernel with it built in has no such module)
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
	*) die "module $m: a compression this script does not know" 3 ;;
	esac || die "copying $m" 3
done <"$out/modules.list"

# the init's parameters: the root's kind, where the results go, the
# script and the environment it runs in
if [ $mode = own ]; then
	echo "MODE=own O=/out RUN=/run.sh ENV=/bin/env GPATH=/bin GHOME=/tmp GLANG=C" >"$ir/params"
else
	echo "MODE=host O=/tmp/guest-out RUN=/tmp/guest-out/run.sh ENV=/usr/bin/env" \
		"GPATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin GHOME=/root GLANG=C.UTF-8" >"$ir/params"
fi
cat >"$ir/init" <<'INIT'
#!/bin/sh
PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "guest init: loading the 9p modules"
for m in /modules/*.ko; do insmod "$m" || echo "guest init: insmod $m failed"; done
. /params
R=/root
o=$O
# the kernel's file systems in the root
kernel_fs() {
	mkdir -p $R/proc $R/sys $R/dev && mount -t proc proc $R/proc && mount -t sysfs sys $R/sys &&
		mount -t devtmpfs dev $R/dev && mkdir -p $R/dev/shm $R/dev/pts &&
		mount -t tmpfs shm $R/dev/shm && ln -sf /proc/self/fd $R/dev/fd &&
		ln -sf /proc/self/fd/0 $R/dev/stdin && ln -sf /proc/self/fd/1 $R/dev/stdout &&
		ln -sf /proc/self/fd/2 $R/dev/stderr
}
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
# the host's root, read-only, with tmpfs of the guest's own; DIR at $o
host_root() {
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose host $R &&
		keep hold && kernel_fs && mount -t tmpfs tmp $R/tmp &&
		mount -t tmpfs run $R/run && mount -t tmpfs vtmp $R/var/tmp && keep back &&
		mkdir $R$o && mount -t 9p -o trans=virtio,version=9p2000.L,cache=none out $R$o
}
# DIR/root, read-write, its results in it
own_root() {
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none root $R &&
		mkdir -p $R/tmp $R$o && kernel_fs
}
if ${MODE}_root; then
	echo "guest init: the root is mounted, running run.sh"
	cat /proc/uptime >$R$o/uptime
	mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
	chroot $R $ENV -i PATH=$GPATH HOME=$GHOME TMPDIR=/tmp LANG=$GLANG TERM=dumb GUEST_OUT=$o \
		/bin/sh $RUN </dev/null >$R$o/run.out 2>&1
	echo $? >$R$o/rc
	sync
else
	echo "guest init: the root is not there"
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
cores=$((half / threads))
mkdir -p "$res"
rm -f "$res/rc" "$res/uptime" "$res/run.out"
set --
if [ $mode = own ]; then
	share="local,path=$out/root,mount_tag=root,security_model=none,multidevs=remap"
else
	share="local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
	set -- -virtfs "local,path=$out,mount_tag=out,security_model=none"
fi
: >"$out/console"
start=$(date +%s.%N)
# (the kernel's boot messages at loglevel 6 on the console: the first
# sign of progress, and what a boot that stops shows)
"$qemu" $machine -accel tcg -nodefaults -no-reboot -display none \
	-smp "$smp,sockets=2,cores=$cores,threads=$threads" -m "$((mem * 3))M" \
	-object "memory-backend-ram,id=m0,size=${mem}M" \
	-object "memory-backend-ram,id=m1,size=${mem}M" \
	-object "memory-backend-ram,id=m2,size=${mem}M" \
	-numa "node,nodeid=0,cpus=0-$((half - 1)),memdev=m0" \
	-numa "node,nodeid=1,cpus=$half-$((smp - 1)),memdev=m1" \
	-numa "node,nodeid=2,memdev=m2" \
	-kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
	-append "console=$console rdinit=/init panic=-1 loglevel=6" \
	-serial "file:$out/console" -virtfs "$share" "$@" \
	</dev/null >"$out/qemu.log" 2>&1 &
qpid=$!

# await SECONDS CMD...: until CMD succeeds (0), or SECONDS have passed
# (1); it looks again after 0.05 s, then less and less often (0.5 s)
await() {
	_aw_end=$(($(date +%s) + $1))
	shift
	_aw_nap=0.05
	until "$@"; do
		[ "$(date +%s)" -lt "$_aw_end" ] || return 1
		sleep $_aw_nap
		case $_aw_nap in 0.05) _aw_nap=0.1 ;; 0.1) _aw_nap=0.2 ;; 0.2) _aw_nap=0.5 ;; esac
	done
}
# how much the guest has written: its console and its results (bytes;
# du counts a file once, though the console is in DIR)
written() {
	du -sb "$out/console" "$res" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}
gone() { ! kill -0 "$qpid" 2>/dev/null; }
# the guest ended, or wrote more than $seen
moved() { gone || [ "$(written)" != "$seen" ]; }
t0=$(date +%s)
last=$t0 seen=0 why=
while :; do
	end=$((last + stall)) why=stall
	[ "$limit" -gt 0 ] && [ $((t0 + limit)) -lt $end ] && end=$((t0 + limit)) why=limit
	if await $((end - $(date +%s))) moved; then
		gone && { why= && break; }
		seen=$(written) last=$(date +%s)
		# the test's own deadline: not before this stall would end
		if [ -n "${CPS_TEST_EXTEND:-}" ]; then
			echo $((last + stall + 60)) >"$CPS_TEST_EXTEND.new" &&
				mv -f "$CPS_TEST_EXTEND.new" "$CPS_TEST_EXTEND"
		fi
		continue
	fi
	kill "$qpid" 2>/dev/null
	await 10 gone || kill -KILL "$qpid" 2>/dev/null
	break
done
wait "$qpid"
qs=$?
end=$(date +%s.%N)
echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' >"$out/wall"
[ -f "$res/rc" ] && exit 0
ran=$(cat "$out/wall")
what="waited for the guest to boot (console output), mount its root, run run.sh and write $res/rc"
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
