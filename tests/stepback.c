/* SPDX-License-Identifier: BSD-3-Clause */
/* A clock stepped back an hour, for the programs that preload this: time()
 * and CLOCK_REALTIME (gettimeofday, timespec_get) read an hour earlier
 * than the system's. Tests only
 * (the AUTOCLEAN grace period must not follow the wall clock). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/time.h>
#include <time.h>

#define STEP 3600
#define EXPORT __attribute__((visibility("default")))

EXPORT time_t time(time_t *t)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int r = real(id, ts);
	if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec -= STEP;
	return r;
}

EXPORT int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;
	(void)tz;
	int r = clock_gettime(CLOCK_REALTIME, &ts);
	if (r == 0) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return r;
}

EXPORT int timespec_get(struct timespec *ts, int base)
{
	if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) < 0)
		return 0;
	return base;
}
