#!/usr/bin/env python3
"""The run's seed decides fault injection, whatever the option order, in
every kind of binary of the run convention (ksim/run.h).

  check_fault_replay.py test BINARY              (shim/tests/test_fault.c)
  check_fault_replay.py [--kver V] stress BINARY ARGS...
                                                 (a stress program; ARGS with --sched, --steps)
  check_fault_replay.py fuzz BINARY INPUT...     (a fuzz replay binary)

Runs the binary with --fault P under two seeds and both option orders, and
with the seed named in the spec (seed=), then runs the replay line it
printed: the injections must differ between seeds, agree between option
orders and with the spec's seed= (the engine draws from the run's seed),
and the replay line must repeat its run.

test: the fault_pattern_from_command_line test prints which of 64
allocations failed; its replay line comes from a failing run
(KSIM_TEST_FAIL_ON_PURPOSE).  stress and fuzz: the run prints
"# fault: N injected, digest D" (ksim_run_fault_summary()) and its replay
line at the start; a stress run needs --sched (a fixed interleaving) and
--steps (a fixed length) to replay exactly.  A stress run must pass, unless
it fails after its steps (the summary line printed) with the signature of a
known finding of kernel V (docs/findings.toml, table "stress"): which
kernel bug a given interleaving reaches changes with any change to the
shim's scheduling, and this checks the run convention, not the kernel.
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from ksimlib import findings  # noqa: E402

TEST = "fault_pattern_from_command_line"
KVER = None
P = {"test": "p=0.5", "stress": "p=0.02", "fuzz": "p=0.05"}


def run(argv, mode, fail=False):
    env = dict(os.environ)
    env.pop("KSIM_FAULT", None)
    env.pop("KSIM_SEED", None)
    if fail:
        env["KSIM_TEST_FAIL_ON_PURPOSE"] = "1"
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", env=env)
    if mode == "test":
        m = re.search(r"# fault pattern: (\S+)", r.stdout)
    else:
        m = re.search(r"^# fault: ([1-9]\d* injected, digest \S+)", r.stdout, re.M)
        if m and r.returncode and not known_failure(r.stdout):
            sys.exit(f"{' '.join(argv)} failed (exit {r.returncode}):\n{r.stdout[-3000:]}")
    if not m:
        sys.exit(f"no injections reported by {' '.join(argv)}:\n{r.stdout[-3000:]}")
    return m.group(1), r.stdout


def known_failure(out):
    """A known kernel finding's stress signature in the output of a failed run."""
    m = re.search(r"^# (\S+): seed", out, re.M)
    if not KVER or not m:
        return False
    for e in findings.xfails("stress", KVER):
        if e["part"] == m.group(1) and all(sig in out for sig in e["match"]):
            print(f"ksim: known finding {e['id']} after the run's injections; compared anyway")
            return True
    return False


def replay_line(mode, out):
    pat = r"^# replay: (.*)$" if mode == "test" else r"^# .*\(replay: (.*)\)$"
    m = re.search(pat, out, re.M)
    return m.group(1) if m else None


def main():
    global KVER
    if len(sys.argv) > 2 and sys.argv[1] == "--kver":
        KVER = sys.argv[2]
        del sys.argv[1:3]
    if len(sys.argv) < 3 or sys.argv[1] not in P:
        print(__doc__, file=sys.stderr)
        return 2
    mode, b, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "test":
        before, after = [b, "-t", TEST], []
    elif mode == "stress":
        before, after = [b] + rest, []
    else:
        before, after = [b, "-q"], rest
    p = P[mode]
    p1, _ = run(before + ["--fault", p, "--seed", "1"] + after, mode)
    p1b, _ = run(before + ["--seed", "1", "--fault", p] + after, mode)
    p2, _ = run(before + ["--seed", "2", "--fault", p] + after, mode)
    # The engine's seed is the run's: the same as naming it in the spec.
    p1s, _ = run(before + ["--seed", "1", "--fault", p + ",seed=1"] + after, mode)
    bad = []
    if p1 != p1s:
        bad.append(f"--fault {p} --seed 1 differs from --fault {p},seed=1: {p1} vs {p1s}")
    if p1 != p1b:
        bad.append(f"--fault before --seed differs from after: {p1} vs {p1b}")
    if p1 == p2:
        bad.append(f"seeds 1 and 2 inject at the same allocations: {p1}")
    p3, out = run(before + ["--fault", p, "--seed", "3"] + after, mode, fail=True)
    line = replay_line(mode, out)
    if not line:
        bad.append("no replay line")
    else:
        argv = shlex.split(line)
        argv[0] = b
        p3r, _ = run(argv, mode, fail=True)
        if p3r != p3:
            bad.append(f"the replay line ({line}) injects differently: {p3} vs {p3r}")
    for x in bad:
        print("FAIL:", x)
    if not bad:
        print(f"ok ({mode}): seed 1 {p1}\n    seed 2 {p2}\n    replayed seed 3 {p3}: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
