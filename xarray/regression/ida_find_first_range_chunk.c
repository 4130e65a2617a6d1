// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: ida_find_first_range() looks only at the first 1024-ID chunk
 * that has any ID, so an allocated ID in a later chunk is not found when
 * that first chunk's IDs all lie below @min.
 *
 * lib/idr.c (7.2.13, 7.3.4; 6.1 and 6.12 have no ida_find_first_range()):
 *
 *	entry = xa_find(&ida->xa, &index, max / IDA_BITMAP_BITS, XA_PRESENT);
 *	...
 *	bit = find_next_bit(addr, size, offset);
 *	...
 *	if (bit == size ||
 *	    index * IDA_BITMAP_BITS + bit > max)
 *		return -ENOENT;
 *
 * When the chunk holding @min has IDs only below min % IDA_BITMAP_BITS,
 * find_next_bit() finds nothing there and the function gives up instead of
 * going on to the next present chunk (xa_find_after()).
 *
 * Reach: no in-tree caller passes such a range.  In the 7.3.4 tree the
 * callers are ida_exists() (min == max: drivers/iommu/intel/iommu.c,
 * drivers/vfio/iommufd.c, drivers/pci/ide.c), ida_find_first() (min 0:
 * drivers/vfio/iommufd.c) and net/bluetooth/l2cap_core.c (min == max);
 * all correct.  The function is exported (EXPORT_SYMBOL).
 *
 * Expected: with IDs 5 and 1030 allocated, ida_find_first_range(ida, 100,
 * 2000) returns 1030.
 *
 * Found by xarray/ida_api (which now asks only from a chunk's first ID or
 * for one ID).  Finding ida-find-first-range-stops-at-chunk in
 * docs/findings.toml.  Test code is ours; the tree is lib/idr.c from KSRC.
 */
#include <linux/idr.h>
#include <ksim/test.h>

KSIM_TEST(ida_find_first_range_chunk)
{
#if KSIM_HAVE_IDA_EXISTS
	DEFINE_IDA(ida);
	int got;

	KSIM_ASSERT(ida_alloc_range(&ida, 5, 5, GFP_KERNEL) == 5);
	KSIM_ASSERT(ida_alloc_range(&ida, 1030, 1030, GFP_KERNEL) == 1030);
	got = ida_find_first_range(&ida, 100, 2000);
	KSIM_EXPECT(got == 1030,
		    "ida_find_first_range(100, 2000) with IDs 5 and 1030 allocated = %d, not 1030 "
		    "(it stopped at the chunk of ID 5)", got);
	ida_destroy(&ida);
#else
	printf("# this tree has no ida_find_first_range()\n");
#endif
}
