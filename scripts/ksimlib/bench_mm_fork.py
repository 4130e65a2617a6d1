"""bench-mm-fork: fork throughput, 6.1 path vs 6.12 path, in one run.

Runs mm-sim's mm_sim_bench built from linux-source-6.1 (dup_mmap() storing
VMA by VMA) and from linux-source-6.12 (__mt_dup() then the per-VMA walk),
alternating between the two binaries at every VMA count so machine noise
hits both, and the tree copy alone (__mt_dup() vs store-by-store), and the
6.12 fork once more with mm-sim's own checks on (`--checks`: what the
tests pay for the VMA-lock rule and the exit checks).  Prints
a table of VMAs duplicated per second (median and spread over the
repetitions, and the 6.12/6.1 ratio measured in this run) and draws it as a
PNG (log-log, so an O(n) fork is a flat line in VMAs/s).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

DEFAULT_COUNTS = [21, 101, 501, 2561, 12821, 64101, 327701, 1638421]


def run(binary, nr, reps, mode, extra=()):
    t0 = time.monotonic()
    out = subprocess.run([binary, "--vmas", str(nr), "--reps", str(reps), "--mode", mode, *extra],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ksim: {binary} --vmas {nr} --mode {mode} failed: {out.stderr.strip()}")
    samples = {}
    for line in out.stdout.splitlines():
        path, n, op, sec = line.split("\t")
        samples.setdefault(op, []).append(float(sec))
    return samples, time.monotonic() - t0


def summary(secs, nr):
    rates = sorted(nr / s for s in secs if s > 0)
    med = statistics.median(rates)
    return med, rates[0], rates[-1]


def fmt(x):
    return f"{x:.3g}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin61", required=True, help="mm_sim_bench built from linux-source-6.1")
    ap.add_argument("--bin612", required=True, help="mm_sim_bench built from linux-source-6.12")
    ap.add_argument("--counts", default=",".join(map(str, DEFAULT_COUNTS)))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--png", default="mm-fork-bench.png")
    ap.add_argument("--tsv", default="mm-fork-bench.tsv")
    args = ap.parse_args(argv)
    try:
        counts = [int(c) for c in args.counts.split(",")]
    except ValueError:
        sys.exit(f"ksim: --counts {args.counts}: expected comma-separated integers")
    for b in (args.bin61, args.bin612):
        if not os.access(b, os.X_OK):
            sys.exit(f"ksim: {b}: not built")

    rows = []	# (nr, series, median, lo, hi)
    for nr in counts:
        reps = args.reps if nr <= 400000 else max(3, args.reps // 2)
        res = {}
        # Interleave: 6.1, 6.12, then the tree copies, per count.
        s61, d1 = run(args.bin61, nr, reps, "fork")
        s612, d2 = run(args.bin612, nr, reps, "fork")
        t612, d3 = run(args.bin612, nr, reps, "tree")
        c612, d4 = run(args.bin612, nr, reps, "fork", ["--checks"])
        res["fork 6.1 (store per VMA)"] = summary(s61["fork"], nr)
        res["fork 6.12 (__mt_dup)"] = summary(s612["fork"], nr)
        res["exit 6.1"] = summary(s61["exit"], nr)
        res["exit 6.12"] = summary(s612["exit"], nr)
        res["tree: __mt_dup"] = summary(t612["tree-mt_dup"], nr)
        res["tree: store-by-store"] = summary(t612["tree-store"], nr)
        res["fork 6.12, checks on"] = summary(c612["fork"], nr)
        for k, v in res.items():
            rows.append((nr, k) + v)
        f61 = res["fork 6.1 (store per VMA)"][0]
        f612 = res["fork 6.12 (__mt_dup)"][0]
        tmt, tst = res["tree: __mt_dup"][0], res["tree: store-by-store"][0]
        fck = res["fork 6.12, checks on"][0]
        print(f"ksim: {nr:>9} VMAs x {reps} reps: fork 6.1 {fmt(f61)}/s, 6.12 {fmt(f612)}/s "
              f"(x{f612 / f61:.2f}); tree __mt_dup {fmt(tmt)}/s vs store {fmt(tst)}/s "
              f"(x{tmt / tst:.2f}); 6.12 with checks {fmt(fck)}/s (x{fck / f612:.2f})  "
              f"[{d1 + d2 + d3 + d4:.0f}s]", flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(args.tsv)), exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.png)), exist_ok=True)
    with open(args.tsv, "w") as f:
        f.write("vmas\tseries\tmedian_vmas_per_s\tmin\tmax\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")

    series = ["fork 6.1 (store per VMA)", "fork 6.12 (__mt_dup)", "tree: store-by-store", "tree: __mt_dup",
              "fork 6.12, checks on"]
    print()
    print("VMAs duplicated per second, median over repetitions [min - max]; ratio = 6.12 / 6.1, "
          "checks = 6.12 with mm-sim's checks / without, same run")
    hdr = (f"| {'VMAs':>9} | " + " | ".join(f"{s:^28}" for s in series) +
           " | fork ratio | tree ratio | checks |")
    print(hdr)
    print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|")
    for nr in counts:
        get = {s: next(r for r in rows if r[0] == nr and r[1] == s) for s in series}
        cells = [f"{fmt(get[s][2])} [{fmt(get[s][3])}-{fmt(get[s][4])}]" for s in series]
        fr = get[series[1]][2] / get[series[0]][2]
        tr = get[series[3]][2] / get[series[2]][2]
        cr = get[series[4]][2] / get[series[1]][2]
        print(f"| {nr:>9} | " + " | ".join(f"{c:^28}" for c in cells) +
              f" | {fr:>9.2f}x | {tr:>9.2f}x | {cr:>5.2f}x |")
    plot(rows, counts, series, args.png)
    print(f"\nksim: table in {args.tsv}, plot in {args.png}")
    return 0


def plot(rows, counts, series, png):
    code = r'''
import sys, json
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows, counts, series, png = json.load(sys.stdin)
fig, ax = plt.subplots(figsize=(9, 5.5))
for s, style in zip(series, ["o-", "s-", "v--", "^--", "d:"]):
    pts = [r for r in rows if r[1] == s]
    x = [r[0] for r in pts]; y = [r[2] for r in pts]
    lo = [r[2] - r[3] for r in pts]; hi = [r[4] - r[2] for r in pts]
    ax.errorbar(x, y, yerr=[lo, hi], fmt=style, capsize=3, label=s)
ax.set_xscale("log"); ax.set_yscale("log")
ax.set_xlabel("VMAs per process")
ax.set_ylabel("VMAs duplicated per second (median, min-max bars)")
ax.set_title("mm-sim: fork in userspace, linux-source-6.1 path vs 6.12 path")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(png, dpi=110)
'''
    import json
    payload = json.dumps([rows, counts, series, png])
    for py in (sys.executable, "/usr/bin/python3"):
        r = subprocess.run([py, "-c", code], input=payload, text=True, capture_output=True)
        if r.returncode == 0:
            return
    print("ksim: no plot: matplotlib is missing (apt-get install python3-matplotlib)", file=sys.stderr)
