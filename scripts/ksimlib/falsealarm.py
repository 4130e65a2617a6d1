"""ksim false-alarms: how often the random tiers fail on a pristine tree.

    scripts/ksim false-alarms [--runs 20] [--kver 7.3,6.1 | --ksrc DIR] [--tiers asan,tsan]

The tests that depend on chance, the fuzz smoke tests and the short stress
tier under ASan+UBSan and under ThreadSanitizer, run RUNS times on each tree,
each time with another seed (KSIM_SEED_SALT) and with the attribution of
make test (KSIM_ATTRIBUTION=1: a failure the known fixes remove is a known
finding's, scripts/ksimlib/fixes.py).  A failure that is not attributed on a
pristine tree is a false alarm of ksim's: the figure should be 0.  The table
gives per tree and tier the runs, the test runs, the failures not
attributed (with the test names), and the attributed ones.  Exit 1 if any
failure was not attributed (so the same command on a tree with a bug put
back must fail).
"""
import argparse
import os
import sys
import time

from ksimlib import matrix

TIERS = {"asan": ("default", ["^(fuzz-smoke|stress-short)$"]),
         "tsan": ("tsan", [matrix.TSAN_LABELS])}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ksim false-alarms", description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--kver", default=matrix.DEFAULT_KVER,
                    help="Debian linux-source versions (comma-separated; default the newest)")
    ap.add_argument("--ksrc", default="", help="kernel trees instead (comma or space separated)")
    ap.add_argument("--tiers", default="asan,tsan", help="asan, tsan or both")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args(argv)
    tiers = matrix.split_list(args.tiers)
    if not tiers or any(t not in TIERS for t in tiers) or args.runs < 1:
        print("ksim false-alarms: --tiers takes asan and/or tsan, --runs at least 1", file=sys.stderr)
        return 2
    if args.ksrc:
        trees = [(os.path.basename(os.path.abspath(k)), k, None) for k in matrix.split_list(args.ksrc)]
    else:
        trees = [(v, None, v) for v in matrix.split_list(args.kver)]
    rows, bad = [], 0
    for label, ksrc, kver in trees:
        for tier in tiers:
            preset, labels = TIERS[tier]
            cell = {"tests": 0, "failed": {}, "attributed": 0, "xfail": 0, "error": None,
                    "seconds": 0.0}
            for i in range(1, args.runs + 1):
                a = argparse.Namespace(preset=preset, label=labels, exclude=None, jobs=args.jobs)
                t0 = time.monotonic()
                res = matrix.run_tree(f"{label} {tier}", ksrc, kver, a, preset=preset,
                                      extra_env={"KSIM_SEED_SALT": f"false-alarms-{i}"})
                cell["seconds"] += time.monotonic() - t0
                if res["error"]:
                    cell["error"] = res["error"]
                    break
                for name in res["tests"]:
                    st = matrix.status(res, name)
                    cell["tests"] += 1
                    if st == "FAIL":
                        cell["failed"].setdefault(name, []).append(i)
                        path, telling = matrix.keep_failure(
                            dict(res, label=f"{label}-{tier}-run{i}"), name, "false-alarms")
                        print(f"  {label} {tier}: run {i}: FAIL {name} (KSIM_SEED_SALT="
                              f"false-alarms-{i}; output kept: {os.path.relpath(path, matrix.ROOT)})",
                              flush=True)
                        for l in telling:
                            print(f"      {l[:300]}", flush=True)
                    elif st == "ATTR":
                        cell["attributed"] += 1
                    elif st == "XFAIL":
                        cell["xfail"] += 1
                nfail = sum(len(v) for v in cell["failed"].values())
                print(f"  {label} {tier}: run {i}/{args.runs}: {len(res['tests'])} tests, "
                      f"{nfail} failure(s) not attributed so far, {cell['attributed']} attributed",
                      flush=True)
            bad += bool(cell["failed"]) or bool(cell["error"])
            rows.append((label, tier, cell))
    print(f"\nksim false-alarms: {args.runs} run(s) per tree and tier")
    print(f"  {'tree':<14} {'tier':<5} {'test runs':>9} {'not attributed':>14} {'attributed':>10} "
          f"{'xfail':>6} {'minutes':>7}  failures")
    for label, tier, c in rows:
        what = c["error"] or "; ".join(f"{n} (runs {', '.join(map(str, r))})"
                                       for n, r in sorted(c["failed"].items()))
        print(f"  {label:<14} {tier:<5} {c['tests']:>9} "
              f"{sum(len(v) for v in c['failed'].values()):>14} {c['attributed']:>10} "
              f"{c['xfail']:>6} {c['seconds'] / 60:>7.1f}  {what}")
    return 1 if bad else 0
