"""AFL++ campaigns for the fuzz targets (`make fuzz-<target>`, `ksim fuzz TARGET`).

One campaign:
  1. builds three AFL++ trees of the same KSRC: plain (main instance and
     plain secondaries), CMPLOG (AFL_LLVM_CMPLOG=1) and ASan+UBSan;
  2. generates seeds (fuzz/gen_corpus.py + the committed fuzz/corpus/TARGET)
     and the dictionary;
  3. runs a main instance (-M) and JOBS-1 secondaries (-S): the first with
     the CMPLOG binary (-c), the second on the ASan build, the rest plain;
     prints a status line every 10 s, stops after DURATION seconds;
  4. replays every crash and hang with the replay binary (ASan build), groups
     them by signature (the harness's `ksim-fuzz: signature:` line or the
     sanitizer's report plus its top frames), minimises one per group with
     afl-tmin, and writes for each: the minimised input, the reproducer
     command and the readable operation trace (replay -v).
Everything is kept under ksim-out/fuzz/TARGET/<timestamp>/ in the repository
root (gitignored), outside every build tree: nothing found is lost.

--smoke: one plain instance for DURATION seconds (CI); fails if the fuzzer
did not run.  What it finds is triaged and kept like a campaign's.  Finding
something is random; a saved input that replays to the same signature twice
is not: it is a deterministic failure of this tree.  Unless its signature is
a known finding (docs/findings.toml), or (KSIM_ATTRIBUTION=1, as `make test`
sets it) the input passes on the same tree with the known fixes applied
(scripts/ksimlib/fixes.py: a new face of a known finding, attributed to it),
the smoke test FAILS and prints the replay command.  KSIM_FUZZ_SMOKE_NEW=warn
only prints it.
"""
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from ksimlib import fixes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AFL_ENV = {"AFL_SKIP_CPUFREQ": "1", "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
           "AFL_NO_UI": "1"}


def free_cores():
    """CPU cores no process is bound to alone, counted the way afl-fuzz does
    before it binds itself (user processes whose Cpus_allowed_list is one core).
    An instance bound to a core ran ~1.25x faster (maple, 30 s runs) than one that migrates (the
    fork server's SIGSTOP/SIGCONT round trip per input stays on one CPU; a
    trivial target: 100,000 vs 17,000 execs/s), but afl-fuzz aborts when no
    core is free: those instances run with AFL_NO_AFFINITY=1."""
    busy = set()
    for st in glob.glob("/proc/[0-9]*/status"):
        try:
            text = open(st).read()
        except OSError:
            continue
        m = re.search(r"^Cpus_allowed_list:\s*(\d+)\s*$", text, re.M)
        if m and "VmSize:" in text:
            busy.add(int(m.group(1)))
    return len(set(os.sched_getaffinity(0)) - busy)


NO_AFL = "AFL++ is not installed (apt-get install afl++, or run 'make bootstrap')"


def log(msg):
    print(f"ksim fuzz: {msg}", flush=True)


def die(msg):
    print(f"ksim fuzz: {msg}", file=sys.stderr)
    sys.exit(2)


def tree_lock(bdir):
    """The AFL++ tree @bdir's lock file, open and locked (flock): `with
    tree_lock(d):` holds it, one configure or build at a time.  The smoke tests of several targets
    run side by side and share one tree (two configures of one fresh
    directory at once failed: "C compiler identification is unknown",
    "liburcu not found")."""
    bdir = os.path.abspath(bdir)
    os.makedirs(bdir, exist_ok=True)
    lk = open(os.path.join(os.path.dirname(bdir), f".{os.path.basename(bdir)}.lock"), "w")
    fcntl.flock(lk, fcntl.LOCK_EX)
    return lk


def configure(bdir, ksrc, extra=(), env=None):
    """Configure one AFL++ tree (once); returns its fuzz targets (the
    manifest's {name: entry}, cmake/Component.cmake)."""
    with tree_lock(bdir):
        return _configure(bdir, ksrc, extra, env)


def _configure(bdir, ksrc, extra, env):
    from ksimlib import manifest
    args = ["cmake", "--preset", "afl", "-B", bdir, "-DKSIM_FUZZ_SMOKE=OFF"] + list(extra)
    if ksrc:
        args.append(f"-DKSRC={ksrc}")
    e = dict(os.environ, **(env or {}))
    if not os.path.exists(os.path.join(bdir, "build.ninja")) or \
            not os.path.exists(os.path.join(bdir, manifest.NAME)):
        log(f"configuring {bdir}")
        r = subprocess.run(args, cwd=ROOT, env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            sys.stdout.write(r.stdout)
            die(f"configure of {bdir} failed")
    try:
        return manifest.load(bdir).fuzz_targets()
    except manifest.ManifestError as e:
        die(str(e))


def build(bdir, ksrc, target, extra=(), env=None, jobs=2, replay=True):
    """Configure (once) and build one AFL++ tree; returns the binary paths
    (replay=False: the fuzzing binary only, when crashes replay elsewhere)."""
    with tree_lock(bdir):
        t = _configure(bdir, ksrc, extra, env).get(target)
        if t is None:
            die(f"{bdir} has no fuzz target '{target}'")
        e = dict(os.environ, **(env or {}))
        log(f"building fuzz_{target} in {bdir}")
        r = subprocess.run(["cmake", "--build", bdir, "-j", str(jobs), "--target", f"fuzz_{target}"]
                           + ([f"fuzz_{target}_replay"] if replay else []),
                           cwd=ROOT, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        sys.stdout.write(r.stdout[-6000:])
        die(f"build of {bdir} failed")
    return t["binary"], t["replay"]


def seeds(target, outdir):
    """Generated seeds + the committed corpus; returns (input dir, dictionary)."""
    ind = os.path.join(outdir, "seeds")
    os.makedirs(ind, exist_ok=True)
    dic = os.path.join(outdir, f"{target}.dict")
    subprocess.check_call([sys.executable, os.path.join(ROOT, "fuzz", "gen_corpus.py"), target,
                           "--out", ind, "--dict", dic])
    for f in glob.glob(os.path.join(ROOT, "fuzz", "corpus", target, "*")):	# fuzz/corpus/<target>
        shutil.copy(f, os.path.join(ind, "corpus-" + os.path.basename(f)))
    return ind, dic


def read_stats(path):
    st = {}
    try:
        for line in open(path):
            k, _, v = line.partition(":")
            st[k.strip()] = v.strip()
    except OSError:
        pass
    return st


def status(outdir, names):
    parts = []
    total_eps = 0.0
    for n in names:
        st = read_stats(os.path.join(outdir, "afl", n, "fuzzer_stats"))
        if not st:
            parts.append(f"{n}: starting")
            continue
        # Without a UI AFL++ rewrites fuzzer_stats about once a minute: the
        # queue and crash counts come from the directories (live), execs
        # from the last stats write (its run_time is the age of the figure).
        live = {d: len(glob.glob(os.path.join(outdir, "afl", n, d, "id:*")))
                for d in ("queue", "crashes", "hangs")}
        rt = float(st.get("run_time", 0) or 0)
        if rt >= 5:
            eps = float(st.get("execs_done", 0)) / rt
            total_eps += eps
            rate = f"{int(float(st.get('execs_done', 0)))} execs {eps:.0f}/s (at {rt:.0f}s)"
        else:
            rate = "execs: no stats yet"
        parts.append(f"{n}: {rate} queue {live['queue']} cov {st.get('bitmap_cvg', '?')} "
                     f"crashes {live['crashes']} hangs {live['hangs']} stab {st.get('stability', '?')}")
    return total_eps, "; ".join(parts)


def _head(text):
    """(the failure's first line, whether it is the harness's whole signature)."""
    m = re.search(r"ksim-fuzz: signature: (.*)", text)
    if m:
        return m.group(1).strip(), True
    m = re.search(r"ksim: BUG: [^:]*:\d+: ([^(]*)", text)
    head = m.group(1).strip() if m else None
    if not head:
        m = re.search(r"ERROR: (\w+Sanitizer: [\w-]+)", text) or \
            re.search(r"runtime error: (.*)", text)
        head = m.group(1).strip() if m else "unknown"
    return head, False


def signature(text):
    """Dedupe key: the harness's signature, else the sanitizer report + top frames."""
    head, whole = _head(text)
    if whole:
        return head
    frames = re.findall(r"#\d+ 0x[0-9a-f]+ in (\w+)", text)
    skip = {"__sanitizer_print_stack_trace", "ksim_dump_stack", "ksim_bug", "abort", "raise",
            "__GI_abort", "__GI_raise", "ksim_fuzz_fail", "obj_free", "kmem_cache_free",
            "kmem_cache_free_bulk"}
    frames = [f for f in frames if f not in skip and not f.startswith("__asan")][:3]
    return head + " @ " + " < ".join(frames)


def raw_key(text):
    """What an unsymbolized replay's report says: a refinement of signature().

    With ASAN_OPTIONS=symbolize=0 a frame reads (module+offset) instead of
    its function, in ASan's reports and in the shim's (shim/mm/slab.c); the
    same offsets are the same functions, so two failures with one key have
    one signature.  Symbolizing is ~90% of a replay (ASan's libbacktrace
    reads the binary's line tables in every process).
    """
    return _head(text)[0] + " @ " + " ".join(re.findall(
        r"^\s*#\d+ 0x[0-9a-f]+\s+\(([^()\s]+\+0x[0-9a-f]+)\)", text, re.M))


def replay(binary, path, verbose=False, timeout=60, symbolize=True):
    args = [binary] + (["-v"] if verbose else ["-q"]) + [path]
    env = None
    if not symbolize:
        opts = os.environ.get("ASAN_OPTIONS", "")
        env = dict(os.environ, ASAN_OPTIONS=(opts + ":" if opts else "") + "symbolize=0")
    try:
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout, env=env)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return -1, out + "\nksim-fuzz: signature: hang (replay timed out)\n"


FAILURE_LINE = re.compile(r"FAIL|ERROR|runtime error|BUG|WARN|Sanitizer|signature|SEGV|ksim: test failure")


def known_match(sig, trace):
    """A known-failure signature against a replay's output.

    By default it is matched against the failure's own lines, not the op
    trace above them (an input's ops name functions that are not what
    failed).  "trace:TEXT" matches the op trace instead: for a tree whose
    known bug corrupts the structure, so that whatever fails after one of
    its calls is not triaged apart (6.1.192's allocation method).
    """
    if sig.startswith("trace:"):
        return sig[len("trace:"):] in trace
    failure = "\n".join(l for l in trace.splitlines() if FAILURE_LINE.search(l))
    return all(part in failure for part in sig.split(" && "))


def known_signatures(target, kver):
    """(signature, finding id) of this target's known inputs on kver (docs/findings.toml)."""
    from ksimlib import findings
    return [(e["raw"], e["id"]) for e in findings.xfails("fuzz", kver)
            if e["part"].startswith(target + "/")]


def triage(target, outdir, fuzz_bin, replay_bin, kver, tmin=True):
    """Group crashes and hangs by signature; minimise and document one per group."""
    found = sorted(glob.glob(os.path.join(outdir, "afl", "*", "crashes", "id:*")) +
                   glob.glob(os.path.join(outdir, "afl", "*", "hangs", "id:*")))
    # Every input unsymbolized first.  The harness's own signature line is
    # the signature; other failures are grouped by raw_key(), and one
    # symbolized replay per key names its inputs' signature (inputs that do
    # not fail again symbolized are replayed one by one, as before).
    norepro = "does not reproduce in the replay binary"
    groups, raw = {}, {}
    for f in found:
        rc, out = replay(replay_bin, f, symbolize=False)
        head, whole = _head(out)
        if rc == 0:
            groups.setdefault(norepro, []).append(f)
        elif whole:
            groups.setdefault(head, []).append(f)
        else:
            raw.setdefault(raw_key(out), []).append(f)
    for key, files in raw.items():
        for i, f in enumerate(files):
            rc, out = replay(replay_bin, f)
            if rc == 0:
                groups.setdefault(norepro, []).append(f)
                continue
            groups.setdefault(signature(out), []).extend(files[i:])
            break
    for files in groups.values():
        files.sort()
    known = known_signatures(target, kver)
    unknown = 0
    deterministic = []
    for i, (sig, files) in enumerate(sorted(groups.items())):
        d = os.path.join(outdir, "unique", f"{i:03d}-" + hashlib.sha1(sig.encode()).hexdigest()[:8])
        os.makedirs(d, exist_ok=True)
        first = files[0]
        mini = os.path.join(d, "input")
        if tmin and sig != "does not reproduce in the replay binary":
            r = subprocess.run(["afl-tmin", "-i", first, "-o", mini, "-t", "2000", "--", fuzz_bin],
                               env=dict(os.environ, **AFL_ENV), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
            if r.returncode or not os.path.exists(mini):
                shutil.copy(first, mini)
        else:
            shutil.copy(first, mini)
        rc, trace = replay(replay_bin, mini, verbose=True)
        if rc == 0:      # minimisation lost it: keep the original
            shutil.copy(first, mini)
            rc, trace = replay(replay_bin, mini, verbose=True)
        open(os.path.join(d, "trace.txt"), "w").write(trace)
        is_known = next((fid for k, fid in known if known_match(k, trace)), None)
        # Deterministic: the kept input fails twice with one signature.
        rc2, out2 = replay(replay_bin, mini)
        steady = rc != 0 and rc2 != 0 and signature(trace) == signature(out2)
        # A new face of a known bug: it goes away with the known fixes applied.
        attributed = None
        if not is_known and steady and fixes.enabled() and fixes.build_of(replay_bin):
            rb = fixes.build_of(replay_bin)
            try:
                verdict, detail = fixes.attribute(rb, [replay_bin, "-q", mini], output=trace,
                                                  name=f"fuzz-smoke/{target}", timeout=60, say=log)
            except fixes.FixError as e:
                verdict, detail = "unavailable", str(e)
            fixes.record(rb, f"fuzz-smoke/{target}: {sig}", verdict, detail, [replay_bin, mini])
            if verdict == "attributed":
                attributed = is_known = ", ".join(detail)
            else:
                log(f"  not attributed: {detail}")
        with open(os.path.join(d, "README"), "w") as f:
            f.write(f"signature: {sig}\n{len(files)} input(s) with this signature, e.g. {first}\n")
            f.write(f"known finding: {is_known or 'no'}"
                    + (" (attributed: passes with its fix applied)" if attributed else "") + "\n")
            f.write(f"replays the same way twice: {'yes' if steady else 'no'}\n")
            f.write(f"reproduce: {replay_bin} -v {mini}\n")
        new = not is_known and sig != "does not reproduce in the replay binary"
        unknown += new
        if new and steady:
            deterministic.append(f"{replay_bin} -v {mini}")
        tag = f" [attributed: {attributed}]" if attributed else f" [known: {is_known}]" if is_known \
            else " [NEW, deterministic]" if new and steady else " [NEW]" if new else ""
        log(f"unique {os.path.basename(d)}: {len(files)} input(s){tag}: {sig}")
        log(f"  reproduce: {replay_bin} -v {mini}")
    return len(groups), unknown, deterministic


def afl_command(ind, afl_out, dic, duration, name, binary, main=True, asan=False, extra=()):
    """One afl-fuzz instance: -M (main) or -S NAME, DURATION seconds.
    "-t N+": a seed slower than the limit (a loaded machine) is skipped
    instead of aborting the dry run."""
    cmd = ["afl-fuzz", "-i", ind, "-o", afl_out, "-x", dic, "-V", str(int(duration)),
           "-M" if main else "-S", name] + list(extra)
    cmd += ["-m", "none", "-t", "5000+"] if asan else ["-t", "2000+"]
    return cmd + ["--", binary]


def run(args):
    target = args.target
    if not shutil.which("afl-fuzz") or not shutil.which("afl-clang-fast"):
        if args.smoke:	# CTest's skip: not covered, not passed
            print(f"ksim fuzz: SKIP: {NO_AFL}: the fuzz smoke test did not run", file=sys.stderr)
            sys.exit(77)
        die(NO_AFL)
    duration = int(args.duration)
    jobs = max(1, int(args.jobs))
    base = args.build or os.path.join(ROOT, "build", "afl")
    # The targets are the manifest's of the AFL++ tree this campaign builds:
    # configure it first (cheap), then check the name.
    known = configure(base, args.ksrc)
    if target not in known:
        die(f"unknown fuzz target '{target}' (known: {', '.join(known)})")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = os.path.abspath(os.path.join(args.out or os.path.join(ROOT, "ksim-out", "fuzz"), target,
                                          ("smoke-" if args.smoke else "") + stamp))
    os.makedirs(outdir, exist_ok=True)
    fuzz_bin, _ = build(base, args.ksrc, target, replay=not args.replay_bin)
    kver = read_cache(base, "KSIM_KVERSION_RESOLVED")
    cmplog_bin = asan_bin = None
    asan_replay = None
    if not args.smoke:
        cmplog_bin, _ = build(base + "-cmplog", args.ksrc, target, env={"AFL_LLVM_CMPLOG": "1"})
        asan_bin, asan_replay = build(base + "-asan", args.ksrc, target,
                                      extra=["-DKSIM_SANITIZE=address,undefined"])
    # Crashes replay under ASan+UBSan where we have it (a campaign's ASan
    # tree, or the test build's replay binary for a smoke run): a plain
    # build turns a NULL dereference into a bare SIGSEGV without a signature.
    replay_bin = asan_replay or args.replay_bin or known[target]["replay"]
    ind, dic = seeds(target, outdir)
    afl_out = os.path.join(outdir, "afl")
    env = dict(os.environ, **AFL_ENV)
    procs, names = [], []
    n = 1 if args.smoke else jobs
    bindable = free_cores()
    for i in range(n):
        name = "main" if i == 0 else f"sec{i}"
        e = dict(env)
        if i >= bindable:
            e["AFL_NO_AFFINITY"] = "1"
        binary, extra = fuzz_bin, []
        if not args.smoke:
            # One CMPLOG instance (the main one when alone), one on ASan.
            if i == min(1, jobs - 1):
                extra = ["-c", cmplog_bin]
            if i == 2:
                binary = asan_bin
                e["AFL_USE_ASAN"] = "1"
        cmd = afl_command(ind, afl_out, dic, duration, name, binary, main=(i == 0),
                          asan=(binary == asan_bin), extra=extra)
        logf = open(os.path.join(outdir, f"{name}.log"), "w")
        procs.append(subprocess.Popen(cmd, env=e, stdout=logf, stderr=subprocess.STDOUT))
        names.append(name)
        log(f"started {name}: {' '.join(cmd)}")
    if not args.smoke and jobs < 3:
        log(f"JOBS={jobs}: the ASan instance needs JOBS>=3 (main, CMPLOG, ASan); "
            "crashes are still replayed under ASan")
    t0 = time.monotonic()
    try:
        # A status line every quarter of the run (at most 10 s); the end of
        # the instances is seen within 0.2 s, not at the next status line.
        every = min(10, max(1, duration / 4))
        due = t0 + every
        while any(p.poll() is None for p in procs):
            time.sleep(0.2)
            if time.monotonic() >= due:
                due += every
                eps, line = status(outdir, names)
                log(f"[{time.monotonic() - t0:5.0f}s] {eps:.0f} execs/s total; {line}")
    except KeyboardInterrupt:
        log("interrupted: stopping instances")
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
    total_execs = 0
    for name in names:
        st = read_stats(os.path.join(afl_out, name, "fuzzer_stats"))
        if st:
            total_execs += int(st.get("execs_done", 0) or 0)
            log(f"SUMMARY target={target} instance={name} execs={st.get('execs_done')} "
                f"execs_per_sec={st.get('execs_per_sec')} corpus={st.get('corpus_count')} "
                f"coverage={st.get('bitmap_cvg')} stability={st.get('stability')} "
                f"crashes={st.get('saved_crashes')} hangs={st.get('saved_hangs')}")
    uniq, unknown, deterministic = triage(target, outdir, fuzz_bin, replay_bin, kver,
                                          tmin=not args.smoke)
    log(f"{uniq} unique crash/hang signature(s), {unknown} not known kernel failures; "
        f"everything is in {outdir}")
    if args.smoke:
        # Whether 20 s find something is random; a found input that replays
        # the same way twice is a deterministic failure of this tree.
        if unknown:
            log(f"NEW: {unknown} signature(s) not in docs/findings.toml; inputs, traces and "
                f"reproducers are kept in {outdir}")
        if not total_execs:
            return 1
        if deterministic:
            warn = os.environ.get("KSIM_FUZZ_SMOKE_NEW", "") == "warn"
            for cmd in deterministic:
                log(f"{'NEW (not failing: KSIM_FUZZ_SMOKE_NEW=warn)' if warn else 'FAIL'}: "
                    f"a new kernel failure that replays deterministically: {cmd}")
            return 0 if warn else 1
        return 0
    return 1 if unknown else 0


def read_cache(bdir, key):
    try:
        text = open(os.path.join(bdir, "CMakeCache.txt")).read()
    except OSError:
        return ""
    m = re.search(rf"^{key}:INTERNAL=(.*)$", text, re.M)
    return m.group(1) if m else ""


def add_arguments(p):
    p.add_argument("target", help="a fuzz target (fuzz/<target>.c; the AFL++ build's "
                   "ksim-manifest.json lists them)")
    p.add_argument("--duration", type=float, default=float(os.environ.get("DURATION", 120)))
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 1)))
    p.add_argument("--build", help="AFL++ build directory (default build/afl; -cmplog and "
                   "-asan siblings are made beside it)")
    p.add_argument("--ksrc", default=os.environ.get("KSRC"), help="kernel tree")
    p.add_argument("--out", help="output root (default ksim-out/fuzz/ in the repository)")
    p.add_argument("--smoke", action="store_true", help="one plain instance, for CI")
    p.add_argument("--replay-bin", help="replay binary for triage (default: the campaign's "
                   "ASan build, else the AFL++ build's)")


# ---- corpus refresh (`ksim corpus`, `make corpus`) ----

def corpus(args):
    """Refresh fuzz/corpus/TARGET from real campaigns on every supported tree.

    For each tree: one plain AFL++ instance for --duration seconds, seeded
    as every campaign is (generator + committed corpus).  The queues of all
    trees and the committed corpus are pooled and minimised with afl-cmin -e
    (edge coverage) against each tree's binary; the union of the per-tree minimal sets that
    replays cleanly on every tree (ASan+UBSan replay binaries of the test
    builds) becomes the new corpus, with the committed inputs kept beside it
    (they are written for their meaning: named failure points, shapes).
    An input that fails on some tree is a finding, not corpus: it is listed
    and left in the campaign's directory, with its triage.
    """
    if not shutil.which("afl-fuzz") or not shutil.which("afl-cmin"):
        die(NO_AFL)
    from ksimlib.matrix import SUPPORTED
    from ksimlib.repro import resolve_ksrc, ReproError
    from ksimlib.report import build_dir
    kvers = args.kver.split() if args.kver else SUPPORTED
    for k in kvers:
        if k not in SUPPORTED:
            die(f"unsupported kernel {k} (supported: {', '.join(SUPPORTED)})")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    top = os.path.join(ROOT, "ksim-out", "corpus", stamp)
    os.makedirs(top, exist_ok=True)
    trees = {}
    for k in kvers:
        try:
            ksrc, version = resolve_ksrc(None, k)
        except ReproError as e:
            die(f"kernel {k}: {e}")
        # The AFL++ tree `make fuzz-<t> KVER=k` builds, and `make test KVER=k`'s.
        afl_dir, test_dir = build_dir(k, "afl"), build_dir(k, "default")
        trees[k] = dict(ksrc=ksrc, version=version, afl=afl_dir, test=test_dir,
                        targets=configure(afl_dir, ksrc))
    names = args.targets or sorted(trees[kvers[0]]["targets"])
    for t in names:
        if t not in trees[kvers[0]]["targets"]:
            die(f"unknown fuzz target '{t}' (known: {', '.join(sorted(trees[kvers[0]]['targets']))})")
    for t in names:
        _refresh_one(t, kvers, trees, top, args.duration, args.jobs)
    log(f"corpus refresh done; campaigns, pools and triage are in {top}")
    return 0


def _refresh_one(t, kvers, trees, top, duration, jobs):
    env = dict(os.environ, **AFL_ENV)
    pool = os.path.join(top, t, "pool")
    os.makedirs(pool, exist_ok=True)
    committed = sorted(glob.glob(os.path.join(ROOT, "fuzz", "corpus", t, "*")))
    bins = {}
    for k in kvers:
        tr = trees[k]
        fuzz_bin, afl_replay = build(tr["afl"], tr["ksrc"], t, jobs=jobs)
        asan_replay = os.path.join(tr["test"], "fuzz", f"fuzz_{t}_replay")
        if not os.path.exists(asan_replay):
            log(f"{t} on {k}: no ASan replay binary in {tr['test']} (make build KVER={k}); "
                f"filtering with the AFL++ build's")
            asan_replay = afl_replay
        bins[k] = (fuzz_bin, asan_replay)
        outdir = os.path.join(top, t, k)
        ind, dic = seeds(t, outdir)
        log(f"{t} on {tr['version']}: {duration:.0f} s campaign")
        cmd = afl_command(ind, os.path.join(outdir, "afl"), dic, duration, "main", fuzz_bin)
        with open(os.path.join(outdir, "main.log"), "w") as logf:
            subprocess.run(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT)
        st = read_stats(os.path.join(outdir, "afl", "main", "fuzzer_stats"))
        if not st:
            die(f"{t} on {k}: afl-fuzz did not run (see {outdir}/main.log)")
        queue = glob.glob(os.path.join(outdir, "afl", "main", "queue", "id:*"))
        log(f"{t} on {tr['version']}: {st.get('execs_done')} execs, queue {len(queue)}, "
            f"coverage {st.get('bitmap_cvg')}")
        for q in queue:
            data = open(q, "rb").read()
            m = re.search(r"orig:corpus-([^,]+)$", q)
            name = m.group(1) if m else "q-" + hashlib.sha1(data).hexdigest()[:12]
            with open(os.path.join(pool, name), "wb") as f:
                f.write(data)
    for c in committed:
        shutil.copy(c, os.path.join(pool, os.path.basename(c)))
    keep = set()
    for k in kvers:
        mind = os.path.join(top, t, f"cmin-{k}")
        # -e: edges, not hit counts (what line and branch coverage see);
        # about 6x fewer inputs than with hit counts (xarray, 20 s on 7.3).
        r = subprocess.run(["afl-cmin", "-e", "-i", pool, "-o", mind, "-t", "5000", "--", bins[k][0]],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace")
        if r.returncode:
            sys.stdout.write(r.stdout[-3000:])
            die(f"afl-cmin of {t} on {k} failed")
        got = set(os.listdir(mind))
        log(f"{t}: afl-cmin on {k} keeps {len(got)} of {len(os.listdir(pool))}")
        keep |= got
    keep |= {os.path.basename(c) for c in committed}
    bad = []
    for name in sorted(keep):
        for k in kvers:
            rc, out = replay(bins[k][1], os.path.join(pool, name))
            if rc and "timed out" in signature(out):   # a loaded machine: once more
                rc, out = replay(bins[k][1], os.path.join(pool, name), timeout=300)
            if rc:
                fid = next((i for sig, i in known_signatures(t, trees[k]["version"])
                            if known_match(sig, out)), None)
                bad.append((name, k, signature(out), f"known: {fid}" if fid else "NEW"))
                break
    for name, k, sig, what in bad:
        keep.discard(name)
        log(f"{t}: left out {name}: fails on {k} ({sig}) [{what}]; kept in {pool}")
    dest = os.path.join(ROOT, "fuzz", "corpus", t)
    lost = [os.path.basename(c) for c in committed if os.path.basename(c) not in keep]
    for c in committed:
        os.remove(c)
    for name in sorted(keep):
        shutil.copy(os.path.join(pool, name), os.path.join(dest, name))
    added = len(keep) - (len(committed) - len(lost))
    log(f"{t}: fuzz/corpus/{t} now {len(keep)} inputs ({added} from the campaigns"
        f"{', ' + str(len(lost)) + ' committed ones dropped: ' + ' '.join(lost) if lost else ''})")


def add_corpus_arguments(p):
    p.add_argument("targets", nargs="*", help="fuzz targets (default: all)")
    p.add_argument("--kver", help="space-separated trees (default: every supported one)")
    p.add_argument("--duration", type=float, default=float(os.environ.get("DURATION", 300)),
                   help="seconds of fuzzing per target and tree (default 300)")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count() or 1)),
                   help="build parallelism")
