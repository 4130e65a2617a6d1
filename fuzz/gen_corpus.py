#!/usr/bin/env python3
"""Seed inputs and AFL++ dictionaries for the fuzz targets, written by us.

  gen_corpus.py TARGET --out DIR      write the seed inputs (the committed
                                      corpus is fuzz/corpus/TARGET, made by this)
  gen_corpus.py TARGET --dict FILE    write an AFL++ dictionary
  gen_corpus.py mm --known DIR        write the inputs that hit known kernel
                                      bugs (fuzz/known/mm is made by this)

Each target's encoding is documented in its harness (fuzz/TARGET.c); the
functions below speak it, found by name: gen_TARGET() (the seeds),
dict_TARGET() (the dictionary), known_TARGET() (the known-bug inputs).  A
target without them gets one all-zero seed (every byte string is a valid
input) beside its committed corpus (fuzz/corpus/TARGET), and an empty
dictionary.  Deterministic: the same files every run.
"""
import argparse
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- maple (fuzz/maple.c) ----

M_OPS = ["store_range", "insert_range", "insert", "erase", "load", "mas_store_gfp",
         "prealloc", "find", "prev", "walk", "empty_area", "empty_area_rev",
         "alloc_range", "alloc_rrange", "dup", "rcu", "barrier", "mas_erase",
         "reinit", "burst"]
OP = {n: i for i, n in enumerate(M_OPS)}
NOFAULT = 0


def small(i):
    """Index 0..1023."""
    assert 0 <= i < 1024
    return struct.pack("<H", i)


def page(p):
    """Index p << 12."""
    assert 0 <= p < 0x4000
    return struct.pack("<H", 0x8000 | p)


def top(d):
    """Index ULONG_MAX - d."""
    assert 0 <= d < 0x4000
    return struct.pack("<H", 0xC000 | d)


def rng(first, length):
    """A range: index + length byte (0..254)."""
    assert 0 <= length < 255
    return first + bytes([length])


def rng2(first, last):
    """A range given by two indexes (len byte 0xff)."""
    return first + b"\xff" + last


def size(n=None, pages=None):
    if pages is not None:
        return struct.pack("<H", 0x8000 | pages)
    return struct.pack("<H", n)


def op(name, *args, flags=0, fault=NOFAULT):
    return bytes([OP[name], flags, fault]) + b"".join(args)


def burst(count, start, stride, length, flags=0, fault=NOFAULT):
    return op("burst", bytes([count - 1]), start, bytes([stride - 1, length]),
              flags=flags, fault=fault)


def gen_maple():
    seeds = {}
    for cfg in range(4):   # bit 0 ALLOC_RANGE, bit 1 RCU
        c = bytes([cfg])
        seeds[f"basic-{cfg}"] = c + b"".join([
            op("store_range", rng(small(10), 5)), op("insert", small(100)),
            op("insert_range", rng(small(200), 20)), op("insert", small(12)),  # -EEXIST
            op("load", small(12)), op("walk", small(50)), op("erase", small(12)),
            op("store_range", rng2(small(5), small(3))),                        # -EINVAL
            op("store_range", rng(small(0), 0), flags=1)])                      # NULL store
        seeds[f"grow-shrink-{cfg}"] = c + b"".join([
            burst(200, small(0), 3, 1), op("find", small(0), small(1023), flags=0xf0),
            op("prev", small(600), small(0), flags=0xf4),
            burst(150, small(100), 3, 2, flags=1), op("find", small(0), small(1023), flags=0x74)])
        seeds[f"spanning-{cfg}"] = c + b"".join([
            burst(250, page(0), 4, 2), op("store_range", rng2(small(20), small(900))),
            op("store_range", rng2(small(300), small(700)), flags=1),
            op("mas_store_gfp", rng2(small(1), small(1000))), op("walk", small(512))])
        seeds[f"top-{cfg}"] = c + b"".join([
            op("store_range", rng2(top(100), top(0))), burst(60, top(3000), 7, 3),
            op("insert", top(0)), op("find", top(5000), top(0), flags=0xf0),
            op("prev", top(0), top(4000), flags=0xf0)])
        seeds[f"prealloc-{cfg}"] = c + b"".join([
            burst(100, page(1), 2, 0), op("prealloc", rng(page(50), 200)),
            op("prealloc", rng(page(60), 10), flags=8), op("prealloc", rng2(small(0), top(0)), flags=1)])
        seeds[f"gaps-{cfg}"] = c + b"".join([
            burst(100, page(16), 5, 1),
            op("empty_area", page(0), top(0), size(pages=3)),
            op("empty_area_rev", page(0), page(0x3fff), size(pages=3)),
            op("empty_area", small(0), small(1023), size(4)),
            op("empty_area_rev", small(0), small(1023), size(4)),
            op("empty_area", small(10), small(5), size(1)),                     # -EINVAL
            op("alloc_range", page(0), page(2000), size(pages=2)),
            op("alloc_rrange", page(0), page(2000), size(pages=2))])
        seeds[f"dup-{cfg}"] = c + b"".join([
            burst(180, small(0), 4, 2), op("dup"), op("dup", flags=1 | 8),
            op("store_range", rng(small(30), 40)), op("dup", flags=8)])
        seeds[f"rcu-{cfg}"] = c + b"".join([
            op("rcu", flags=1), burst(100, small(0), 2, 0), op("barrier"),
            burst(100, small(0), 2, 0, flags=1), op("rcu", flags=0), burst(50, small(0), 3, 1),
            op("reinit", flags=3), burst(40, page(3), 3, 1)])
        # Allocation failures: each op family with once / thrice failing.
        for f, tag in ((0xe0, "1st"), (0xe3, "4th"), (0xf0, "1st-x3"), (0xf2, "3rd-x3")):
            seeds[f"fault-{tag}-{cfg}"] = c + b"".join([
                burst(120, small(0), 3, 1),
                op("store_range", rng2(small(5), small(400)), fault=f),
                op("insert_range", rng(small(700), 30), fault=f),
                op("mas_store_gfp", rng(small(50), 100), flags=2, fault=f),
                op("prealloc", rng(small(600), 50), fault=f),
                op("erase", small(300), fault=f),
                op("mas_erase", small(303), fault=f),
                op("alloc_range", small(0), small(1023), size(3), fault=f),
                op("dup", fault=f), op("dup", flags=1, fault=f),
                burst(60, small(100), 5, 2, fault=f), burst(60, small(100), 5, 2, flags=1, fault=f)])
    return seeds


def dict_maple():
    toks = {f"op_{n}": bytes([i]) for i, n in enumerate(M_OPS)}
    toks.update({"fault_once": b"\xe0", "fault_thrice": b"\xf0", "len_index": b"\xff",
                 "idx_page": b"\x00\x80", "idx_top": b"\xff\xff", "idx_max": b"\x00\xc0",
                 "size_pages": b"\x01\x80", "flags_rcu_many": b"\xf4"})
    return toks


# ---- mm (fuzz/mm.c) ----

MM_OPS = ["mmap", "munmap", "mprotect", "brk", "touch", "fork", "exit", "new", "unmap_all", "mremap"]
MOP = {n: i for i, n in enumerate(MM_OPS)}
R, W, X, SHARED, FILE, FILE_B, DONTCOPY, WIPE = 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80
NORESERVE, NO_MAYWRITE, NO_MAYEXEC = 4, 8, 0x10   # flags byte bits (mmap)
TOUCH_WRITE = 4                                   # flags byte bit (touch)


def maddr(page, win=0):
    """Page 0..1023 of window 0 (2 MiB below 1 GiB) or 1 (2 MiB below 512 GiB)."""
    assert 0 <= page < 1024 and win in (0, 1)
    return struct.pack("<H", (win << 15) | page)


def mop(name, proc=0, flags=0, fault=NOFAULT, args=b""):
    return bytes([MOP[name], (flags & ~3) | proc, fault]) + args


def mmap(proc, prot, page, pages, pgoff=0, win=0, flags=0, fault=NOFAULT):
    return mop("mmap", proc, flags, fault, bytes([prot]) + maddr(page, win) + bytes([pages - 1, pgoff]))


SHORT = 0x10  # munmap/brk flags bit 4: garbage the argument contract ignores (fuzz/mm.c)


def munmap(proc, page, pages, win=0, fault=NOFAULT, garbage=0):
    return mop("munmap", proc, garbage, fault, maddr(page, win) + bytes([pages - 1]))


def mprotect(proc, prot, page, pages, win=0, fault=NOFAULT):
    return mop("mprotect", proc, 0, fault, bytes([prot]) + maddr(page, win) + bytes([pages - 1]))


def brk(proc, delta, fault=NOFAULT, garbage=0):
    return mop("brk", proc, garbage, fault, struct.pack("<b", delta))


def touch(proc, page, count=1, stride=1, win=0, write=False, fault=NOFAULT):
    return mop("touch", proc, TOUCH_WRITE if write else 0, fault,
               maddr(page, win) + bytes([(count - 1) | (stride - 1) << 4]))


def fork(proc, child, fault=NOFAULT):
    return mop("fork", proc, child << 2, fault)


IN_PLACE, MOVE_FIXED, DONTUNMAP_FIXED, SAME_LEN = 0, 1, 2, 3   # mremap modes (flags bits 2-3)
# madvise/naming: an mprotect op with flags bits 5-7 set; its first byte picks the advice
(NORMAL, RANDOM, SEQUENTIAL, DONTFORK, DOFORK, DONTDUMP, DODUMP, WIPEONFORK, KEEPONFORK,
 NAME_A, NAME_B, NAME_CLEAR) = range(12)
MADVISE = 0xe0


# madvise/naming flags bits (fuzz/mm.c's op_madvise()): bit 4 a length short of its last page
# (garbage the argument contract ignores), bit 3 an argument it refuses (advice from a list of
# invalid values picked by advice % 8, or an invalid name)
MADV_SHORT, MADV_BAD = 0x10, 0x08


def madvise(proc, advice, page, pages, win=0, fault=NOFAULT, garbage=0):
    return mop("mprotect", proc, MADVISE | garbage, fault, bytes([advice]) + maddr(page, win) + bytes([pages - 1]))


# mbind: a madvise op with flags bit 2 set too; its first byte: bits 0-2 the mode, 3-4 the
# nodes, 5-6 garbage the argument contract ignores (the mode's upper half, mask bits past
# maxnode - 1); flags bit 4 a length short of its last page (fuzz/mm.c's op_mbind())
MB_DEFAULT, MB_BIND, MB_INTERLEAVE, MB_PREFERRED, MB_LOCAL, MB_INVALID = range(6)
MB_MODE_GARBAGE, MB_MASK_GARBAGE = 0x20, 0x40


def mbind(proc, mode, nodes, page, pages, win=0, fault=NOFAULT, garbage=0, short=False):
    return mop("mprotect", proc, MADVISE | 0x04 | (MADV_SHORT if short else 0), fault,
               bytes([mode | nodes << 3 | garbage]) + maddr(page, win) + bytes([pages - 1]))


# uffd: a madvise op with flags bits 2 and 3 set too; its first byte: bit 0 UFFDIO_UNREGISTER,
# bit 1 the second context, bit 2 garbage in REGISTER's ioctls, bit 3 mode MISSING|WP (refused);
# flags bit 4 a length short of its last page (refused) (fuzz/mm.c's op_uffd())
UF_UNREG, UF_CTX1, UF_IOCTLS, UF_BADMODE = 1, 2, 4, 8


def uffd(proc, sel, page, pages, win=0, fault=NOFAULT, short=False):
    return mop("mprotect", proc, MADVISE | 0x0c | (MADV_SHORT if short else 0), fault,
               bytes([sel]) + maddr(page, win) + bytes([pages - 1]))


GARBAGE = 7   # mremap flags bits 4-6: garbage the argument contract ignores (fuzz/mm.c)
# mmap flags bits 5-7 (an mmap(2) can express: fuzz/mm.c's sys_mmap_fixed()): a garbage fd and
# page-aligned offset with MAP_ANONYMOUS, a length short of its last page
MMAP_GARBAGE = 0xe0


def mremap(proc, mode, page, old_pages, new_pages, new_page=0, win=0, new_win=0, fault=NOFAULT,
           garbage=0):
    return mop("mremap", proc, mode << 2 | garbage << 4, fault,
               maddr(page, win) + bytes([old_pages - 1, new_pages - 1]) + maddr(new_page, new_win))


def gen_mm():
    seeds = {}
    RW = R | W
    shape = b"".join([
        mmap(0, R | X | FILE, 0, 16), mmap(0, RW, 16, 64), mmap(0, RW | FILE | FILE_B, 80, 32, 4),
        mmap(0, RW | SHARED, 200, 8), mmap(0, RW | SHARED | FILE, 220, 8, 9),
        mmap(0, RW, 500, 40), mmap(0, RW, 1000, 100, win=1),
        touch(0, 0, 16, write=False), touch(0, 16, 16, 4, write=True), touch(0, 80, 4, write=True),
        touch(0, 200, 2, write=True), touch(0, 220, 3, write=True), touch(0, 505, 15, 2, write=True),
        touch(0, 1010, 16, 5, win=1, write=True)])
    for cfg in range(4):
        c = bytes([cfg])
        seeds[f"basic-{cfg}"] = c + shape + b"".join([
            mprotect(0, R, 20, 10), mprotect(0, RW, 20, 10), munmap(0, 40, 3),
            mmap(0, RW, 40, 3), touch(0, 41, write=True), mprotect(0, R, 10, 100),  # hole -> -ENOMEM
            brk(0, 20), touch(0, 770, 4, 2, write=True), brk(0, -7), brk(0, 50), brk(0, -100),
            mop("unmap_all", 0), touch(0, 0)])
        seeds[f"fork-{cfg}"] = c + shape + b"".join([
            mmap(0, RW | DONTCOPY, 300, 10), mmap(0, RW | WIPE, 320, 10),
            touch(0, 300, 10, write=True), touch(0, 320, 10, write=True),
            fork(0, 1), touch(1, 16, 16, 4, write=True), fork(1, 2), mprotect(2, R, 0, 255),
            touch(2, 320, 10, write=True), mop("exit", 0), fork(2, 0), munmap(1, 10, 200),
            mop("exit", 2), mop("new", 2), mmap(2, RW, 5, 5), fork(2, 3), mop("exit", 1)])
        seeds[f"boundary-{cfg}"] = c + b"".join([
            mmap(0, RW, 400, 255), mmap(0, RW, 600, 100), touch(0, 500, 16, 1, write=True),
            touch(0, 511, 2, write=True), munmap(0, 505, 10), mprotect(0, R, 480, 100),
            mmap(0, RW, 900, 255, win=1), touch(0, 1020, 16, 15, win=1, write=True),
            fork(0, 1), munmap(1, 1000, 60, win=1), mprotect(1, R, 950, 200, win=1),
            mmap(1, R | FILE, 1010, 30, 7, win=1), touch(1, 1011, 4, write=False, win=1)])
        seeds[f"perm-{cfg}"] = c + b"".join([
            mmap(0, R, 0, 10, flags=NO_MAYWRITE), mmap(0, R, 10, 10), mprotect(0, RW, 10, 10),
            mprotect(0, RW, 0, 20), mprotect(0, RW, 5, 10), mprotect(0, R | X, 0, 20),
            mmap(0, R, 30, 10, flags=NO_MAYEXEC), mprotect(0, X, 30, 5),
            mmap(0, RW, 50, 10, flags=NORESERVE), mprotect(0, R, 50, 5), mprotect(0, RW, 50, 10),
            mmap(0, R, 70, 10), mprotect(0, RW, 70, 10), mprotect(0, R, 70, 10), mprotect(0, RW, 72, 2),
            brk(0, 10), mmap(0, R, 790, 4), brk(0, 30), brk(0, -5), brk(0, 5)])
        # Allocation failures.  A failed MAP_FIXED mmap over VM_ACCOUNT pages hits the
        # kernel's commit leak (fuzz/known/mm/mmap-fixed-abort-commit-leak): the mmaps
        # here fail over read-only or shared mappings only.
        for f, tag in ((0xe0, "1st"), (0xe3, "4th"), (0xf0, "1st-x3"), (0xf2, "3rd-x3")):
            seeds[f"fault-{tag}-{cfg}"] = c + shape + b"".join([
                fork(0, 1, fault=f), mop("new", 2, fault=f), touch(0, 600, 4, 5, write=True, fault=f),
                mmap(0, RW, 600, 20, fault=f), mmap(0, R | FILE, 3, 5, fault=f),
                mmap(0, R | SHARED, 202, 3, fault=f), munmap(0, 30, 5, fault=f),
                munmap(0, 20, 200, fault=f), mprotect(0, R, 500, 30, fault=f),
                mprotect(0, RW, 0, 10, fault=f), brk(0, 30, fault=f), brk(0, -10, fault=f),
                fork(0, 3, fault=f), mop("unmap_all", 0, fault=f), mop("exit", 3)])
        # The same calls with garbage in the arguments the contract ignores: the
        # kernel must do exactly what it did without it.
        for tag, g in (("", 0), ("garbage-", GARBAGE)):
            seeds[f"mremap-{tag}{cfg}"] = c + shape + b"".join([
                mremap(0, IN_PLACE, 500, 40, 60, garbage=g),                       # grow in place
                touch(0, 545, 4, 3, write=True),
                mremap(0, IN_PLACE, 500, 60, 30, garbage=g),                       # shrink
                mremap(0, IN_PLACE, 16, 64, 70, garbage=g),                        # blocked: -ENOMEM
                mremap(0, MOVE_FIXED, 16, 64, 64, 600, garbage=g),                 # move, 2 MiB crossed
                # shrink, then move to the pgd window (in one MREMAP_FIXED call on a VM_ACCOUNT
                # mapping it hits 7.2's overcharge: fuzz/known/mm/mremap-shrink-move-overcharge)
                mremap(0, IN_PLACE, 600, 64, 32, garbage=g),
                mremap(0, MOVE_FIXED, 600, 32, 32, 10, new_win=1, garbage=g),
                mremap(0, DONTUNMAP_FIXED, 200, 8, 8, 700, garbage=g),             # shared anon
                mremap(0, MOVE_FIXED, 220, 8, 12, 0, garbage=g),                   # file, over text
                mremap(0, SAME_LEN, 80, 32, 32, garbage=g),                        # no-op
                mremap(0, SAME_LEN, 900, 2, 2, garbage=g),                         # -EFAULT
                mremap(0, MOVE_FIXED, 80, 32, 32, 90, garbage=g),                  # overlap: -EINVAL
                fork(0, 1), mremap(1, MOVE_FIXED, 1010, 100, 100, 0, win=1, new_win=1, garbage=g),
                touch(1, 0, 16, 7, win=1, write=True), mop("exit", 0)])
        # mmap(2) with garbage the contract ignores, over and next to the shape's mappings
        g = MMAP_GARBAGE
        seeds[f"mmap-garbage-{cfg}"] = c + shape + b"".join([
            mmap(0, RW, 300, 10, pgoff=77, flags=g), mmap(0, RW, 310, 10, pgoff=3, flags=g),   # merge
            mmap(0, RW | SHARED, 330, 6, pgoff=200, flags=g), mmap(0, R, 20, 8, pgoff=1, flags=g),
            mmap(0, RW, 500, 20, pgoff=255, flags=g | NORESERVE), touch(0, 300, 20, write=True),
            mmap(0, RW | FILE, 400, 12, pgoff=6, flags=g), mmap(0, R | SHARED | FILE | FILE_B, 412, 4,
                                                                 pgoff=18, flags=g),
            mmap(0, RW | FILE, 80, 4, pgoff=30, flags=g), touch(0, 400, 16, write=True),
            fork(0, 1), mmap(1, RW, 1000, 100, pgoff=9, win=1, flags=g), touch(1, 1000, 20, 5, win=1, write=True),
            munmap(0, 305, 10), mmap(0, RW, 300, 20, pgoff=128, flags=g), mop("exit", 1)])
        # munmap and brk the same way: a length short of its last page, an
        # unaligned break (kept by the kernel in mm->brk)
        for tag, g in (("", 0), ("garbage-", SHORT)):
            seeds[f"brk-munmap-{tag}{cfg}"] = c + shape + b"".join([
                munmap(0, 20, 5, garbage=g), munmap(0, 500, 3, garbage=g),
                munmap(0, 600, 4, garbage=g),                                      # a hole: 0
                brk(0, 20, garbage=g), touch(0, 770, 4, 2, write=True),
                brk(0, -7, garbage=g), brk(0, 3, garbage=g), brk(0, 0, garbage=g),
                mmap(0, RW, 800, 4), brk(0, 40, garbage=g),                        # blocked
                munmap(0, 768, 16, garbage=g), brk(0, -5, garbage=g),              # nothing to shrink
                brk(0, -100, garbage=g), fork(0, 1), brk(1, 10, garbage=g),
                munmap(1, 770, 2, garbage=g), mop("exit", 0)])
        seeds[f"madvise-{cfg}"] = c + shape + b"".join([
            madvise(0, NAME_A, 16, 64), madvise(0, NAME_B, 30, 10), madvise(0, NAME_A, 30, 10),
            madvise(0, DONTFORK, 20, 10), fork(0, 1), madvise(1, NAME_B, 0, 100),   # file: -EBADF
            madvise(0, NAME_B, 200, 8), madvise(0, NAME_A, 500, 100),              # shmem; a hole
            madvise(0, WIPEONFORK, 200, 8), madvise(0, WIPEONFORK, 40, 20),          # shared: -EINVAL
            mremap(0, MOVE_FIXED, 16, 64, 64, 600), madvise(0, NAME_CLEAR, 16, 239),
            madvise(0, DODUMP, 600, 64), madvise(0, DONTDUMP, 610, 4), madvise(0, SEQUENTIAL, 0, 100),
            madvise(0, RANDOM, 5, 5), madvise(0, NORMAL, 0, 255), madvise(0, KEEPONFORK, 40, 20),
            madvise(0, DOFORK, 0, 255), fork(0, 2), mop("exit", 1), madvise(2, NAME_A, 600, 64)])
        # the same with a length short of its last page, and advice/names the contract refuses
        if cfg < 3:
            s, b = MADV_SHORT, MADV_BAD
            seeds[f"madvise-garbage-{cfg}"] = c + shape + b"".join([
                madvise(0, NAME_A, 16, 64, garbage=s), madvise(0, NAME_B, 30, 1, garbage=s),
                madvise(0, NAME_A, 0, 4, garbage=s),                                # file: -EBADF
                madvise(0, DONTFORK, 20, 10, garbage=s), madvise(0, NAME_B, 20, 10, garbage=b),
                madvise(0, 0, 20, 10, garbage=b), madvise(0, 5, 40, 1, garbage=b | s),  # -1, 27
                fork(0, 1), madvise(1, NAME_B, 500, 100, garbage=s),                # a hole
                madvise(0, WIPEONFORK, 500, 40, garbage=s), madvise(0, WIPEONFORK, 200, 8, garbage=s),
                madvise(0, 7, 0, 255, garbage=b), madvise(0, 11, 500, 40, garbage=b),  # 1000; "a$"
                madvise(0, SEQUENTIAL, 0, 100, garbage=s), madvise(0, NAME_CLEAR, 16, 239, garbage=s),
                madvise(0, DOFORK, 0, 255, garbage=s), mop("exit", 1),
                madvise(0, DONTDUMP, 1000, 3, win=1, garbage=s), madvise(0, 3, 1000, 100, win=1, garbage=b)])  # 7
        # mbind: policies split and merge VMAs, move with mremap, copy with fork
        if cfg < 3:
            g = MB_MODE_GARBAGE | MB_MASK_GARBAGE if cfg else 0
            f = (NOFAULT, NOFAULT, 0xe0)[cfg]                                      # mbind-2: failures
            seeds[f"mbind-{cfg}"] = c + shape + b"".join([
                mbind(0, MB_BIND, 1, 20, 10, garbage=g, short=cfg > 0, fault=f),
                mbind(0, MB_INTERLEAVE, 3, 30, 10, fault=f), mbind(0, MB_BIND, 1, 40, 10, garbage=g),
                mbind(0, MB_BIND, 1, 30, 10, short=True, fault=f),                  # merge
                mbind(0, MB_PREFERRED, 3, 500, 40, garbage=g), mbind(0, MB_LOCAL, 0, 510, 5),
                mbind(0, MB_PREFERRED, 0, 520, 4), mbind(0, MB_BIND, 2, 0, 20),    # file
                mbind(0, MB_BIND, 1, 480, 100),                                    # a hole: -EFAULT
                mbind(0, MB_DEFAULT, 2, 20, 4), mbind(0, MB_BIND, 0, 20, 4),       # nodes: -EINVAL
                mbind(0, MB_INVALID, 1, 20, 4, garbage=g),                         # -EINVAL
                mbind(0, MB_INTERLEAVE, 3, 200, 8), mbind(0, MB_BIND, 2, 220, 8),  # shared
                mprotect(0, R, 25, 10), touch(0, 20, 30, write=True), fork(0, 1),
                mremap(0, MOVE_FIXED, 16, 64, 64, 600), mremap(0, IN_PLACE, 500, 40, 60),
                mremap(0, MOVE_FIXED, 200, 8, 8, 700), mremap(0, IN_PLACE, 700, 8, 12),   # one VMA
                munmap(1, 35, 3), mmap(1, RW, 44, 4), mbind(1, MB_DEFAULT, 0, 0, 255, garbage=g),  # holes
                mbind(0, MB_DEFAULT, 0, 610, 10, short=cfg > 0), mbind(0, MB_INTERLEAVE, 3, 1000, 100, win=1),
                mbind(0, MB_DEFAULT, 0, 600, 2, win=1),                            # nothing mapped: -EFAULT
                fork(0, 2), madvise(2, DONTFORK, 1020, 10, win=1), fork(2, 3), mop("exit", 0)])
        # userfaultfd registration: two contexts, holes, files, no VM_MAYWRITE, fork and mremap drop it
        if cfg < 3:
            f = (NOFAULT, NOFAULT, 0xe0)[cfg]                                      # uffd-2: failures
            i = UF_IOCTLS if cfg else 0
            seeds[f"uffd-{cfg}"] = c + shape + b"".join([
                uffd(0, i, 20, 10, fault=f), uffd(0, UF_CTX1 | i, 40, 10, fault=f),
                uffd(0, i, 30, 10), uffd(0, UF_CTX1 | i, 25, 10),                   # -EBUSY
                uffd(0, i, 500, 100, fault=f),                                     # a hole: registered
                uffd(0, i, 0, 20), mmap(0, R, 300, 4, flags=NO_MAYWRITE), uffd(0, i, 300, 4),  # file, -EPERM
                uffd(0, i, 600, 4),                                                # nothing mapped: -EINVAL
                uffd(0, i | UF_BADMODE, 60, 4), uffd(0, i, 60, 4, short=True),      # -EINVAL
                uffd(0, UF_UNREG, 35, 10, fault=f), uffd(0, UF_UNREG | UF_CTX1, 20, 10),  # another's
                uffd(0, UF_UNREG, 60, 2, short=True), touch(0, 20, 30, write=True), mprotect(0, R, 22, 4),
                fork(0, 1), uffd(1, i, 20, 30), mremap(0, MOVE_FIXED, 500, 40, 40, 700),
                mremap(0, IN_PLACE, 40, 10, 12), mbind(0, MB_BIND, 1, 20, 30), madvise(0, NAME_A, 20, 30),
                munmap(0, 44, 2), uffd(0, UF_UNREG, 0, 255), uffd(1, UF_CTX1, 1000, 100, win=1),
                mop("exit", 1), uffd(0, UF_CTX1, 20, 40)])
        if cfg == 0:   # more VMAs than ksim_uffd_contract() once looked at (32)
            seeds["uffd-vmas-0"] = c + b"".join(
                [mmap(0, R if k % 2 else RW, 100 + k, 1) for k in range(40)] +
                [uffd(0, 0, 138, 2), uffd(0, UF_CTX1, 100, 40), uffd(0, UF_UNREG, 130, 10),
                 uffd(0, UF_CTX1, 100, 40)])
        for f, tag in ((0xe0, "1st"), (0xe2, "3rd"), (0xf1, "2nd-x3")):
            seeds[f"madvise-fault-{tag}-{cfg}"] = c + shape + b"".join([
                madvise(0, NAME_A, 20, 10, fault=f), madvise(0, NAME_B, 16, 64, fault=f),
                madvise(0, DONTFORK, 30, 20, fault=f), madvise(0, NAME_A, 10, 100, fault=f),
                madvise(0, WIPEONFORK, 500, 40, fault=f), fork(0, 1, fault=f),
                madvise(0, NAME_CLEAR, 16, 239, fault=f)])
        # mremap failures: equal lengths (a growth by a move hits the known commit
        # leak, fuzz/known/mm/mremap-grow-commit-leak)
        for f, tag in ((0xe0, "1st"), (0xe2, "3rd"), (0xe5, "6th"), (0xf1, "2nd-x3")):
            seeds[f"mremap-fault-{tag}-{cfg}"] = c + shape + b"".join([
                mremap(0, MOVE_FIXED, 16, 64, 64, 600, fault=f),
                mremap(0, MOVE_FIXED, 1010, 100, 100, 0, win=1, new_win=1, fault=f),
                mremap(0, DONTUNMAP_FIXED, 200, 8, 8, 700, fault=f),
                mremap(0, MOVE_FIXED, 500, 40, 20, 300, fault=f),
                mremap(0, IN_PLACE, 80, 32, 16, fault=f)])
    return seeds


def known_mm():
    """Inputs that hit kernel bugs (fuzz/known/mm/)."""
    # The failing allocation's index differs between trees by one (6.12.95
    # allocates one fewer before it than 6.12.117 and 7.2): the MAP_FIXED
    # mmap is tried at #4 and, after that clean failure, at #5.
    return {"mmap-fixed-abort-commit-leak": bytes([0]) + b"".join([
        mmap(0, R | W, 0, 10), touch(0, 0, 10, write=True),
        mmap(0, R | W, 5, 10, fault=0xf3), mmap(0, R | W, 5, 10, fault=0xf4)]),
            # a VM_ACCOUNT mapping grown by a move whose page-table allocation
            # fails (#5: reached on 6.12.95 and 7.2 alike)
            "mremap-grow-commit-leak": bytes([0]) + b"".join([
        mmap(0, R | W, 0, 10), touch(0, 0, 10, write=True),
        mremap(0, MOVE_FIXED, 0, 10, 20, 0, new_win=1, fault=0xe4)]),
            # a VM_ACCOUNT mapping shrunk and moved by one MREMAP_FIXED call
            "mremap-shrink-move-overcharge": bytes([0]) + b"".join([
        mmap(0, R | W, 0, 40), touch(0, 0, 40, write=True),
        mremap(0, MOVE_FIXED, 0, 40, 20, 0, new_win=1)]),
            # mm-mremap-oom-unmap-commit-leak without VM_ACCOUNT (PROT_NONE): the
            # grown move fails, and so does the unmap of the new VMA: it stays
            # (a campaign's input, reduced: page tables under the source matter)
            "mremap-oom-unmap-new-vma-stays": bytes([0]) + b"".join([
        mmap(0, R | X | FILE, 0, 49, 0x30), mmap(0, 0, 0, 1), touch(0, 0, 16),
        mremap(0, MOVE_FIXED, 0, 1, 49, 304, new_win=1, fault=0xf3)]),
            # madvise(MADV_WIPEONFORK) on a faulted mapping, moved, fork, then a
            # split in the child (naming one page of it)
            "fork-wipeonfork-stale-pgoff": bytes([0]) + b"".join([
        mmap(0, R | W, 0, 10), touch(0, 0, 10, write=True), madvise(0, WIPEONFORK, 0, 10),
        mremap(0, MOVE_FIXED, 0, 10, 10, 100), fork(0, 1), madvise(1, NAME_A, 100, 1)]),
            # a registered piece moved away and back next to its registered
            # neighbour: merged into it, and both unregistered (6.12, 7.2)
            "mremap-uffd-merge-drops-neighbour": bytes([0]) + b"".join([
        mmap(0, R | W, 100, 20), touch(0, 100, 16, write=True), touch(0, 116, 4, write=True),
        uffd(0, 0, 100, 20), mremap(0, MOVE_FIXED, 110, 10, 10, 300), uffd(0, 0, 300, 10),
        mremap(0, MOVE_FIXED, 300, 10, 10, 110), uffd(0, 0, 110, 10),
        mremap(0, MOVE_FIXED, 100, 5, 5, 400), uffd(0, 0, 400, 5), mremap(0, MOVE_FIXED, 400, 5, 5, 95)])}


def dict_mm():
    toks = {f"op_{n}": bytes([i]) for i, n in enumerate(MM_OPS)}
    toks.update({"fault_once": b"\xe0", "fault_thrice": b"\xf0", "addr_win1": b"\x00\x80",
                 "addr_2m": b"\x00\x02", "prot_rw": b"\x03", "prot_shared": b"\x0b",
                 "prot_file": b"\x13", "prot_dontcopy": b"\x43", "prot_wipe": b"\x83",
                 "flags_madvise": b"\xe0"})
    return toks




# ---- bpfmap (fuzz/bpfmap.c) ----

B_OPS = ["update", "lookup", "delete", "lookup_and_delete", "get_next_key", "walk",
         "walk_delete", "fill", "barrier"]
BOP = {n: i for i, n in enumerate(B_OPS)}
# Index order of ksim_bpf_variants[] (qptrie/variants.c).  qp_trie (the
# posted series) exists only when KSRC has it; without it the harness takes
# the index modulo the number built, so its seeds run as `hash` seeds.
B_VARIANTS = ["hash", "hash_noprealloc", "lru_hash", "lru_hash_nocommon", "percpu_hash",
              "percpu_hash_noprealloc", "lpm_trie", "qp_trie_ref", "lru_percpu_hash",
              "lru_percpu_hash_nocommon", "qp_trie"]
ANY, NOEXIST, EXIST, BADFLAG = 0, 1, 2, 3


def bhdr(variant, max_entries, ksize, vsize, checking=False, fault=NOFAULT):
    """[variant][cfg][max_entries - 1][ksize byte][vsize - 1][create fault]."""
    return bytes([B_VARIANTS.index(variant), int(checking), max_entries - 1, ksize,
                  vsize - 1, fault])


def bop(name, *args, flags=0, fault=NOFAULT):
    return bytes([BOP[name], flags, fault]) + b"".join(
        a if isinstance(a, bytes) else bytes([a]) for a in args)


def kid(i):
    """A key derived from id i (0..0xdf)."""
    assert 0 <= i < 0xe0
    return bytes([i])


def kmodel(j):
    """The model's j-th key."""
    return bytes([0xe0 | j])


def kraw(data):
    """Raw key bytes (LPM: prefixlen byte then data; dynptr: length byte then bytes)."""
    return b"\xf0" + data


def upd(k, flags=ANY, seed=0x5a, fault=NOFAULT):
    return bop("update", k, seed, flags=flags, fault=fault)


def fill(count, first, stride=1, flags=ANY, fault=NOFAULT):
    return bop("fill", count - 1, first, stride - 1, flags=flags, fault=fault)


def gen_bpfmap():
    seeds = {}
    for v in B_VARIANTS:
        lpm, dyn = v == "lpm_trie", v.startswith("qp_trie")
        ksize = 3 if lpm else (7 if dyn else 7)      # LPM: 4 data bytes; dynptr: 8; hash: 8
        body_basic = b"".join([
            upd(kid(1)), upd(kid(2), NOEXIST), upd(kid(1), NOEXIST), upd(kid(3), EXIST),
            upd(kid(2), EXIST), upd(kid(4), BADFLAG), upd(kid(4), BADFLAG | 4),
            upd(kid(5), BADFLAG | 8), bop("lookup", kid(1)), bop("lookup", kid(9), flags=4),
            bop("lookup", kid(2), flags=12), bop("get_next_key", kid(1)),
            bop("get_next_key", kid(77)), bop("get_next_key", kid(0), flags=1),
            bop("delete", kid(2)), bop("delete", kid(2)), bop("lookup_and_delete", kid(1)),
            bop("lookup_and_delete", kid(1)), fill(12, 10, 3), bop("walk"),
            bop("delete", kmodel(3)), bop("update", kmodel(5), 0x11, flags=EXIST), bop("walk")])
        for checking in (False, True):
            tag = "-checking" if checking else ""
            seeds[f"{v}-basic{tag}"] = bhdr(v, 32, ksize, 12, checking) + body_basic
            seeds[f"{v}-walk-delete{tag}"] = bhdr(v, 64, ksize, 8, checking) + b"".join([
                fill(40, 0), bop("walk_delete", 0x55), bop("walk"), fill(40, 3, 2),
                bop("walk_delete", 0xff, flags=1), bop("walk"), fill(30, 7, 5),
                bop("walk_delete", 0x93, flags=1), bop("barrier"), bop("walk")])
        if not lpm and not dyn:
            # batch walks (a walk op with flags 0xc0 | entries - 1; 0x20: delete)
            seeds[f"{v}-batch"] = bhdr(v, 128, ksize, 12) + b"".join([
                fill(100, 0), bop("walk", flags=0xc0), bop("walk", flags=0xc7), fill(20, 200),
                bop("walk", flags=0xcf), bop("walk", flags=0xe3), bop("walk"), fill(128, 1, 3),
                bop("walk", flags=0xe0), bop("walk"), fill(3, 9), bop("walk", flags=0xef)])
        # A program's view: lookups (0x10; bit 5: on CPU 1; 0x40: bpf_map_lookup_percpu_elem()
        # of CPU flags >> 7) and, for hash maps, bpf_for_each_map_elem() (a walk op with
        # flags 0x80 | stop after; bit 4: bad flags; bit 5: CPU 1; then delete and write masks)
        # and a map element iterator (flags 0x40).
        prog = [fill(24, 0), bop("lookup", kid(3), flags=0x10), bop("lookup", kid(4), flags=0x30),
                bop("lookup", kid(5), flags=0x50), bop("lookup", kid(6), flags=0xf0),
                bop("lookup", kid(200), flags=0x10), bop("lookup_and_delete", kid(7)),
                bop("lookup_and_delete", kid(7))]
        if not lpm and not dyn:
            prog += [bop("walk", 0, 0, flags=0x80), bop("walk", 0, 0xff, flags=0xa0),
                     bop("walk", 0x55, 0x0f, flags=0x85), bop("walk", 0, 0, flags=0x90),
                     bop("walk", 0xff, 0, flags=0x80), bop("walk"), fill(30, 40),
                     bop("walk", 0x93, 0x3c, flags=0xa0, fault=0xc1), bop("walk"),
                     # a map element iterator (flags 0x40 | objects a read - 1; a byte: retries)
                     bop("walk", 0, flags=0x40), bop("walk", 0x55, flags=0x42),
                     bop("walk", 0xff, flags=0x47), bop("walk", 0x01, flags=0x40, fault=0xe0)]
        seeds[f"{v}-prog"] = bhdr(v, 48, ksize, 12) + b"".join(prog)
        seeds[f"{v}-full"] = bhdr(v, 8, ksize, 16) + b"".join([
            fill(20, 0), upd(kid(30)), upd(kid(30), NOEXIST), upd(kmodel(0), EXIST),
            upd(kmodel(1)), bop("walk"), bop("delete", kmodel(2)), upd(kid(40)), upd(kid(41)),
            bop("walk"), fill(16, 50, 2, flags=NOEXIST), bop("walk")])
        seeds[f"{v}-big"] = bhdr(v, 128, 0x3f if not lpm else 0xf, 48) + b"".join([
            fill(128, 0), bop("walk"), fill(100, 1, 3), bop("walk_delete", 0x3c), bop("walk")])
        # Allocation failures in ops (once / thrice), then fill to the limit:
        # an error path that loses count shows as a wrong -E2BIG/-ENOSPC.
        for f, tag in ((0xe0, "1st"), (0xe1, "2nd"), (0xf0, "1st-x3"), (0xf3, "4th-x3")):
            seeds[f"{v}-fault-{tag}"] = bhdr(v, 12, ksize, 8) + b"".join([
                fill(10, 0, fault=f), upd(kid(50), fault=f), upd(kmodel(2), EXIST, fault=f),
                bop("delete", kmodel(1), fault=f), bop("lookup_and_delete", kmodel(0), fault=f),
                bop("get_next_key", kmodel(1), fault=f), bop("walk_delete", 0xaa, fault=f),
                fill(8, 100, 7, fault=f), fill(8, 120, 5, fault=f), fill(30, 20, 1), bop("walk"),
                bop("walk_delete", 0xff), fill(30, 60, 1), bop("walk")])
        # Lock failures (0xc0..0xdf): res_spin_lock() failing on 7.x, a program
        # re-entering under the bucket lock on 6.x (bpfmap.c fault_arm()).
        for f, tag in ((0xc0, "1st"), (0xc2, "3rd"), (0xd0, "1st-x3")):
            seeds[f"{v}-lockfail-{tag}"] = bhdr(v, 12, ksize, 8) + b"".join([
                fill(10, 0, fault=f), upd(kid(50), fault=f), upd(kmodel(2), EXIST, fault=f),
                bop("delete", kmodel(1), fault=f), bop("lookup_and_delete", kmodel(0), fault=f),
                fill(8, 100, 7, fault=f), fill(30, 20, 1), bop("walk"),
                bop("walk_delete", 0xff), fill(30, 60, 1), bop("walk")])
        # Failures while the map is created (its prefill: caches start empty).
        for f in (0xe0, 0xe2, 0xe5, 0xe9, 0xef, 0xf5, 0xfc):
            seeds[f"{v}-create-fault-{f:02x}"] = bhdr(v, 6, ksize, 8, fault=f) + b"".join([
                fill(4, 0), fill(4, 9, 3), fill(12, 40, 1), bop("walk"), bop("walk_delete", 0xff),
                fill(12, 80, 1), bop("walk")])
        if lpm:
            # prefixlen past max (invalid), nested prefixes, bits past the prefix.
            seeds[f"{v}-raw"] = bhdr(v, 32, 3, 8) + b"".join([
                upd(kraw(b"\x00" + b"\x00" * 4)), upd(kraw(b"\x08\x0a\x00\x00\x00")),
                upd(kraw(b"\x10\x0a\x01\x00\x00")), upd(kraw(b"\x18\x0a\x01\x02\xff")),
                upd(kraw(b"\x18\x0a\x01\x02\x00"), NOEXIST), upd(kraw(b"\x21\x0a\x01\x02\x03")),
                upd(kraw(b"\x20\x0a\x01\x02\x03")), upd(kraw(b"\x20\x0a\x01\x02\x04")),
                bop("lookup", kraw(b"\x20\x0a\x01\x02\x05")),
                bop("lookup", kraw(b"\x20\x0a\x01\x03\x05")),
                bop("lookup", kraw(b"\x0c\x0a\x01\x02\x05")),
                bop("lookup", kraw(b"\x40\x0a\x01\x02\x05")),
                bop("get_next_key", kraw(b"\x40\x0a\x01\x02\x05")),
                bop("get_next_key", kraw(b"\x18\x0a\x01\x02\x77")),
                bop("delete", kraw(b"\x40\x0a\x01\x02\x05")),
                bop("delete", kraw(b"\x18\x0a\x01\x02\x33")), bop("walk"),
                bop("walk_delete", 0xff), bop("walk")])
        elif dyn:
            seeds[f"{v}-raw"] = bhdr(v, 32, 7, 8) + b"".join([
                upd(kraw(b"\x01a")), upd(kraw(b"\x02ab")), upd(kraw(b"\x02aa")),
                upd(kraw(b"\x03ab\x00")), upd(kraw(b"\x00")), upd(kraw(b"\x09abcdefghi")),
                upd(kraw(b"\x08abcdefgh")), bop("get_next_key", kraw(b"\x02ab")),
                bop("get_next_key", kraw(b"\x02ac")), bop("get_next_key", kraw(b"\x01\xff")),
                bop("lookup", kraw(b"\x02ab")), bop("delete", kraw(b"\x01a")), bop("walk"),
                bop("walk_delete", 0x0f, flags=1), bop("walk")])
        else:
            seeds[f"{v}-raw"] = bhdr(v, 16, 3, 4) + b"".join([
                upd(kraw(b"\x00\x00\x00\x00")), upd(kraw(b"\xff\xff\xff\xff")),
                upd(kraw(b"\x00\x00\x00\x01")), bop("lookup", kraw(b"\x00\x00\x00\x01")),
                bop("get_next_key", kraw(b"\x12\x34\x56\x78")), bop("delete", kraw(b"\xff\xff\xff\xff")),
                bop("walk")])
    seeds.update(gen_bpfmap_new())
    return seeds


# The variants after rhash (bpfmap.c): 7.x indexes them 11..15 of 16, 6.x
# 10..14 of 15 (no rhash); the byte 235 + j is the j-th on both trees.
B_NEW_VARIANTS = ["array", "percpu_array", "queue", "stack", "bloom"]


def bhdr_new(variant, max_entries, kb, vsize, checking=False, fault=NOFAULT):
    return bytes([235 + B_NEW_VARIANTS.index(variant), int(checking), max_entries - 1, kb,
                  vsize - 1, fault])


def gen_bpfmap_new():
    """Seeds for the arrays, the queue and stack, the bloom filter."""
    seeds = {}
    for v in ("array", "percpu_array"):
        # key ids map to index id % (max + max / 4 + 1): some past the end
        seeds[f"{v}-basic"] = bhdr_new(v, 16, 0, 12) + b"".join([
            upd(kid(1)), upd(kid(2), NOEXIST), upd(kid(3), EXIST), upd(kid(19), EXIST),
            upd(kid(19)), upd(kid(4), BADFLAG), upd(kid(4), BADFLAG | 4), upd(kid(5), BADFLAG | 8),
            bop("lookup", kid(1)), bop("lookup", kid(19)), bop("lookup", kid(2), flags=0x10),
            bop("get_next_key", kid(15)), bop("get_next_key", kid(16)), bop("get_next_key", kid(7)),
            bop("get_next_key", kid(0), flags=1), bop("delete", kid(2)),
            bop("lookup_and_delete", kid(1)), fill(30, 0), bop("walk"), bop("walk_delete", 0xff),
            bop("walk", 0x55, 0x0f, flags=0x85), bop("walk", 0x55, flags=0x42), bop("walk")])
        for f, tag in ((0xe0, "1st"), (0xf1, "2nd-x3")):
            seeds[f"{v}-fault-{tag}"] = bhdr_new(v, 8, 0, 8, fault=f) + b"".join([
                fill(10, 0, fault=f), upd(kid(3), EXIST, fault=f), bop("walk", fault=f),
                fill(10, 1, 3), bop("walk")])
    for v in ("queue", "stack"):
        # update: a push (a value id, a seed), fill: pushes, lookup: a peek (a byte),
        # lookup_and_delete: a pop (a byte, unused)
        seeds[f"{v}-basic"] = bhdr_new(v, 4, 0, 8) + b"".join([
            upd(kid(1)), upd(kid(2), NOEXIST), upd(kid(3), EXIST), upd(kid(4), BADFLAG),
            bop("lookup", 0), bop("lookup_and_delete", 0), bop("lookup", 0), fill(6, 10),
            fill(3, 20, flags=EXIST), bop("lookup", 0), bop("lookup_and_delete", 0),
            bop("delete", 0), bop("get_next_key", 0), bop("get_next_key", 0, flags=1),
            bop("walk"), bop("walk_delete", 0xff), bop("lookup_and_delete", 0), fill(2, 40),
            bop("lookup_and_delete", 0), bop("lookup_and_delete", 0), bop("lookup_and_delete", 0),
            bop("lookup_and_delete", 0), fill(5, 50, flags=EXIST)])
        seeds[f"{v}-v13"] = bhdr_new(v, 32, 0, 13) + b"".join([
            fill(40, 0, flags=EXIST), bop("lookup_and_delete", 0), fill(10, 100), fill(3, 120, flags=EXIST),
            bop("lookup", 0)])
        # lock failures (7.x: -EBUSY), each followed by unfaulted peeks and pops
        # down to empty, so a failure misreported as a push or pop shows
        seeds[f"{v}-lockfail"] = bhdr_new(v, 8, 0, 8) + b"".join(
            [fill(6, 0, fault=0xc0), bop("lookup", 0)] + [bop("lookup_and_delete", 0)] * 7 +
            [fill(6, 10), bop("lookup", 0, fault=0xc0), bop("lookup_and_delete", 0, fault=0xd0),
             bop("lookup", 0)] + [bop("lookup_and_delete", 0)] * 7 +
            [upd(kid(9), fault=0xc1), fill(6, 30, flags=EXIST)])
        seeds[f"{v}-fault"] = bhdr_new(v, 8, 0, 8, fault=0xe0) + b"".join([
            fill(6, 0, fault=0xe0), upd(kid(9), fault=0xf0), bop("lookup_and_delete", 0, fault=0xe0)])
    # bloom: update adds the value of a byte (from 128), lookup asks for one; kb: hash functions
    for kb, tag in ((0, ""), (1, "-h1"), (15, "-h15")):
        seeds[f"bloom-basic{tag}"] = bhdr_new("bloom", 32, kb, 12) + b"".join([
            upd(kid(1)), upd(kid(2), NOEXIST), upd(kid(3), EXIST), upd(kid(4), BADFLAG),
            bop("lookup", 1), bop("lookup", 2), bop("lookup", 77), fill(20, 10), bop("lookup", 15),
            bop("lookup", 40), bop("delete", 0), bop("lookup_and_delete", 0), bop("get_next_key", 0),
            bop("walk")])
    seeds["bloom-v3"] = bhdr_new("bloom", 100, 3, 3) + fill(100, 0) + bop("lookup", 200)
    return seeds


def dict_bpfmap():
    toks = {f"op_{n}": bytes([i]) for i, n in enumerate(B_OPS)}
    toks.update({"fault_once": b"\xe0", "fault_thrice": b"\xf0", "key_model": b"\xe0",
                 "key_raw": b"\xf0", "flag_noexist": b"\x01", "flag_exist": b"\x02",
                 "flag_bad": b"\x03", "lpm_plen_max": b"\x20", "lpm_plen_bad": b"\x21"})
    return toks




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("--out", help="directory for the seed inputs")
    ap.add_argument("--dict", help="AFL++ dictionary file to write")
    ap.add_argument("--known", help="directory for the known kernel-bug inputs (targets that have them)")
    a = ap.parse_args()
    if not re.fullmatch(r"[a-z0-9_]+", a.target) or \
            not os.path.exists(os.path.join(HERE, a.target + ".c")):
        print(f"gen_corpus: no fuzz target '{a.target}' (fuzz/{a.target}.c)", file=sys.stderr)
        return 2
    if not a.out and not a.dict and not a.known:
        print("gen_corpus: nothing to do: give --out DIR and/or --dict FILE", file=sys.stderr)
        return 2
    gen = globals().get(f"gen_{a.target}", lambda: {"zeros": bytes(64)})
    dic = globals().get(f"dict_{a.target}", dict)
    known = globals().get(f"known_{a.target}")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        seeds = gen()
        for name, data in sorted(seeds.items()):
            with open(os.path.join(a.out, name), "wb") as f:
                f.write(data)
        print(f"gen_corpus: {len(seeds)} {a.target} seeds in {a.out}")
    if a.known and known:
        os.makedirs(a.known, exist_ok=True)
        for name, data in sorted(known().items()):
            with open(os.path.join(a.known, name), "wb") as f:
                f.write(data)
    if a.dict:
        with open(a.dict, "w") as f:
            for name, tok in dic().items():
                esc = "".join("\\x%02x" % b for b in tok)
                f.write(f'{name}="{esc}"\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
