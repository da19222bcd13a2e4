# SPDX-License-Identifier: BSD-3-Clause
# CPS_STATIC_RUN: how cpuset-run is linked (--enable-static-run, default
# auto). Sets CPS_RUN_LDFLAGS (substituted): -static-pie, else -all-static,
# else nothing.
#
# cpuset-run is exec'd between its caller and the program it runs, so its
# own start is paid on every use: linked statically it skips the dynamic
# loader (its mappings, relocations and symbol look-ups), a tenth of a
# millisecond here. As a static PIE when the toolchain can make one, which
# keeps address randomisation for about 15 us more; else plain static.
# Neither when the flags forbid it (-fsanitize=address refuses -static) or
# there is no static libc: then it is linked as usual. Call it after the
# flags are final (after CPS_SANITIZERS) and after AX_PTHREAD.
AC_DEFUN([CPS_STATIC_RUN], [
AC_ARG_ENABLE([static-run],
  [AS_HELP_STRING([--disable-static-run],
    [link cpuset-run dynamically (default: statically when the flags and the C library allow)])],
  [], [enable_static_run=auto])
CPS_RUN_LDFLAGS=
AS_IF([test "x$enable_static_run" != xno], [
  cps_save_LDFLAGS="$LDFLAGS"
  cps_save_CFLAGS="$CFLAGS"
  CFLAGS="$CFLAGS $PTHREAD_CFLAGS"
  dnl libtool passes -static-pie to the compiler as it is, but wants
  dnl -all-static for a fully static link (its own -static means another thing)
  for cps_flag in -static-pie:-static-pie -static:-all-static; do
    AC_MSG_CHECKING([whether cpuset-run links with ${cps_flag%%:*}])
    LDFLAGS="$cps_save_LDFLAGS ${cps_flag%%:*}"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>]], [[
    pthread_mutexattr_t a;
    static pthread_mutex_t m;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    if (pthread_mutex_lock(&m) == EOWNERDEAD)
      pthread_mutex_consistent(&m);
    int fd = shm_open("/x", O_RDONLY, 0);
    return mmap(0, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED;]])],
      [CPS_RUN_LDFLAGS=${cps_flag@%:@*:}], [])
    AS_IF([test -n "$CPS_RUN_LDFLAGS"], [AC_MSG_RESULT([yes]); break], [AC_MSG_RESULT([no])])
  done
  LDFLAGS="$cps_save_LDFLAGS"
  CFLAGS="$cps_save_CFLAGS"
  AS_IF([test "x$enable_static_run" = xyes && test -z "$CPS_RUN_LDFLAGS"],
    [AC_MSG_ERROR([--enable-static-run: cpuset-run cannot be linked statically here])])
])
AC_SUBST([CPS_RUN_LDFLAGS])
])
