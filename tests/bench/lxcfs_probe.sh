#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What a program sees of its CPUs, one line a client (tests/bench/lxcfs.sh);
# $M holds the programs it runs.
echo "nproc: $(nproc)"
echo "cpuinfo processors: $(grep -c ^processor /proc/cpuinfo) ($(grep ^processor /proc/cpuinfo | awk '{printf "%s ", $3}'))"
echo "/proc/stat cpuN: $(grep -c '^cpu[0-9]' /proc/stat) ($(grep -o '^cpu[0-9][0-9]*' /proc/stat | tr '\n' ' '))"
echo "sys online: $(cat /sys/devices/system/cpu/online)"
echo "sys cpuN dirs: $(ls -d /sys/devices/system/cpu/cpu[0-9]* | xargs -n1 basename | tr '\n' ' ')"
echo "cpu0 core_cpus_list: $(cat /sys/devices/system/cpu/cpu0/topology/core_cpus_list 2>&1)"
echo "cpu0 L2 shared_cpu_list: $(cat /sys/devices/system/cpu/cpu0/cache/index2/shared_cpu_list 2>&1)"
echo "hwloc PUs: $(hwloc-calc --number-of pu all 2>&1) lstopo: $(lstopo-no-graphics --of console 2>/dev/null | grep -o 'PU L#[0-9]* (P#[0-9]*)' | tr '\n' ' ')"
echo "java availableProcessors: $(java -cp "$M" Cpus 2>&1)"
echo "go NumCPU GOMAXPROCS affinity: $("$M"/go counts)"
echo "python os.cpu_count sched_getaffinity: $(python3 -c 'import os; print(os.cpu_count(), sorted(os.sched_getaffinity(0)))')"
echo "openmp: $("$M"/omp)"
echo "openmp OMP_PROC_BIND=true: $(OMP_PROC_BIND=true "$M"/omp)"
echo "taskset -c 0 nproc: $(taskset -c 0 nproc 2>&1 | head -1)"
