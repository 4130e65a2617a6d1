#!/usr/bin/env python3
"""The run's seed decides fault injection, whatever the option order.

  check_fault_replay.py TEST_BINARY

Runs the fault_pattern_from_command_line test with --fault p=0.5 under two
seeds and both option orders, and once failing on purpose to get its
replay line, which is then run: the patterns must differ between seeds,
agree between option orders, and the replay line must repeat its run.
"""
import os
import re
import shlex
import subprocess
import sys

TEST = "fault_pattern_from_command_line"


def run(argv, fail=False):
    env = dict(os.environ)
    env.pop("KSIM_FAULT", None)
    if fail:
        env["KSIM_TEST_FAIL_ON_PURPOSE"] = "1"
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    m = re.search(r"# fault pattern: (\S+)", r.stdout)
    if not m:
        sys.exit(f"no fault pattern from {' '.join(argv)}:\n{r.stdout}")
    return m.group(1), r.stdout


def main():
    b = sys.argv[1]
    p1, _ = run([b, "-t", TEST, "--fault", "p=0.5", "--seed", "1"])
    p1b, _ = run([b, "-t", TEST, "--seed", "1", "--fault", "p=0.5"])
    p2, _ = run([b, "-t", TEST, "--seed", "2", "--fault", "p=0.5"])
    bad = []
    if p1 != p1b:
        bad.append(f"--fault before --seed differs from after: {p1} vs {p1b}")
    if p1 == p2:
        bad.append(f"seeds 1 and 2 inject at the same allocations: {p1}")
    p3, out = run([b, "-t", TEST, "--fault", "p=0.5", "--seed", "3"], fail=True)
    m = re.search(r"# replay: (.*)", out)
    if not m:
        bad.append("no replay line from a failing run")
    else:
        argv = shlex.split(m.group(1))
        argv[0] = b
        p3r, _ = run(argv, fail=True)
        if p3r != p3:
            bad.append(f"the replay line ({m.group(1)}) injects differently: {p3} vs {p3r}")
    for x in bad:
        print("FAIL:", x)
    if not bad:
        print(f"ok: seed 1 {p1}\n    seed 2 {p2}\n    replayed seed 3 {p3}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
