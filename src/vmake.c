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
const unsigned char cps_vkind_delivery[CPS_VK_COUNT] = {
	VD_E(0) VD_E(1) VD_E(2) VD_E(3) VD_E(4) VD_E(5) VD_E(6) VD_E(7) VD_E(8) VD_E(9)
	VD_E(10) VD_E(11) VD_E(12) VD_E(13) VD_E(14) VD_E(15) VD_E(16) VD_E(17) VD_E(18)
	VD_E(19) VD_E(20) VD_E(21) VD_E(22) VD_E(23)
};
_Static_assert(CPS_VK_COUNT == 24, "a kind without its entry above");
#undef VD_E
#undef VD_ROW
