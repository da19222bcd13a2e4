# SPDX-License-Identifier: BSD-3-Clause
# CPS_SHIMDIR: where libcpusetshim.so installs (SHIMDIR): LIBDIR by default,
# --with-shimdir=DIR elsewhere (a distribution keeps a preload module with
# no soname out of the linker's folder: --with-shimdir='${libdir}/cpusetshim').
# cpuset-run and the SPANK plugin preload it from there.
AC_DEFUN([CPS_SHIMDIR], [
  AC_ARG_WITH([shimdir],
    [AS_HELP_STRING([--with-shimdir=DIR],
      [install the preload shim libcpusetshim.so in DIR (default: LIBDIR)])],
    [], [with_shimdir=])
  AS_CASE([$with_shimdir],
    [""|yes|no], [SHIMDIR='${libdir}'],
    [SHIMDIR=$with_shimdir])
  AC_SUBST([SHIMDIR])
])
