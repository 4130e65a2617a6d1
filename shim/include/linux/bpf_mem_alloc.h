/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_mem_alloc: the BPF allocator's API (the kernel's function list, a
 * superset of 6.1 and 6.12), emulated by shim/kernel/bpf/memalloc.c.
 * The struct is ours: kernel code only passes it to these functions.
 */
#ifndef _BPF_MEM_ALLOC_H
#define _BPF_MEM_ALLOC_H
#include <linux/compiler_types.h>
#include <linux/types.h>
#include <linux/gfp.h>

struct bpf_mem_cache;
struct bpf_mem_caches;
struct obj_cgroup;

struct bpf_mem_alloc {
	struct bpf_mem_caches __percpu *caches;	/* size == 0: per CPU, 11 size classes */
	struct bpf_mem_cache __percpu *cache;	/* size != 0: per CPU, one unit size */
	struct obj_cgroup *objcg;
	bool percpu;
	void (*dtor)(void *obj, void *ctx);
	void (*dtor_ctx_free)(void *ctx);
	void *dtor_ctx;
	struct ksim_bpf_ma *ksim;		/* mode, stats, pending frees */
};

int bpf_mem_alloc_init(struct bpf_mem_alloc *ma, int size, bool percpu);
int bpf_mem_alloc_percpu_init(struct bpf_mem_alloc *ma, struct obj_cgroup *objcg);
int bpf_mem_alloc_percpu_unit_init(struct bpf_mem_alloc *ma, int size);
void bpf_mem_alloc_destroy(struct bpf_mem_alloc *ma);
void bpf_mem_alloc_set_dtor(struct bpf_mem_alloc *ma,
			    void (*dtor)(void *obj, void *ctx),
			    void (*dtor_ctx_free)(void *ctx),
			    void *ctx);
int bpf_mem_alloc_check_size(bool percpu, size_t size);

/* kmalloc/kfree equivalent: */
void *bpf_mem_alloc(struct bpf_mem_alloc *ma, size_t size);
void bpf_mem_free(struct bpf_mem_alloc *ma, void *ptr);
void bpf_mem_free_rcu(struct bpf_mem_alloc *ma, void *ptr);

/* kmem_cache_alloc/free equivalent: */
void *bpf_mem_cache_alloc(struct bpf_mem_alloc *ma);
void bpf_mem_cache_free(struct bpf_mem_alloc *ma, void *ptr);
void bpf_mem_cache_free_rcu(struct bpf_mem_alloc *ma, void *ptr);
void bpf_mem_cache_raw_free(void *ptr);
void *bpf_mem_cache_alloc_flags(struct bpf_mem_alloc *ma, gfp_t flags);

#endif /* _BPF_MEM_ALLOC_H */
