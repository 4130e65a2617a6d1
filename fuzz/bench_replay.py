#!/usr/bin/env python3
"""Harness throughput on CPU time: replays a corpus (e.g. an AFL++ queue)
with one or more replay binaries, alternating, REPEAT times each, and prints
inputs per CPU-second (user+sys of the child: other load on the machine
cannot inflate it the way it does wall-clock execs/s), median and spread,
and each binary's ratio against the first one (the baseline, measured in the
same run).

  fuzz/bench_replay.py DIR BINARY [BINARY...] [--repeat N]

Every input of DIR must pass (the replay binary stops at the first failure:
filter a queue first).  A benchmark, not a test: it asserts nothing.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys


def cpu_run(binary, corpus):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([binary, "-q", corpus], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit(f"bench_replay: {binary} failed on {corpus}:\n{r.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    if not os.path.isdir(a.corpus):
        sys.exit(f"bench_replay: {a.corpus}: not a directory")
    n = len([f for f in os.listdir(a.corpus) if not f.startswith(".")])
    times = {b: [] for b in a.binaries}
    for i in range(a.repeat):
        for b in a.binaries:
            times[b].append(cpu_run(b, a.corpus))
        print(f"# round {i + 1}/{a.repeat} done", file=sys.stderr, flush=True)
    base = statistics.median(times[a.binaries[0]])
    print(f"{n} inputs, {a.repeat} runs each; execs per CPU-second (median, min-max)")
    for b in a.binaries:
        t = times[b]
        med = statistics.median(t)
        print(f"{n / med:9.0f}  ({n / max(t):.0f}-{n / min(t):.0f})  x{base / med:.2f}  {b}")


if __name__ == "__main__":
    main()
