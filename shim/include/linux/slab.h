/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slab and kmalloc API, implemented in shim/mm/slab.c.
 *
 * Every allocation (kmalloc family, kmem_cache_*, kvmalloc, vmalloc):
 *  - checks the GFP context like the kernel (might_alloc: a blocking
 *    allocation under a spinlock or in an RCU read section is reported);
 *  - consults the fault-injection engine with its call site (ksim/fault.h);
 *  - is accounted per cache: live objects, bytes requested, and bytes as the
 *    kernel would really use them (kmalloc size classes, cache alignment,
 *    whole pages for vmalloc and large kmalloc);
 *  - is remembered until freed, with its site, for the leak report.
 * Memory is allocated at the exact requested size and really freed on
 * kfree/kmem_cache_free, so AddressSanitizer sees overflows past the
 * requested size and every use after free.  Deliberate difference: ksize()
 * returns the requested size, not the size class.  SLAB_TYPESAFE_BY_RCU
 * caches keep freed objects and hand them out again (type-stable memory, as
 * the kernel guarantees); their memory is released only by
 * kmem_cache_destroy() after rcu_barrier().
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/err.h>

#define KSIM_SITE	__func__, __FILE__, __LINE__
#define KSIM_SITE_ARGS	const char *func, const char *file, int line

/* Flags (values as in 6.x; only their meaning to the shim matters). */
#define SLAB_CONSISTENCY_CHECKS	((slab_flags_t)0x00000100U)
#define SLAB_RED_ZONE		((slab_flags_t)0x00000400U)
#define SLAB_POISON		((slab_flags_t)0x00000800U)
#define SLAB_KMALLOC		((slab_flags_t)0x00001000U)
#define SLAB_HWCACHE_ALIGN	((slab_flags_t)0x00002000U)
#define SLAB_CACHE_DMA		((slab_flags_t)0x00004000U)
#define SLAB_CACHE_DMA32	((slab_flags_t)0x00008000U)
#define SLAB_STORE_USER		((slab_flags_t)0x00010000U)
#define SLAB_PANIC		((slab_flags_t)0x00040000U)
#define SLAB_TYPESAFE_BY_RCU	((slab_flags_t)0x00080000U)
#define SLAB_MEM_SPREAD		((slab_flags_t)0)
#define SLAB_TRACE		((slab_flags_t)0x00200000U)
#define SLAB_DEBUG_OBJECTS	((slab_flags_t)0x00400000U)
#define SLAB_NOLEAKTRACE	((slab_flags_t)0x00800000U)
#define SLAB_NO_MERGE		((slab_flags_t)0x01000000U)
#define SLAB_FAILSLAB		((slab_flags_t)0x02000000U)
#define SLAB_ACCOUNT		((slab_flags_t)0x04000000U)
#define SLAB_NO_USER_FLAGS	((slab_flags_t)0x10000000U)
#define SLAB_RECLAIM_ACCOUNT	((slab_flags_t)0x00020000U)
#define SLAB_RECLAIM_ACCOUNT_UNUSED	SLAB_RECLAIM_ACCOUNT

#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(x)	((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

#define PAGE_SHIFT_KSIM		12
#define KMALLOC_SHIFT_HIGH	(PAGE_SHIFT_KSIM + 1)
#define KMALLOC_SHIFT_MAX	(10 + PAGE_SHIFT_KSIM)
#define KMALLOC_SHIFT_LOW	3
#define KMALLOC_MAX_SIZE	(1UL << KMALLOC_SHIFT_MAX)
#define KMALLOC_MAX_CACHE_SIZE	(1UL << KMALLOC_SHIFT_HIGH)
#define KMALLOC_MAX_ORDER	(KMALLOC_SHIFT_MAX - PAGE_SHIFT_KSIM)
#define KMALLOC_MIN_SIZE	(1 << KMALLOC_SHIFT_LOW)
#define ARCH_KMALLOC_MINALIGN	8
#define ARCH_SLAB_MINALIGN	8

struct kmem_cache;
struct list_lru;

struct kmem_cache_args {
	unsigned int align;
	unsigned int useroffset;
	unsigned int usersize;
	unsigned int freeptr_offset;
	bool use_freeptr_offset;
	void (*ctor)(void *);
	/*
	 * Sheaves (7.x): prefilled sheaves of up to this many objects; see
	 * kmem_cache_prefill_sheaf() below.  Kept on every tree: older kernel
	 * code never sets it.
	 */
	unsigned int sheaf_capacity;
};

struct kmem_cache *ksim_kmem_cache_create(const char *name, unsigned int size,
		unsigned int align, slab_flags_t flags, void (*ctor)(void *));
struct kmem_cache *ksim_kmem_cache_create_args(const char *name, unsigned int size,
		const struct kmem_cache_args *args, slab_flags_t flags);
void kmem_cache_destroy(struct kmem_cache *s);
int kmem_cache_shrink(struct kmem_cache *s);
const char *kmem_cache_name(struct kmem_cache *s);
unsigned int kmem_cache_size(struct kmem_cache *s);

/*
 * kmem_cache_create(): 6.12 also accepts a struct kmem_cache_args * in the
 * align slot; both spellings reach ksim_kmem_cache_create().
 */
static inline struct kmem_cache *
__ksim_kmem_cache_create_args(const char *name, unsigned int size,
			      struct kmem_cache_args *args, slab_flags_t flags)
{
	return ksim_kmem_cache_create_args(name, size, args, flags);
}
static inline struct kmem_cache *
__ksim_kmem_cache_create_legacy(const char *name, unsigned int size,
				unsigned int align, slab_flags_t flags,
				void (*ctor)(void *))
{
	return ksim_kmem_cache_create(name, size, align, flags, ctor);
}
#define __ksim_kcc_pick(_1, _2, _3, _4, _5, N, ...) N
#define __ksim_kcc_args(name, size, args, flags)			\
	__ksim_kmem_cache_create_args(name, size, args, flags)
#define __ksim_kcc_5(name, size, align, flags, ctor)			\
	_Generic((align),						\
		struct kmem_cache_args *: __ksim_kmem_cache_create_args((name), (size), (struct kmem_cache_args *)(uintptr_t)(align), (flags)), \
		default: __ksim_kmem_cache_create_legacy((name), (size), (unsigned int)(uintptr_t)(align), (flags), (ctor)))
#define __ksim_kcc_4(name, size, args, flags)				\
	__ksim_kmem_cache_create_args((name), (size), (args), (flags))
#define kmem_cache_create(...)						\
	__ksim_kcc_pick(__VA_ARGS__, __ksim_kcc_5, __ksim_kcc_4, _3, _2, _1)(__VA_ARGS__)
#define kmem_cache_create_usercopy(name, size, align, flags, uo, us, ctor) \
	ksim_kmem_cache_create((name), (size), (align), (flags), (ctor))
#define KMEM_CACHE(__struct, __flags)					\
	ksim_kmem_cache_create(#__struct, sizeof(struct __struct),	\
			       __alignof__(struct __struct), (__flags), NULL)
#define KMEM_CACHE_USERCOPY(__struct, __flags, __field)	KMEM_CACHE(__struct, __flags)

void *ksim_kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, KSIM_SITE_ARGS);
void kmem_cache_free(struct kmem_cache *s, void *objp);
int ksim_kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t size,
			       void **p, KSIM_SITE_ARGS);
void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p);

#define kmem_cache_alloc(s, gfp)	ksim_kmem_cache_alloc((s), (gfp), KSIM_SITE)
#define kmem_cache_alloc_noprof(s, gfp)	kmem_cache_alloc(s, gfp)
#define kmem_cache_zalloc(s, gfp)	ksim_kmem_cache_alloc((s), (gfp) | __GFP_ZERO, KSIM_SITE)
#define kmem_cache_alloc_node(s, gfp, node)	kmem_cache_alloc(s, gfp)
#define kmem_cache_alloc_lru(s, lru, gfp)	kmem_cache_alloc(s, gfp)
#define kmem_cache_alloc_bulk(s, gfp, size, p)	\
	ksim_kmem_cache_alloc_bulk((s), (gfp), (size), (p), KSIM_SITE)

void *ksim_kmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS);
void *ksim_krealloc(const void *p, size_t new_size, gfp_t gfp, KSIM_SITE_ARGS);
void *ksim_kvmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS);
/* Ours: a kvmalloc aligned to @align (kmalloc-sized: a kmalloc object; else vmalloc's pages). */
void *ksim_kvmalloc_align(size_t size, size_t align, gfp_t gfp, KSIM_SITE_ARGS);
void *ksim_vmalloc(size_t size, gfp_t gfp, KSIM_SITE_ARGS);
void *ksim_kvrealloc(const void *p, size_t new_size, gfp_t gfp, KSIM_SITE_ARGS);
void kfree(const void *p);
void kvfree(const void *p);
void vfree(const void *p);
void kfree_sensitive(const void *p);
#define kvfree_sensitive(p, len)	kfree_sensitive(p)
/* 7.x: kvfree() from atomic context (vfree deferred in the kernel); ours frees now. */
#define kvfree_atomic(p)		kvfree(p)
size_t ksize(const void *p);
size_t kmalloc_size_roundup(size_t size);
bool is_vmalloc_addr(const void *p);

static inline void *ksim_kmalloc_array(size_t n, size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return ksim_kmalloc(bytes, gfp, func, file, line);
}
static inline void *ksim_kvmalloc_array(size_t n, size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return ksim_kvmalloc(bytes, gfp, func, file, line);
}
static inline void *ksim_krealloc_array(void *p, size_t n, size_t size, gfp_t gfp, KSIM_SITE_ARGS)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return ksim_krealloc(p, bytes, gfp, func, file, line);
}

/*
 * Prefilled sheaves (mm/slub.c, 7.x; implemented in shim/mm/slab.c):
 *  - kmem_cache_prefill_sheaf(s, gfp, size): a sheaf holding at least @size
 *    objects of @s (NULL for size 0 or when allocating fails); size above
 *    the cache's sheaf_capacity gives an oversize sheaf of capacity @size;
 *  - kmem_cache_alloc_from_sheaf(s, gfp, sheaf): never fails while the
 *    sheaf holds objects; from an empty sheaf it returns NULL (the kernel
 *    does so silently; the shim also reports it, with the call site);
 *  - kmem_cache_refill_sheaf(s, gfp, &sheaf, size): at least @size objects,
 *    replacing the sheaf by a bigger one when @size exceeds its capacity;
 *    -ENOMEM (objects already added stay) or -EINVAL for no sheaf;
 *  - kmem_cache_return_sheaf(s, gfp, sheaf): gives back the sheaf and the
 *    objects left in it.
 * Prefill and refill consult fault injection per object, like
 * kmem_cache_alloc_bulk(), at their caller's site.
 */
struct slab_sheaf;

struct slab_sheaf *ksim_kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp,
		unsigned int size, KSIM_SITE_ARGS);
int ksim_kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf **sheafp, unsigned int size, KSIM_SITE_ARGS);
void ksim_kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf *sheaf, KSIM_SITE_ARGS);
void *ksim_kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp,
		struct slab_sheaf *sheaf, KSIM_SITE_ARGS);
unsigned int kmem_cache_sheaf_size(struct slab_sheaf *sheaf);

#define kmem_cache_prefill_sheaf(s, gfp, size)				\
	ksim_kmem_cache_prefill_sheaf((s), (gfp), (size), KSIM_SITE)
#define kmem_cache_refill_sheaf(s, gfp, sheafp, size)			\
	ksim_kmem_cache_refill_sheaf((s), (gfp), (sheafp), (size), KSIM_SITE)
#define kmem_cache_return_sheaf(s, gfp, sheaf)				\
	ksim_kmem_cache_return_sheaf((s), (gfp), (sheaf), KSIM_SITE)
#define kmem_cache_alloc_from_sheaf(s, gfp, sheaf)			\
	ksim_kmem_cache_alloc_from_sheaf((s), (gfp), (sheaf), KSIM_SITE)
#define kmem_cache_alloc_from_sheaf_noprof(s, gfp, sheaf)		\
	kmem_cache_alloc_from_sheaf(s, gfp, sheaf)

#define kmalloc(size, gfp)		ksim_kmalloc((size), (gfp), KSIM_SITE)
/*
 * Only lib/rhashtable.c calls it among the kernel files ksim compiles (its
 * nested tables: a struct bucket_table, 64-byte aligned by its type, of 72
 * bytes): cache-line aligned as kvmalloc_node_align_noprof() below.
 */
#define kmalloc_noprof(size, gfp)	ksim_kvmalloc_align((size), 64, (gfp), KSIM_SITE)
#define kzalloc(size, gfp)		ksim_kmalloc((size), (gfp) | __GFP_ZERO, KSIM_SITE)
#define kmalloc_node(size, gfp, node)	kmalloc(size, gfp)
#define kzalloc_node(size, gfp, node)	kzalloc(size, gfp)
#define kmalloc_track_caller(size, gfp)	kmalloc(size, gfp)
#define kmalloc_node_track_caller(size, gfp, node)	kmalloc(size, gfp)
#define kmalloc_array(n, size, gfp)	ksim_kmalloc_array((n), (size), (gfp), KSIM_SITE)
#define kmalloc_array_node(n, size, gfp, node)	kmalloc_array(n, size, gfp)
#define kcalloc(n, size, gfp)		ksim_kmalloc_array((n), (size), (gfp) | __GFP_ZERO, KSIM_SITE)
#define kcalloc_node(n, size, gfp, node)	kcalloc(n, size, gfp)
#define krealloc(p, size, gfp)		ksim_krealloc((p), (size), (gfp), KSIM_SITE)
#define krealloc_array(p, n, size, gfp)	ksim_krealloc_array((p), (n), (size), (gfp), KSIM_SITE)
#define kvmalloc(size, gfp)		ksim_kvmalloc((size), (gfp), KSIM_SITE)
#define kvzalloc(size, gfp)		ksim_kvmalloc((size), (gfp) | __GFP_ZERO, KSIM_SITE)
#define kvmalloc_node(size, gfp, node)	kvmalloc(size, gfp)
/*
 * 7.x's profiling-free kvmalloc with an alignment.  Ours aligns to a cache
 * line at least: lib/rhashtable.c asks for 1 for struct bucket_table,
 * whose buckets[] are ____cacheline_aligned_in_smp, and UBSan checks every
 * access against that 64.  The kernel's object is as aligned as its
 * kmalloc cache makes it (kmalloc-96, a 4-bucket table: 32 bytes); that
 * difference is not emulated.
 */
#define kvmalloc_node_align_noprof(size, align, gfp, node)		\
	ksim_kvmalloc_align((size), (align) > 64 ? (align) : 64, (gfp), KSIM_SITE)
#define kvmalloc_node_noprof(size, gfp, node)	kvmalloc(size, gfp)
#define kvzalloc_node(size, gfp, node)	kvzalloc(size, gfp)
#define kvmalloc_array(n, size, gfp)	ksim_kvmalloc_array((n), (size), (gfp), KSIM_SITE)
#define kvcalloc(n, size, gfp)		ksim_kvmalloc_array((n), (size), (gfp) | __GFP_ZERO, KSIM_SITE)
#define kvrealloc(p, size, gfp)		ksim_kvrealloc((p), (size), (gfp), KSIM_SITE)
#define kmemdup(src, len, gfp)	({					\
	size_t __len = (len);						\
	void *__p = ksim_kmalloc(__len, (gfp), KSIM_SITE);		\
	if (__p)							\
		memcpy(__p, (src), __len);				\
	__p; })
#define kstrdup(s, gfp)	({						\
	const char *__s = (s);						\
	char *__d = __s ? ksim_kmalloc(strlen(__s) + 1, (gfp), KSIM_SITE) : NULL; \
	if (__d)							\
		strcpy(__d, __s);					\
	__d; })
#define kstrndup(s, max, gfp) ({					\
	const char *__s = (s);						\
	size_t __n = __s ? strnlen(__s, (max)) : 0;			\
	char *__d = __s ? ksim_kmalloc(__n + 1, (gfp), KSIM_SITE) : NULL; \
	if (__d) {							\
		memcpy(__d, __s, __n);					\
		__d[__n] = 0;						\
	}								\
	__d; })
#define kfree_const(p)	kfree(p)

#include <string.h>

/*
 * mm/util.c's strndup_user(): the string at @s, NUL included, in a new
 * kmalloc()ed buffer (memdup_user(): GFP_USER, -ENOMEM on failure);
 * -EINVAL if it is longer than @n - 1 characters (strnlen_user() found no
 * NUL within @n bytes).  ksim has no user/kernel split: @s is read where
 * it points, so the -EFAULT of an unreadable string is not simulated.
 */
#define strndup_user(s, n)	ksim_strndup_user((s), (n), KSIM_SITE)
static inline char *ksim_strndup_user(const char __user *s, long n, KSIM_SITE_ARGS)
{
	size_t length = strnlen(s, n) + 1;
	char *p;

	if (length > (size_t)n)
		return ERR_PTR(-EINVAL);
	p = ksim_kmalloc(length, GFP_USER | __GFP_NOWARN, func, file, line);
	if (!p)
		return ERR_PTR(-ENOMEM);
	memcpy(p, s, length);
	p[length - 1] = '\0';
	return p;
}

/*
 * The 7.x typed allocators (kmalloc_objs(), kzalloc_obj(), kmalloc_flex(); lpm_trie.c and
 * hashtab.c use them): allocations at the caller's site, as kmalloc_array()
 * and kzalloc(); the GFP argument is optional, GFP_KERNEL by default.
 */
#define __ksim_objs_gfp(...)		__ksim_objs_gfp_(, ##__VA_ARGS__, GFP_KERNEL)
#define __ksim_objs_gfp_(a, gfp, ...)	gfp
#define kmalloc_objs(VAR_OR_TYPE, COUNT, ...)				\
	((typeof(VAR_OR_TYPE) *)kmalloc_array((COUNT), sizeof(VAR_OR_TYPE), \
					     __ksim_objs_gfp(__VA_ARGS__)))
#define kmalloc_obj(VAR_OR_TYPE, ...)					\
	((typeof(VAR_OR_TYPE) *)kmalloc(sizeof(VAR_OR_TYPE), __ksim_objs_gfp(__VA_ARGS__)))
#define kzalloc_obj(VAR_OR_TYPE, ...)					\
	((typeof(VAR_OR_TYPE) *)kzalloc(sizeof(VAR_OR_TYPE), __ksim_objs_gfp(__VA_ARGS__)))
/* an object with a trailing flexible array of COUNT elements (mm/madvise.c) */
#define kmalloc_flex(VAR_OR_TYPE, FAM, COUNT, ...)			\
	((typeof(VAR_OR_TYPE) *)kmalloc(struct_size_t(typeof(VAR_OR_TYPE), FAM, (COUNT)), \
					__ksim_objs_gfp(__VA_ARGS__)))

#endif /* _LINUX_SLAB_H */
