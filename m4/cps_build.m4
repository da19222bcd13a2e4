# SPDX-License-Identifier: BSD-3-Clause
# The project's own configure checks (autoconf-archive's AX_ macros do the
# generic ones).

# CPS_VERSION_SCRIPT: the linker must take -Wl,--version-script: the shim
# and the public library export only their interface through one
# (preload/libcpusetshim.map, src/libcpusetctl.map); without it the shim
# would export its internals into every program it is loaded into.
AC_DEFUN([CPS_VERSION_SCRIPT], [
AC_CACHE_CHECK([whether the linker takes a version script], [cps_cv_version_script], [
  cat >conftest.map <<_CPS_EOF
CPS_TEST { global: cps_conftest; local: *; };
_CPS_EOF
  cps_save_LDFLAGS="$LDFLAGS"
  LDFLAGS="$LDFLAGS -shared -fPIC -Wl,--version-script=conftest.map"
  AC_LINK_IFELSE([AC_LANG_SOURCE([[int cps_conftest(void); int cps_conftest(void) { return 0; }]])],
    [cps_cv_version_script=yes], [cps_cv_version_script=no])
  LDFLAGS="$cps_save_LDFLAGS"
  rm -f conftest.map])
AS_IF([test "x$cps_cv_version_script" != xyes],
  [AC_MSG_ERROR([the linker does not take -Wl,--version-script (GNU ld, gold, lld and mold do): the shim needs one to export only its interposers])])
])

# CPS_SANITIZERS: --enable-asan, --enable-ubsan. The flags go into CFLAGS
# and LDFLAGS, so that every object and every link (libtool's included)
# gets them, and the static-link probe of cpuset-run sees them. The tests
# find the sanitizer runtimes through the shim (tests/common.sh).
AC_DEFUN([CPS_SANITIZERS], [
AC_ARG_ENABLE([asan],
  [AS_HELP_STRING([--enable-asan], [build with AddressSanitizer (tests and CI)])],
  [], [enable_asan=no])
AC_ARG_ENABLE([ubsan],
  [AS_HELP_STRING([--enable-ubsan],
    [build with UndefinedBehaviorSanitizer, stopping at the first error (tests and CI)])],
  [], [enable_ubsan=no])
dnl the flags without the sanitizers: the Slurm tests' plugin of a
dnl sanitizer build (slurm/Makemodule.am says why)
CPS_NOSAN_CFLAGS="$CFLAGS"
AC_SUBST([CPS_NOSAN_CFLAGS])
cps_san=
AS_IF([test "x$enable_asan" = xyes], [cps_san="-fsanitize=address -fno-omit-frame-pointer"])
AS_IF([test "x$enable_ubsan" = xyes], [cps_san="$cps_san -fsanitize=undefined -fno-sanitize-recover=undefined"])
AS_IF([test -n "$cps_san"], [
  AX_CHECK_LINK_FLAG([$cps_san], [],
    [AC_MSG_ERROR([$CC cannot build with $cps_san (the compiler's sanitizer runtimes, libasan/libubsan, are missing?)])])
  CFLAGS="$CFLAGS $cps_san"
  LDFLAGS="$LDFLAGS $cps_san"
])
AC_MSG_CHECKING([for sanitizers])
AC_MSG_RESULT([${cps_san:-none}])
AM_CONDITIONAL([CPS_SANITIZED], [test -n "$cps_san"])
])

# CPS_CHECK_LIB: Check (libcheck), for make check only. Sets CHECK_CFLAGS,
# CHECK_LIBS and the automake conditional HAVE_CHECK; without it the
# library, the shim and the tools still build, and make check stops with
# a message saying what is missing.
AC_DEFUN([CPS_CHECK_LIB], [
PKG_CHECK_MODULES([CHECK], [check >= 0.10], [have_check=yes], [have_check=no])
AM_CONDITIONAL([HAVE_CHECK], [test "x$have_check" = xyes])
AS_IF([test "x$have_check" != xyes],
  [AC_MSG_WARN([Check (check >= 0.10, Debian package check) not found: everything builds, but make check will stop; sh scripts/deps.sh installs it])])
])
