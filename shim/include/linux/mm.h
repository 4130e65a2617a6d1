/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of include/linux/mm.h that the shim's kernel files ask for
 * (lib/rhashtable.c: the allocators; PAGE_SIZE; kernel/bpf/arraymap.c:
 * PAGE_ALIGN, and the types of its mmap()able arrays).  mm-sim has its own
 * (mm-sim/include/linux/mm.h), found first on its include path.
 *
 * No BPF map is mmap()ed here (bpf(2) has no mmap: sys_bpf.c), so the
 * VMA and fault types exist for arraymap.c's array_map_mmap() and
 * array_map_mmap_fault() to compile, and the page functions they call fail
 * loudly if they are ever reached.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/bug.h>

#ifndef PAGE_SHIFT
#define PAGE_SHIFT	CONFIG_PAGE_SHIFT
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)

#define VM_FAULT_SIGBUS		((__force vm_fault_t)0x000002)
#define VM_MIXEDMAP	0x10000000UL
#define VM_DONTEXPAND	0x00040000UL
#define VM_DONTDUMP	0x04000000UL

struct page;
struct folio;
struct vm_area_struct {
	unsigned long vm_start, vm_end;
	unsigned long vm_pgoff;
	unsigned long vm_flags;
};
struct vm_fault {
	struct vm_area_struct *vma;
	pgoff_t pgoff;
	struct page *page;
};

static inline void vm_flags_set(struct vm_area_struct *vma, unsigned long flags) { BUG(); }
static inline struct page *vmalloc_to_page(const void *addr) { BUG(); }
static inline struct folio *page_folio(struct page *page) { BUG(); }
static inline void flush_dcache_folio(struct folio *folio) { BUG(); }
static inline void get_page(struct page *page) { BUG(); }
static inline int remap_vmalloc_range(struct vm_area_struct *vma, void *addr, unsigned long pgoff)
{
	BUG();
}

#endif
