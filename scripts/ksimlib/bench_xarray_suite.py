"""bench-xarray-suite: the kernel's own XArray test harness against ours, in one run.

What it measures, as bench-maple-suite does (its code, bench_maple_suite.py,
runs it): the wall time (plus user and system CPU time) of
  * the `xarray` target of the kernel's tools/testing/radix-tree (its
    xarray.c wrapper around lib/test_xarray.c, built out of tree from KSRC
    with its own Makefile flags: -Og, ASan+UBSan), and
  * our xarray_suite running the same lib/test_xarray.c (--ours: CTest's
    parts `xarray` and `multi_store_adv`, side by side; together they make
    the module's checks, count for count, xarray/README.md),
interleaved, until each side has --runs passing runs; median and spread of
the passing runs and the ratio kernel/ours.  Not a test: nothing asserts on
timing.

Both sides run the same array geometry: the kernel harness is built with
SHIFT=6 (its Makefile defaults to XA_CHUNK_SHIFT 3, small nodes that make
deep trees), the kernel's own configuration and ours.
"""
import re
import sys

from ksimlib import bench_maple_suite
from ksimlib.bench_maple_suite import CTEST_RE

PASSED_RE = re.compile(r"^XArray: \d+ of \d+ tests passed\s*$", re.M)


def main(argv):
    return bench_maple_suite.main(argv, target="xarray", passed_re=PASSED_RE,
                                  make_vars=["SHIFT=6"], prog="bench-xarray-suite",
                                  description=__doc__.split("\n")[0], ours_re=CTEST_RE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
