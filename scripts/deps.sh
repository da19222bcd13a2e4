#!/bin/sh
# Installs what building and testing cpusetshim need on Debian 12 (as root).
set -e
pkgs="build-essential autoconf automake libtool pkg-config check clang libclang-rt-dev libomp-dev python3 util-linux procps bzip2 passwd"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
fi
