# AX_CHECK_CC_FLAG(FLAG, ACTION-IF-OK)
# Runs ACTION-IF-OK when the C compiler accepts FLAG with warnings as errors.
AC_DEFUN([AX_CHECK_CC_FLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  cps_save_CFLAGS="$CFLAGS"
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $2], [AC_MSG_RESULT([no])])
  CFLAGS="$cps_save_CFLAGS"
])

# AX_PTHREAD_SIMPLE: glibc 2.34+ has threads in libc; older ones need -pthread.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  PTHREAD_CFLAGS="-pthread"
  PTHREAD_LIBS="-pthread"
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])
