// SPDX-License-Identifier: GPL-2.0
/*
 * lib/idr.c from KSRC, unmodified (the IDR and IDA on the xarray).
 * Outside the kernel (no __KERNEL__, as in its harness) it has a static
 * ida_dump() that lib/test_ida.c calls; the harness sed's the "static"
 * away, we rename it while the file is included and export it below.
 */
#define ida_dump	ksim_idr_ida_dump
#include <lib/idr.c>
#undef ida_dump

void ida_dump(struct ida *ida)
{
	ksim_idr_ida_dump(ida);
}
