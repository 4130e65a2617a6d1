"""ksim stress: every stress program of a build, until the time is used up.

Each program (the build's ksim-manifest.json lists them) runs three times: plain, with
allocation failures and debug-yield (the shim's race-window widening), and
with allocation failures under deterministic scheduling (--sched: the
interleaving comes from the seed, so a failure replays exactly).  The
programs print their own progress every few seconds; this prints which run is
on, then one table.  Any failed check, shim problem or sanitizer report fails
the run; its log is kept under ksim-out/stress/ with the command that replays
its seed.
"""
import os
import re
import subprocess
import sys
import time

from ksimlib import findings, fixes, hang

VARIANTS = [("plain", []), ("fault+yield", ["--fault", "0.005", "--yield", "0.01"]),
            ("fault+sched", ["--fault", "0.005", "--sched", "0.1"])]


def kernel_version(build):
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    m = re.search(r"^KSIM_KVERSION_RESOLVED:INTERNAL=(.*)$", cache, re.M)
    return m.group(1) if m else ""


def known_failures(kver):
    """docs/findings.toml's stress signatures for this kernel: (program, [substrings], why)."""
    return [(e["part"], e["match"], e["why"]) for e in findings.xfails("stress", kver)]


def programs(build):
    """[(name, binary)]: the components' stress programs (the manifest)."""
    from ksimlib import manifest
    try:
        return manifest.load(build).stress_programs()
    except manifest.ManifestError as e:
        sys.exit(f"ksim: {e}")


def run_program(cmd):
    """(returncode, output) of one run, its progress lines echoed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = []
    for line in p.stdout:
        log.append(line)
        if line.startswith("# ") and " ops/s" in line:
            print("   " + line.rstrip(), flush=True)
    p.wait()
    return p.returncode, "".join(log)


def run(args, outdir):
    progs = programs(args.build)
    if args.programs:
        want = args.programs.split(",")
        unknown = [p for p in want if p not in dict(progs)]
        if unknown:
            sys.exit(f"ksim: no stress program {', '.join(unknown)} (have: {', '.join(n for n, _ in progs)})")
        progs = [p for p in progs if p[0] in want]
    runs = [(name, exe, vname, vargs) for name, exe in progs for vname, vargs in VARIANTS]
    per_run = max(3.0, args.duration / len(runs))
    seed = args.seed if args.seed is not None else int(time.time()) & 0xffffffff
    print(f"ksim stress: {len(progs)} program(s), {len(runs)} runs of {per_run:.0f} s, "
          f"build {args.build}, first seed {seed}", flush=True)
    known = known_failures(kernel_version(args.build))
    cache = open(os.path.join(args.build, "CMakeCache.txt")).read()
    m = re.search(r"^KSIM_SANITIZE:STRING=(.*)$", cache, re.M)
    sanitizer = {"thread": "tsan", "": "none"}.get(m.group(1) if m else "?", "asan")
    rows, failed, novdict = [], 0, 0
    for i, (name, exe, vname, vargs) in enumerate(runs, 1):
        s = seed + i - 1
        cmd = [exe, "-d", f"{per_run:g}", "-s", str(s)] + vargs
        print(f"[{i}/{len(runs)}] {name} ({vname}), seed {s}", flush=True)
        t0 = time.monotonic()
        returncode, text, stuck = hang.run_once_more(lambda: run_program(cmd), "the run",
                                                     lambda m: print("   " + m, flush=True))
        m = re.search(r"^SUMMARY prog=.*$", text, re.M)
        summary = dict(kv.split("=", 1) for kv in m.group(0).split()[1:]) if m else {}
        reports = len(findings.SAN_REPORT.findall(text))
        ok = returncode == 0 and reports == 0 and summary.get("result") == "PASS"
        xfail = None if ok else next((why for prog, sigs, why in known
                                      if prog == name and all(x in text for x in sigs)), None)
        ops = " ".join(f"{k[:-len('_ops_per_s')]} {float(v):.3g}" for k, v in summary.items()
                       if k.endswith("_ops_per_s"))
        rows.append((f"{name} ({vname})", summary.get("sanitizer", sanitizer),
                     f"{time.monotonic() - t0:.1f}", ops or "-", summary.get("checks", "-"),
                     "PASS" if ok else "NO VERDICT (sanitizer runtime hung twice)" if stuck else
                     "XFAIL (known kernel bug)" if xfail else
                     f"FAIL ({reports} sanitizer report(s))" if reports else "FAIL"))
        if not ok and not xfail and not stuck and fixes.enabled():
            # A new face of a known bug goes away with the known fixes applied.
            try:
                verdict, detail = fixes.attribute(args.build, cmd, output=text,
                                                  name=f"stress/{name}-{vname}",
                                                  timeout=per_run * 4 + 60,
                                                  say=lambda m: print("   " + m, flush=True))
            except fixes.FixError as e:
                verdict, detail = "unavailable", str(e)
            fixes.record(args.build, f"stress/{name} ({vname})", verdict, detail, cmd)
            if verdict == "attributed":
                xfail = f"attributed: passes with the fix of {', '.join(detail)} applied"
                rows[-1] = rows[-1][:5] + ("XFAIL (attributed)",)
            else:
                print(f"   not attributed: {detail}", flush=True)
        if xfail:
            print(f"   XFAIL: a known finding (docs/findings.toml): {xfail}", flush=True)
        if not ok:
            failed += not xfail and not stuck
            novdict += bool(stuck)
            os.makedirs(outdir, exist_ok=True)
            path = os.path.join(outdir, f"{name}-{vname.replace('+', '-')}-seed{s}.log")
            # A --sched run names its stop step in its own replay line: exact.
            own = re.search(r"^# replay: (.*)$", text, re.M)
            replay = own.group(1) if own and "--sched" in vargs else " ".join(cmd)
            with open(path, "w") as f:
                f.write(f"# replay: {replay}\n# exit status {returncode}\n{text}")
            print(f"   {'XFAIL' if xfail else 'NO VERDICT' if stuck else 'FAILED'} (exit {returncode}); "
                  f"log: {path}\n"
                  f"   replay: {replay}", flush=True)
    widths = [max(len(str(r[k])) for r in rows + [("program", "sanitizer", "seconds", "ops/s", "checks", "result")])
              for k in range(6)]
    head = ("program", "sanitizer", "seconds", "ops/s", "checks", "result")
    print()
    for r in [head] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    print(f"\nksim stress: {len(rows) - failed - novdict} of {len(rows)} runs passed"
          + (f", {novdict} without a verdict (the sanitizer runtime hung twice: not covered)"
             if novdict else ""))
    return 1 if failed else 0
