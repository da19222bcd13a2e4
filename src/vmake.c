/* SPDX-License-Identifier: BSD-3-Clause */
/* The one switch from a view's kind to its bytes (src/vmake.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>

#include "src/vcgroup.h"
#include "src/vcpuinfo.h"
#include "src/vfiles.h"
#include "src/vmake.h"
#include "src/vproc_pidstat.h"
#include "src/vsys.h"
#include "src/views.h"

/* ---- the kinds' deliveries, made by the compiler from the rows ---- */
#define VD_ROW(k, dir, name, family, kind, delivery, flags) | ((kind) == (k) ? (delivery) : 0)
#define VD_E(k) [k] = 0 CPS_VFILES(VD_ROW, k),
#define VD_E8(k) VD_E(k) VD_E(k + 1) VD_E(k + 2) VD_E(k + 3) VD_E(k + 4) VD_E(k + 5) \
	VD_E(k + 6) VD_E(k + 7)
/* every kind up to CPS_VK_ROOM: a new kind needs no line here */
const unsigned char cps_vkind_delivery[CPS_VK_ROOM] = { VD_E8(0) VD_E8(8) VD_E8(16) VD_E8(24) };
_Static_assert(CPS_VK_COUNT <= CPS_VK_ROOM, "more kinds than CPS_VK_ROOM: raise it, add a VD_E8");
#undef VD_E8
#undef VD_E
#undef VD_ROW
