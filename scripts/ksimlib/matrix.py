"""ksim matrix: the test suite against several kernel trees, one table.

    scripts/ksim matrix [--kver 7.3,7.2,6.12,6.1] [--ksrc DIR,DIR] [-L LABEL] [-E REGEX]
                        [--tsan]

By default every supported Debian kernel (scripts/ksim-kernel --supported),
newest first.  Each tree gets the build directory `make` would give it
(build/<preset> for the default kernel,
build/<preset>-<kver> or build/<preset>-<basename of KSRC> otherwise), is configured and built, and runs CTest with a JUnit file; the
table has one row per test and one column per kernel: pass, FAIL, XFAIL (a
known kernel failure, checked by signature), ATTR (a failure that the known
fixes remove: attributed to a finding, scripts/ksimlib/fixes.py), or '-'
(not in that build, e.g. the maple regression part on 6.1).  --tsan adds
`make test`'s ThreadSanitizer tier for each tree (preset tsan: the stress
programs and the TSan-only tests, labels stress-short and tsan), a column of
its own.  The last rows give each column's build and test time.  Exit 1 if
any cell is FAIL or a build fails.
"""
import argparse
import os
import re
import subprocess
import sys
import time

from ksimlib.repro import ROOT, parse_junit, resolve_ksrc, ReproError

def _ksim_kernel(flag):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim-kernel"), flag],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.split()


SUPPORTED = _ksim_kernel("--supported")
DEFAULT_KVER = _ksim_kernel("--default")[0]


def split_list(s):
    return [x for x in re.split(r"[,\s]+", s or "") if x]


# make test's ThreadSanitizer tier (Makefile): what it builds and runs.
TSAN_TARGETS = ["stress-programs", "tsan-tests"]
TSAN_LABELS = "^(stress-short|tsan)$"


def run_tree(label, ksrc, kver, args, preset=None, extra_env=None):
    """Configure, build, test one tree -> dict with results (ENV: more
    environment for the tests)."""
    preset = preset or args.preset
    tsan = preset == "tsan"
    if ksrc:
        tag = "-" + os.path.basename(os.path.abspath(ksrc).rstrip("/"))
    else:
        tag = "" if kver == DEFAULT_KVER else "-" + kver
    bdir = os.path.join(ROOT, "build", preset + tag)
    os.makedirs(os.path.dirname(bdir), exist_ok=True)
    log = bdir + ".matrix.log"
    res = {"label": label, "build": bdir, "log": log, "tests": {}, "version": "?",
           "error": None, "t_build": 0.0, "t_test": 0.0}
    try:
        path, ver = resolve_ksrc(ksrc, None if ksrc else kver)
    except ReproError as e:
        res["error"] = str(e)
        return res
    res["version"] = ver
    env = dict(os.environ)
    env.pop("KSRC", None)
    env.pop("KVER", None)
    # A failure no signature explains is replayed with the known fixes (ksim-xfail).
    env["KSIM_ATTRIBUTION"] = "1"
    test_env = dict(env, **(extra_env or {}))
    t0 = time.monotonic()
    with open(log, "w") as f:
        for argv in (["cmake", "--preset", preset, "-B", bdir,
                      f"-DKSRC={os.path.abspath(ksrc) if ksrc else ''}",
                      f"-DKVER={'' if ksrc else kver}"],
                     ["cmake", "--build", bdir, "-j", str(args.jobs)]
                     + (["--target"] + TSAN_TARGETS if tsan else [])):
            f.write("$ " + " ".join(argv) + "\n")
            f.flush()
            if subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT, env=env).returncode:
                lines = open(log, errors="replace").read().splitlines()
                pick = [l for l in lines if l.startswith("ksim:")] or \
                    [l for l in lines if "error" in l.lower()] or lines[-1:]
                res["error"] = f"{argv[1]} failed: {pick[0].strip()[:200]} (log {log})"
                res["t_build"] = time.monotonic() - t0
                return res
    res["t_build"] = time.monotonic() - t0
    print(f"  {label}: kernel {ver}, built in {res['t_build']:.0f}s; testing ...", flush=True)
    junit = bdir + ".matrix.xml"
    sel = []
    for l in ([TSAN_LABELS] if tsan else args.label):
        sel += ["-L", l]
    if args.exclude and not tsan:
        sel += ["-E", args.exclude]
    t1 = time.monotonic()
    with open(log, "a") as f:
        subprocess.run(["ctest", "--test-dir", bdir, "-j", str(args.jobs), "--timeout", "900",
                        "--output-junit", junit, "--test-output-size-passed", "1000000",
                        "--test-output-size-failed", "4000000"] + sel, stdout=f, stderr=subprocess.STDOUT,
                       env=test_env)
    res["t_test"] = time.monotonic() - t1
    res["tests"] = parse_junit(junit)
    return res


# The lines of a failed test's output that say what failed (ksim's verdicts,
# sanitizer headers, the seed to replay), for a report that is read once.
_TELLING = re.compile(r"(ksim[-\w]*: (FAILED|NEW|test failure|problem)|ERROR: \w+Sanitizer|"
                      r"WARNING: ThreadSanitizer|runtime error|^# seed |^# replay|Timeout|"
                      r"assertion|Assertion)")


def keep_failure(res, name, subdir):
    """Keep a failed test's output under ksim-out/SUBDIR/ (the build's
    CTest log is overwritten by the next run) -> (path, telling lines)."""
    out = res["tests"].get(name, (False, ""))[1] or ""
    d = os.path.join(ROOT, "ksim-out", subdir, re.sub(r"[^\w.-]+", "-", res["label"]))
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, re.sub(r"[^\w.-]+", "_", name) + ".log")
    with open(path, "w") as f:
        f.write(out)
    lines = [l.strip() for l in out.splitlines() if _TELLING.search(l)]
    return path, list(dict.fromkeys(lines))[:4]


def status(res, name):
    if res["error"]:
        return "no build"
    if name not in res["tests"]:
        return "-"
    ok, out = res["tests"][name]
    if not ok:
        return "FAIL"
    return "XFAIL" if "ksim: XFAIL:" in out else "ATTR" if "ksim: ATTRIBUTED:" in out else "pass"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ksim matrix", description=__doc__.splitlines()[0])
    ap.add_argument("--kver", default=",".join(reversed(SUPPORTED)),
                    help="Debian linux-source versions ('' for none; default: all supported)")
    ap.add_argument("--ksrc", default="", help="kernel trees, comma or space separated")
    ap.add_argument("--preset", default="default")
    ap.add_argument("-L", "--label", action="append", default=[], help="CTest label regex")
    ap.add_argument("-E", "--exclude", help="CTest exclude regex")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--tsan", action="store_true",
                    help="also make test's ThreadSanitizer tier on each tree (preset tsan)")
    args = ap.parse_args(argv)
    trees = [(v, None, v) for v in split_list(args.kver)] + \
            [(os.path.basename(os.path.abspath(k)), k, None) for k in split_list(args.ksrc)]
    if not trees:
        print("ksim matrix: no kernel trees given (--kver / --ksrc)", file=sys.stderr)
        return 2
    print(f"ksim matrix: {len(trees)} tree(s), preset {args.preset}"
          + (" and tsan" if args.tsan else "") + f", -j{args.jobs}", flush=True)
    results = []
    for label, ksrc, kver in trees:
        results.append(run_tree(label, ksrc, kver, args))
        if args.tsan:
            results.append(run_tree(label + " tsan", ksrc, kver, args, preset="tsan"))

    names = sorted({n for r in results for n in r["tests"]})
    head = ["test"] + [f"{r['label']} ({r['version']})" for r in results]
    rows = [[n] + [status(r, n) for r in results] for n in names]
    rows.append(["passed/run"] + [
        "no build" if r["error"] else
        f"{sum(1 for ok, _ in r['tests'].values() if ok)}/{len(r['tests'])}" for r in results])
    rows.append(["build, test (s)"] + [f"{r['t_build']:.0f}, {r['t_test']:.0f}" for r in results])
    rows.append(["wall (s)"] + [f"{r['t_build'] + r['t_test']:.0f}" for r in results])
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print()
    for i, r in enumerate([head] + rows):
        print("  ".join(c.ljust(w[j]) for j, c in enumerate(r)).rstrip())
        if i == 0 or i == len(names):
            print("  ".join("-" * x for x in w))
    bad = False
    for r in results:
        if r["error"]:
            print(f"{r['label']}: {r['error']}")
            bad = True
        for n in names:
            if status(r, n) == "FAIL":
                path, telling = keep_failure(r, n, "matrix")
                print(f"{r['label']}: FAIL {n}: ctest --test-dir {r['build']} -R '^{re.escape(n)}$' "
                      f"--output-on-failure")
                for l in telling:
                    print(f"    {l[:300]}")
                print(f"    output kept: {os.path.relpath(path, ROOT)}")
                bad = True
    return 1 if bad else 0
