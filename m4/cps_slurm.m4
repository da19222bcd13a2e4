# SPDX-License-Identifier: BSD-3-Clause
# CPS_SLURM: the SPANK plugin (slurm/). --with-slurm[=PREFIX] requires
# <slurm/spank.h>, --without-slurm leaves the plugin out, and by default it
# is built when the header is found. It installs under the prefix,
# $libdir/slurm, unless --with-slurm-plugindir=DIR says where (DIR "yes",
# or the option without a value: the folder where this Slurm keeps its
# plugins, which configure looks up and prints either way).
# Sets HAVE_SLURM (automake conditional), SLURM_CPPFLAGS, SLURM_PLUGINDIR.
AC_DEFUN([CPS_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm@<:@=PREFIX@:>@],
      [build the Slurm SPANK plugin (default: when <slurm/spank.h> is found)])],
    [], [with_slurm=check])
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [install the SPANK plugin in DIR; without DIR, in the folder where Slurm keeps its plugins (default: LIBDIR/slurm)])],
    [], [with_slurm_plugindir=])
  SLURM_CPPFLAGS=
  cps_slurm_prefix=
  AS_CASE([$with_slurm], [yes|no|check], [], [cps_slurm_prefix=$with_slurm; with_slurm=yes])
  AS_IF([test -n "$cps_slurm_prefix"], [SLURM_CPPFLAGS="-I$cps_slurm_prefix/include"])
  cps_have_slurm=no
  AS_IF([test "x$with_slurm" != xno], [
    cps_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
    AC_CHECK_HEADER([slurm/spank.h], [cps_have_slurm=yes], [], [])
    CPPFLAGS=$cps_save_CPPFLAGS
    AS_IF([test "x$with_slurm" = xyes && test "x$cps_have_slurm" = xno],
      [AC_MSG_ERROR([--with-slurm: <slurm/spank.h> not found (install Slurm's development files, e.g. libslurm-dev)])])
  ])
  dnl Slurm's own folder: pkg-config's plugindir of slurm where Slurm ships
  dnl a slurm.pc, else the first known folder holding one of its plugins
  cps_slurm_found=
  AS_IF([test "x$cps_have_slurm" = xyes], [
    AC_MSG_CHECKING([where Slurm keeps its plugins])
    AS_IF([test -n "$PKG_CONFIG"],
      [cps_slurm_found=`$PKG_CONFIG --variable=plugindir slurm 2>/dev/null`])
    AS_IF([test -z "$cps_slurm_found"], [
      cps_ma=`$CC -print-multiarch 2>/dev/null`
      for d in $cps_slurm_prefix/lib/slurm $cps_slurm_prefix/lib64/slurm \
          /usr/lib/$cps_ma/slurm-wlm /usr/lib/$cps_ma/slurm /usr/lib64/slurm /usr/lib/slurm \
          /usr/local/lib/slurm /usr/local/lib64/slurm; do
        AS_IF([test -f "$d/auth_none.so" || test -f "$d/task_none.so" || test -f "$d/auth_munge.so"],
          [cps_slurm_found=$d; break])
      done
    ])
    AC_MSG_RESULT([${cps_slurm_found:-not found}])
  ])
  AS_CASE([$with_slurm_plugindir],
    [""|no], [SLURM_PLUGINDIR='${libdir}/slurm'],
    [yes], [AS_IF([test -n "$cps_slurm_found"], [SLURM_PLUGINDIR=$cps_slurm_found],
      [AS_IF([test "x$cps_have_slurm" = xyes],
        [AC_MSG_ERROR([--with-slurm-plugindir: Slurm's plugin folder not found; name it (--with-slurm-plugindir=DIR)])])])],
    [SLURM_PLUGINDIR=$with_slurm_plugindir])
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_PLUGINDIR])
  AM_CONDITIONAL([HAVE_SLURM], [test "x$cps_have_slurm" = xyes])
  AC_MSG_NOTICE([Slurm SPANK plugin: $cps_have_slurm${SLURM_PLUGINDIR:+ (installs in $SLURM_PLUGINDIR)}])
  AS_IF([test "x$cps_have_slurm" = xyes && test -n "$cps_slurm_found" &&
         test "x$SLURM_PLUGINDIR" != "x$cps_slurm_found"],
    [AC_MSG_NOTICE([Slurm keeps its plugins in $cps_slurm_found: --with-slurm-plugindir (or =$cps_slurm_found) installs the plugin there, or plugstack.conf names the full path])])
])
