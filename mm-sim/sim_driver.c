// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated drivers: the kernel-facing side of what a driver or filesystem
 * hands the VMA code.
 *
 *   - a file with an f_op->mmap_prepare() hook (7.x): it fills in the
 *     struct vm_area_desc as the test asks (struct ksim_driver in sim.h) and
 *     records what __mmap_region() passed it; its vm_ops have ->mapped(),
 *     which mm/util.c's mmap_action_complete() calls for a new VMA.
 *
 * The hooks do what the contract in include/linux/mm_types.h and
 * mm/vma.c's call_mmap_prepare() allows (the mutable and write-only fields
 * of the descriptor) and nothing else; checking what came of it is the
 * test's.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>
#include <mm_sim/query.h>

void ksim_set_current(struct mm_struct *mm);	/* sim.c: current->mm */

#if KSIM_HAVE_MMAP_PREPARE
static void ksim_driver_close(struct vm_area_struct *vma)
{
	struct ksim_driver *drv = vma->vm_file ? vma->vm_file->ksim_driver : NULL;

	/* the VMA's file may be the one the hook made: its driver is the creator's */
	if (drv)
		drv->close_calls++;
}

static int ksim_driver_mapped(unsigned long start, unsigned long end, pgoff_t pgoff,
			      const struct file *file, void **vm_private_data)
{
	struct ksim_driver *drv = file->ksim_driver;

	drv->mapped_calls++;
	drv->seen.mapped_start = start;
	drv->seen.mapped_end = end;
	drv->seen.mapped_pgoff = pgoff;
	drv->seen.mapped_private = *vm_private_data;
	if (drv->mapped_err)
		return drv->mapped_err;
	if (drv->mapped_private)
		*vm_private_data = drv->mapped_private;
	return 0;
}

/*
 * A ->close() hook keeps the VMA from merging (can_merge_remove_vma()); the
 * driver's ops with ->mapped() only do not.
 */
static const struct vm_operations_struct ksim_driver_vm_ops_close = {
	.close = ksim_driver_close,
	.mapped = ksim_driver_mapped,
};
static const struct vm_operations_struct ksim_driver_vm_ops = {
	.mapped = ksim_driver_mapped,
};

static const struct file_operations ksim_shmem_fops;	/* shmem's has ->mmap_prepare only */

static int ksim_driver_mmap_prepare(struct vm_area_desc *desc)
{
	struct ksim_driver *drv = desc->file->ksim_driver;
	vm_flags_t flags = vma_flags_to_legacy(desc->vma_flags);

	drv->prepare_calls++;
	drv->seen.mm = desc->mm;
	drv->seen.start = desc->start;
	drv->seen.end = desc->end;
	drv->seen.pgoff = desc->pgoff;
	drv->seen.flags = flags;
	drv->seen.vm_file_is_file = desc->vm_file == desc->file;
	drv->seen.vm_ops_dummy = desc->vm_ops == &vma_dummy_vm_ops;
	drv->seen.private_null = desc->private_data == NULL;
	drv->seen.action_nothing = desc->action.type == MMAP_NOTHING;
	if (drv->prepare_err)
		return drv->prepare_err;

	desc->vma_flags = legacy_to_vma_flags((flags | drv->set_flags) & ~drv->clear_flags);
	desc->pgoff += drv->pgoff_delta;
	if (drv->ops == KSIM_DRIVER_OPS_MAPPED)
		desc->vm_ops = &ksim_driver_vm_ops;
	else if (drv->ops == KSIM_DRIVER_OPS_CLOSE)
		desc->vm_ops = &ksim_driver_vm_ops_close;
	else if (drv->ops == KSIM_DRIVER_OPS_NULL)
		desc->vm_ops = NULL;
	desc->private_data = drv->private_data;
	desc->action.error_override = drv->error_override;
	if (drv->new_file) {
		/*
		 * shmem_zero_setup_desc()'s way: a fresh file, its one
		 * reference handed to the mapping (map->file_doesnt_need_get)
		 */
		struct file *f = ksim_file_open("mmap_prepare's own file");

		/* a shmem file: ->mmap_prepare, no ->mmap for __mmap_new_file_vma() to call */
		f->f_op = &ksim_shmem_fops;
		f->ksim_opened = false;
		f->ksim_driver = drv;
		drv->made = f;
		desc->vm_file = f;
	}
	return 0;
}

static const struct file_operations ksim_driver_fops = {
	.mmap_prepare = ksim_driver_mmap_prepare,
};

struct file *ksim_driver_file_open(const char *name, struct ksim_driver *drv)
{
	struct file *f = ksim_file_open(name);

	f->f_op = &ksim_driver_fops;
	f->ksim_driver = drv;
	return f;
}

const void *ksim_driver_vm_ops_id(enum ksim_driver_ops ops)
{
	switch (ops) {
	case KSIM_DRIVER_OPS_MAPPED:	return &ksim_driver_vm_ops;
	case KSIM_DRIVER_OPS_CLOSE:	return &ksim_driver_vm_ops_close;
	case KSIM_DRIVER_OPS_NULL:	return NULL;
	default:			return &vma_dummy_vm_ops;
	}
}

/* The mmap_action kinds that map PFNs or kernel pages: never asked for here. */
int remap_pfn_range_prepare(struct vm_area_desc *desc)
{
	WARN(1, "ksim: no simulated driver remaps PFNs");
	return -EINVAL;
}
int remap_pfn_range_complete(struct vm_area_struct *vma, struct mmap_action *action)
{
	WARN(1, "ksim: no simulated driver remaps PFNs");
	return -EINVAL;
}
int simple_ioremap_prepare(struct vm_area_desc *desc)
{
	WARN(1, "ksim: no simulated driver remaps I/O memory");
	return -EINVAL;
}
int map_kernel_pages_prepare(struct vm_area_desc *desc)
{
	WARN(1, "ksim: no simulated driver maps kernel pages");
	return -EINVAL;
}
int map_kernel_pages_complete(struct vm_area_struct *vma, struct mmap_action *action)
{
	WARN(1, "ksim: no simulated driver maps kernel pages");
	return -EINVAL;
}
#else
struct file *ksim_driver_file_open(const char *name, struct ksim_driver *drv)
{
	return NULL;
}

const void *ksim_driver_vm_ops_id(enum ksim_driver_ops ops)
{
	return NULL;
}
#endif

#if KSIM_HAVE_INSTALL_SPECIAL_MAPPING_IN_VMA_C
/*
 * A special mapping (vdso-like): the tree's __install_special_mapping() ->
 * insert_vm_struct() with ops shaped like mm/mmap.c's special_mapping_vmops
 * (a ->close(), a ->name(), ->may_split() refusing), the mapping's
 * descriptor as vm_private_data.  _install_special_mapping() itself and its
 * static ops (page lookup in ->fault) are not extracted.
 */
struct vm_area_struct *__install_special_mapping(struct mm_struct *mm, unsigned long addr,
	unsigned long len, vm_flags_t vm_flags, void *priv,
	const struct vm_operations_struct *ops);	/* mm/vma.h */

static void ksim_special_close(struct vm_area_struct *vma)
{
	struct ksim_special *sp = vma->vm_private_data;

	sp->close_calls++;
}

static const char *ksim_special_name(struct vm_area_struct *vma)
{
	return ((struct ksim_special *)vma->vm_private_data)->name;
}

static int ksim_special_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct ksim_special_vm_ops = {
	.close = ksim_special_close,
	.name = ksim_special_name,
	.may_split = ksim_special_split,
};

int ksim_install_special_mapping(struct mm_struct *mm, unsigned long addr, unsigned long len,
				 unsigned long vm_flags, struct ksim_special *sp)
{
	struct vm_area_struct *vma;

	ksim_set_current(mm);
	mmap_write_lock(mm);	/* as arch_setup_additional_pages() holds it */
	vma = __install_special_mapping(mm, addr, len, vm_flags, sp, &ksim_special_vm_ops);
	mmap_write_unlock(mm);
	ksim_set_current(NULL);
	return IS_ERR(vma) ? PTR_ERR(vma) : 0;
}

const void *ksim_special_vm_ops_id(void)
{
	return &ksim_special_vm_ops;
}
#else
int ksim_install_special_mapping(struct mm_struct *mm, unsigned long addr, unsigned long len,
				 unsigned long vm_flags, struct ksim_special *sp)
{
	return -ENOSYS;
}

const void *ksim_special_vm_ops_id(void)
{
	return NULL;
}
#endif

bool ksim_mm_vma_ops(struct mm_struct *mm, unsigned long addr, const void **ops, void **private_data)
{
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma) {
		*ops = vma->vm_ops;
		*private_data = vma->vm_private_data;
	}
	mmap_read_unlock(mm);
	return vma != NULL;
}

long ksim_file_refs(struct file *f)
{
	return atomic_long_read(&f->f_count);
}
