// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's own tools/testing/vma tests, unmodified, on mm-sim.
 *
 * Where the tree splits them into tools/testing/vma/tests/{merge,mmap,vma}.c
 * (7.2 on; probed as KSIM_HAVE_VMA_TESTS), this file #includes them after
 * mm-sim's kernel code (kernel_mm.c: mm/vma.c, mm/vma_init.c, the extracted
 * rmap, mmap and memory functions), so they call mm/vma.c's static
 * functions as in their own harness, but against the real anon_vma
 * chains, per-VMA write locks, maple tree, slab with its leak check and
 * fault engine, under ASan and UBSan.  The harness's main.c, shared.c and
 * include/ stubs are not used; what the test files need from them is
 * written here from what they promise (the test files' comments and
 * shared.h's declarations):
 *
 *   - the runner: the tree's run_*_tests() lists call TEST(name); ours
 *     registers each as a ksim test of that name (vma_suite --list, -t
 *     NAME), so the end-of-test checks (WARNs, lockdep, leaks) run after
 *     each;
 *   - a test's mm_struct lives on its stack, zeroed: the first helper that
 *     sees it gives it what mm_init() would (MM_MT_FLAGS tree with the mmap
 *     lock as external lock, page tables) and takes the mmap write lock, as
 *     every caller of mm/vma.c holds it; the test's final mtree_destroy()
 *     drops it again;
 *   - dummy_anon_vma is a real root anon_vma that is never freed, and
 *     vma_set_dummy_anon_vma() links a VMA to it with a chain the kernel
 *     allocates (the harness links the test's own stack chain, which the
 *     real unlink_anon_vmas() would hand to the slab).  was_cloned and
 *     was_unlinked are set where mm-sim's rmap links a second VMA to it
 *     and where a VMA's chain to it is unlinked;
 *   - vma_write_started(): the VMA is write-locked in the current mmap
 *     write section (vm_lock_seq == mm_lock_seq), then marked unlocked
 *     again so the next check sees only later writes, as the harness does
 *     with its counting stub;
 *   - fail_prealloc makes vma_iter_prealloc() fail, as in the harness.
 */
#include <mm_sim/kernel.h>
#include <mm_sim/sim.h>	/* ksim_mm_init() & co., for the harness below */
#include <mm/vma.h>

#include <stdbool.h>

bool fail_prealloc;
/* The harness's override: the tests flip it to make the prealloc fail. */
#define vma_iter_prealloc(vmi, vma)					\
	(fail_prealloc ? -ENOMEM : mas_preallocate(&(vmi)->mas, (vma), GFP_KERNEL))

#include "kernel_mm.c"

#include <ksim/test.h>

/* ---- the runner and its assertions (shared.h's interface) ---- */

static void ksim_vs_failed(const char *file, int line, const char *func, const char *expr,
			   const char *detail)
{
	ksim_test_fail(file, line, expr, "in %s()%s", func, detail);
}

#define __ASSERT_TRUE(_expr, _fmt, ...) do {				\
	if (!(_expr)) {							\
		char __d[128];						\
		snprintf(__d, sizeof(__d), _fmt __VA_OPT__(,) __VA_ARGS__); \
		ksim_vs_failed(__FILE__, __LINE__, __func__, #_expr, __d); \
		return false;						\
	}								\
} while (0)
#define ASSERT_TRUE(_expr)	__ASSERT_TRUE(_expr, "")
#define ASSERT_FALSE(_expr)	ASSERT_TRUE(!(_expr))
#define ASSERT_EQ(_a, _b) do {						\
	__typeof__(_a) __a = (_a);					\
	__typeof__(_b) __b = (_b);					\
	__ASSERT_TRUE(__a == __b, " (%#llx vs %#llx)",			\
		      (unsigned long long)(uintptr_t)__a, (unsigned long long)(uintptr_t)__b); \
} while (0)
#define ASSERT_NE(_a, _b) do {						\
	__typeof__(_a) __a = (_a);					\
	__typeof__(_b) __b = (_b);					\
	__ASSERT_TRUE(__a != __b, " (both %#llx)", (unsigned long long)(uintptr_t)__a); \
} while (0)
#define ASSERT_FLAGS_SAME_MASK(_f, _o)	ASSERT_TRUE(vma_flags_same_mask((_f), (_o)))
#define ASSERT_FLAGS_NOT_SAME_MASK(_f, _o) ASSERT_FALSE(vma_flags_same_mask((_f), (_o)))
#define ASSERT_FLAGS_SAME(_f, ...)	ASSERT_TRUE(vma_flags_same(_f, __VA_ARGS__))
#define ASSERT_FLAGS_NOT_SAME(_f, ...)	ASSERT_FALSE(vma_flags_same(_f, __VA_ARGS__))
#define ASSERT_FLAGS_EMPTY(_f)		ASSERT_TRUE(vma_flags_empty(_f))
#define ASSERT_FLAGS_NONEMPTY(_f)	ASSERT_FALSE(vma_flags_empty(_f))

/*
 * The tree's run_*_tests() name its tests through TEST(); at start-up they
 * are called once to register each as a ksim test of the same name.
 */
#define KSIM_VS_MAX_TESTS	64
static struct ksim_vs_test {
	struct ksim_test t;
	bool (*fn)(void);
} ksim_vs_tests[KSIM_VS_MAX_TESTS];
static int ksim_vs_nr;

static void ksim_vs_mm_leftover(void);
void reset_dummy_anon_vma(void);

static void ksim_vs_one(void)
{
	int i;

	for (i = 0; i < ksim_vs_nr; i++)
		if (!strcmp(ksim_vs_tests[i].t.name, ksim_test_name()))
			break;
	BUG_ON(i == ksim_vs_nr);
	reset_dummy_anon_vma();
	fail_prealloc = false;
	KSIM_EXPECT(ksim_vs_tests[i].fn(), "the tree's test %s() returned false", ksim_test_name());
	ksim_vs_mm_leftover();
}

static void ksim_vs_register(const char *name, bool (*fn)(void))
{
	struct ksim_vs_test *t = &ksim_vs_tests[ksim_vs_nr++];

	BUG_ON(ksim_vs_nr > KSIM_VS_MAX_TESTS);
	t->t.name = name;
	t->t.fn = ksim_vs_one;
	t->t.file = __FILE__;
	t->fn = fn;
	ksim_test_register(&t->t);
}
#define TEST(name)	ksim_vs_register(#name, test_##name)

/* ---- a test's mm ---- */

#define KSIM_VS_MAX_MMS	4
static struct mm_struct *ksim_vs_mms[KSIM_VS_MAX_MMS];

/* What mm_init() gives an mm, and the mmap write lock its callers hold. */
static struct mm_struct *ksim_vs_mm(struct mm_struct *mm)
{
	int i, free = -1;

	for (i = 0; i < KSIM_VS_MAX_MMS; i++) {
		if (ksim_vs_mms[i] == mm)
			return mm;
		if (!ksim_vs_mms[i] && free < 0)
			free = i;
	}
	BUG_ON(free < 0);
	BUG_ON(ksim_mm_init(mm));
	mmap_write_lock(mm);
	ksim_vs_mms[free] = mm;
	return mm;
}

/* The test is done with its tree: what exit_mmap() and __mmdrop() check. */
static void ksim_vs_mm_done(struct mm_struct *mm)
{
	int i;

	for (i = 0; i < KSIM_VS_MAX_MMS; i++)
		if (ksim_vs_mms[i] == mm)
			break;
	if (i == KSIM_VS_MAX_MMS)
		return;
	ksim_vs_mms[i] = NULL;
	ksim_mm_check_torn_down(mm, "destroyed by the test");
	mmap_write_unlock(mm);
	pgd_free(mm, mm->pgd);
}

/*
 * A test that returned early left its mm locked on a stack that is gone:
 * forget it (the test has failed already).
 */
static void ksim_vs_mm_leftover(void)
{
	int i;

	for (i = 0; i < KSIM_VS_MAX_MMS; i++) {
		if (!ksim_vs_mms[i])
			continue;
		ksim_test_fail(__FILE__, __LINE__, "mtree_destroy(&mm.mm_mt)",
			       "the test returned without destroying its mm");
		ksim_vs_mms[i] = NULL;
	}
}

/*
 * The tests end with mtree_destroy(&mm.mm_mt), right for their harness's
 * internal-lock tree; an mm's tree has the mmap lock as external lock, and
 * exit_mmap() destroys it with __mt_destroy() under that lock.
 */
static void ksim_vs_mtree_destroy(struct maple_tree *mt)
{
	__mt_destroy(mt);
	ksim_vs_mm_done(container_of(mt, struct mm_struct, mm_mt));
}

/* ---- the helpers shared.h declares ---- */

struct anon_vma dummy_anon_vma;

static inline void dummy_close(struct vm_area_struct *vma)
{
}

struct vm_area_struct *merge_existing(struct vma_merge_struct *vmg)
{
	struct vm_area_struct *vma = vma_merge_existing_range(vmg);

	if (vma)
		vma_assert_attached(vma);
	return vma;
}

int attach_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int res;

	ksim_vs_mm(mm);
	res = vma_link(mm, vma);
	if (!res)
		vma_assert_attached(vma);
	return res;
}

struct vm_area_struct *alloc_vma(struct mm_struct *mm, unsigned long start, unsigned long end,
				 pgoff_t pgoff, vma_flags_t vma_flags)
{
	struct vm_area_struct *vma = vm_area_alloc(ksim_vs_mm(mm));

	if (!vma)
		return NULL;
	vma->vm_start = start;
	vma->vm_end = end;
#if KSIM_HAVE_VMA_ANON_PGOFF
	vma_set_pgoff(vma, pgoff);
	vma_set_anon_pgoff(vma, start >> PAGE_SHIFT);
#else
	vma->vm_pgoff = pgoff;
#endif
	vma->flags = vma_flags;
	vma_assert_detached(vma);
	return vma;
}

/*
 * A VMA leaves: write-locked as the kernel's removal paths do before
 * vma_mark_detached(), its anon_vma chains unlinked, then freed.
 */
void detach_free_vma(struct vm_area_struct *vma)
{
	vma_start_write(vma);
	if (vma->anon_vma)
		unlink_anon_vmas(vma);
	vma_mark_detached(vma);
	vm_area_free(vma);
}

struct vm_area_struct *alloc_and_link_vma(struct mm_struct *mm, unsigned long start,
					  unsigned long end, pgoff_t pgoff, vma_flags_t vma_flags)
{
	struct vm_area_struct *vma = alloc_vma(mm, start, end, pgoff, vma_flags);

	if (!vma)
		return NULL;
	if (attach_vma(mm, vma)) {
		vm_area_free(vma);	/* never attached */
		return NULL;
	}
	vma->vm_lock_seq = UINT_MAX;	/* linking write-locked it: not the test's write */
	return vma;
}

void reset_dummy_anon_vma(void)
{
	dummy_anon_vma.was_cloned = false;
	dummy_anon_vma.was_unlinked = false;
}

int cleanup_mm(struct mm_struct *mm, struct vma_iterator *vmi)
{
	struct vm_area_struct *vma;
	int count = 0;

	fail_prealloc = false;
	reset_dummy_anon_vma();
	vma_iter_set(vmi, 0);
	for_each_vma(*vmi, vma) {
		detach_free_vma(vma);
		count++;
	}
	ksim_vs_mtree_destroy(&mm->mm_mt);
	mm->map_count = 0;
	return count;
}

bool vma_write_started(struct vm_area_struct *vma)
{
	bool locked = vma->vm_lock_seq == vma->vm_mm->mm_lock_seq;

	vma->vm_lock_seq = UINT_MAX;
	return locked;
}

/*
 * A root anon_vma as __anon_vma_prepare() makes one, with one more
 * reference that is never put: dummy_anon_vma is not the slab's to free.
 */
static void ksim_vs_anon_vma_init(struct anon_vma *anon_vma)
{
	/*
	 * The test flags of the tree's global dummy_anon_vma survive
	 * (reset_dummy_anon_vma() sets them); a test's own anon_vma may be
	 * an uninitialised local (merge.c's dummy_anon_vma_2): its bytes are
	 * not read, a bool holding 128 being what UBSan reports.
	 */
	bool global = anon_vma == &dummy_anon_vma;
	bool cloned = global && anon_vma->was_cloned, unlinked = global && anon_vma->was_unlinked;

	memset(anon_vma, 0, sizeof(*anon_vma));
	init_rwsem(&anon_vma->rwsem);
	anon_vma->root = anon_vma;
	anon_vma->parent = anon_vma;
	anon_vma->rb_root = RB_ROOT_CACHED;
	atomic_set(&anon_vma->refcount, 2);
	anon_vma->num_children = 1;
	anon_vma->was_cloned = cloned;
	anon_vma->was_unlinked = unlinked;
}

/* A VMA joins anon_vma as __anon_vma_prepare() would join a new one. */
void __vma_set_dummy_anon_vma(struct vm_area_struct *vma, struct anon_vma_chain *unused,
			      struct anon_vma *anon_vma)
{
	struct anon_vma_chain *avc = anon_vma_chain_alloc(GFP_KERNEL);

	BUG_ON(!avc);
	if (!anon_vma->root || RB_EMPTY_ROOT(&anon_vma->rb_root.rb_root))
		ksim_vs_anon_vma_init(anon_vma);
	vma->anon_vma = anon_vma;
	anon_vma->num_active_vmas++;
#if KSIM_HAVE_ANON_VMA_CHAIN_ASSIGN
	anon_vma_chain_assign(vma, avc, anon_vma);
#else
	avc->vma = vma;
	avc->anon_vma = anon_vma;
	list_add(&avc->same_vma, &vma->anon_vma_chain);
#endif
#if KSIM_HAVE_MAPPING_RMAP_TREE
	(anon_rmap_tree_insert)(avc, anon_vma);
#else
	(anon_vma_interval_tree_insert)(avc, &anon_vma->rb_root);
#endif
}

void vma_set_dummy_anon_vma(struct vm_area_struct *vma, struct anon_vma_chain *avc)
{
	__vma_set_dummy_anon_vma(vma, avc, &dummy_anon_vma);
}

/* The test files' own calls go through the wrappers above. */
#define mtree_destroy(mt)	ksim_vs_mtree_destroy(mt)
#define __mmap_region(...)	(ksim_vs_mm(current->mm), __mmap_region(__VA_ARGS__))

#include <tools/testing/vma/tests/merge.c>
#include <tools/testing/vma/tests/mmap.c>
#include <tools/testing/vma/tests/vma.c>

#undef mtree_destroy

__attribute__((constructor)) static void ksim_vs_register_all(void)
{
	int *num_tests = NULL, *num_fail = NULL;	/* the run_*_tests() arguments, unused */

	run_merge_tests(num_tests, num_fail);
	run_mmap_tests(num_tests, num_fail);
	run_vma_tests(num_tests, num_fail);
}

int main(int argc, char **argv)
{
	ksim_init();
	maple_tree_init();
	ksim_mm_sim_init();
	ksim_vs_anon_vma_init(&dummy_anon_vma);
	return ksim_test_main(argc, argv);
}
