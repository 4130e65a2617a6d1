# The one place where differences between kernel trees are decided.
#
# Each feature is a probe of the tree (a file exists, or a line of a file
# matches), not a version number: stable backports and series under review
# move code between versions.  The results go to
#   - CMake variables of the same name (which files to compile, which tests
#     to register), and
#   - ${CMAKE_BINARY_DIR}/include/ksim/features.h, force-included into every
#     target that links ksim_shim (kernel code, the shim, tests, stress, fuzz).
# C code tests them with `#if KSIM_HAVE_X`, never `#ifdef`: every build uses
# -Werror=undef, so a misspelt or unprobed feature fails to compile instead of
# silently reading as 0.
#
# ksim_feature(NAME FILE <path in KSRC> [REGEX <regex>] [WHY <text>])
#   NAME is 1 when FILE exists (and, with REGEX, one of its lines matches).
include_guard(GLOBAL)

set(KSIM_FEATURES_H ${CMAKE_BINARY_DIR}/include/ksim/features.h)
set(_ksim_features "")

function(ksim_feature name)
  cmake_parse_arguments(F "" "FILE;REGEX;WHY" "" ${ARGN})
  set(_path ${KSIM_KSRC}/${F_FILE})
  set(_val 0)
  if(EXISTS ${_path})
    if(F_REGEX)
      file(STRINGS ${_path} _hit REGEX "${F_REGEX}" LIMIT_COUNT 1)
      if(_hit)
        set(_val 1)
      endif()
    else()
      set(_val 1)
    endif()
  endif()
  set(${name} ${_val} PARENT_SCOPE)
  set(_line "/* ${F_FILE}")
  if(F_REGEX)
    string(APPEND _line ": /${F_REGEX}/")
  endif()
  string(APPEND _line " */\n")
  if(F_WHY)
    string(PREPEND _line "/* ${F_WHY} */\n")
  endif()
  string(APPEND _line "#define ${name} ${_val}\n\n")
  set(_ksim_features "${_ksim_features}${_line}" PARENT_SCOPE)
endfunction()

# ---- the probes (alphabetical by area) ----

# BPF maps (kernel/bpf, include/linux/bpf.h)
ksim_feature(KSIM_HAVE_BPF_OPS_LONG FILE include/linux/bpf.h
  REGEX "^[ \t]*long \\(\\*map_update_elem\\)"
  WHY "map ops return long (6.4+)")
ksim_feature(KSIM_HAVE_BPF_FD_PUT_NEED_DEFER FILE include/linux/bpf.h
  REGEX "map_fd_put_ptr.*need_defer"
  WHY "map_fd_put_ptr(map, ptr, need_defer) (backported to 6.1.y)")
ksim_feature(KSIM_HAVE_BPF_CHECK_BTF_CONST_MAP FILE include/linux/bpf.h
  REGEX "int \\(\\*map_check_btf\\)\\(const struct bpf_map"
  WHY "map_check_btf() takes a const struct bpf_map * (until 7.2)")
ksim_feature(KSIM_HAVE_QP_TRIE_SERIES FILE kernel/bpf/bpf_qp_trie.c
  WHY "the posted qp-trie series is applied")
ksim_feature(KSIM_HAVE_BPF_F_CPU FILE include/uapi/linux/bpf.h REGEX "BPF_F_CPU[ \t]*="
  WHY "per-CPU map ops take BPF_F_CPU/BPF_F_ALL_CPUS (bpf_map_check_op_flags)")
ksim_feature(KSIM_HAVE_BPF_LPM_MEM_ALLOC FILE kernel/bpf/lpm_trie.c REGEX "^[ \t]*struct bpf_mem_alloc[ \t]+ma;"
  WHY "the LPM trie takes its nodes from a bpf_mem_alloc (kmalloc before)")
ksim_feature(KSIM_HAVE_BPF_RHASH FILE kernel/bpf/hashtab.c REGEX "^const struct bpf_map_ops rhtab_map_ops"
  WHY "hashtab.c has the rhashtable-based BPF_MAP_TYPE_RHASH map (links lib/rhashtable.c)")
ksim_feature(KSIM_HAVE_BPF_HTAB_OF_MAPS FILE kernel/bpf/map_in_map.c
  REGEX "^void \\*bpf_map_fd_get_ptr\\("
  WHY "kernel/bpf/map_in_map.c (compiled for hashtab.c's BPF_MAP_TYPE_HASH_OF_MAPS)")
ksim_feature(KSIM_HAVE_BPF_FD_CLASS FILE kernel/bpf/map_in_map.c REGEX "CLASS\\(fd, f\\)"
  WHY "map_in_map.c takes its fds with CLASS(fd) (6.12+), not fdget()/fdput()")
ksim_feature(KSIM_HAVE_BPF_FD_PUT_SLEEPABLE FILE kernel/bpf/map_in_map.c REGEX "sleepable_refcnt"
  WHY "bpf_map_fd_put_ptr() defers by one RCU grace period unless the outer map has sleepable users (6.12+); before, always RCU tasks trace")
ksim_feature(KSIM_HAVE_BPF_FD_ARRAY_CLEAR_NEED_DEFER FILE kernel/bpf/arraymap.c
  REGEX "^static void bpf_fd_array_map_clear\\(struct bpf_map \\*map, bool need_defer\\)"
  WHY "an array of maps' free puts its inner maps without need_defer; before, through the delete path (need_defer true: 6.1.y)")
ksim_feature(KSIM_HAVE_BPF_FD_HTAB_UPDATE_OWN_RCU FILE kernel/bpf/hashtab.c
  REGEX "the following rcu_read_lock\\(\\) is only used to avoid"
  WHY "bpf_fd_htab_map_update_elem() takes rcu_read_lock() itself; the syscall no longer does")
ksim_feature(KSIM_HAVE_BPF_PERCPU_GEN_LOOKUP FILE kernel/bpf/hashtab.c
  REGEX "^static int htab_percpu_map_gen_lookup\\("
  WHY "per-CPU hash maps inline their lookup (htab_percpu_map_gen_lookup(), BPF_MOV64_PERCPU_REG)")
ksim_feature(KSIM_HAVE_BPF_BTF_RECORD FILE include/linux/bpf.h REGEX "^struct btf_record \\{"
  WHY "map values' special fields are described by a struct btf_record (6.2+; 6.1 has spin_lock_off/kptr_off_tab)")
ksim_feature(KSIM_HAVE_BPF_CANCEL_FIELDS FILE kernel/bpf/hashtab.c REGEX "^static void check_and_cancel_fields\\("
  WHY "hashtab.c only cancels timers on delete/replace; kptrs stay with the element until it is freed (bpf_ma_set_dtor)")
ksim_feature(KSIM_HAVE_BPF_LRU_FREE_LLIST FILE kernel/bpf/bpf_lru_list.h REGEX "struct llist_head free_llist;"
  WHY "the common LRU's per-CPU free list is an llist (free_llist) beside pending_list, not lists[]")
ksim_feature(KSIM_HAVE_BPF_LRU_PENDING_FREE FILE kernel/bpf/bpf_lru_list.h REGEX "u8 pending_free;"
  WHY "an LRU node whose push_free could not take its lock stays on its list marked pending_free")
ksim_feature(KSIM_HAVE_RQSPINLOCK FILE include/asm-generic/rqspinlock.h
  WHY "resilient queued spinlocks (res_spin_lock) for BPF maps")
ksim_feature(KSIM_HAVE_BPF_F_DYNPTR_KEY FILE include/uapi/linux/bpf.h REGEX "BPF_F_DYNPTR_KEY"
  WHY "the uapi has BPF_F_DYNPTR_KEY (the posted qp-trie series, v1)")
ksim_feature(KSIM_HAVE_BPF_UPDATE_VALUE_FD FILE kernel/bpf/syscall.c
  REGEX "^static int bpf_map_update_value\\(struct bpf_map \\*map, struct fd f,"
  WHY "syscall.c's bpf_map_update_value() and generic_map_update_batch() take the map's struct fd, not its file (6.1)")
ksim_feature(KSIM_HAVE_BPF_VALUE_SIZE_FLAGS FILE kernel/bpf/syscall.c
  REGEX "^static u32 bpf_map_value_size\\(const struct bpf_map \\*map, u64 flags\\)"
  WHY "syscall.c's bpf_map_value_size() takes the command's flags (BPF_F_CPU: one CPU's value)")
ksim_feature(KSIM_HAVE_BPF_SELFTEST_LPM_BASIC_OPS FILE tools/testing/selftests/bpf/map_tests/lpm_trie_map_basic_ops.c
  WHY "the LPM trie's selftest is a map_tests file (7.2+), not the program test_lpm_map.c")
ksim_feature(KSIM_HAVE_LIBBPF_FEAT_SUPPORTED FILE tools/lib/bpf/libbpf_internal.h REGEX "^bool feat_supported\\("
  WHY "libbpf asks feat_supported() about the kernel, not kernel_supports() (6.1)")
ksim_feature(KSIM_HAVE_QP_TRIE_DYNPTR_FLAG FILE kernel/bpf/bpf_qp_trie.c REGEX "BPF_F_DYNPTR_KEY"
  WHY "the qp-trie series marks dynptr keys with BPF_F_DYNPTR_KEY (v1); without it, by the key's BTF type (v2)")

# RCU
ksim_feature(KSIM_HAVE_RCU_GUARD FILE include/linux/rcupdate.h
  REGEX "DEFINE_LOCK_GUARD_0\\(rcu,"
  WHY "guard(rcu)() (linux/cleanup.h): hashtab.c's rhtab map uses it")

# Headers that moved
ksim_feature(KSIM_HAVE_LINUX_UNALIGNED_H FILE include/linux/unaligned.h
  WHY "<linux/unaligned.h> (was <asm/unaligned.h>)")
ksim_feature(KSIM_HAVE_LINUX_ARGS_H FILE include/linux/args.h
  WHY "COUNT_ARGS()/CONCATENATE() in <linux/args.h> (were in <linux/kernel.h>)")

# Maple tree (lib/maple_tree.c, its tests)
ksim_feature(KSIM_HAVE_MT_SET_CALLBACK FILE lib/maple_tree.c REGEX "^void mt_set_callback\\("
  WHY "the kernel harness's allocation hook mt_set_callback() (6.12+; the kernel-style check for maple-nomem-retry-stale-height)")
ksim_feature(KSIM_HAVE_MT_DUP FILE lib/maple_tree.c REGEX "^int __mt_dup\\("
  WHY "__mt_dup() (6.8+)")
ksim_feature(KSIM_HAVE_MAPLE_AREA_SIZE_CHECK FILE lib/maple_tree.c
  REGEX "if \\(size == 0 \\|\\| max - min < size - 1\\)"
  WHY "mas_empty_area() refuses size 0 and ranges smaller than size")
ksim_feature(KSIM_HAVE_MAPLE_REGRESSION_TESTS FILE tools/testing/radix-tree/maple.c
  REGEX "^static void regression_tests\\(void\\)"
  WHY "the kernel's maple harness has a regression_tests() part")
ksim_feature(KSIM_HAVE_MT_DUMP_FORMAT FILE include/linux/maple_tree.h
  REGEX "void mt_dump\\(const struct maple_tree \\*mt, enum mt_dump_format"
  WHY "mt_dump() takes a format")
ksim_feature(KSIM_HAVE_MAS_STATUS FILE include/linux/maple_tree.h
  REGEX "enum maple_status status;"
  WHY "struct ma_state has status and end (6.8+; before, the status was encoded in ->node)")

# Slab
ksim_feature(KSIM_HAVE_SLAB_SHEAVES FILE include/linux/slab.h REGEX "sheaf_capacity"
  WHY "slab sheaves: kmem_cache_args.sheaf_capacity, kmem_cache_prefill_sheaf()")

# mm (the VMA code)
ksim_feature(KSIM_HAVE_MM_VMA_C FILE mm/vma.c
  WHY "the VMA code lives in mm/vma.c (6.12+), not in mm/mmap.c")
ksim_feature(KSIM_HAVE_VM_FLAGS_INIT FILE include/linux/mm.h REGEX "void vm_flags_init\\("
  WHY "vm_flags are written through vm_flags_*() (6.3+)")
ksim_feature(KSIM_HAVE_MM_VMA_INIT_C FILE mm/vma_init.c
  WHY "vm_area_alloc/dup/free live in mm/vma_init.c (were in kernel/fork.c)")
ksim_feature(KSIM_HAVE_DUP_MMAP_IN_MMAP_C FILE mm/mmap.c REGEX "^__latent_entropy int dup_mmap\\("
  WHY "dup_mmap() lives in mm/mmap.c (was static in kernel/fork.c)")
ksim_feature(KSIM_HAVE_VMA_FLAGS_T FILE include/linux/mm_types.h REGEX "^} vma_flags_t;"
  WHY "VMA flags are a bitmap type, vma_flags_t, with VMA_*_BIT numbers (vm_flags a view of its first word)")
ksim_feature(KSIM_HAVE_UNMAP_DESC FILE mm/memory.c
  REGEX "^void free_pgtables\\(struct mmu_gather \\*tlb, struct unmap_desc \\*unmap\\)"
  WHY "free_pgtables()/unmap_vmas() take a struct unmap_desc")
ksim_feature(KSIM_HAVE_MAPPING_RMAP_TREE FILE mm/interval_tree.c REGEX "^void mapping_rmap_tree_insert\\("
  WHY "the i_mmap/anon_vma interval trees are reached through mapping_rmap_tree_*()/anon_rmap_tree_*()")
ksim_feature(KSIM_HAVE_VMA_TESTS FILE tools/testing/vma/tests/merge.c
  WHY "tools/testing/vma's tests are files of their own (tests/merge.c, mmap.c, vma.c), apart from its harness"
  )
ksim_feature(KSIM_HAVE_ANON_VMA_CHAIN_ASSIGN FILE mm/rmap.c REGEX "^static void anon_vma_chain_assign\\("
  WHY "anon_vma_chain_link() became anon_vma_chain_assign() (7.x; in 6.12.117, not in 6.12.95)")
ksim_feature(KSIM_HAVE_ANON_VMA_CLONE_OP FILE mm/rmap.c REGEX "^static void cleanup_partial_anon_vmas\\("
  WHY "anon_vma_clone(dst, src, operation) cleans up with cleanup_partial_anon_vmas(), no GFP_NOWAIT retry, no lock_anon_vma_root()")
ksim_feature(KSIM_HAVE_MMAP_REGION_IN_VMA_C FILE mm/vma.c REGEX "^unsigned long mmap_region\\("
  WHY "mmap_region(), __mmap_region(), do_brk_flags(), unmapped_area*() live in mm/vma.c (were in mm/mmap.c)")
ksim_feature(KSIM_HAVE_MMAP_REGION_VMA_FLAGS FILE mm/vma.h
  REGEX "unsigned long len, vma_flags_t vma_flags, unsigned long pgoff,"
  WHY "mmap_region() takes vma_flags_t (was vm_flags_t)")
ksim_feature(KSIM_HAVE_VMA_SET_RANGE_IN_VMA_C FILE mm/vma.c REGEX "^static void vma_set_range\\("
  WHY "vma_set_range() is static in mm/vma.c (was inline in mm/internal.h)")
ksim_feature(KSIM_HAVE_MREMAP_VRM FILE mm/mremap.c REGEX "^struct vma_remap_struct {"
  WHY "mm/mremap.c is driven by struct vma_remap_struct / pagetable_move_control")
ksim_feature(KSIM_HAVE_VRM_POPULATE_CALCULATED FILE mm/mremap.c REGEX "^static void vrm_populate_calculated\\("
  WHY "mremap sets delta and remap type together in vrm_populate_calculated() (was vrm_set_delta())")
ksim_feature(KSIM_HAVE_MM_GET_UNMAPPED_AREA_VMFLAGS FILE mm/mmap.c REGEX "^unsigned long mm_get_unmapped_area_vmflags\\("
  WHY "mm_get_unmapped_area_vmflags() exists (__get_unmapped_area() goes through it)")
ksim_feature(KSIM_HAVE_MM_GET_UNMAPPED_AREA_VMAFLAGS FILE mm/mmap.c REGEX "^unsigned long mm_get_unmapped_area_vmaflags\\("
  WHY "mm_get_unmapped_area_vmaflags(vma_flags_t) replaced mm_get_unmapped_area_vmflags()")
ksim_feature(KSIM_HAVE_MM_GET_UNMAPPED_AREA_NO_MM FILE mm/mmap.c REGEX "^mm_get_unmapped_area\\(struct file \\*file,"
  WHY "mm_get_unmapped_area() takes no mm (it is current->mm's)")
ksim_feature(KSIM_HAVE_MREMAP_MULTI_VMA FILE mm/mremap.c REGEX "^static unsigned long remap_move\\("
  WHY "a move-only mremap (MREMAP_FIXED, old_len == new_len) may span several VMAs (remap_move())")
ksim_feature(KSIM_HAVE_MM_FLAGS_T FILE include/linux/mm_types.h REGEX "} __private mm_flags_t;"
  WHY "mm->flags is a bitmap, mm_flags_t, read through mm_flags_*()")
ksim_feature(KSIM_HAVE_VMA_FLAGS_PREDICATES FILE include/linux/mm.h
  REGEX "^static inline bool vma_flags_is_cow_mapping\\("
  WHY "vma_flags_is_cow_mapping(), vma_flags_can_grow() and their vma_*() forms")
ksim_feature(KSIM_HAVE_VMA_FLAGS_TO_PAGE_PROT FILE include/linux/mm.h
  REGEX "^static inline pgprot_t vma_flags_to_page_prot\\(vma_flags_t vma_flags\\)"
  WHY "vma_flags_to_page_prot(vma_flags_t) and vma_get_page_prot(vma)")
ksim_feature(KSIM_HAVE_VMA_ANON_PGOFF FILE include/linux/mm_types.h REGEX "__vm_anon_pgoff_lo;"
  WHY "a VMA keeps its anonymous page offset apart from vm_pgoff (__vm_anon_pgoff_lo/hi)")
ksim_feature(KSIM_HAVE_MMF_IN_MM_TYPES FILE include/linux/mm_types.h REGEX "^#define MMF_OOM_SKIP"
  WHY "the MMF_* mm flag bits are defined in linux/mm_types.h (were in linux/sched/coredump.h)")
ksim_feature(KSIM_HAVE_MMF_TOPDOWN_IN_COREDUMP FILE include/linux/sched/coredump.h REGEX "^#define MMF_TOPDOWN"
  WHY "linux/sched/coredump.h defines MMF_* up to MMF_TOPDOWN (MMF_HAS_MDWE, MMF_VM_MERGE_ANY)")
ksim_feature(KSIM_HAVE_VM_UFFD_RWP FILE include/linux/mm.h REGEX "^#define VM_UFFD_RWP"
  WHY "VM_UFFD_RWP exists (and is part of VM_COPY_ON_FORK)")
ksim_feature(KSIM_HAVE_GET_SYSCTL_MAX_MAP_COUNT FILE mm/internal.h
  REGEX "^static inline int get_sysctl_max_map_count\\(void\\)"
  WHY "the VMA code reads the map count limit through get_sysctl_max_map_count()")
ksim_feature(KSIM_HAVE_VMA_LAST_PGOFF_IN_MM_H FILE include/linux/mm.h
  REGEX "^static inline unsigned long vma_last_pgoff\\(struct vm_area_struct \\*vma\\)"
  WHY "vma_last_pgoff() is in linux/mm.h (was static in mm/interval_tree.c), before it took a const VMA")
ksim_feature(KSIM_HAVE_LINEAR_PAGE_DELTA FILE include/linux/pagemap.h
  REGEX "^static inline pgoff_t linear_page_delta\\("
  WHY "linear_page_delta()/linear_page_index() over vma_start_pgoff() (and __linear_anon_page_index())")
ksim_feature(KSIM_HAVE_PER_VMA_LOCK FILE include/linux/mm_types.h REGEX "CONFIG_PER_VMA_LOCK"
  WHY "per-VMA locks exist (vm_lock_seq vs mm_lock_seq, vma_start_write()): mm-sim emulates them")
ksim_feature(KSIM_HAVE_VMA_LOCK_ALLOC FILE kernel/fork.c REGEX "^static bool vma_lock_alloc\\(struct vm_area_struct \\*vma\\)"
  WHY "the per-VMA lock is a separate object (vma->vm_lock, struct vma_lock) that vm_area_alloc()/vm_area_dup() allocate")
ksim_feature(KSIM_HAVE_DUP_USERFAULTFD_FAIL FILE include/linux/userfaultfd_k.h
  REGEX "^void dup_userfaultfd_fail\\(struct list_head \\*\\);"
  WHY "dup_mmap() ends with dup_userfaultfd_fail() on failure (else dup_userfaultfd_complete() always)")
ksim_feature(KSIM_HAVE_KSM_FORK_INT FILE include/linux/ksm.h REGEX "^static inline int ksm_fork\\("
  WHY "ksm_fork() returns __ksm_enter()'s error and fails the fork (later: best effort, void)")
ksim_feature(KSIM_HAVE_COPY_PAGE_RANGE_VMA_ASSERT FILE mm/memory.c REGEX "vma_assert_write_locked\\(src_vma\\);"
  WHY "copy_page_range() asserts the parent's VMA is write-locked for a COW copy")
ksim_feature(KSIM_HAVE_LOCK_VMA_UNDER_RCU_MEMORY_C FILE mm/memory.c
  REGEX "^struct vm_area_struct \\*lock_vma_under_rcu\\(struct mm_struct \\*mm,"
  WHY "lock_vma_under_rcu() is in mm/memory.c, over vma_start_read(vma) and vma->detached")
ksim_feature(KSIM_HAVE_LOCK_VMA_UNDER_RCU_MMAP_LOCK_C FILE mm/mmap_lock.c
  REGEX "^struct vm_area_struct \\*lock_vma_under_rcu\\(struct mm_struct \\*mm,"
  WHY "lock_vma_under_rcu() is in mm/mmap_lock.c, over vma_start_read(mm, vma) (ERR_PTR(-EAGAIN): detached)")
# mm/mlock.c's shapes (mm-sim's mlock driver): mlock_vma_pages_range() takes
# the new flags as a vma_flags_t pointer (7.x), apply_vma_lock_flags() too (7.3)
ksim_feature(KSIM_HAVE_MLOCK_PAGES_VMA_FLAGS FILE mm/mlock.c
  REGEX "^\tvma_flags_t \\*new_vma_flags\\)$"
  WHY "mlock_vma_pages_range(..., vma_flags_t *new_vma_flags)")
ksim_feature(KSIM_HAVE_LOCK_MM_AND_FIND_VMA_MMAP_LOCK_C FILE mm/mmap_lock.c
  REGEX "^struct vm_area_struct \\*lock_mm_and_find_vma\\(struct mm_struct \\*mm,$"
  WHY "the page fault's lock_mm_and_find_vma() moved from mm/memory.c to mm/mmap_lock.c")
ksim_feature(KSIM_HAVE_EXPAND_DOWNWARDS_IN_VMA_C FILE mm/vma.c REGEX "^int expand_downwards\\("
  WHY "expand_downwards() and acct_stack_growth() moved from mm/mmap.c to mm/vma.c")
ksim_feature(KSIM_HAVE_MADVISE_BEHAVIOR FILE mm/madvise.c
  REGEX "^static int madvise_update_vma\\(vm_flags_t new_flags,$"
  WHY "madvise_update_vma(new_flags, struct madvise_behavior *): the VMA, range and name travel in one struct")
ksim_feature(KSIM_HAVE_SET_ANON_VMA_NAME FILE mm/madvise.c
  REGEX "^int set_anon_vma_name\\(unsigned long addr, unsigned long size,$"
  WHY "prctl(PR_SET_VMA_ANON_NAME)'s name handling (strndup_user(), the character check) is mm/madvise.c's set_anon_vma_name(); was in kernel/sys.c's prctl_set_vma()")
ksim_feature(KSIM_HAVE_LOCK_NEXT_VMA FILE mm/mmap_lock.c
  REGEX "^struct vm_area_struct \\*lock_next_vma\\(struct mm_struct \\*mm,"
  WHY "lock_next_vma(): the per-VMA-locked walk of /proc/PID/maps (fs/proc/task_mmu.c's get_next_vma())")
ksim_feature(KSIM_HAVE_MMAP_PREPARE FILE mm/vma.c REGEX "^static int call_mmap_prepare\\("
  WHY "__mmap_region() calls a file's f_op->mmap_prepare() with a struct vm_area_desc, then mm/util.c's mmap_action_prepare()/_complete()")
ksim_feature(KSIM_HAVE_UFFD_OPS FILE include/linux/userfaultfd_k.h REGEX "^struct vm_uffd_ops \\{"
  WHY "VMAs say whether they can userfault through vm_uffd_ops: vma_can_userfault() and the register/unregister code are static in mm/userfaultfd.c (was an inline of linux/userfaultfd_k.h, the ioctls in fs/userfaultfd.c)")
ksim_feature(KSIM_HAVE_UFFD_FEATURES_READ_ONCE FILE mm/userfaultfd.c
  REGEX "^static unsigned int userfaultfd_features\\(struct userfaultfd_ctx \\*ctx\\)$"
  WHY "the uffd ioctls read ctx->features through userfaultfd_features() (READ_ONCE: UFFDIO_SET_MODE changes them)")
# UFFDIO_UNREGISTER refuses a VMA registered to another context (-EINVAL);
# before, it unregistered it: the ioctl lives in fs/ (6.x) or mm/ (7.x)
ksim_feature(KSIM_HAVE_UFFD_UNREGISTER_OWN_CTX_FS FILE fs/userfaultfd.c
  REGEX "Prevent unregistering through a different userfaultfd than"
  WHY "fs/userfaultfd.c's UFFDIO_UNREGISTER refuses VMAs of another context")
ksim_feature(KSIM_HAVE_UFFD_UNREGISTER_OWN_CTX_MM FILE mm/userfaultfd.c
  REGEX "Prevent unregistering through a different userfaultfd than"
  WHY "mm/userfaultfd.c's UFFDIO_UNREGISTER refuses VMAs of another context")
ksim_feature(KSIM_HAVE_VM_MUNMAP_IN_VMA_C FILE mm/vma.c REGEX "^int __vm_munmap\\("
  WHY "__vm_munmap() (munmap(2), vm_munmap()) lives in mm/vma.c (was static in mm/mmap.c)")
ksim_feature(KSIM_HAVE_INSTALL_SPECIAL_MAPPING_IN_VMA_C FILE mm/vma.c REGEX "^struct vm_area_struct \\*__install_special_mapping\\($"
  WHY "__install_special_mapping() lives in mm/vma.c and takes vma_flags_t internally (was static in mm/mmap.c)")
ksim_feature(KSIM_HAVE_CAN_MMAP_FILE FILE include/linux/fs.h REGEX "^static inline bool can_mmap_file\\(struct file \\*file\\)"
  WHY "do_mmap() asks can_mmap_file() (f_op->mmap or ->mmap_prepare, not both) where it tested f_op->mmap (-ENODEV)")
ksim_feature(KSIM_HAVE_MERGE_DUP_ANON_VMA_CASES FILE mm/vma.c
  REGEX "^static bool is_mergeable_anon_vma\\(struct vma_merge_struct \\*vmg, bool merge_next\\)"
  WHY "a faulted VMA merges into an unfaulted neighbour (dup_anon_vma(), is_mergeable_anon_vma() case 1); older trees need the neighbour's anon_vma chain singular")

# maple/tests/test_api.c: exported maple APIs that not every tree has
ksim_feature(KSIM_HAVE_MAS_FIND_RANGE FILE lib/maple_tree.c REGEX "^void \\*mas_find_range\\("
  WHY "mas_find_range(), mas_find_range_rev(), mas_next_range(), mas_prev_range() (6.5+)")
ksim_feature(KSIM_HAVE_MAS_UNDERFLOW FILE include/linux/maple_tree.h REGEX "ma_underflow|MAS_UNDERFLOW"
  WHY "the iterators' documented overflow/underflow states: what mas_next()/mas_prev() return after running off an end")
ksim_feature(KSIM_HAVE_MT_ALLOC_CYCLIC FILE lib/maple_tree.c REGEX "^int mtree_alloc_cyclic\\("
  WHY "mtree_alloc_cyclic(), mas_alloc_cyclic()")
ksim_feature(KSIM_HAVE_MAS_EXPECTED_ENTRIES FILE lib/maple_tree.c REGEX "^int mas_expected_entries\\("
  WHY "mas_expected_entries(): bulk insert (gone in 7.x)")

# xarray/: the model's splits, the IDA API its tests call, the suite's parts
ksim_feature(KSIM_HAVE_IDA_EXISTS FILE include/linux/idr.h REGEX "^static inline bool ida_exists\\("
  WHY "ida_exists() and ida_find_first_range()")
ksim_feature(KSIM_HAVE_XAS_SPLIT_CANONICAL_MARKS FILE lib/xarray.c REGEX "^static inline void node_mark_slots\\("
  WHY "xas_split() marks only the canonical slots of a new child node (6.1 marks all 64, siblings too: finding xarray-split-sibling-marks)")
ksim_feature(KSIM_HAVE_XAS_TRY_SPLIT FILE lib/xarray.c REGEX "^void xas_try_split\\("
  WHY "xas_try_split() and xas_try_split_min_order(): a split that needs at most one new node, GFP_NOWAIT inside the lock")
ksim_feature(KSIM_HAVE_XA_HARNESS_LIB_XARRAY FILE tools/testing/radix-tree/xarray.c
  REGEX "^#include \"../../../lib/xarray.c\""
  WHY "the kernel's xarray harness compiles lib/xarray.c into its test file itself (6.1; later trees build it apart, tools/testing/shared/xarray-shared.c)")
ksim_feature(KSIM_HAVE_XA_MULTI_STORE_ADVANCED FILE lib/test_xarray.c
  REGEX "^static noinline void check_multi_store_advanced\\(struct xarray \\*xa\\)"
  WHY "lib/test_xarray.c's check_multi_store_advanced(), over half of the module's run: the xarray suite runs its largest orders as a part of their own")

# The tree's version, for messages and benchmark labels only: decide
# nothing by it.
string(CONCAT _ksim_header
  "/* Generated by cmake/Features.cmake from ${KSIM_KSRC}: do not edit. */\n"
  "#ifndef _KSIM_FEATURES_H\n#define _KSIM_FEATURES_H\n\n"
  "#define KSIM_KVERSION \"${KSIM_KVERSION}\"\n"
  "#define KSIM_KVER_CODE ${KSIM_KVER_CODE}\t/* messages and labels only */\n\n"
  "${_ksim_features}"
  "#endif\n")
file(CONFIGURE OUTPUT ${KSIM_FEATURES_H} CONTENT "${_ksim_header}" @ONLY)
unset(_ksim_header)
