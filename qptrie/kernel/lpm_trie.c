// SPDX-License-Identifier: GPL-2.0
/* kernel/bpf/lpm_trie.c from KSRC, unmodified. */
#include <kernel/bpf/lpm_trie.c>
#include <ksim/bpf_mem.h>
#include <qptrie/model.h>	/* struct ksim_htab_pool */

/*
 * Ours, not the kernel's: on a tree whose LPM trie takes its nodes from a
 * bpf_mem_alloc, the nodes reachable from the root (intermediate ones
 * too) against the objects that allocator has handed out and not taken
 * back (qptrie/model.c judges it, ksim_bpf_model_pool()).  A node an
 * update allocated and then dropped on a failure path, or one freed while
 * still linked, shows here.  Call it at a quiescent point.  Returns false
 * for other maps and on trees without the allocator.
 */
bool ksim_lpm_pool(struct bpf_map *map, struct ksim_htab_pool *p)
{
#if KSIM_HAVE_BPF_LPM_MEM_ALLOC
	struct lpm_trie *trie = container_of(map, struct lpm_trie, map);
	struct lpm_trie_node *stack[2 * (LPM_DATA_SIZE_MAX * 8 + 2)], *node;
	struct ksim_bpf_mem_stats st;
	int top = 0;

	if (map->ops != &trie_map_ops)
		return false;
	memset(p, 0, sizeof(*p));
	node = rcu_dereference_protected(trie->root, 1);
	if (node)
		stack[top++] = node;
	while (top) {
		node = stack[--top];
		p->nodes++;
		if (!(node->flags & LPM_TREE_NODE_FLAG_IM))
			p->in_map++;
		for (int i = 0; i < 2; i++) {
			struct lpm_trie_node *c = rcu_dereference_protected(node->child[i], 1);

			if (c && top < (int)ARRAY_SIZE(stack))
				stack[top++] = c;
		}
	}
	p->mem_alloc = true;
	ksim_bpf_mem_stats(&trie->ma, &st);
	p->ma_live = st.live;
	return true;
#else
	(void)map;
	(void)p;
	return false;
#endif
}
