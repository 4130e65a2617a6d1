#!/usr/bin/env python3
"""The findings table (docs/findings.toml) and `ksim report`, without running
any kernel code: the table passes its schema, each entry's reproducer and
kernel-style check exist in the sources, the report commands work, bad
input gets one line and exit 2, the schema check refuses broken entries, and
scripts/ksim-xfail's exit status for an unlisted part (and a skip code) and
for an entry marked alone beside another problem."""
import copy
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from ksimlib import findings, report  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(f"{'ok' if cond else 'not ok'} - {what}")
    failures += not cond


def ksim(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim"), "report", *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# The build whose ksim-manifest.json says which folder a test is in (argv[1]).
BUILD = sys.argv[1] if len(sys.argv) > 1 else None
fs = findings.load()
check(len(fs) > 10, f"table loads: {len(fs)} findings")

for f in fs:
    m = re.match(r"regression/([\w-]+)/(\w+)$", findings.reproducer(f))
    if m:
        src, _ = report.reproducer_source(f, BUILD)
        check(src is not None, f"{f['id']}: reproducer {f['reproducer']} is a KSIM_TEST in {m.group(1)}/regression/")
    m = re.match(r"fuzz-known/(\w+)/(.+)$", f["reproducer"])
    if m:
        check(os.path.exists(os.path.join(ROOT, "fuzz", "known", m.group(1), m.group(2))),
              f"{f['id']}: reproducer input fuzz/known/{m.group(1)}/{m.group(2)} exists")
    if f.get("kernel_test"):
        rel, text = report.kernel_style(f)
        check(text is not None, f"{f['id']}: kernel-style check {f['kernel_test']} exists")
        check(report.kernel_suite(f) is not None,
              f"{f['id']}: a kernel test file takes {f['kernel_test']} (report.KERNEL_SUITES)")
    for x in f["xfail"]:
        if x["in"] == "fuzz" and not x["match"].startswith("trace:"):
            target, name = x["part"].split("/", 1)
            check(os.path.exists(os.path.join(ROOT, "fuzz", "known", target, name))
                  or name.endswith("-family-6.1"),
                  f"{f['id']}: fuzz input {x['part']} exists")

r = ksim("--list")
check(r.returncode == 0 and all(f["id"] in r.stdout for f in fs), "report --list names every finding")
r = ksim(fs[0]["id"], "--no-run", "--build", "/nonexistent")
check(r.returncode == 0 and r.stdout.startswith("Subject: "), "report ID --no-run prints a report")
r = ksim("no-such-finding")
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, "bad id: one line, exit 2")
r = ksim("--tree", "5.4", "--verify")
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, "bad tree: one line, exit 2")

# The schema check refuses what would silently mask or miss a failure.
good = copy.deepcopy(fs[0])
good.pop("fix_edits", None)     # its own checks: test_fixes.py


def refused(mutate, what):
    f = copy.deepcopy(good)
    mutate(f)
    try:
        findings._check(f, 0, set())
        check(False, f"schema refuses {what}")
    except findings.TableError as e:
        check(str(e).count("\n") == 0, f"schema refuses {what}: {str(e).split(': ', 2)[-1]}")


refused(lambda f: f.pop("status"), "a missing field")
refused(lambda f: f["status"].pop("7.3"), "a status that leaves out a tree")
refused(lambda f: f["status"].update({"6.1": "fixed"}), "an unknown status")
refused(lambda f: f.update(kind="maybe"), "an unknown kind")
refused(lambda f: f.update(stable="rewrite"), "a stable note on a finding that is not a backport")
refused(lambda f: f.update(kind="backport", stable="soon"), "an unknown stable note")
refused(lambda f: f["xfail"].append({"in": "nowhere", "part": "x", "match": "y"}), "an unknown table")
refused(lambda f: (f["status"].update({"6.1": "gone"}),
                   f["xfail"].append({"in": "fuzz", "part": "x", "match": "y", "trees": ["6.1"]})),
        "a signature on a tree where the finding is gone")
refused(lambda f: f.update(reproducer="a/b (see c/d)"), "a reproducer that is no test name")
refused(lambda f: f.update(reproducer="a/b (5.4: c/d)"), "a reproducer naming an unknown tree")
check(findings.tree_of("6.12.117") == "6.12" and findings.tree_of("6.1.192") == "6.1"
      and findings.tree_of("7.30.1") is None, "kernel versions map to trees by prefix")
alt = dict(good, reproducer="x/new (6.1, 6.12: x/old)")
check([findings.reproducer(alt, t) for t in findings.TREES] == ["x/old", "x/old", "x/new", "x/new"]
      and findings.reproducer(good, "6.1") == good["reproducer"],
      "a reproducer named otherwise on some trees: each tree gets its own name")



# scripts/ksim-xfail, which every component test runs through: an unlisted
# part's exit status, and a skip code passed through only when asked for.
def xfail_run(script, *opts, table="qptrie", part="no-such-part"):
    env = {k: v for k, v in os.environ.items() if k != "KSIM_ATTRIBUTION"}
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim-xfail"), table,
                           "7.3.4", part, *opts, "--", "sh", "-c", script],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def xfail_sh(script, *opts):
    return xfail_run(script, *opts).returncode


def xfail(code, *opts):
    return xfail_sh(f"exit {code}", *opts)


check(xfail(0) == 0 and xfail(3) == 1, "ksim-xfail: an unlisted part passes with 0, fails otherwise")
check(xfail(77, "--skip-return-code", "77") == 77 and xfail(77) == 1
      and xfail(3, "--skip-return-code", "77") == 1,
      "ksim-xfail --skip-return-code 77: exit 77 passes through (CTest: skipped), nothing else")

# An entry marked alone: its signature alone is an XFAIL; beside it, any
# other failing problem line (a test failure, a WARN, a leak, a sanitizer's
# report) makes the run fail, "and also otherwise"; the shim's expected and
# report-once lines do not count.  One alone entry of the table, as listed.
def xfail_part(table, part, lines):
    return xfail_run("".join(f"echo {shlex.quote(l)}; " for l in lines) + "exit 1",
                     table=table, part=part)


alone = [(t, e) for t in ("xarray", "maple", "mm-sim") for e in findings.xfails(t, "7.3.4")
         if e["alone"] and not e["sometimes"]]
check(alone, "the table has an alone entry for 7.3.4")
if alone:
    table, e = alone[0]
    sig = [f"ksim: test failure: t.c:1: {m}" for m in e["match"]]
    r = xfail_part(table, e["part"], sig)
    check(r.returncode == 0 and "XFAIL" in r.stdout, f"ksim-xfail: {table}/{e['part']}'s signature alone is an XFAIL")
    for what, extra in (("another test failure", "ksim: test failure: t.c:2: another check"),
                        ("a WARN", "ksim: WARNING: t.c:2: another WARN"),
                        ("a leak", "ksim: memory leak: t.c:2: 1 kmalloc object not freed"),
                        ("a BUG", "ksim: BUG: t.c:2: another BUG"),
                        ("ASan", "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1"),
                        ("UBSan", "t.c:2:3: runtime error: load of misaligned address")):
        r = xfail_part(table, e["part"], [extra] + sig)
        check(r.returncode == 1 and "also otherwise" in r.stdout,
              f"ksim-xfail: beside an alone signature, {what} fails")
    for extra in ("ksim: WARNING (expected): t.c:2: an expected WARN",
                  "ksim: lockdep (reported once per site, not failing): t.c:2: a listed shortcut"):
        r = xfail_part(table, e["part"], sig + [extra])
        check(r.returncode == 0, f"ksim-xfail: an alone signature beside a line that does not fail: {extra[:40]}")

# A hang inside the sanitizer runtime (ksimlib/hang.py): run once more; a
# second one is no verdict (the skip code), never a pass.  A hang in the
# program's own code is the program's failure.
HANG = """ksim stress: FAILED check: the end of the run (joining the threads) still running after 50 s: a hang
  every thread's stack (gdb):

Thread 3 (Thread 0x7f1c2f3fe6c0 (LWP 26852) "maple_stress"):
#0  0x00007f1c33c8f05f in __futex_abstimed_wait_common64 (private=0) at ./nptl/futex-internal.c:57
#1  0x000055d0c0b1a3e2 in urcu_memb_synchronize_rcu () from /lib/x86_64-linux-gnu/liburcu-memb.so.8

Thread 2 (Thread 0x7f1c2f3ff6c0 (LWP 26851) "maple_stress"):
#0  0x000055d0c0a8f05f in __sanitizer::FutexWait(__sanitizer::atomic_uint32_t*, unsigned int) ()
#1  0x000055d0c0a910ac in __sanitizer::Semaphore::Wait() ()
#2  0x000055d0c0b1a3e2 in __tsan::SlotLock(__tsan::ThreadState*) ()
#3  0x000055d0c0b1b8e1 in __tsan::TraceSwitchPartImpl(__tsan::ThreadState*) ()
#4  0x000055d0c0b1c001 in mas_walk (mas=0x7b0400001000) at lib/maple_tree.c:4870
SUMMARY prog=maple result=FAIL hang
"""
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    hang_file = os.path.join(tmp, "hang.txt")
    with open(hang_file, "w") as f:
        f.write(HANG)
    with open(os.path.join(tmp, "own.txt"), "w") as f:
        f.write(HANG.replace("__sanitizer::FutexWait", "mas_find"))
    with open(os.path.join(tmp, "spin.txt"), "w") as f:
        f.write(HANG.replace("  every thread's", "  thread LWP 26853: running, 99% of a CPU over 0.5 s\n"
                             "  every thread's"))
    once = os.path.join(tmp, "once")
    # first run: the runtime hang; second: a pass
    first = f"if [ -e {once} ]; then exit 0; fi; touch {once}; cat {hang_file}; exit 1"
    check(xfail_sh(first) == 0, "ksim-xfail: a hang inside the sanitizer runtime runs again; its pass passes")
    check(xfail_sh(f"cat {hang_file}; exit 1", "--skip-return-code", "77") == 77
          and xfail_sh(f"cat {hang_file}; exit 1") == 1,
          "ksim-xfail: two sanitizer-runtime hangs are no verdict (the skip code), never a pass")
    check(xfail_sh(f"cat {tmp}/own.txt; exit 1", "--skip-return-code", "77") == 1,
          "ksim-xfail: a hang in the program's own code fails")
    check(xfail_sh(f"cat {tmp}/spin.txt; exit 1", "--skip-return-code", "77") == 1,
          "ksim-xfail: a thread in the sanitizer's wait beside one that spins is the program's hang")

# An outer limit (ctest --timeout, ksim mutate) SIGKILLs the wrapper: the
# command, in a session of its own, must die with it, not run on orphaned.
import signal  # noqa: E402
import time  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    pidfile = os.path.join(tmp, "pid")
    w = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "ksim-xfail"), "qptrie", "7.3.4",
                          "no-such-part", "--", "sh", "-c", f"echo $$ > {pidfile}; exec sleep 300"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(pidfile) and open(pidfile).read().strip():
            break
        time.sleep(0.05)
    child = int(open(pidfile).read())
    w.kill()
    w.wait()
    gone = False
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            gone = True
            break
        time.sleep(0.05)
    if not gone:
        os.kill(child, signal.SIGKILL)
    check(gone, "ksim-xfail killed (SIGKILL): its command dies with it")

print(f"# {failures} failure(s)")
sys.exit(1 if failures else 0)
