"""ksim bench-bpf: the BPF map benchmarks of qptrie/bench (issue 4, items 6 and 7).

Runs the C benchmarks of a release build (no sanitizers) and only collects,
summarizes and plots their output (median and spread over repeated runs,
ratios against a baseline measured in the same run):

1. bench_qp_vs_hash: qp-trie vs hash map, the qp-trie cover letter's table.
   Key sets: random binary keys (16K, lengths 1..255), the strings of
   /sys/kernel/btf/vmlinux (skipped, and said so, when the machine has none),
   every file path of the kernel tree (the Debian source tarball's listing
   when KSRC is ksim's partial extraction of it, else a walk of KSRC).
2. bench_hash_fn: cycles per hash, jhash/jhash2/xxh64 (the tree's) and xxh3.
3. bench_htab_lookup_{jhash,xxh3}: hashtab.c lookup cost, its jhash vs xxh3.

Output: ksim-out/bench-bpf/ (raw TSV per benchmark, results.md, *.png).
"""
import os
import statistics
import subprocess
import sys
import time

BASELINE = "hash_noprealloc"


def log(msg):
    print(f"ksim bench-bpf: {msg}", flush=True)


def run_tsv(cmd, raw_path):
    """Run a benchmark, stream its stderr (progress), keep and parse its stdout."""
    log("$ " + " ".join(cmd))
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None, text=True)
    if p.returncode:
        sys.exit(f"ksim bench-bpf: {cmd[0]} failed with status {p.returncode}")
    with open(raw_path, "w") as f:
        f.write(p.stdout)
    log(f"  {time.time() - t0:.1f} s, raw output in {raw_path}")
    return [line.split("\t") for line in p.stdout.splitlines() if line.strip()]


def kernel_paths(ksrc, kver, cache_dir):
    """Every file path of the kernel tree, relative to its top."""
    major_minor = ".".join(kver.split(".")[:2])
    tarball = f"/usr/src/linux-source-{major_minor}.tar.xz"
    partial = os.path.realpath(ksrc).startswith(os.path.realpath(os.path.expanduser("~/.cache/ksim")))
    out = os.path.join(cache_dir, f"paths-{kver}.txt")
    if os.path.exists(out):
        return out, open(out).read().count("\n")
    paths = []
    if partial and os.path.exists(tarball):
        log(f"listing {tarball} (KSRC is ksim's partial extraction of it)")
        p = subprocess.run(["tar", "-tJf", tarball], stdout=subprocess.PIPE, text=True, check=True)
        for line in p.stdout.splitlines():
            if line.endswith("/"):
                continue
            parts = line.split("/", 1)
            if len(parts) == 2 and parts[1]:
                paths.append(parts[1])
    else:
        log(f"walking {ksrc}")
        for root, dirs, files in os.walk(ksrc):
            dirs[:] = [d for d in dirs if d != ".git"]
            for fn in files:
                paths.append(os.path.relpath(os.path.join(root, fn), ksrc))
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(paths) + "\n")
    os.rename(out + ".tmp", out)
    return out, len(paths)


def med_spread(vals):
    """Median and spread ((max - min) / median, percent)."""
    m = statistics.median(vals)
    return m, (max(vals) - min(vals)) / m * 100 if m else 0.0


def summarize_qp(rows, threads):
    keys, mem, look = {}, {}, {}
    for r in rows:
        if r[0] == "keys":
            keys[r[1]] = (int(r[2]), int(r[3]), float(r[4]))
        elif r[0] == "mem":
            mem[(r[1], r[2])] = (int(r[3]), int(r[4]))
        elif r[0] == "lookup":
            look.setdefault((r[1], r[2], int(r[3])), []).append(float(r[5]))
    lines = ["| data set | keys | max/avg len | map | lookups/s (median, spread) by threads | "
             f"vs {BASELINE} | memory requested | after size classes | vs {BASELINE} (req / classes) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for ds, (n, mx, avg) in keys.items():
        maps = [m for (d, m) in mem if d == ds]
        for mp in maps:
            cells, ratios = [], []
            for t in threads:
                v = look.get((ds, mp, t))
                if not v:
                    continue
                m, sp = med_spread(v)
                cells.append(f"{t}T {m / 1e6:.2f}M ±{sp:.0f}%")
                b = look.get((ds, BASELINE, t))
                if b:
                    ratios.append(f"{m / statistics.median(b):.2f}x")
            req, rnd = mem[(ds, mp)]
            breq, brnd = mem.get((ds, BASELINE), (0, 0))
            lines.append(f"| {ds} | {n} | {mx}/{avg:.0f} | {mp} | {'; '.join(cells)} | {' / '.join(ratios)} | "
                         f"{req / 2**20:.1f} MiB | {rnd / 2**20:.1f} MiB | "
                         f"{req / breq:.2f}x / {rnd / brnd:.2f}x |" if breq else "")
    return "\n".join(lines), keys, mem, look


def summarize_hashfn(rows):
    d = {}
    for r in rows:
        if r[0] == "hashfn":
            d.setdefault((r[1], int(r[2])), []).append(int(r[4]))
    fns = sorted({k[0] for k in d}, key=["jhash", "jhash2", "xxh64", "xxh3"].index)
    sizes = sorted({k[1] for k in d})
    off = [int(r[4]) for r in rows if r[0] == "offset"]
    lines = [f"TSC ticks per hash, median of runs (spread); timer offset {statistics.median(off)} ticks subtracted",
             "", "| key bytes | " + " | ".join(fns) + " | xxh3 vs jhash |", "|---|" + "---|" * (len(fns) + 1)]
    for s in sizes:
        cells = []
        for f in fns:
            m, sp = med_spread(d[(f, s)]) if any(d[(f, s)]) else (0, 0)
            cells.append(f"{m:.0f} (±{sp:.0f}%)")
        j, x = statistics.median(d[("jhash", s)]), statistics.median(d[("xxh3", s)])
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {x / j:.2f}x |" if j else " | - |")
    return "\n".join(lines), d, fns, sizes


def summarize_htab(rows):
    d = {}
    for r in rows:
        if r[0] == "htab":
            d.setdefault((r[1], int(r[2]), int(r[3])), []).append(float(r[5]))
    sizes = sorted({k[1] for k in d})
    fills = sorted({k[2] for k in d})
    lines = ["ns per lookup, median of runs: jhash / xxh3 (ratio xxh3/jhash)", "",
             "| key bytes | " + " | ".join(f"{f}% full" for f in fills) + " |", "|---|" + "---|" * len(fills)]
    for s in sizes:
        cells = []
        for f in fills:
            j = statistics.median(d[("jhash", s, f)])
            x = statistics.median(d[("xxh3", s, f)])
            cells.append(f"{j:.1f} / {x:.1f} ({x / j:.2f}x)")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines), d, sizes, fills


def plot(outdir, qp, hf, ht, threads):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # e.g. a pyenv python3 first in PATH: Debian's python3-matplotlib is
        # for /usr/bin/python3; plot there from the raw files.
        syspy = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(syspy) and os.path.exists(syspy):
            r = subprocess.run([syspy, os.path.abspath(__file__), "--plot", outdir,
                                ",".join(map(str, threads))])
            if r.returncode == 0:
                return [os.path.join(outdir, f) for f in ("qp_vs_hash.png", "hash_functions.png")]
        log("matplotlib missing: no PNG (apt-get install python3-matplotlib)")
        return []
    files = []
    _, keys, mem, look = qp
    dsets = list(keys)
    fig, axes = plt.subplots(2, len(dsets), figsize=(5 * len(dsets), 8), squeeze=False)
    for i, ds in enumerate(dsets):
        ax = axes[0][i]
        maps = [m for (d, m) in mem if d == ds]
        for mp in maps:
            xs = [t for t in threads if (ds, mp, t) in look]
            meds = [statistics.median(look[(ds, mp, t)]) / 1e6 for t in xs]
            lo = [m - min(look[(ds, mp, t)]) / 1e6 for m, t in zip(meds, xs)]
            hi = [max(look[(ds, mp, t)]) / 1e6 - m for m, t in zip(meds, xs)]
            ax.errorbar(xs, meds, yerr=[lo, hi], marker="o", capsize=3, label=mp)
        ax.set_title(f"{ds}: {keys[ds][0]} keys")
        ax.set_xlabel("threads")
        ax.set_ylabel("lookups/s (M), median, min..max")
        ax.set_xticks(threads)
        ax.legend(fontsize=8)
        ax = axes[1][i]
        xs = range(len(maps))
        ax.bar([x - 0.2 for x in xs], [mem[(ds, m)][0] / 2**20 for m in maps], 0.4, label="requested")
        ax.bar([x + 0.2 for x in xs], [mem[(ds, m)][1] / 2**20 for m in maps], 0.4, label="after size classes")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(maps, fontsize=8)
        ax.set_ylabel("MiB")
        ax.legend(fontsize=8)
    fig.suptitle("qp-trie vs BPF hash map (hash: 255-byte zero-padded keys)")
    fig.tight_layout()
    files.append(os.path.join(outdir, "qp_vs_hash.png"))
    fig.savefig(files[-1], dpi=90)
    plt.close(fig)

    _, d, fns, sizes = hf
    _, dt, tsizes, fills = ht
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for f in fns:
        axes[0].plot(sizes, [statistics.median(d[(f, s)]) for s in sizes], marker="o", label=f)
    axes[0].set_xscale("log", base=2)
    axes[0].set_xlabel("key bytes")
    axes[0].set_ylabel("TSC ticks per hash (offset subtracted)")
    axes[0].set_title("hash functions")
    axes[0].legend()
    for s in tsizes:
        line, = axes[1].plot(fills, [statistics.median(dt[("jhash", s, f)]) for f in fills], marker="o",
                             label=f"{s} B jhash")
        axes[1].plot(fills, [statistics.median(dt[("xxh3", s, f)]) for f in fills], marker="x", ls="--",
                     color=line.get_color(), label=f"{s} B xxh3")
    axes[1].set_xlabel("map fullness (%)")
    axes[1].set_ylabel("ns per lookup")
    axes[1].set_title("hashtab.c lookup: jhash vs xxh3")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    files.append(os.path.join(outdir, "hash_functions.png"))
    fig.savefig(files[-1], dpi=90)
    plt.close(fig)
    return files


def main(build, ksrc, kver, outdir, runs, ms, threads, skip_paths=False):
    bench = os.path.join(build, "qptrie", "bench")
    exe = lambda n: os.path.join(bench, n)
    for n in ("bench_qp_vs_hash", "bench_hash_fn", "bench_htab_lookup_jhash", "bench_htab_lookup_xxh3"):
        if not os.path.exists(exe(n)):
            sys.exit(f"ksim bench-bpf: {exe(n)} missing (build the bench-bpf-programs target of a release build)")
    os.makedirs(outdir, exist_ok=True)
    tlist = ",".join(map(str, threads))
    common = ["--threads", tlist, "--runs", str(runs), "--ms", str(ms)]
    rows = []
    log(f"kernel {kver} ({ksrc}); {runs} runs of {ms} ms per point; threads {tlist}")
    log("[1/3] qp-trie vs hash map")
    rows += run_tsv([exe("bench_qp_vs_hash"), "--random", "16384", "--name", "random"] + common,
                    os.path.join(outdir, "qp_random.tsv"))
    notes = []
    if os.path.exists("/sys/kernel/btf/vmlinux"):
        rows += run_tsv([exe("bench_qp_vs_hash"), "--btf", "/sys/kernel/btf/vmlinux", "--name", "btf"] + common,
                        os.path.join(outdir, "qp_btf.tsv"))
    else:
        notes.append("BTF strings: skipped, this machine has no /sys/kernel/btf/vmlinux.")
        log(notes[-1])
    if not skip_paths:
        paths, n = kernel_paths(ksrc, kver, bench)
        log(f"{n} kernel file paths")
        rows += run_tsv([exe("bench_qp_vs_hash"), "--keys", paths, "--name", "paths"] + common,
                        os.path.join(outdir, "qp_paths.tsv"))
    qp = summarize_qp(rows, threads)
    log("[2/3] hash functions")
    hrows = run_tsv([exe("bench_hash_fn"), "-r", str(runs)], os.path.join(outdir, "hashfn.tsv"))
    hf = summarize_hashfn(hrows)
    log("[3/3] hashtab.c lookups, jhash vs xxh3")
    trows = []
    for h in ("jhash", "xxh3"):
        trows += run_tsv([exe(f"bench_htab_lookup_{h}"), "-r", str(runs)], os.path.join(outdir, f"htab_{h}.tsv"))
    ht = summarize_htab(trows)
    pngs = plot(outdir, qp, hf, ht, threads)
    md = (f"# BPF map benchmarks (kernel {kver})\n\n## qp-trie vs hash map\n\n{qp[0]}\n\n"
          + "".join(f"{n}\n" for n in notes)
          + f"\n## Hash functions\n\n{hf[0]}\n\n## hashtab.c lookup, jhash vs xxh3\n\n{ht[0]}\n")
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(md)
    print()
    print(md)
    log(f"results in {os.path.join(outdir, 'results.md')}" + "".join(f", {p}" for p in pngs))
    return 0


def read_rows(outdir, names):
    rows = []
    for n in names:
        path = os.path.join(outdir, n)
        if os.path.exists(path):
            rows += [line.split("\t") for line in open(path).read().splitlines() if line.strip()]
    return rows


def replot(outdir, threads):
    qp = summarize_qp(read_rows(outdir, ["qp_random.tsv", "qp_btf.tsv", "qp_paths.tsv"]), threads)
    hf = summarize_hashfn(read_rows(outdir, ["hashfn.tsv"]))
    ht = summarize_htab(read_rows(outdir, ["htab_jhash.tsv", "htab_xxh3.tsv"]))
    return 0 if plot(outdir, qp, hf, ht, threads) else 1


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--plot":
    sys.exit(replot(sys.argv[2], [int(t) for t in sys.argv[3].split(",")]))
