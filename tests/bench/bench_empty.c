/* SPDX-License-Identifier: BSD-3-Clause */
/* An empty library, preloaded by the start-up benchmark as the baseline of
 * what LD_PRELOAD of any library costs before the shim does anything. */
int cps_bench_empty_marker;
