#!/usr/bin/env python3
"""Seed inputs and AFL++ dictionaries for the fuzz targets, written by us.

  gen_corpus.py TARGET --out DIR      write the seed inputs (the committed
                                      corpus is fuzz/corpus/TARGET, made by this)
  gen_corpus.py TARGET --dict FILE    write an AFL++ dictionary

Each target's encoding is documented in its harness (fuzz/TARGET.c); the
functions below speak it.  Deterministic: the same files every run.
"""
import argparse
import os
import struct
import sys

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


TARGETS = {"maple": (gen_maple, dict_maple)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("--out", help="directory for the seed inputs")
    ap.add_argument("--dict", help="AFL++ dictionary file to write")
    a = ap.parse_args()
    if a.target not in TARGETS:
        print(f"gen_corpus: unknown target '{a.target}' (known: {', '.join(TARGETS)})",
              file=sys.stderr)
        return 2
    if not a.out and not a.dict:
        print("gen_corpus: nothing to do: give --out DIR and/or --dict FILE", file=sys.stderr)
        return 2
    gen, dic = TARGETS[a.target]
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        seeds = gen()
        for name, data in sorted(seeds.items()):
            with open(os.path.join(a.out, name), "wb") as f:
                f.write(data)
        print(f"gen_corpus: {len(seeds)} {a.target} seeds in {a.out}")
    if a.dict:
        with open(a.dict, "w") as f:
            for name, tok in dic().items():
                esc = "".join("\\x%02x" % b for b in tok)
                f.write(f'{name}="{esc}"\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
