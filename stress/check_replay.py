#!/usr/bin/env python3
"""Run a stress command twice and check the runs were the same run.

usage: check_replay.py COMMAND...   (a stress program with --sched and --steps)

Under deterministic scheduling (--sched) two runs of one seed must agree on
everything that does not involve the clock: the check count, the step count,
the result and the first failed check.  A difference means something a
thread decides does not come from the seed (a clock, an address, an
unscheduled thread) and replay commands would not replay.

A run the kernel code crashes has no SUMMARY line; two runs that crash
alike (the first problem reported, addresses aside, and the fault
injector's digest) replay too.  This test judges the replay only; kernel
failures are judged by the program's own stress tests (their own seeds,
through the findings).
"""
import re
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    summary = next((l for l in r.stdout.splitlines() if l.startswith("SUMMARY ")), "")
    fields = dict(kv.split("=", 1) for kv in summary.split()[1:] if "=" in kv)
    failed = next((l for l in r.stdout.splitlines() if "FAILED check" in l or "WARNING:" in l), "")
    keep = {k: v for k, v in fields.items() if k in ("checks", "steps", "result", "failures", "problems")}
    if not summary:     # crashed: how, with addresses and thread numbers left out
        lines = r.stdout.splitlines()
        first = next((l for l in lines if re.match(r"ksim: |==\d+==ERROR|SUMMARY: \w+Sanitizer", l)
                      and "replay" not in l), "")
        digest = next((l for l in lines if l.startswith("# fault:")), "")
        failed = re.sub(r"0x[0-9a-f]+|==\d+==|task \d+", "N", first) + " | " + digest
    return keep, re.sub(r"thread \d+", "thread N", failed), r.stdout


def main():
    cmd = sys.argv[1:]
    if not cmd or "--sched" not in cmd:
        print(__doc__, file=sys.stderr)
        return 2
    a, fa, out = run(cmd)
    b, fb, _ = run(cmd)
    print(f"run 1: {a} {fa}\nrun 2: {b} {fb}")
    if not a and not b and fa.strip(" |") and fa == fb:
        print("ksim: both runs crashed alike: the schedule replays up to the crash (the kernel "
              "failure itself is not judged here)")
        return 0
    if not a or "steps" not in a:
        sys.stdout.write(out)
        print("ksim: no SUMMARY line with steps= from the program")
        return 1
    if (a, fa) != (b, fb):
        print("ksim: the two runs of one seed differ: deterministic scheduling does not replay")
        return 1
    print("ksim: both runs identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
