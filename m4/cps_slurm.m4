# CPS_SLURM: the SPANK plugin (slurm/). --with-slurm[=PREFIX] requires
# <slurm/spank.h>, --without-slurm leaves the plugin out, and by default it
# is built when the header is found. --with-slurm-plugindir=DIR says where
# it installs; by default the folder where this Slurm keeps its plugins.
# Sets HAVE_SLURM (automake conditional), SLURM_CPPFLAGS, SLURM_PLUGINDIR.
AC_DEFUN([CPS_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm@<:@=PREFIX@:>@],
      [build the Slurm SPANK plugin (default: when <slurm/spank.h> is found)])],
    [], [with_slurm=check])
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [install the SPANK plugin in DIR (default: Slurm's own plugin folder)])],
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
  SLURM_PLUGINDIR=$with_slurm_plugindir
  AS_IF([test "x$cps_have_slurm" = xyes && test -z "$SLURM_PLUGINDIR"], [
    AC_MSG_CHECKING([where Slurm keeps its plugins])
    cps_ma=`$CC -print-multiarch 2>/dev/null`
    for d in $cps_slurm_prefix/lib/slurm $cps_slurm_prefix/lib64/slurm \
        /usr/lib/$cps_ma/slurm-wlm /usr/lib/$cps_ma/slurm /usr/lib64/slurm /usr/lib/slurm \
        /usr/local/lib/slurm /usr/local/lib64/slurm; do
      AS_IF([test -f "$d/auth_none.so" || test -f "$d/task_none.so" || test -f "$d/auth_munge.so"],
        [SLURM_PLUGINDIR=$d; break])
    done
    AS_IF([test -z "$SLURM_PLUGINDIR"], [SLURM_PLUGINDIR='${libdir}/slurm'])
    AC_MSG_RESULT([$SLURM_PLUGINDIR])
  ])
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_PLUGINDIR])
  AM_CONDITIONAL([HAVE_SLURM], [test "x$cps_have_slurm" = xyes])
  AC_MSG_NOTICE([Slurm SPANK plugin: $cps_have_slurm${SLURM_PLUGINDIR:+ (installs in $SLURM_PLUGINDIR)}])
])
