/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vma_suite.c's view of the anon_vma interval trees, included by
 * kernel_mm.c right after mm/interval_tree.c: every later call to insert
 * into or remove from an anon_vma's tree passes the calling function, so
 * the tree's VMA tests can read what their harness's stubs record:
 * anon_vma->was_cloned when anon_vma_clone() linked a VMA to it,
 * ->was_unlinked when unlink_anon_vmas() took one off (vma.c's own
 * remove-and-reinsert around a VMA's range change sets neither).
 */
#ifndef _KSIM_VMA_SUITE_RMAP_H
#define _KSIM_VMA_SUITE_RMAP_H

static inline void ksim_vs_rmap_note(struct anon_vma *anon_vma, const char *caller)
{
	if (!strcmp(caller, "anon_vma_clone"))
		anon_vma->was_cloned = true;
	else if (!strcmp(caller, "unlink_anon_vmas"))
		anon_vma->was_unlinked = true;
}

#if KSIM_HAVE_MAPPING_RMAP_TREE
static inline void ksim_vs_rmap_insert(struct anon_vma_chain *avc, struct anon_vma *anon_vma,
				       const char *caller)
{
	(anon_rmap_tree_insert)(avc, anon_vma);
	ksim_vs_rmap_note(anon_vma, caller);
}
static inline void ksim_vs_rmap_remove(struct anon_vma_chain *avc, struct anon_vma *anon_vma,
				       const char *caller)
{
	(anon_rmap_tree_remove)(avc, anon_vma);
	ksim_vs_rmap_note(anon_vma, caller);
}
#define anon_rmap_tree_insert(avc, av)	ksim_vs_rmap_insert(avc, av, __func__)
#define anon_rmap_tree_remove(avc, av)	ksim_vs_rmap_remove(avc, av, __func__)
#else
static inline void ksim_vs_rmap_insert(struct anon_vma_chain *avc, struct rb_root_cached *root,
				       const char *caller)
{
	(anon_vma_interval_tree_insert)(avc, root);
	ksim_vs_rmap_note(container_of(root, struct anon_vma, rb_root), caller);
}
static inline void ksim_vs_rmap_remove(struct anon_vma_chain *avc, struct rb_root_cached *root,
				       const char *caller)
{
	(anon_vma_interval_tree_remove)(avc, root);
	ksim_vs_rmap_note(container_of(root, struct anon_vma, rb_root), caller);
}
#define anon_vma_interval_tree_insert(avc, root) ksim_vs_rmap_insert(avc, root, __func__)
#define anon_vma_interval_tree_remove(avc, root) ksim_vs_rmap_remove(avc, root, __func__)
#endif

#endif
