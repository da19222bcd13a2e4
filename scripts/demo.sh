#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job, end to end: install the build dependencies, build, and run
# a real OpenMP program inside a one-CPU set. It reports one CPU, numbered
# 0, while it runs on physical CPU 1.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
make -s tests/integration/prog_omp >/dev/null

export CPUSETSHIM_TABLE=cpusetshim-demo.$$
# not installed: cpuset-run preloads the build tree's shim
export CPUSETSHIM_LIB="$PWD/.libs/libcpusetshim.so"
trap 'rm -f /dev/shm/$CPUSETSHIM_TABLE; rm -rf /dev/shm/$CPUSETSHIM_TABLE.views.*' EXIT
./cpuset init >/dev/null
echo "# the machine: $(nproc) CPUs"
echo "\$ cpuset create --cpus 1 --name demo"
./cpuset create --cpus 1 --name demo
echo "\$ cpuset-run --set demo nproc"
./cpuset-run --set demo nproc
echo "\$ cpuset-run --set demo grep processor /proc/cpuinfo"
./cpuset-run --set demo grep processor /proc/cpuinfo
echo "\$ OMP_PLACES=threads OMP_PROC_BIND=close cpuset-run --set demo prog_omp"
echo "#   (vcpu: what the program sees; pcpu: the physical CPU, read with a raw system call)"
OMP_PLACES=threads OMP_PROC_BIND=close ./cpuset-run --set demo tests/integration/prog_omp
# the program has exited: its record goes at the next write, or now
./cpuset sweep >/dev/null
echo "\$ cpuset-inspect --tree"
./cpuset-inspect --tree
