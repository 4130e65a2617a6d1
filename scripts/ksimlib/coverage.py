"""ksim coverage: which lines of the kernel files the deterministic tests run.

    scripts/ksim coverage [--build build/coverage] [--fuzz TARGET | --fuzz-queue DIR ...]
                          [--compare] [--without LABELS] [-L LABELS] [--out DIR]

Clang source-based coverage (the `coverage` preset: ASan+UBSan plus
-fprofile-instr-generate -fcoverage-mapping), because it counts regions and
both outcomes of every condition, its counters live in the front end (exact
at -O2, so the tests run at their usual speed and sanitizers stay on), and
llvm-profdata merges the profiles of every test binary into one.  Clang
ignores #line for coverage, so the functions scripts/ksim-extract copies
into build/.../gen/*_gen.[ch] are mapped back to their kernel file and line
through the #line directives the extract carries.

Steps: build; run the CTest tiers that are deterministic (LABELS, default
unit, maple-suite, mm-sim, bpf, fuzz-replay, regression; never fuzz-smoke,
stress-short or repro), each process writing its raw profile
(LLVM_PROFILE_FILE) and its fault-site table (KSIM_FAULT_SITES_FILE, see
shim/lib/fault-inject.c); optionally replay a fuzz campaign's queue
through the target's replay binary; merge; export; report.

Report (ksim-out/coverage/<kernel version>/): index.html and one page per
kernel file (per function: lines, branches, regions; the source with counts
and the fault sites), summary.txt (the table printed at the end),
functions.tsv and fault-sites.tsv.  Kernel files are those under KSRC
(lib/, mm/, kernel/, include/ ...); the kernel's own test code
(tools/testing/, lib/test_*.c) is left out.

--compare: the kernel's own harness for lib/maple_tree.c
(tools/testing/radix-tree, built by scripts/ksimlib/bench_maple_suite.py
from a scratch copy, here with clang and the coverage flags) and for
mm/vma.c (tools/testing/vma, where the tree has it and it builds) against
ksim's tests on the same tree, one table; the functions where the kernel's
harness runs lines ksim never does are named.

--without LABELS: what those labels add to the others, per kernel .c file
they run (e.g. `--without bpf-selftests`: the kernel's map selftests
against ksim's own BPF tests): lines and branch outcomes of all labels, of
the others alone and of LABELS alone, the ones only one side runs, and the
functions they are in (without.txt).  One test run: each label's profiles
are kept apart and merged three ways.

This is a tool, not a test: nothing here has a threshold.
"""
import argparse
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Labels that are not a deterministic tier: never run for coverage.
NOT_DETERMINISTIC = ("fuzz-smoke", "stress-short", "repro")
# Our own sources, every folder of the checkout: never kernel files (the
# generated extracts, under build/, are mapped separately).
OURS = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
              and not d.startswith(".") and d not in ("build", "ksim-out"))


def default_labels(build):
    """The deterministic labels of the build's tests (its ksim-manifest.json)."""
    from ksimlib import manifest
    try:
        m = manifest.load(build)
    except manifest.ManifestError as e:
        raise CovError(str(e))
    return [l for l in m.labels() if l not in NOT_DETERMINISTIC]
# %4m: a pool of 4 files per binary that its processes merge into at exit
# (a process that aborts writes nothing: cmake/Sanitizers.cmake says why
# not continuous mode).
PROFILE = "%4m.profraw"
FLAGS = ["-fprofile-instr-generate", "-fcoverage-mapping"]
LINE_RE = re.compile(r'^\s*#\s*line\s+(\d+)\s+"([^"]+)"')
EXCLUDE_RE = re.compile(r"^(tools/|lib/test_[^/]*\.c$)")


class CovError(Exception):
    pass


def say(msg):
    print(f"ksim coverage: {msg}", flush=True)


def step(n, total, msg):
    print(f"[coverage {n}/{total}] {msg}", flush=True)


# ---------------------------------------------------------------- tools
def build_info(build):
    cache = os.path.join(build, "CMakeCache.txt")
    if not os.path.exists(cache):
        raise CovError(f"{build} is not a configured build directory (make coverage configures it)")
    text = open(cache).read()

    def get(k):
        m = re.search(rf"^{k}:[A-Z]+=(.*)$", text, re.M)
        return m.group(1) if m else ""
    if get("KSIM_COVERAGE") not in ("ON", "1", "TRUE"):
        raise CovError(f"{build} is not a coverage build (configure it with --preset coverage)")
    return {"ksrc": get("KSIM_KSRC_RESOLVED"), "kver": get("KSIM_KVERSION_RESOLVED"),
            "cc": get("CMAKE_C_COMPILER")}


def llvm_tools(cc):
    """llvm-profdata and llvm-cov of the compiler's version (the raw profile
    format changes between LLVM releases)."""
    out = subprocess.run([cc or "clang", "--version"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    m = re.search(r"clang version (\d+)", out)
    found = []
    for tool in ("llvm-profdata", "llvm-cov"):
        cands = ([f"{tool}-{m.group(1)}"] if m else []) + [tool]
        path = next((shutil.which(c) for c in cands if shutil.which(c)), None)
        if not path:
            raise CovError(f"{tool} not found (apt-get install llvm{'-' + m.group(1) if m else ''})")
        found.append(path)
    return found


def run_streamed(argv, log, env=None, cwd=None, show=None, prefix=""):
    """Run, copy output to log; print the lines `show` accepts (progress)."""
    with open(log, "a") as f:
        f.write("$ " + " ".join(argv) + "\n")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env, cwd=cwd, errors="replace")
        for line in p.stdout:
            f.write(line)
            if show and show(line):
                print("    " + prefix + line.strip()[:160], flush=True)
        return p.wait()


# ---------------------------------------------------------------- running
def test_binaries(build, select, built=True):
    """The build's executables the selected CTest tests run; select: labels,
    or CTest arguments (["-R", regex]).  built=False: also those not built yet."""
    if select and select[0].startswith("-"):
        args = list(select)
    else:
        args = ["-L", "^(" + "|".join(select) + ")$"]
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"] + args,
                         stdout=subprocess.PIPE, text=True).stdout
    bins, bdir = set(), os.path.realpath(build)
    for t in json.loads(out).get("tests", []):
        for a in t.get("command", []):
            a = os.path.realpath(a)
            if a.startswith(bdir + "/") and (is_elf(a) if built else "." not in os.path.basename(a)):
                bins.add(a)
    return sorted(bins)


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return os.access(path, os.X_OK) and f.read(4) == b"\x7fELF"
    except OSError:
        return False


# Labels that take longest go first: lanes are then about even.
SLOW_FIRST = ["maple-suite", "mm-sim", "bpf", "fuzz-replay"]


def run_tests(build, labels, data, jobs, log):
    """One CTest run per label (raw profiles under data/profraw/<label>/, so
    --compare can merge one label alone), `jobs` labels at a time, each
    CTest on one core: the maple suite's one long test (farmer) then runs
    beside the other labels instead of beside an idle core."""
    import threading
    results, lock = {}, threading.Lock()
    todo = sorted(labels, key=lambda l: SLOW_FIRST.index(l) if l in SLOW_FIRST else 99)

    def one(label):
        pdir = os.path.join(data, "profraw", label)
        os.makedirs(pdir, exist_ok=True)
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(pdir, PROFILE),
                   KSIM_FAULT_SITES_FILE=os.path.join(data, "fault-sites.raw"))
        n = len(re.findall(r"^\s*Test\s+#", subprocess.run(
            ["ctest", "--test-dir", build, "-N", "-L", f"^{label}$"], stdout=subprocess.PIPE,
            text=True).stdout, re.M))
        say(f"label {label}: {n} test(s)")
        t0 = time.monotonic()
        llog = os.path.join(data, f"ctest-{label}.log")
        rc = run_streamed(["ctest", "--test-dir", build, "-L", f"^{label}$", "-j", "1",
                           "--timeout", "900", "--output-on-failure"], llog, env=env,
                          show=lambda l: re.match(r"\s*\d+/\d+ Test\s+#", l) is not None,
                          prefix=f"{label}: ")
        with lock:
            results[label] = (rc, time.monotonic() - t0, n)
            with open(log, "a") as f:
                f.write(open(llog, errors="replace").read())
        if rc:
            say(f"label {label}: some tests failed (a process that aborts writes no profile: "
                f"its coverage is missing); see {llog}")

    def lane():
        while True:
            with lock:
                if not todo:
                    return
                label = todo.pop(0)
            one(label)

    lanes = [threading.Thread(target=lane) for _ in range(max(1, min(jobs, len(labels))))]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    return results


def queue_files(dirs):
    files = []
    for d in dirs:
        if os.path.isfile(d):
            files.append(d)
            continue
        if not os.path.isdir(d):
            raise CovError(f"--fuzz-queue {d}: no such directory")
        # An AFL++ output directory: every instance's queue.
        queues = sorted(glob.glob(os.path.join(d, "queue"))) or \
            sorted(glob.glob(os.path.join(d, "*", "queue"))) or \
            sorted(glob.glob(os.path.join(d, "afl", "*", "queue")))
        for q in queues or [d]:
            files += sorted(os.path.join(q, f) for f in os.listdir(q)
                            if not f.startswith(".") and os.path.isfile(os.path.join(q, f)))
    return files


def latest_campaign(target):
    runs = sorted(glob.glob(os.path.join(ROOT, "ksim-out", "fuzz", target, "*", "afl")))
    if not runs:
        raise CovError(f"no campaign of fuzz target {target} under ksim-out/fuzz/{target}/ "
                       f"(run `make fuzz-{target}` first, or pass --fuzz-queue DIR)")
    return runs[-1]


def replay_queue(replay, files, data, sites, log, batch=300):
    """Replay inputs in batches; an input that fails is skipped and the rest
    of its batch replayed again (a process that aborts writes no profile)."""
    pdir = os.path.join(data, "profraw", "fuzz-queue")
    os.makedirs(pdir, exist_ok=True)
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(pdir, PROFILE),
               KSIM_FAULT_SITES_FILE=sites)
    failed, done = [], 0
    todo = list(files)
    while todo:
        chunk = todo[:batch]
        with open(log, "a") as f:
            f.write(f"$ {replay} -q <{len(chunk)} inputs from {chunk[0]}>\n")
            r = subprocess.run([replay, "-q"] + chunk, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env, errors="replace")
            f.write(r.stdout[-20000:])
        if r.returncode == 0:
            todo = todo[len(chunk):]
            done += len(chunk)
        else:
            ok = len(re.findall(r"^ok \d+ ", r.stdout, re.M))
            bad = chunk[min(ok, len(chunk) - 1)]
            failed.append(bad)
            # The ones before it ran in a process that died: run them again.
            todo = todo[:ok] + todo[ok + 1:]
        print(f"    queue: {done}/{len(files)} replayed, {len(failed)} failing input(s) skipped",
              flush=True)
    return failed


def merge(profdata_tool, dirs, out):
    raws = [f for d in dirs for f in glob.glob(os.path.join(d, "*.profraw"))]
    if not raws:
        return None
    r = subprocess.run([profdata_tool, "merge", "-sparse", "-o", out] + raws,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise CovError(f"llvm-profdata merge failed: {r.stdout.strip()[-300:]}")
    return out


def export(cov_tool, profdata, binaries, out):
    # -skip-expansions: the per-macro-expansion copies are not used here, and
    # for the maple suite (lib/test_maple_tree.c) they took llvm-cov past the
    # memory limit.
    argv = [cov_tool, "export", "-format=text", "-skip-expansions", "-instr-profile", profdata]
    for b in binaries:
        argv += ["-object", b]
    argv.append("-ignore-filename-regex=^(/usr/|" +
                "|".join(re.escape(os.path.join(ROOT, d)) + "/" for d in OURS) + ")")
    with open(out, "w") as f:
        r = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise CovError(f"llvm-cov export failed: {r.stderr.strip()[-300:]}")
    return out


# ---------------------------------------------------------------- model
def line_counts(segments):
    """Per-line execution counts from llvm-cov's segments, as llvm-cov
    computes them (LineCoverageStats): {line: count} for mapped lines."""
    out = {}
    if not segments:
        return out
    wrapped = None
    i, n = 0, len(segments)
    line, last = segments[0][0], segments[-1][0]
    while line <= last:
        ls = []
        while i < n and segments[i][0] == line:
            ls.append(segments[i])
            i += 1
        starts = [s for s in ls if s[3] and s[4] and not s[5]]
        skipped = bool(ls) and not ls[0][3] and ls[0][4]
        if not skipped and ((wrapped and wrapped[3]) or starts):
            c = wrapped[2] if wrapped else 0
            for s in starts:
                c = max(c, s[2])
            out[line] = c
        if ls:
            wrapped = ls[-1]
        # No segment until the next one: the lines in between share this state.
        if i < n and segments[i][0] > line + 1 and not ls:
            if wrapped and wrapped[3]:
                for l in range(line + 1, segments[i][0]):
                    out[l] = wrapped[2]
            line = segments[i][0]
            continue
        line += 1
    return out


class LineMap:
    """Physical file -> (kernel file, line): identity for files under KSRC,
    the #line directives for the generated extracts, None for our code."""
    def __init__(self, ksrc, build):
        self.ksrc = os.path.realpath(ksrc)
        self.build = os.path.realpath(build)
        self.cache = {}

    def rel(self, path):
        p = os.path.realpath(path)
        if p.startswith(self.ksrc + "/"):
            r = os.path.relpath(p, self.ksrc)
            return None if EXCLUDE_RE.match(r) else r
        return None

    def table(self, path):
        if path in self.cache:
            return self.cache[path]
        t = None
        p = os.path.realpath(path)
        if self.rel(p):
            t = "identity"
        elif p.startswith(self.build + "/") and "_gen." in os.path.basename(p):
            t = {}
            cur = None
            try:
                lines = open(p, errors="replace").read().splitlines()
            except OSError:
                lines = []
            for i, text in enumerate(lines, 1):
                m = LINE_RE.match(text)
                if m:
                    rel = self.rel(m.group(2))
                    cur = (rel, int(m.group(1)) - i - 1) if rel else None
                    continue
                if cur:
                    t[i] = (cur[0], i + cur[1])
        self.cache[path] = t
        return t

    def map(self, path, line):
        t = self.table(path)
        if t == "identity":
            return self.rel(path), line
        if not t:
            return None
        return t.get(line)


class FileCov:
    def __init__(self, path):
        self.path = path
        self.lines = {}          # line -> count
        self.regions = {}        # (l, c, le, ce) -> count
        self.branches = {}       # (l, c, le, ce) -> [true, false]
        self.funcs = {}          # (name, line) -> Func
        self.sites = {}          # line -> [(cls, func, reached, failed)]

    def add_line(self, line, count):
        self.lines[line] = self.lines.get(line, 0) + count


class Func:
    def __init__(self, name, start, end):
        self.name, self.start, self.end = name, start, end
        self.count = 0
        self.regions = {}
        self.branches = {}


class Coverage:
    def __init__(self):
        self.files = {}

    def file(self, rel):
        if rel not in self.files:
            self.files[rel] = FileCov(rel)
        return self.files[rel]


def short_name(name):
    # Static functions carry their translation unit: "maple/maple_tree.c:mas_walk".
    return name.rsplit(":", 1)[1] if re.match(r"^[^:]+\.[ch]:", name) else name


def load(export_json, lmap):
    """llvm-cov export JSON -> Coverage of the kernel files."""
    cov = Coverage()
    data = json.load(open(export_json))["data"][0]
    for f in data["files"]:
        path = f["filename"]
        if lmap.table(path) is None:
            continue
        for line, c in line_counts(f["segments"]).items():
            m = lmap.map(path, line)
            if m:
                cov.file(m[0]).add_line(m[1], c)
        for b in f.get("branches", []):
            m = lmap.map(path, b[0])
            if m:
                k = (m[1], b[1], m[1] + b[2] - b[0], b[3])
                v = cov.file(m[0]).branches.setdefault(k, [0, 0])
                v[0] += b[4]
                v[1] += b[5]
    for fn in data["functions"]:
        names = fn["filenames"]
        home = [r for r in fn["regions"] if r[5] == 0 and r[7] == 0]
        if not home:
            continue
        start = lmap.map(names[0], min(r[0] for r in home))
        end = lmap.map(names[0], max(r[2] for r in home))
        if start:
            fc = cov.file(start[0])
            key = (short_name(fn["name"]), start[1])
            func = fc.funcs.get(key)
            if not func:
                func = fc.funcs[key] = Func(key[0], start[1],
                                            end[1] if end and end[0] == start[0] else start[1])
            func.count += fn["count"]
        for r in fn["regions"]:
            if r[7] != 0:
                continue
            m = lmap.map(names[r[5]], r[0])
            if not m:
                continue
            k = (m[1], r[1], m[1] + r[2] - r[0], r[3])
            fc2 = cov.file(m[0])
            fc2.regions[k] = fc2.regions.get(k, 0) + r[4]
            if start and r[5] == 0:
                func.regions[k] = func.regions.get(k, 0) + r[4]
        for b in fn.get("branches", []):
            if start and b[6] == 0:
                m = lmap.map(names[0], b[0])
                if m:
                    k = (m[1], b[1], m[1] + b[2] - b[0], b[3])
                    v = func.branches.setdefault(k, [0, 0])
                    v[0] += b[4]
                    v[1] += b[5]
    return cov


def load_sites(raws, lmap, cov):
    """Fault-site lines of every process -> {(cls, func, file, line): [reached, failed]}."""
    sites = {}
    lines = [l for raw in raws if os.path.exists(raw) for l in open(raw, errors="replace")]
    for l in lines:
        p = l.rstrip("\n").split("\t")
        if len(p) != 6:
            continue
        cls, func, path, line, reached, failed = p
        rel = lmap.rel(path) or os.path.relpath(os.path.realpath(path), ROOT)
        k = (cls, func, rel, int(line))
        v = sites.setdefault(k, [0, 0])
        v[0] += int(reached)
        v[1] += int(failed)
    for (cls, func, rel, line), (r, f) in sites.items():
        if rel in cov.files:
            cov.files[rel].sites.setdefault(line, []).append((cls, func, r, f))
    return sites


# ---------------------------------------------------------------- numbers
def pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


def frac(a, b):
    return f"{a}/{b} {pct(a, b).strip()}"


def file_stats(fc):
    lines = (sum(1 for c in fc.lines.values() if c), len(fc.lines))
    br = (sum((t > 0) + (f > 0) for t, f in fc.branches.values()), 2 * len(fc.branches))
    rg = (sum(1 for c in fc.regions.values() if c), len(fc.regions))
    fn = (sum(1 for f in fc.funcs.values() if f.count), len(fc.funcs))
    return {"lines": lines, "branches": br, "regions": rg, "functions": fn}


def func_stats(fc, f):
    ls = [c for l, c in fc.lines.items() if f.start <= l <= f.end]
    return {"lines": (sum(1 for c in ls if c), len(ls)),
            "branches": (sum((t > 0) + (x > 0) for t, x in f.branches.values()),
                         2 * len(f.branches)),
            "regions": (sum(1 for c in f.regions.values() if c), len(f.regions))}


def main_files(cov):
    """Kernel files that have executable lines, .c first."""
    fs = [f for f in cov.files.values() if f.lines]
    return sorted(fs, key=lambda f: (not f.path.endswith(".c"), f.path))


def table(rows, head):
    w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    return ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in [head] + rows]


def summary_text(cov, info, sites):
    head = ["kernel file", "lines", "branches", "regions", "functions"]
    rows, tot = [], {"lines": [0, 0], "branches": [0, 0], "regions": [0, 0], "functions": [0, 0]}
    for fc in main_files(cov):
        st = file_stats(fc)
        rows.append([fc.path] + [frac(*st[k]) for k in head[1:]])
        for k in tot:
            tot[k][0] += st[k][0]
            tot[k][1] += st[k][1]
    rows.append(["TOTAL"] + [frac(*tot[k]) for k in head[1:]])
    out = [f"kernel {info['kver']} ({info['ksrc']}); {info['what']}"] + table(rows, head)
    ks = {k: v for k, v in sites.items() if not k[2].startswith(tuple(d + "/" for d in OURS))}
    for cls in ("alloc", "lock", "signal"):
        c = [v for k, v in ks.items() if k[0] == cls]
        out.append(f"fault sites in kernel code ({cls}): {len(c)} reached, "
                   f"{sum(1 for v in c if v[1])} ever failed")
    never = [k for k, v in ks.items() if not v[1]]
    if never:
        out.append("  reached but never failed: " + ", ".join(
            f"{k[1]} ({k[2]}:{k[3]})" for k in sorted(never, key=lambda k: (k[2], k[3]))[:20])
            + (" ..." if len(never) > 20 else ""))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- HTML
CSS = """body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#eee}
.lo{background:#fdd}.mid{background:#ffd}.hi{background:#dfd}
pre{margin:0}.src td{border:none;padding:0 6px;font-family:monospace;white-space:pre}
.z{background:#fcc}.c{background:#e6ffe6}.n{color:#888}.site{color:#a40;font-size:11px}"""


def cls_of(a, b):
    if not b:
        return ""
    p = a / b
    return "hi" if p >= 0.8 else "mid" if p >= 0.5 else "lo"


def cell(a, b):
    return f'<td class="{cls_of(a, b)}">{a}/{b} ({pct(a, b).strip()})</td>'


def page_name(path):
    return path.replace("/", "_") + ".html"


def write_html(cov, info, sites, outdir, ksrc):
    os.makedirs(os.path.join(outdir, "files"), exist_ok=True)
    h = [f"<html><head><meta charset='utf-8'><title>ksim coverage {info['kver']}</title>"
         f"<style>{CSS}</style></head><body><h1>ksim coverage: kernel {info['kver']}</h1>"
         f"<p>{html.escape(info['ksrc'])}<br>{html.escape(info['what'])}</p><table><tr><th>file</th>"
         "<th>lines</th><th>branches</th><th>regions</th><th>functions</th></tr>"]
    for fc in main_files(cov):
        st = file_stats(fc)
        h.append(f"<tr><td><a href='files/{page_name(fc.path)}'>{html.escape(fc.path)}</a></td>"
                 + "".join(cell(*st[k]) for k in ("lines", "branches", "regions", "functions"))
                 + "</tr>")
        write_file_page(fc, info, os.path.join(outdir, "files", page_name(fc.path)), ksrc)
    h.append("</table><h2>Fault sites (shim/lib/fault-inject.c, all processes)</h2><table><tr>"
             "<th>class</th><th>function</th><th>site</th><th>reached</th><th>failed</th></tr>")
    for (c, fn, f, l), (r, x) in sorted(sites.items(), key=lambda kv: (kv[0][2], kv[0][3])):
        link = f"files/{page_name(f)}#L{l}" if f in cov.files else None
        where = f"<a href='{link}'>{html.escape(f)}:{l}</a>" if link else f"{html.escape(f)}:{l}"
        h.append(f"<tr><td>{c}</td><td>{html.escape(fn)}</td><td>{where}</td><td>{r}</td>"
                 f"<td class='{'hi' if x else 'lo'}'>{x}</td></tr>")
    h.append("</table></body></html>")
    open(os.path.join(outdir, "index.html"), "w").write("\n".join(h))


def write_file_page(fc, info, out, ksrc):
    h = [f"<html><head><meta charset='utf-8'><title>{html.escape(fc.path)}</title>"
         f"<style>{CSS}</style></head><body><p><a href='../index.html'>index</a></p>"
         f"<h1>{html.escape(fc.path)} (kernel {info['kver']})</h1><table><tr><th>function</th>"
         "<th>line</th><th>calls</th><th>lines</th><th>branches</th><th>regions</th></tr>"]
    for f in sorted(fc.funcs.values(), key=lambda f: f.start):
        st = func_stats(fc, f)
        h.append(f"<tr><td><a href='#L{f.start}'>{html.escape(f.name)}</a></td><td>{f.start}</td>"
                 f"<td class='{'hi' if f.count else 'lo'}'>{f.count}</td>"
                 + "".join(cell(*st[k]) for k in ("lines", "branches", "regions")) + "</tr>")
    h.append("</table><table class='src'>")
    br_by_line = {}
    for (l, c, le, ce), (t, f) in fc.branches.items():
        br_by_line.setdefault(l, []).append((c, t, f))
    try:
        src = open(os.path.join(ksrc, fc.path), errors="replace").read().splitlines()
    except OSError:
        src = []
    for i, text in enumerate(src, 1):
        c = fc.lines.get(i)
        k = "n" if c is None else ("c" if c else "z")
        note = ""
        if i in br_by_line:
            note += " ".join(f"[T{t} F{f}]" for _, t, f in sorted(br_by_line[i]))
        for cls, fn, r, x in fc.sites.get(i, []):
            note += f" {cls} site: reached {r}, failed {x}"
        h.append(f"<tr id='L{i}' class='{k}'><td>{i}</td><td>{'' if c is None else c}</td>"
                 f"<td>{html.escape(text)}</td><td class='site'>{html.escape(note)}</td></tr>")
    h.append("</table></body></html>")
    open(out, "w").write("\n".join(h))


def write_tsv(cov, sites, outdir):
    with open(os.path.join(outdir, "functions.tsv"), "w") as f:
        f.write("file\tfunction\tline\tcalls\tlines hit\tlines\tbranches hit\tbranches\t"
                "regions hit\tregions\n")
        for fc in main_files(cov):
            for fn in sorted(fc.funcs.values(), key=lambda x: x.start):
                st = func_stats(fc, fn)
                f.write(f"{fc.path}\t{fn.name}\t{fn.start}\t{fn.count}\t" + "\t".join(
                    f"{st[k][0]}\t{st[k][1]}" for k in ("lines", "branches", "regions")) + "\n")
    with open(os.path.join(outdir, "fault-sites.tsv"), "w") as f:
        f.write("class\tfunction\tfile\tline\treached\tfailed\n")
        for (c, fn, fl, l), (r, x) in sorted(sites.items(), key=lambda kv: (kv[0][2], kv[0][3])):
            f.write(f"{c}\t{fn}\t{fl}\t{l}\t{r}\t{x}\n")


# ---------------------------------------------------------------- pipeline
class Run:
    """A coverage build and its data directory."""
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.info = build_info(self.build)
        self.profdata_tool, self.cov_tool = llvm_tools(self.info["cc"])
        self.data = os.path.join(self.build, "coverage-data")
        self.lmap = LineMap(self.info["ksrc"], self.build)

    def reset(self):
        shutil.rmtree(self.data, ignore_errors=True)
        os.makedirs(self.data)

    def report(self, labels, binaries, name="all"):
        """Merge the profiles of `labels` (subdirectories of profraw/) -> Coverage."""
        return self.report_dirs([os.path.join(self.data, "profraw", l) for l in labels],
                                binaries, name)

    def report_dirs(self, dirs, binaries, name):
        os.makedirs(self.data, exist_ok=True)
        pd = merge(self.profdata_tool, dirs, os.path.join(self.data, f"{name}.profdata"))
        if not pd or not binaries:
            return Coverage()
        js = export(self.cov_tool, pd, binaries, os.path.join(self.data, f"{name}.json"))
        return load(js, self.lmap)


def report_dir(args, info):
    """The report directory (--out, or per kernel version) and its emptied run.log."""
    outdir = os.path.abspath(args.out or os.path.join(ROOT, "ksim-out", "coverage", info["kver"]))
    os.makedirs(outdir, exist_ok=True)
    log = os.path.join(outdir, "run.log")
    open(log, "w").close()
    return outdir, log


def tests_fresh(run, labels):
    """The profiles of a previous run of these labels, if no test binary
    changed since."""
    stamp = os.path.join(run.data, "stamp.json")
    try:
        st = json.load(open(stamp))
    except (OSError, ValueError):
        return None
    if st.get("labels") != labels:
        return None
    t = os.path.getmtime(stamp)
    if any(os.path.getmtime(b) > t for b in st.get("binaries", []) if os.path.exists(b)):
        return None
    return st


def cmd(args):
    t_start = time.monotonic()
    try:
        if args.under_failure:
            return under_failure(args)
        labels = [l for l in re.split(r"[,|\s]+", args.labels or "") if l] or \
            default_labels(args.build)
        bad = [l for l in labels if l in NOT_DETERMINISTIC]
        if bad:
            raise CovError(f"-L {','.join(bad)}: not a deterministic tier (coverage runs "
                           f"{', '.join(default_labels(args.build))})")
        if args.fuzz and args.fuzz_queue:
            raise CovError("--fuzz and --fuzz-queue: pick one")
        without = [l for l in re.split(r"[,|\s]+", args.without or "") if l]
        if [l for l in without if l not in labels]:
            raise CovError(f"--without {args.without}: not among the labels run ({', '.join(labels)})")
        rest = [l for l in labels if l not in without]
        if without and not rest:
            raise CovError(f"--without {args.without}: no other label left to compare with")
        queue, target = [], args.fuzz or args.fuzz_target
        if args.fuzz or args.fuzz_queue:
            queue = queue_files(args.fuzz_queue or [latest_campaign(args.fuzz)])
            if not queue:
                raise CovError("the fuzz queue is empty")
        nsteps = 5 + bool(queue) + bool(args.compare)
        run = Run(args.build)
        info = dict(run.info)
        outdir, log = report_dir(args, info)
        n = 1
        step(n, nsteps, f"build {run.build} (kernel {info['kver']})")
        t0 = time.monotonic()
        if run_streamed(["cmake", "--build", run.build, "-j", str(args.jobs)], log,
                        show=lambda l: re.match(r"\[\d+/\d+\] Linking", l) is not None):
            raise CovError(f"build failed, see {log}")
        t_build = time.monotonic() - t0
        n += 1
        t0 = time.monotonic()
        old = tests_fresh(run, labels) if args.reuse else None
        if old:
            step(n, nsteps, f"tests: reusing the profiles of {time.ctime(os.path.getmtime(os.path.join(run.data, 'stamp.json')))} "
                 f"(labels {', '.join(labels)}; the build has not changed since)")
            results = {l: tuple(v) for l, v in old["results"].items()}
            binaries = old["binaries"]
        else:
            step(n, nsteps, f"tests: labels {', '.join(labels)}")
            run.reset()
            results = run_tests(run.build, labels, run.data, args.jobs, log)
            binaries = test_binaries(run.build, labels)
            json.dump({"labels": labels, "results": results, "binaries": binaries},
                      open(os.path.join(run.data, "stamp.json"), "w"))
        t_tests = time.monotonic() - t0
        qlabels, t_queue = [], 0
        shutil.rmtree(os.path.join(run.data, "profraw", "fuzz-queue"), ignore_errors=True)
        qsites = os.path.join(run.data, "fault-sites-queue.raw")
        if os.path.exists(qsites):
            os.unlink(qsites)
        if queue:
            n += 1
            replay = os.path.join(run.build, "fuzz", f"fuzz_{target}_replay")
            if not is_elf(replay):
                raise CovError(f"no replay binary {replay} (fuzz target {target})")
            step(n, nsteps, f"fuzz queue: {len(queue)} input(s) through {os.path.basename(replay)}")
            t0 = time.monotonic()
            failed = replay_queue(replay, queue, run.data, qsites, log)
            t_queue = time.monotonic() - t0
            binaries = sorted(set(binaries) | {os.path.realpath(replay)})
            qlabels = ["fuzz-queue"]
            for f in failed[:5]:
                say(f"queue input fails (skipped): {replay} -v {f}")
        n += 1
        step(n, nsteps, f"merge profiles and export ({len(binaries)} binaries)")
        t0 = time.monotonic()
        cov = run.report(labels + qlabels, binaries)
        t_merge = time.monotonic() - t0
        n += 1
        step(n, nsteps, f"report: {outdir}")
        sites = load_sites([os.path.join(run.data, "fault-sites.raw"), qsites], run.lmap, cov)
        info["what"] = ("tests: " + ", ".join(
            f"{l} ({results[l][2]} tests, {results[l][1]:.0f}s{', some failed' if results[l][0] else ''})"
            for l in labels) + (f"; fuzz queue: {len(queue)} inputs ({t_queue:.0f}s)" if queue else ""))
        write_html(cov, info, sites, outdir, info["ksrc"])
        write_tsv(cov, sites, outdir)
        text = summary_text(cov, info, sites)
        if queue:
            base = run.report(labels, [b for b in binaries if b != os.path.realpath(replay)] or binaries,
                              "tests")
            text += queue_gain(base, cov)
        open(os.path.join(outdir, "summary.txt"), "w").write(text)
        if without:
            wtext = without_text(cov, run.report(rest, binaries, "rest"),
                                 run.report(without, binaries, "without"), without, rest)
            open(os.path.join(outdir, "without.txt"), "w").write(wtext)
            text += "\n" + wtext
        ctext = ""
        if args.compare:
            n += 1
            step(n, nsteps, "the kernel's own harnesses vs ksim (same tree, same instrumentation)")
            ctext = compare(run, cov, binaries, args, outdir, log)
            open(os.path.join(outdir, "compare.txt"), "w").write(ctext)
        n += 1
        step(n, nsteps, "done")
        print()
        print(text, end="")
        if ctext:
            print()
            print(ctext, end="")
        print(f"\nbuild {t_build:.0f}s, tests {t_tests:.0f}s"
              + (f", fuzz queue {t_queue:.0f}s" if queue else "")
              + f", merge+export {t_merge:.0f}s; total {time.monotonic() - t_start:.0f}s")
        print(f"written: {os.path.join(outdir, 'index.html')}, summary.txt, functions.tsv, "
              f"fault-sites.tsv" + (", compare.txt" if args.compare else "")
              + (", without.txt" if without else ""))
        return 0
    except CovError as e:
        print(f"ksim coverage: {e}", file=sys.stderr)
        return 2


# ---------------------------------------------------------------- --under-failure
# The functions whose abort paths the failure sweeps must reach (the VMA
# merge/split/copy code and fork's copy of it); those a tree lacks are said.
UNDER_FAILURE_FUNCS = ["vma_merge_existing_range", "vma_merge_new_range", "commit_merge",
                       "vma_expand", "vma_modify", "dup_anon_vma", "__split_vma",
                       "vms_gather_munmap_vmas", "copy_vma", "dup_mmap"]
UNDER_FAILURE_TESTS = r"^mm-sim/.*sweep"


def branch_outcomes(cov, name):
    """{(file, line, col, outcome): count} of every function called `name`."""
    out = {}
    for fc in cov.files.values():
        for (fname, _), f in fc.funcs.items():
            if fname != name:
                continue
            for k, (t, x) in f.branches.items():
                for outcome, c in (("true", t), ("false", x)):
                    key = (fc.path, k[0], k[1], outcome)
                    out[key] = out.get(key, 0) + c
    return out


def under_failure(args):
    """Branch coverage of UNDER_FAILURE_FUNCS by the failure sweeps, twice:
    plain (what the sweeps reach at all) and with KSIM_FAULT_COVERAGE=
    under-failure (shim/lib/fault-inject.c: only what ran between arming
    a configuration and a failure it injected)."""
    t_start = time.monotonic()
    run = Run(args.build)
    info = dict(run.info)
    outdir, log = report_dir(args, info)
    regex = args.under_failure
    funcs = [f for f in re.split(r"[,\s]+", args.functions or "") if f] or UNDER_FAILURE_FUNCS
    binaries = test_binaries(run.build, ["-R", regex], built=False)
    if not binaries:
        raise CovError(f"no test matches -R '{regex}' in {run.build}")
    step(1, 4, f"build {', '.join(os.path.basename(b) for b in binaries)} (kernel {info['kver']})")
    argv = ["cmake", "--build", run.build, "-j", str(args.jobs), "--target"]
    if run_streamed(argv + [os.path.basename(b) for b in binaries], log,
                    show=lambda l: re.match(r"\[\d+/\d+\] Linking", l) is not None):
        raise CovError(f"build failed, see {log}")
    run.reset()
    covs, ntests = {}, 0
    for n, (mode, env) in enumerate((("sweeps", {}),
                                      ("under-failure", {"KSIM_FAULT_COVERAGE": "under-failure"})), 2):
        step(n, 4, f"tests -R '{regex}'" + (", profiles cut at each injected failure"
                                             if env else ", plain"))
        pdir = os.path.join(run.data, "profraw", mode)
        os.makedirs(pdir)
        e = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(pdir, PROFILE), **env)
        if env:
            adir = os.path.join(run.data, "profraw", "after-failure")
            os.makedirs(adir)
            e["KSIM_FAULT_COVERAGE_AFTER"] = os.path.join(adir, PROFILE)
        clog = os.path.join(run.data, f"ctest-{mode}.log")
        rc = run_streamed(["ctest", "--test-dir", run.build, "-R", regex, "-j", str(args.jobs),
                           "--timeout", "900", "--output-on-failure"], clog, env=e,
                          show=lambda l: re.match(r"\s*\d+/\d+ Test\s+#", l) is not None,
                          prefix=f"{mode}: ")
        if rc:
            say(f"{mode}: some tests failed (a process that aborts writes no profile); see {clog}")
        ntests = len(re.findall(r"^\s*\d+/\d+ Test\s+#", open(clog, errors="replace").read(), re.M))
        covs[mode] = run.report([mode], binaries, mode)
    covs["after-failure"] = run.report(["after-failure"], binaries, "after-failure")
    step(4, 4, f"report: {outdir}")
    src = {}

    def text_of(path, line):
        if path not in src:
            try:
                src[path] = open(os.path.join(info["ksrc"], path), errors="replace").read().splitlines()
            except OSError:
                src[path] = []
        return src[path][line - 1].strip() if 0 < line <= len(src[path]) else ""

    rows, detail = [], []
    for name in funcs:
        every, uf = branch_outcomes(covs["sweeps"], name), branch_outcomes(covs["under-failure"], name)
        after = branch_outcomes(covs["after-failure"], name)
        if not every:
            rows.append([name, "-", "-", "-", "-", "not compiled on this tree, or no branch"])
            continue
        reached = sum(1 for c in every.values() if c)
        reached_uf = sum(1 for k in every if uf.get(k))
        abort = sum(1 for k in every if not uf.get(k) and after.get(k))
        rows.append([name, str(len(every)), frac(reached, len(every)), frac(reached_uf, len(every)),
                     str(abort), str(len(every) - reached)])
        missing = sorted(k for k in every if not uf.get(k))
        if missing:
            detail.append(f"\n{name}: {len(missing)} branch outcome(s) never taken before an injected failure")
            for k in missing:
                how = ("not reached by the sweeps" if not every[k] else
                       "only after the failure (abort path)" if after.get(k) else
                       "reached, never in a failing operation")
                detail.append(f"  {k[0]}:{k[1]}:{k[2]} {k[3]:5}  {how:37}  {text_of(k[0], k[1])[:70]}")
    text = (f"Branch coverage under failure, kernel {info['kver']} ({info['ksrc']}): {ntests} tests "
            f"-R '{regex}'.\nBefore a failure: taken between arming a fault configuration and the first "
            f"failure it injected (the sweeps arm one per step); only after one: taken in a failing "
            f"operation, after its first injected failure (the abort path itself).\n\n")
    text += "\n".join(table(rows, ["function", "outcomes", "reached by the sweeps", "before a failure",
                                     "only after one", "not reached"])) + "\n"
    text += "\n".join(detail) + "\n"
    open(os.path.join(outdir, "under-failure.txt"), "w").write(text)
    print()
    print(text, end="")
    print(f"\ntotal {time.monotonic() - t_start:.0f}s; written: {os.path.join(outdir, 'under-failure.txt')}")
    return 0


# ---------------------------------------------------------------- --compare
# (kernel file, tools/testing harness, make target, ksim labels that drive that file)
HARNESSES = [("lib/maple_tree.c", "tools/testing/radix-tree", "maple", ["maple-suite"]),
             ("mm/vma.c", "tools/testing/vma", "vma", ["mm-sim"])]


def kernel_harness_cov(run, harness, target, log):
    """Build a tools/testing harness from a scratch copy with the coverage
    flags (bench_maple_suite's copy and build), run it once -> (Coverage,
    note).  Coverage is None when it does not build."""
    from ksimlib import bench_maple_suite as B
    work = os.path.join(run.build, "kharness")
    try:
        binary, binfo = B.build_kernel_harness(run.info["ksrc"], work, harness, target,
                                               cc=run.info["cc"], cflags=FLAGS, ldflags=FLAGS[:1])
    except B.BenchError as e:
        return None, str(e)
    pdir = os.path.join(run.data, "profraw", "kernel-" + target)
    shutil.rmtree(pdir, ignore_errors=True)
    os.makedirs(pdir)
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(pdir, PROFILE))
    # The maple harness aborts now and then at run_check_rcu_slowread's
    # timing-dependent check (scripts/ksimlib/bench_maple_suite.py): up to
    # 3 runs until one passes; every run's counters count.
    rcs, t0 = [], time.monotonic()
    for attempt in range(3):
        say(f"running {binary} (run {attempt + 1})")
        rcs.append(run_streamed([binary], log, env=env, cwd=os.path.dirname(binary),
                                show=lambda l: re.search(r"tests passed|Assertion|ERROR", l)
                                is not None))
        if rcs[-1] == 0:
            break
    note = (f"{harness} `{target}` (clang, {binfo['flags']}): exit {', '.join(map(str, rcs))}, "
            f"{time.monotonic() - t0:.0f}s")
    pd = merge(run.profdata_tool, [pdir], os.path.join(run.data, f"kernel-{target}.profdata"))
    if not pd:
        return None, note + "; no profile written"
    js = export(run.cov_tool, pd, [binary], os.path.join(run.data, f"kernel-{target}.json"))
    copy = os.path.join(work, "linux-" + binfo["version"])
    return load(js, LineMap(copy, run.build)), note


def hit_lines(cov, path):
    fc = cov.files.get(path) if cov else None
    return {l for l, c in fc.lines.items() if c} if fc else set()


def by_function(fc, lines):
    """{function name: n lines} for lines inside fc's functions."""
    out = {}
    funcs = sorted(fc.funcs.values(), key=lambda f: f.start) if fc else []
    for l in lines:
        f = next((f for f in funcs if f.start <= l <= f.end), None)
        name = f.name if f else "(outside functions)"
        out[name] = out.get(name, 0) + 1
    return out


def compare(run, cov_all, binaries, args, outdir, log):
    head = ["kernel file", "run by", "lines", "branches", "regions", "functions"]
    rows, notes = [], []
    for path, harness, target, labels in HARNESSES:
        kcov, note = kernel_harness_cov(run, harness, target, log)
        notes.append(f"{path}: " + (note if kcov else f"the kernel harness is not measured: {note}"))
        sub = [l for l in labels if os.path.isdir(os.path.join(run.data, "profraw", l))]
        scov = run.report(sub, test_binaries(run.build, sub), "-".join(sub)) if sub else None
        for who, c in ((f"kernel {harness}", kcov), (f"ksim {', '.join(labels)}", scov),
                       ("ksim, all coverage tiers", cov_all)):
            fc = c.files.get(path) if c else None
            if not fc:
                rows.append([path, who, "-", "-", "-", "-"])
                continue
            st = file_stats(fc)
            rows.append([path, who] + [frac(*st[k]) for k in head[2:]])
        if kcov and path in kcov.files:
            only_k = hit_lines(kcov, path) - hit_lines(cov_all, path)
            only_s = hit_lines(cov_all, path) - hit_lines(kcov, path)
            bf = by_function(cov_all.files.get(path) or kcov.files[path], only_k)
            notes.append(f"  lines the kernel harness runs and ksim never does: {len(only_k)}"
                         + (" in " + ", ".join(f"{f} ({n})" for f, n in
                                              sorted(bf.items(), key=lambda kv: -kv[1]))
                            if bf else ""))
            notes.append(f"  lines ksim runs and the kernel harness never does: {len(only_s)}")
    out = [f"kernel {run.info['kver']}: the kernel's own harness vs ksim, clang source-based "
           "coverage of the same tree"] + table(rows, head) + notes
    return "\n".join(out) + "\n"


def hit_outcomes(fc):
    """{(line, col, outcome)} of the branch outcomes fc's tests took."""
    if not fc:
        return set()
    return {(k[0], k[1], o) for k, (t, f) in fc.branches.items()
            for o, c in (("T", t), ("F", f)) if c}


def without_text(cov, rest, only, without, others):
    """--without: per kernel .c file that `without` runs, its coverage
    alone, the other labels' alone and both, and what each side adds."""
    name = ", ".join(without)
    head = ["kernel file", "lines: all", f"without {name}", f"{name} alone", "only it", "only the rest",
            "branches: all", f"without {name}", f"{name} alone", "only it", "only the rest"]
    rows, notes = [], []
    for fc in main_files(cov):
        o = only.files.get(fc.path)
        if not fc.path.endswith(".c") or not hit_lines(only, fc.path):
            continue
        r = rest.files.get(fc.path)
        lo, lr = hit_lines(only, fc.path), hit_lines(rest, fc.path)
        bo, br = hit_outcomes(o), hit_outcomes(r)
        nl, nb = len(fc.lines), 2 * len(fc.branches)
        rows.append([fc.path, frac(len(lo | lr), nl), frac(len(lr), nl), frac(len(lo), nl),
                     str(len(lo - lr)), str(len(lr - lo)), frac(len(bo | br), nb), frac(len(br), nb),
                     frac(len(bo), nb), str(len(bo - br)), str(len(br - bo))])
        for who, lines in ((name, lo - lr), ("the rest", lr - lo)):
            bf = sorted(by_function(fc, lines).items(), key=lambda kv: -kv[1])
            if bf:
                notes.append(f"  {fc.path}: lines only {who} runs, by function: " + ", ".join(
                    f"{f} ({n})" for f, n in bf[:10]) + (f", ... ({len(bf) - 10} more)"
                                                          if len(bf) > 10 else ""))
    out = [f"Coverage with and without {name} (the rest: {', '.join(others)}); kernel .c "
           f"files {name} runs at all. Only it / only the rest: lines (branch outcomes) one side "
           "runs and the other never does."]
    return "\n".join(out + (table(rows, head) if rows else [f"  {name} runs no kernel .c file"])
                     + notes) + "\n"


def queue_gain(base, cov):
    out = ["lines the fuzz queue adds to the tests:"]
    for fc in main_files(cov):
        b = base.files.get(fc.path)
        bl = {l for l, c in (b.lines.items() if b else []) if c}
        new = sorted(l for l, c in fc.lines.items() if c and l not in bl)
        if new:
            out.append(f"  {fc.path}: {len(new)} line(s)")
    if len(out) == 1:
        out.append("  none")
    return "\n".join(out) + "\n"


def add_arguments(p):
    p.add_argument("--build", default=os.path.join("build", "coverage"),
                   help="a build configured with --preset coverage (default build/coverage)")
    p.add_argument("-L", "--labels",
                   help="CTest labels to run, comma-separated (default: every label of the "
                        "build's tests but fuzz-smoke, stress-short and repro)")
    p.add_argument("--fuzz", metavar="TARGET",
                   help="also replay the queue of the latest campaign of TARGET "
                        "(ksim-out/fuzz/TARGET/<latest>/afl/*/queue)")
    p.add_argument("--fuzz-queue", nargs="+", metavar="DIR",
                   help="also replay these queues (an AFL++ output directory, a queue "
                        "directory or files); with --fuzz-target")
    p.add_argument("--fuzz-target", default="maple", help="replay binary for --fuzz-queue")
    p.add_argument("--compare", action="store_true",
                   help="also build and run the kernel's own harnesses (maple, vma) with the "
                        "same instrumentation: one table")
    p.add_argument("--without", metavar="LABELS",
                   help="also report what these labels add: per kernel file they run, the "
                        "coverage of all labels, of the others alone and of these alone "
                        "(without.txt)")
    p.add_argument("--reuse", action="store_true",
                   help="reuse the test profiles of the previous run when no test binary changed")
    p.add_argument("--under-failure", nargs="?", const=UNDER_FAILURE_TESTS, metavar="REGEX",
                   help="branch coverage of the merge/split/copy functions by the tests matching "
                        f"REGEX (default '{UNDER_FAILURE_TESTS}': the failure sweeps), plain and "
                        "cut at each injected failure (KSIM_FAULT_COVERAGE=under-failure)")
    p.add_argument("--functions", help="with --under-failure: these functions (comma-separated) "
                                       "instead of the default list")
    p.add_argument("--out", help="report directory (default ksim-out/coverage/<kernel version>)")
    p.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
