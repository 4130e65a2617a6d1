"""ksim bench-repro: how long `ksim repro` takes to a verdict, cold and warm.

    scripts/ksim bench-repro [--kver 7.3 | --ksrc DIR] [--runs 3] [--cold-runs 2]

The series is one patch written at bench time against the tree: a changed
line of code in mas_rev_awalk() (lib/maple_tree.c), which the maple tests
run, so every run ends CLEAN after building and running the maple
component's tests with coverage.  Measured, each as repeated runs (median
and [min-max], wall and CPU time of the whole process tree):

  cold      a new cache directory: scratch tree, configure, map, full build
  warm      the kept tree and build of the previous run (the series is applied
            again, so lib/maple_tree.c's objects are rebuilt each time)
  warm --ab the same, building and testing the tree without the series too
  tests     the baseline measured in the same run: CTest of the same tests on
            the warm build, nothing rebuilt -- what a verdict cannot go below

Ratios are against the tests baseline (the machine is shared: wall times
move with its load, ratios and CPU times less).  Results: the table, and
ksim-out/bench-repro/<kernel>.tsv.  A benchmark, not a test.
"""
import argparse
import difflib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from ksimlib import compiled
from ksimlib.repro import ROOT, ReproError, ctest_regex, resolve_ksrc

KSIM = os.path.join(ROOT, "scripts", "ksim")


def series(ksrc, path):
    """One patch: a comment appended to the first `if (` line of mas_rev_awalk()."""
    rel = "lib/maple_tree.c"
    old = open(os.path.join(ksrc, rel)).read()
    f = next(f for f in compiled.functions(old) if f.name == "mas_rev_awalk")
    lines = old.split("\n")
    i = next(i for i in range(f.body, f.end) if "if (" in lines[i - 1])
    lines[i - 1] += " /* bench-repro */"
    diff = "".join(difflib.unified_diff(old.splitlines(True), "\n".join(lines).splitlines(True),
                                        f"a/{rel}", f"b/{rel}"))
    with open(path, "w") as out:
        out.write("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                  "From: ksim bench <bench@localhost>\nSubject: [PATCH] maple_tree: bench-repro\n\n"
                  f"bench-repro\n---\n{diff}-- \n")
    return path


def timed(argv, log):
    """(wall s, CPU s of the process tree, exit status)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(log, "a") as f:
        f.write("$ " + " ".join(argv) + "\n")
        f.flush()
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT).returncode
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), rc


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(xs):
    return f"{median(xs):6.1f}s [{min(xs):.1f}-{max(xs):.1f}]" if xs else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ksim bench-repro", description=__doc__.splitlines()[0])
    ap.add_argument("--ksrc", default=os.environ.get("KSRC", ""))
    ap.add_argument("--kver", default=os.environ.get("KVER", ""))
    ap.add_argument("--runs", type=int, default=3, help="warm, --ab and tests runs (default 3)")
    ap.add_argument("--cold-runs", type=int, default=2, help="cold runs (default 2)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "ksim-out", "bench-repro"))
    args = ap.parse_args(argv)
    if args.runs < 1 or args.cold_runs < 0:
        print("ksim bench-repro: --runs must be >= 1, --cold-runs >= 0", file=sys.stderr)
        return 2
    try:
        ksrc, kver = resolve_ksrc(args.ksrc, args.kver)
    except ReproError as e:
        print(f"ksim bench-repro: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, f"{kver}.log")
    open(log, "w").close()
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="ksim-bench-repro-", dir=os.path.join(ROOT, "build"))
    res = {"cold": ([], []), "warm": ([], []), "warm --ab": ([], []), "tests": ([], [])}
    try:
        mbox = series(ksrc, os.path.join(work, "series.mbox"))
        base = [sys.executable, KSIM, "repro", "--series", mbox, "--ksrc", ksrc, "--seed", "1",
                "-j", str(args.jobs)]
        print(f"ksim bench-repro: kernel {kver} ({ksrc}); one patch to lib/maple_tree.c; "
              f"{args.cold_runs} cold, {args.runs} warm, --ab and tests runs; log {log}", flush=True)

        def one(kind, argv):
            wall, cpu, rc = timed(argv, log)
            ok = rc == 0
            if ok:
                res[kind][0].append(wall)
                res[kind][1].append(cpu)
            print(f"  {kind:<10} {wall:6.1f}s wall, {cpu:6.1f}s CPU"
                  + ("" if ok else f"  (exit {rc}: not counted; see {log})"), flush=True)

        for i in range(args.cold_runs):
            cache = os.path.join(work, f"cold-{i}")
            one("cold", base + ["--cache", cache])
            shutil.rmtree(cache, ignore_errors=True)
        warm = os.path.join(work, "warm")
        print("  (priming the warm cache: not counted)", flush=True)
        prime = os.path.join(work, "prime.log")
        timed(base + ["--cache", warm, "--verbose"], prime)
        names = re.findall(r"^  (\S+)\s+(?:pass|xfail)\s*$", open(prime).read(), re.M)
        with open(log, "a") as f:
            f.write(open(prime).read())
        for i in range(args.runs):
            one("warm", base + ["--cache", warm])
        for i in range(args.runs):
            one("warm --ab", base + ["--cache", warm, "--ab"])
        # The floor: the same tests on the build as it stands.
        bdir = next(os.path.join(warm, d, "build") for d in os.listdir(warm)
                    if os.path.isdir(os.path.join(warm, d, "build")))
        if not names:
            print(f"  tests: the priming run listed no passing test (see {log}); no baseline")
        for i in range(args.runs if names else 0):
            one("tests", ["ctest", "--test-dir", bdir, "-j", str(args.jobs), "-R",
                          ctest_regex(names), "--timeout", "900"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    floor = median(res["tests"][0]) if res["tests"][0] else None
    print(f"\nksim bench-repro, kernel {kver}, {os.cpu_count()} CPUs, load average at the end "
          f"{os.getloadavg()[0]:.1f}: median [min-max]")
    print(f"  {'':<10} {'wall':>24} {'CPU (user+sys)':>24}  wall / tests")
    rows = []
    for kind, (walls, cpus) in res.items():
        ratio = f"{median(walls) / floor:.2f}x" if walls and floor else "-"
        print(f"  {kind:<10} {fmt(walls):>24} {fmt(cpus):>24}  {ratio}")
        rows.append((kind, walls, cpus))
    tsv = os.path.join(args.out, f"{kver}.tsv")
    with open(tsv, "w") as f:
        f.write("run\twall_s\tcpu_s\n")
        for kind, walls, cpus in rows:
            for w, c in zip(walls, cpus):
                f.write(f"{kind}\t{w:.2f}\t{c:.2f}\n")
    print(f"written: {tsv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
