#!/usr/bin/env python3
"""Smoke test of `ksim mutate` (CTest label: repro).

  test_mutate.py KSRC

Bad input (one line, exit 2); the seeded sample (same seed, same mutants;
sites only in code, never in comments, strings or preprocessor lines); a run
of 3 mutants of lib/maple_tree.c against the maple-regression suite at -O0
(the kernel tree unchanged afterwards); a rerun that resumes (nothing to
run); --shard; --merge of the results split over two directories gives the
same report.  No threshold on the kill rate: this keeps the command working.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KSIM = os.path.join(ROOT, "scripts", "ksim")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from ksimlib import mutate  # noqa: E402

FAILS = 0


def check(cond, what):
    global FAILS
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        FAILS += 1


def ksim(*args, env=None):
    r = subprocess.run([sys.executable, KSIM, "mutate"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    return r.returncode, r.stdout, r.stderr


def verdict_table(text):
    return [l for l in text.splitlines() if re.match(r"  (killed|timeout|survived|did-not|kill rate)", l)]


def main():
    ksrc = os.path.realpath(sys.argv[1])
    env = dict(os.environ)
    env.pop("KVER", None)
    env["KSRC"] = ksrc
    src = os.path.join(ksrc, "lib", "maple_tree.c")
    text = open(src).read()

    for args, want in [(["--file", "lib/no_such.c"], "no such file"),
                       (["--file", "lib/maple_tree.c", "--suite", "nope"], "unknown suite"),
                       (["--file", "lib/maple_tree.c", "--shard", "3/2"], "--shard 3/2"),
                       (["--file", "lib/maple_tree.c", "--shard", "0/2"], "--shard 0/2"),
                       (["--file", "Makefile"], "expected a .c file"),
                       (["--merge", "/nonexistent"], "no meta.json")]:
        rc, out, err = ksim(*args, env=env)
        check(rc == 2 and len(err.strip().splitlines()) == 1 and want in err,
              f"bad input {' '.join(args)}: exit {rc}, {err.strip()!r}")

    a, n, _ = mutate.sample(text, "lib/maple_tree.c", 1, 40)
    b, _, _ = mutate.sample(text, "lib/maple_tree.c", 1, 40)
    c, _, _ = mutate.sample(text, "lib/maple_tree.c", 2, 40)
    key = lambda ms: [(m.op, m.start, m.repl) for m in ms]
    check(len(a) == 40 and key(a) == key(b), f"same seed, same 40 mutants (of {n} sites)")
    check(key(a) != key(c), "another seed, another sample")
    masked = mutate.mask(text)
    bad = [m.id for m in a if masked[m.start:m.end] != text[m.start:m.end]]
    check(not bad, f"no mutant in a comment, string or preprocessor line {bad}")
    check(len({m.op for m in a}) >= 8, f"operators sampled: {sorted({m.op for m in a})}")

    before = hashlib.sha256(open(src, "rb").read()).hexdigest()
    tmp = tempfile.mkdtemp(prefix="ksim-mutate-test-")
    try:
        out = os.path.join(tmp, "out")
        run = ["--file", "lib/maple_tree.c", "--count", "3", "--seed", "5",
               "--suite", "maple-regression", "--out", out, "--workdir", os.path.join(tmp, "w"),
               "--cmake-arg=-DCMAKE_BUILD_TYPE=Debug", "--timeout", "120"]
        rc, so, se = ksim(*run, env=env)
        print(so[-3000:], se[-2000:])
        check(rc == 0, f"3 mutants against maple-regression: exit {rc}")
        res = sorted(os.listdir(os.path.join(out, "results"))) if os.path.isdir(
            os.path.join(out, "results")) else []
        check(len(res) == 3, f"3 result files: {res}")
        for f in res:
            r = json.load(open(os.path.join(out, "results", f)))
            check(r.get("ksim", {}).get("verdict") in mutate.VERDICTS, f"{f}: {r.get('ksim')}")
        check(len(re.findall(r"^\[\d/3\] m\d{4} lib/maple_tree.c:\d+", so, re.M)) == 3,
              "a progress line per mutant")
        rep = open(os.path.join(out, "report.txt")).read() if os.path.exists(
            os.path.join(out, "report.txt")) else ""
        check("kill rate" in rep and os.path.exists(os.path.join(out, "report.html")),
              "report.txt and report.html written")
        check(hashlib.sha256(open(src, "rb").read()).hexdigest() == before,
              "the kernel tree's lib/maple_tree.c is unchanged")
        check(not os.path.exists(os.path.join(tmp, "w")) or not os.listdir(os.path.join(tmp, "w")),
              "scratch trees removed")

        rc, so, _ = ksim(*run, env=env)
        check(rc == 0 and "3 already done, 0 to run" in so, "a rerun resumes: nothing to run")
        rc, so, _ = ksim(*run, "--shard", "2/2", env=env)
        check(rc == 0 and "shard 2/2: 1 mutant(s), 1 already done" in so, "--shard 2/2: 1 mutant")
        rc, _, se = ksim(*[x if x != "5" else "6" for x in run], env=env)
        check(rc == 2 and "holds another run" in se, f"another sample into the same --out: {se.strip()}")

        d1, d2, d3 = (os.path.join(tmp, d) for d in ("s1", "s2", "merged"))
        for i, d in enumerate((d1, d2)):
            os.makedirs(os.path.join(d, "results"))
            shutil.copy(os.path.join(out, "meta.json"), d)
            for j, f in enumerate(res):
                if j % 2 == i:
                    shutil.copy(os.path.join(out, "results", f), os.path.join(d, "results"))
        rc, so, _ = ksim("--merge", d1, d2, "--out", d3, env=env)
        check(rc == 0 and verdict_table(so) == verdict_table(rep) and verdict_table(rep),
              "--merge of two halves gives the same verdict table")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_mutate: %s" % ("PASS" if not FAILS else f"{FAILS} FAILED"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
