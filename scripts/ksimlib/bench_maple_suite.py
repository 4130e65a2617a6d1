"""bench-maple-suite: the kernel's own maple-tree harness against ours, in one run.

What it measures: the wall time (plus user and system CPU time) of
  * the Linux kernel's userspace maple-tree test program, i.e. the `maple`
    target of tools/testing/radix-tree, built out of tree from a kernel
    source tree (KSRC), and
  * our harness running the same suite (the command given with --ours),
run alternately (interleaved) in the same invocation on the same machine,
until each side has --runs passing runs (default 3).

Why: ksim claims to run the kernel's maple-tree test suite in userspace; the
kernel ships its own harness for exactly that suite, so it is the natural
baseline.  The ratio kernel/ours says what our simulation layer costs (or
saves) compared with the kernel's own shims.  The kernel harness is built
with its own Makefile flags (-fsanitize=address,undefined, -Og); those flags
are printed so that our side can be checked to use the same ones.

Project rules for benchmarks: this is not a test.  Nothing here asserts on
timing; it reports median and spread (min-max) of each side and compares
against a baseline measured in the same run.  The ratio comes only from runs
that passed: a failing run (the kernel harness aborts now and then under
load, at run_check_rcu_slowread's timing-dependent MT_BUG_ON) is reported
with why it failed, not timed, and retried, at most --max-failures times per
side; a side without a passing run gives no ratio.

"Out of tree" means KSRC is only ever read: the parts of it that the harness
needs (found from its Makefile and by following #include lines) are copied
into --workdir and built there.  Running again reuses that build; only files
that changed in KSRC are copied again and make rebuilds what depends on them.

Exit status: 0 when both sides were measured (whatever the runs' outcome),
1 when only our side could be measured (kernel harness missing parts or not
building), 2 on bad arguments or an unusable environment.
"""

import argparse
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

HARNESS = "tools/testing/radix-tree"
# Directories copied whole: the harness itself, its shared sources, the tools
# headers (globbed as prerequisites by the Makefile) and tools/lib (sources
# found through `vpath %.c ../../lib`).
WHOLE_DIRS = [HARNESS, "tools/testing/shared", "tools/include", "tools/lib", "tools/scripts", "tools/arch"]
SKIP_SUFFIXES = (".o", ".d")  # never copy build products from KSRC
PASSED_RE = re.compile(r"^maple_tree: \d+ of \d+ tests passed\s*$", re.M)
CTEST_RE = re.compile(r"^\d+% tests passed, \d+ tests? failed out of \d+\s*$", re.M)
# Why a kernel-harness run failed: assert() or sanitizer reports.
FAILURE_RE = re.compile(r"([\w./-]+:\d+: \w+: Assertion .*? failed"
                        r"|ERROR: \w+Sanitizer[^\n]*|runtime error:[^\n]*)")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


class BenchError(Exception):
    """An unusable setup: reported as one line on stderr."""


PROG = "bench-maple-suite"   # bench_xarray_suite.py reuses this module under its own name


def err(msg):
    print(PROG + ": " + msg, file=sys.stderr)


# ---------------------------------------------------------------- kernel tree

def kernel_version(ksrc):
    """Return "6.12.117" for a kernel tree, or raise BenchError."""
    if not os.path.isdir(ksrc):
        raise BenchError("KSRC %s: no such directory" % ksrc)
    try:
        with open(os.path.join(ksrc, "Makefile")) as f:
            head = f.read(4096)
    except OSError:
        head = ""
    fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL)\s*=\s*(\d*)", head, re.M))
    if not fields.get("VERSION") or not os.path.isfile(os.path.join(ksrc, "lib/maple_tree.c")):
        raise BenchError("KSRC %s is not a kernel source tree with a maple tree "
                         "(needs a Makefile with VERSION= and lib/maple_tree.c)" % ksrc)
    return ".".join(fields[k] for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL") if fields.get(k))


def host_arch():
    m = platform.machine()
    return {"x86_64": "x86", "i686": "x86", "aarch64": "arm64"}.get(m, m)


def makefile_text(ksrc, harness=HARNESS):
    """The harness Makefile plus shared.mk (6.10+ keeps the flags there)."""
    text = ""
    for rel in (harness + "/Makefile", "tools/testing/shared/shared.mk"):
        p = os.path.join(ksrc, rel)
        if os.path.isfile(p):
            with open(p) as f:
                text += f.read() + "\n"
    return text


def needed_files(ksrc, harness=HARNESS):
    """Files of KSRC the harness needs, as (set of relative paths, missing list).

    Whole small tools/ directories, plus everything reachable by #include
    from the harness sources and from the ../../../ paths its Makefile names
    (lib/maple_tree.c, include/linux/maple_tree.h, ...).  Includes are
    followed without preprocessing, so #if branches are over-approximated;
    an unresolved quoted include is reported missing unless it is for
    another architecture.
    """
    hdir = os.path.join(ksrc, harness)
    if not os.path.isfile(os.path.join(hdir, "Makefile")):
        return set(), [harness + "/Makefile"]
    mk = makefile_text(ksrc, harness)
    # Include directories exactly as the Makefile passes them (relative to hdir).
    idirs = [os.path.normpath(os.path.join(hdir, d))
             for d in re.findall(r"-I\s*(\S+)", mk)]
    files, missing, todo = set(), [], []

    def add(path):
        rel = os.path.relpath(path, ksrc)
        if rel not in files:
            files.add(rel)
            todo.append(path)

    for d in [harness] + WHOLE_DIRS[1:]:
        top = os.path.join(ksrc, d)
        if not os.path.isdir(top):
            if d != "tools/testing/shared":  # only exists since 6.10
                missing.append(d + "/")
            continue
        for root, _, names in os.walk(top):
            for n in names:
                if not n.endswith(SKIP_SUFFIXES):
                    add(os.path.join(root, n))
    # Files named by the Makefile outside tools/ (sed'ed or #included sources).
    for rel in sorted(set(re.findall(r"\.\./\.\./\.\./([\w./-]+\.[ch])\b", mk))):
        p = os.path.join(ksrc, rel)
        if os.path.isfile(p):
            add(p)
        else:
            missing.append(rel)

    other_arch = re.compile(r"(^|/)arch/(?!%s/)[^/]+/" % re.escape(host_arch()))
    while todo:
        path = todo.pop()
        if not path.endswith((".c", ".h")):
            continue
        with open(path, errors="replace") as f:
            incs = INCLUDE_RE.findall(f.read())
        for kind, name in incs:
            # lib/*.c copied into the harness dir by sed resolve from there too.
            dirs = ([os.path.dirname(path), hdir] if kind == '"' else []) + idirs
            for d in dirs:
                cand = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(cand) and cand.startswith(os.path.join(ksrc, "")):
                    add(cand)
                    break
            else:
                if kind == '"' and "../" in name and not other_arch.search(name):
                    missing.append("%s (included by %s)" % (name, os.path.relpath(path, ksrc)))
    return files, sorted(set(missing))


def sync_copy(ksrc, dst, files):
    """Copy files from ksrc to dst when absent or changed (size/mtime); count them."""
    n = 0
    for rel in sorted(files):
        s, d = os.path.join(ksrc, rel), os.path.join(dst, rel)
        st = os.stat(s)
        try:
            dt = os.stat(d)
            if dt.st_size == st.st_size and dt.st_mtime_ns == st.st_mtime_ns:
                continue
        except FileNotFoundError:
            pass
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d)
        n += 1
    return n


def extra_cflags(ksrc):
    """Defines the tree needs to compile; never patch kernel files instead.

    6.1's lib/maple_tree.c uses the `fallthrough` pseudo-keyword, which the
    6.1 tools/include headers do not define (they only have __fallthrough).
    """
    flags = []
    with open(os.path.join(ksrc, "lib/maple_tree.c"), errors="replace") as f:
        uses = re.search(r"\bfallthrough;", f.read())
    defined = False
    tinc = os.path.join(ksrc, "tools/include/linux")
    for n in (os.listdir(tinc) if os.path.isdir(tinc) else []):
        if n.startswith("compiler"):
            with open(os.path.join(tinc, n), errors="replace") as f:
                if re.search(r"#\s*define\s+fallthrough\b", f.read()):
                    defined = True
    if uses and not defined:
        # Quoted because make pastes CFLAGS into a shell command line.
        flags.append("'-Dfallthrough=__attribute__((__fallthrough__))'")
    return flags


def make_env(cflags, cc=None, ldflags=()):
    """Environment for make.  CFLAGS goes through the environment, not the
    command line: `make CFLAGS+=...` would override the Makefile's own
    `CFLAGS += -I... -fsanitize=...` and drop the sanitizers."""
    env = dict(os.environ)
    for v in ("CFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "CC"):
        env.pop(v, None)
    if cflags:
        env["CFLAGS"] = " ".join(cflags)
    if ldflags:
        env["LDFLAGS"] = " ".join(ldflags)
    if cc:
        env["CC"] = cc
    return env


def first_error(log):
    for line in log.splitlines():
        if re.search(r"\berror\b|\*\*\*", line):
            return line.strip()
    lines = [l for l in log.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "(no output)"


def build_kernel_harness(ksrc, workdir, harness=HARNESS, target="maple", cc=None,
                         cflags=(), ldflags=(), make_vars=()):
    """Copy and build; return (binary path, info dict).  Raises BenchError
    with a one-line reason when the harness cannot be built.  harness/target:
    another tools/testing harness (e.g. tools/testing/vma, vma); cc, cflags,
    ldflags: added to the Makefile's own (`ksim coverage --compare`); make_vars:
    VAR=value arguments for make (e.g. the radix-tree harness's SHIFT=6)."""
    version = kernel_version(ksrc)
    files, missing = needed_files(ksrc, harness)
    if missing:
        raise BenchError("KSRC %s lacks what %s needs: %s"
                         % (ksrc, harness, ", ".join(missing)))
    copy = os.path.join(workdir, "linux-" + version)
    t0 = time.monotonic()
    ncopied = sync_copy(ksrc, copy, files)
    hdir = os.path.join(copy, harness)
    cflags = extra_cflags(ksrc) + list(cflags)
    env = make_env(cflags, cc, ldflags)
    jobs = str(os.cpu_count() or 1)
    cmd = ["make", "-C", hdir, "-j" + jobs] + list(make_vars) + [target]
    # (CFLAGS has no double quotes, so this is how to type it in a shell.)
    shown = "".join('%s="%s" ' % (v, env[v]) for v in ("CC", "CFLAGS", "LDFLAGS") if v in env) + \
        " ".join(shlex.quote(c) for c in cmd)
    # If the flags or compiler changed since the last build, start clean:
    # make does not track its command line.
    stamp = os.path.join(hdir, ".ksim-build-stamp")
    key = "%s\nCC=%s\n" % (shown, env.get("CC", "cc"))
    old = None
    if os.path.exists(stamp):
        with open(stamp) as f:
            old = f.read()
    if old is not None and old != key:
        subprocess.run(["make", "-C", hdir, "clean"], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("kernel harness: linux %s, %d file(s) copied to %s, building %s ..."
          % (version, ncopied, copy, target), flush=True)
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    log_path = os.path.join(workdir, "kernel-build.log" if target == "maple"
                            else "kernel-build-%s.log" % target)
    with open(log_path, "w") as f:
        f.write("$ " + shown + "\n" + res.stdout)
    binary = os.path.join(hdir, target)
    if res.returncode != 0 or not os.path.isfile(binary):
        raise BenchError("kernel harness (linux %s) did not build: %s  [make: %s; log: %s]"
                         % (version, first_error(res.stdout), shown, log_path))
    with open(stamp, "w") as f:
        f.write(key)
    # The compile line make would use, to show the flags (sanitizers) in force.
    obj = target + ".o" if target in ("maple", "xarray") else "main.o"
    dry = subprocess.run(["make", "-C", hdir, "-n", "-B"] + list(make_vars) + [obj], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    ccline = next((l for l in dry.splitlines() if " -c " in l and obj[:-2] in l), "")
    flags = " ".join(t for t in shlex.split(ccline) if t.startswith(("-f", "-O", "-D", "-g", "-m")))
    return binary, {"version": version, "make": shown, "flags": flags,
                    "build_s": time.monotonic() - t0, "log": log_path}


# ---------------------------------------------------------------- timing

def timed_run(cmd, cwd, log_path, timeout, shell=False):
    """Run cmd, output to log_path; return a dict with wall/user/sys/rc/log."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, cwd=cwd, shell=shell, stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # its own session: only its processes
            p.wait()
            rc = "timeout"
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, errors="replace") as f:
        out = f.read()
    return {"wall": wall, "user": after.ru_utime - before.ru_utime,
            "sys": after.ru_stime - before.ru_stime, "rc": rc, "log": log_path,
            "out": out}


def describe_rc(rc):
    if isinstance(rc, int) and rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "timeout" if rc == "timeout" else "exit %s" % rc


def summarize(name, runs, line_re):
    """Times are of the passing runs only; failures are counted and described."""
    passed = [r for r in runs if r["rc"] == 0]
    timed = passed or [{"wall": float("nan"), "user": float("nan"), "sys": float("nan")}]
    walls = [r["wall"] for r in timed]
    lines = []
    for r in runs:
        m = line_re.findall(r["out"])
        line = m[-1].strip() if m else "(no summary line)"
        if r["rc"] != 0:
            why = FAILURE_RE.search(r["out"])
            line += "; " + (why.group(1).strip() if why else describe_rc(r["rc"]))
        if line not in lines:
            lines.append(line)
    npass = len(passed)
    return {"side": name, "runs": len(runs),
            "median_wall": statistics.median(walls),
            "min_wall": min(walls), "max_wall": max(walls),
            "median_user": statistics.median(r["user"] for r in timed),
            "median_sys": statistics.median(r["sys"] for r in timed),
            "pass": npass, "fail": len(runs) - npass, "tests": " | ".join(lines)}


def report(rows, ratio, info, tsv_path):
    hdr = ["side", "runs", "median wall s (passed)", "min-max wall s", "median user s",
           "median sys s", "pass/fail", "tests"]
    table = [[r["side"], str(r["runs"]), "%.2f" % r["median_wall"],
              "%.2f-%.2f" % (r["min_wall"], r["max_wall"]), "%.2f" % r["median_user"],
              "%.2f" % r["median_sys"], "%d/%d" % (r["pass"], r["fail"]), r["tests"]]
             for r in rows]
    widths = [max(len(x) for x in col) for col in zip(hdr, *table)]
    print()
    for line in [hdr] + table:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip())
    rtext = ("%.2fx" % ratio) if ratio is not None else "n/a"
    print("ratio (kernel/ours) median wall: " + rtext)
    with open(tsv_path, "w") as f:
        for k in ("version", "make", "flags"):
            if k in info:
                f.write("# kernel %s\t%s\n" % (k, info[k]))
        f.write("\t".join(hdr) + "\n")
        for line in table:
            f.write("\t".join(line) + "\n")
        f.write("ratio (kernel/ours) median wall\t%s\n" % rtext)
    print("written: " + tsv_path)


# ---------------------------------------------------------------- main

def main(argv, target="maple", passed_re=PASSED_RE, make_vars=(), prog="bench-maple-suite",
         description=None, ours_re=CTEST_RE, harness=HARNESS):
    """The bench; bench_xarray_suite.py and bench_vma_suite.py run it for
    another harness target: target (the harness's make target), passed_re
    (its closing line), make_vars (make VAR=value), prog (messages, file
    names), ours_re (our side's closing line), harness (its directory)."""
    global PROG
    PROG = prog
    ap = argparse.ArgumentParser(prog=prog, description=description or __doc__.split("\n")[0])
    ap.add_argument("--ksrc", default=os.environ.get("KSRC"),
                    help="kernel source tree (default: $KSRC); only read")
    ap.add_argument("--workdir", required=True, help="scratch directory for the copy, build and logs")
    ap.add_argument("--ours", required=True, help="shell command that runs our suite")
    ap.add_argument("--runs", type=int, default=3,
                    help="passing runs wanted per side, interleaved (default 3)")
    ap.add_argument("--max-failures", type=int, default=3,
                    help="failed runs per side before that side gives up (default 3)")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds before a run is killed and counted failed (default 3600)")
    args = ap.parse_args(argv)

    try:
        if not args.ksrc:
            raise BenchError("no kernel tree: pass --ksrc DIR or set KSRC")
        if args.runs < 1:
            raise BenchError("--runs must be at least 1")
        for tool in ("make", "gcc"):
            if not shutil.which(tool):
                raise BenchError("%s not found on PATH; it is needed to build the kernel harness" % tool)
        ksrc = os.path.realpath(args.ksrc)
        kernel_version(ksrc)
        workdir = os.path.realpath(args.workdir)
        if workdir == ksrc or workdir.startswith(os.path.join(ksrc, "")):
            raise BenchError("--workdir %s is inside KSRC; KSRC must stay untouched" % workdir)
        os.makedirs(workdir, exist_ok=True)
    except BenchError as e:
        err(str(e))
        return 2

    binary, info = None, {}
    try:
        binary, info = build_kernel_harness(ksrc, workdir, harness=harness, target=target,
                                            make_vars=make_vars)
        print("kernel harness built in %.1fs with: %s" % (info["build_s"], info["make"]))
        print("kernel harness compile flags: %s" % info["flags"])
    except BenchError as e:
        err(str(e))
        err("carrying on with our side only")

    sides = ([("kernel", "kernel harness")] if binary else []) + [("ours", "our harness")]
    results = {s: [] for s, _ in sides}

    def wanted(side):
        rs = results[side]
        return (sum(1 for r in rs if r["rc"] == 0) < args.runs
                and sum(1 for r in rs if r["rc"] != 0) < args.max_failures)

    step = 0
    while any(wanted(s) for s, _ in sides):
        for side, label in sides:
            if not wanted(side):
                continue
            step += 1
            i = len(results[side]) + 1
            npass = sum(1 for r in results[side] if r["rc"] == 0)
            print("[%d] %s run %d (%d of %d passed so far) ..." % (step, label, i, npass, args.runs),
                  flush=True)
            log = os.path.join(workdir, "%s-run-%d.log" % (side, i))
            if side == "kernel":
                r = timed_run([binary], os.path.dirname(binary), log, args.timeout)
            else:
                r = timed_run(args.ours, None, log, args.timeout, shell=True)
            status = "ok" if r["rc"] == 0 else "FAILED (%s)" % describe_rc(r["rc"])
            print("      %s: %.2fs wall, %.2fs user, %.2fs sys, %s"
                  % (label, r["wall"], r["user"], r["sys"], status), flush=True)
            if r["rc"] != 0:
                why = FAILURE_RE.search(r["out"])
                tail = r["out"].rstrip().splitlines()[-3:]
                print("      %s\n      last lines of %s:\n        %s"
                      % (why.group(1).strip()[-200:] if why else "", log,
                         "\n        ".join(l[-200:] for l in tail)))
            results[side].append(r)

    rows = [summarize("kernel", results["kernel"], passed_re)] if binary else []
    rows.append(summarize("ours", results["ours"], ours_re))
    ratio = None
    if binary and rows[0]["pass"] and rows[1]["pass"]:
        ratio = rows[0]["median_wall"] / rows[1]["median_wall"]
    for r in rows:
        if not r["pass"]:
            err("no passing %s run in %d: no ratio" % (r["side"], r["runs"]))
    report(rows, ratio, info, os.path.join(workdir, prog + ".tsv"))
    return 0 if binary else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
