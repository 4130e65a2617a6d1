"""bench-vma-suite: the kernel's own VMA test harness against ours, in one run.

What it measures, as bench-maple-suite does (its code, bench_maple_suite.py,
runs it): the wall time (plus user and system CPU time) of
  * the `vma` target of the kernel's tools/testing/vma (its tests/merge.c,
    mmap.c and vma.c on mm/vma.c with the harness's stubs, built out of
    tree from KSRC with its own Makefile flags: -Og, ASan+UBSan), and
  * our side (--ours): the same test files on mm-sim (vma_suite, CTest
    label vma-suite), one process per test through scripts/ksim-xfail, as
    `make test` runs them,
interleaved, until each side has --runs passing runs; median and spread of
the passing runs and the ratio kernel/ours.  Not a test: nothing asserts on
timing.

The sides do not do the same work: ours runs the tests against the real
rmap, per-VMA locks, maple tree in RCU mode and slab (mm-sim/README.md),
a process and a Python wrapper per test; the kernel's runs them in one
process on its stubs.  The ratio says what that costs in wall time.
"""
import re
import sys

from ksimlib import bench_maple_suite

PASSED_RE = re.compile(r"^\d+ tests run, \d+ passed, \d+ failed\.\s*$", re.M)


def main(argv):
    return bench_maple_suite.main(argv, target="vma", passed_re=PASSED_RE,
                                  harness="tools/testing/vma", prog="bench-vma-suite",
                                  description=__doc__.split("\n")[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
