"""ksim repro: a patch series in, a verdict out.

    scripts/ksim repro --series FILE.mbox [--suite maple,mm] [--ab] [--bisect]
                       [--stress SECONDS] [--ksrc DIR | --kver 6.1] [--seed N]

Steps: a scratch copy of the kernel tree (a `git worktree` of a git KSRC,
otherwise a hard-linked copy of the directories ksim compiles, see
scripts/ksim-kernel), the series applied patch by patch (`git am`, or
`patch -p1`), one ksim build directory configured with -DKSRC=<scratch>,
only the suites' targets built, the suites' CTest tests run with one seed
(KSIM_SEED), results parsed from CTest's JUnit file.

States: 0 = the tree without the series, k = patches 1..k applied.  The
default run measures the last state only; --ab measures 0 and the last,
--bisect every state.  The scratch tree and the build directory evolve in
place (the next patch is applied, ninja rebuilds what it touched), so a
bisect step costs an incremental build, not a full one.

--coverage: the build uses the coverage preset (clang source-based
coverage, its own build directory) and the verdict is followed by the patch
coverage: of the lines the series adds or changes in the kernel files, which
the chosen suites executed and which they never reached (file:line lists and
a percentage; scripts/ksimlib/coverage.py reads the profiles).

Exit status: 0 clean verdict, 1 failures (with --ab/--bisect: new ones),
2 bad input or a series that does not apply, 3 a build failure.
"""
import argparse
import email.header
import importlib.machinery
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KSIM_KERNEL = os.path.join(ROOT, "scripts", "ksim-kernel")


def die(msg, code=2):
    print(f"ksim repro: {msg}", file=sys.stderr)
    sys.exit(code)


class ReproError(Exception):
    """One-line failure with an exit code."""
    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code


# ---------------------------------------------------------------- suites
class Suite:
    """One selectable suite: which CTest tests, which targets build them,
    which kernel paths it depends on (for --suite auto), what it benchmarks."""
    def __init__(self, name, help, ctest, targets=None, paths=(), bench=(), auto=True):
        self.name, self.help, self.ctest = name, help, ctest
        self.targets = targets      # None: build everything
        self.paths = paths
        self.bench = bench          # (label, argv relative to the build dir)
        self.auto = auto            # --suite auto may pick it (not a subset)


def suites(manifest):
    """{name: Suite} from a build's manifest (ksim_component() and ksim_suite()
    calls, cmake/Component.cmake)."""
    out = {}
    for s in manifest.data["suites"]:
        bench = [(b["label"], [os.path.relpath(b["binary"], manifest.build)] + b["args"])
                 for b in s["bench"]]
        out[s["name"]] = Suite(s["name"], s["help"], s["ctest"], s["targets"], s["paths"],
                               bench, s["auto"])
    return out


def suites_for(ksrc, preset="default", cmake_args=()):
    """The suites before any build of the tree exists (--list, ksim mutate):
    from the manifest of a configure-only build of it (a patch series does
    not change which suites there are)."""
    from ksimlib import manifest
    try:
        return suites(manifest.for_tree(ksrc, preset, cmake_args))
    except manifest.ManifestError as e:
        raise ReproError(str(e), 3)


# ---------------------------------------------------------------- series
class FileDiff:
    def __init__(self, path, text, new=False):
        self.path, self.text, self.new = path, text, new
        self.hunks = re.findall(r"^@@ [^\n]*", text, re.M)


class Patch:
    def __init__(self, subject, text, headers, files):
        self.subject, self.text, self.headers, self.files = subject, text, headers, files
        self.index = 0
        self.total = 0

    @property
    def label(self):
        return f"patch {self.index}/{self.total} \"{self.subject}\""


_MBOX_FROM = re.compile(r"^From [^\n]*\n(?=[A-Za-z-]+: )", re.M)


def _strip_path(p):
    p = p.split("\t")[0].strip()
    if p == "/dev/null":
        return None
    return p.split("/", 1)[1] if "/" in p else p


def split_files(diff):
    """Split a diff into per-file sections (git or plain unified diffs)."""
    lines = diff.splitlines(keepends=True)
    if any(l.startswith("diff --git ") for l in lines):
        starts = [i for i, l in enumerate(lines) if l.startswith("diff --git ")]
    else:
        starts = [i for i, l in enumerate(lines) if l.startswith("--- ")
                  and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")]
    files = []
    for n, s in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        sec = lines[s:end]
        # Trailing mail signature ("-- \n2.39.2") is not part of the diff.
        for j, l in enumerate(sec):
            if l == "-- \n":
                sec = sec[:j]
                break
        text = "".join(sec)
        old = re.search(r"^--- (\S+)", text, re.M)
        new = re.search(r"^\+\+\+ (\S+)", text, re.M)
        git = re.match(r"diff --git a/(\S+) b/(\S+)", text)
        path = (new and _strip_path(new.group(1))) or (old and _strip_path(old.group(1))) \
            or (git and git.group(2))
        if not path:
            continue
        files.append(FileDiff(path, text, new=bool(old and _strip_path(old.group(1)) is None)
                              or "\nnew file mode" in text[:300]))
    return files


def _decode(h):
    return "".join(b.decode(c or "utf-8", "replace") if isinstance(b, bytes) else b
                   for b, c in email.header.decode_header(h))


def parse_message(msg, fallback_subject):
    """One mail (or a bare diff) -> Patch; None for a cover letter."""
    head, sep, body = msg.partition("\n\n")
    headers = {}
    if sep and re.match(r"^(From [^\n]*\n)?[A-Za-z-]+: ", head):
        cur = None
        for l in head.splitlines():
            if l.startswith("From ") and cur is None and not headers:
                continue
            if l[:1] in " \t" and cur:
                headers[cur] += " " + l.strip()
            elif ":" in l:
                cur, _, v = l.partition(":")
                cur = cur.strip().lower()
                headers[cur] = v.strip()
    else:
        body = msg
    subject = _decode(headers.get("subject", "")) or fallback_subject
    subject = re.sub(r"^\s*(\[[^\]]*\]\s*)+", "", subject).strip()
    files = split_files(body if headers else msg)
    if not files:
        return None
    return Patch(subject, msg, headers, files)


def read_series(paths):
    """FILE.mbox, *.patch files or directories of them -> [Patch], in order."""
    inputs = []
    for p in paths:
        if os.path.isdir(p):
            inputs += sorted(os.path.join(p, f) for f in os.listdir(p)
                             if f.endswith((".patch", ".diff", ".mbox", ".eml")))
        elif os.path.isfile(p):
            inputs.append(p)
        else:
            raise ReproError(f"--series {p}: no such file or directory")
    patches = []
    for f in inputs:
        text = open(f, encoding="utf-8", errors="replace").read()
        msgs = [m for m in _MBOX_FROM.split(text) if m.strip()] if _MBOX_FROM.search(text) \
            else [text]
        for m in msgs:
            p = parse_message(m, os.path.basename(f))
            if p:
                patches.append(p)
    if not patches:
        raise ReproError(f"--series {' '.join(paths)}: no patches found (expected mbox or diff files)")
    for i, p in enumerate(patches, 1):
        p.index, p.total = i, len(patches)
    return patches


# ---------------------------------------------------------------- scratch tree
def _kernel_parts():
    mod = importlib.machinery.SourceFileLoader("ksim_kernel", KSIM_KERNEL).load_module()
    return mod.PARTS


def resolve_ksrc(ksrc, kver):
    env = dict(os.environ)
    env.pop("KSRC", None)
    env.pop("KVER", None)
    argv = [sys.executable, KSIM_KERNEL, "--version"]
    if ksrc:
        argv += ["--ksrc", ksrc]
    if kver:
        argv += ["--kver", kver]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode:
        raise ReproError(r.stderr.strip().splitlines()[-1].replace("ksim: ", "") if r.stderr.strip()
                         else "cannot resolve the kernel tree")
    path, ver = r.stdout.strip().split("\t")
    return path, ver


def is_git(tree):
    r = subprocess.run(["git", "-C", tree, "rev-parse", "--show-toplevel"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return r.returncode == 0 and os.path.realpath(r.stdout.strip()) == os.path.realpath(tree)


class Tree:
    """The scratch kernel tree the series is applied to."""
    def __init__(self, src, dest):
        self.src, self.dir = src, dest
        self.git = is_git(src)
        self.parts = None
        self.base = None            # git: the commit the series goes on

    def create(self):
        if self.git:
            dirty = subprocess.run(["git", "-C", self.src, "status", "--porcelain", "-uno"],
                                   stdout=subprocess.PIPE, text=True).stdout.strip()
            if dirty:
                print(f"  note: {self.src} has uncommitted changes; the scratch tree is its HEAD")
            r = subprocess.run(["git", "-C", self.src, "worktree", "add", "--detach", self.dir,
                                "HEAD"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode:
                raise ReproError(f"git worktree add {self.dir} failed: {r.stdout.strip()[-300:]}")
            self.base = subprocess.run(["git", "-C", self.dir, "rev-parse", "HEAD"],
                                       stdout=subprocess.PIPE, text=True).stdout.strip()
            return
        # Only what ksim compiles: hard links (same file system) or copies.
        # Files a patch touches are un-linked first (Tree.own), so the
        # source tree is never written.
        self.parts = _kernel_parts()
        os.makedirs(self.dir)
        for part in self.parts:
            s = os.path.join(self.src, part)
            if not os.path.exists(s):
                continue
            d = os.path.join(self.dir, part)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            r = subprocess.run(["cp", "-al", s, d], stderr=subprocess.DEVNULL)
            if r.returncode:
                shutil.rmtree(d, ignore_errors=True) if os.path.isdir(d) else None
                subprocess.run(["cp", "-a", s, d], check=True)

    def remove(self):
        if self.git:
            subprocess.run(["git", "-C", self.src, "worktree", "remove", "--force", self.dir],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def changed_lines(self, paths):
        """{path: [line numbers in the patched file]} of the lines the series
        added or changed (unified diff against the unpatched tree, -U0)."""
        out = {}
        for path in sorted(set(paths)):
            new = os.path.join(self.dir, path)
            if not os.path.isfile(new):
                continue
            if self.git:
                argv = ["git", "-C", self.dir, "diff", "-U0", self.base, "--", path]
            else:
                old = os.path.join(self.src, path)
                argv = ["diff", "-U0", old if os.path.isfile(old) else "/dev/null", new]
            diff = subprocess.run(argv, stdout=subprocess.PIPE, text=True, errors="replace").stdout
            lines, cur = [], None
            for l in diff.splitlines():
                m = re.match(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
                if m:
                    cur = int(m.group(1))
                elif cur is not None and l.startswith("+") and not l.startswith("+++"):
                    lines.append(cur)
                    cur += 1
            if lines:
                out[path] = lines
        return out

    def in_parts(self, path):
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.parts)

    def own(self, path):
        """Give the scratch tree its own copy of a hard-linked file."""
        f = os.path.join(self.dir, path)
        if os.path.isfile(f) and os.stat(f).st_nlink > 1:
            tmp = f + ".ksim-own"
            shutil.copyfile(f, tmp)
            shutil.copymode(f, tmp)
            os.replace(tmp, f)

    def apply(self, patch, workdir):
        """Apply one patch; raise ReproError naming the patch and hunk that failed.
        Returns notes (skipped files)."""
        return self._apply_git(patch, workdir) if self.git else self._apply_patch(patch, workdir)

    def _apply_patch(self, patch, workdir):
        keep, skipped = [], []
        for fd in patch.files:
            if os.path.exists(os.path.join(self.dir, fd.path)) or (fd.new and self.in_parts(fd.path)):
                keep.append(fd)
            else:
                skipped.append(fd.path)
        notes = [f"not in the directories ksim compiles, skipped: {', '.join(skipped)}"] \
            if skipped else []
        if not keep:
            return notes + ["touches nothing ksim compiles"]
        for fd in keep:
            self.own(fd.path)
        pf = os.path.join(workdir, f"patch-{patch.index:04d}.diff")
        with open(pf, "w") as f:
            f.write("".join(fd.text if fd.text.endswith("\n") else fd.text + "\n" for fd in keep))
        base = ["patch", "-p1", "-N", "-f", "--no-backup-if-mismatch", "-d", self.dir, "-i", pf]
        r = subprocess.run(base + ["--dry-run"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise ReproError(f"{patch.label} does not apply: {self._patch_failure(r.stdout, keep)}")
        r = subprocess.run(base, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise ReproError(f"{patch.label} does not apply: {self._patch_failure(r.stdout, keep)}")
        fuzz = re.findall(r"Hunk #(\d+) succeeded at (\d+) with fuzz (\d+)", r.stdout)
        if fuzz:
            notes.append("applied with fuzz: " + ", ".join(f"hunk #{h} at line {l} (fuzz {z})"
                                                           for h, l, z in fuzz))
        return notes

    @staticmethod
    def _hunk_text(keep, path, n):
        for fd in keep:
            if fd.path == path and 0 < n <= len(fd.hunks):
                return fd.hunks[n - 1]
        return ""

    def _patch_failure(self, out, keep):
        cur = None
        for l in out.splitlines():
            m = re.match(r"(?:checking|patching) file (\S+)", l)
            if m:
                cur = m.group(1)
            m = re.match(r"Hunk #(\d+) FAILED at (\d+)", l)
            if m:
                return (f"{cur} hunk #{m.group(1)} ({self._hunk_text(keep, cur, int(m.group(1)))}) "
                        f"FAILED at line {m.group(2)}")
            if "Reversed (or previously applied) patch detected" in l:
                return f"{cur}: already applied (or reversed)"
            m = re.search(r"can't find file to patch", l)
            if m:
                return f"{cur or 'a file'}: no such file in the tree"
        last = [l for l in out.splitlines() if l.strip()]
        return last[-1] if last else "patch failed"

    def _apply_git(self, patch, workdir):
        pf = os.path.join(workdir, f"patch-{patch.index:04d}.mbox")
        env = dict(os.environ)
        env.setdefault("GIT_COMMITTER_NAME", "ksim repro")
        env.setdefault("GIT_COMMITTER_EMAIL", "ksim-repro@localhost")
        text = patch.text
        if not patch.headers:       # a bare diff: give git am a mail around it
            text = (f"From: ksim repro <ksim-repro@localhost>\nSubject: {patch.subject}\n\n"
                    f"{patch.subject}\n---\n{text}")
        if not text.startswith("From "):
            text = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n" + text
        with open(pf, "w") as f:
            f.write(text)
        r = subprocess.run(["git", "-C", self.dir, "am", "-q", pf], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
        if r.returncode == 0:
            return []
        subprocess.run(["git", "-C", self.dir, "am", "--abort"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        m = re.search(r"error: patch failed: (\S+):(\d+)", r.stdout)
        if m:
            path, line = m.group(1), int(m.group(2))
            for fd in patch.files:
                if fd.path == path:
                    for n, h in enumerate(fd.hunks, 1):
                        hm = re.match(r"@@ -(\d+)", h)
                        if hm and int(hm.group(1)) == line:
                            raise ReproError(f"{patch.label} does not apply: {path} hunk #{n} "
                                             f"({h}) FAILED at line {line}")
            raise ReproError(f"{patch.label} does not apply: {path} FAILED at line {line}")
        m = re.search(r"error: (.*)", r.stdout)
        raise ReproError(f"{patch.label} does not apply: {m.group(1) if m else r.stdout.strip()[-200:]}")


# ---------------------------------------------------------------- build and run
def run_logged(argv, log, env=None, cwd=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
        f.flush()
        return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=cwd).returncode


class Build:
    def __init__(self, workdir, tree, preset, jobs, cmake_args):
        self.dir = os.path.join(workdir, "build")
        self.tree, self.preset, self.jobs, self.cmake_args = tree, preset, jobs, cmake_args
        self.workdir = workdir
        self.targets = None
        self.profile_dir = None     # --coverage: LLVM_PROFILE_FILE goes here

    def configure(self):
        log = os.path.join(self.workdir, "configure.log")
        argv = ["cmake", "--preset", self.preset, "-S", ROOT, "-B", self.dir,
                f"-DKSRC={self.tree.dir}"] + self.cmake_args
        env = dict(os.environ)
        env.pop("KSRC", None)
        env.pop("KVER", None)
        if run_logged(argv, log, env=env, cwd=ROOT):
            raise ReproError(f"configure failed (log: {log}): " + _last_error(log), 3)
        out = subprocess.run(["ninja", "-C", self.dir, "-t", "targets", "all"],
                             stdout=subprocess.PIPE, text=True).stdout
        self.targets = {l.split(":")[0] for l in out.splitlines()}

    def suites(self):
        from ksimlib import manifest
        try:
            return suites(manifest.load(self.dir))
        except manifest.ManifestError as e:
            raise ReproError(str(e), 3)

    def build(self, targets, log):
        argv = ["cmake", "--build", self.dir, "-j", str(self.jobs)]
        if targets is not None:
            have = [t for t in targets if t in self.targets]
            if not have:
                return True
            argv += ["--target"] + have
        return run_logged(argv, log) == 0

    def count(self, suite):
        out = subprocess.run(["ctest", "--test-dir", self.dir, "-N"] + suite.ctest,
                             stdout=subprocess.PIPE, text=True).stdout
        m = re.search(r"Total Tests: (\d+)", out)
        return int(m.group(1)) if m else 0

    def run(self, suite, seed, junit, log, timeout):
        # A series' failures are its own: never replayed with the known fixes.
        env = dict(os.environ, KSIM_SEED=str(seed), KSIM_ATTRIBUTION="0")
        if self.profile_dir:
            from ksimlib.coverage import PROFILE
            env["LLVM_PROFILE_FILE"] = os.path.join(self.profile_dir, PROFILE)
        run_logged(["ctest", "--test-dir", self.dir, "-j", str(self.jobs), "--timeout",
                    str(timeout), "--output-junit", junit, "--test-output-size-passed", "1000000",
                        "--test-output-size-failed", "4000000"] + suite.ctest, log, env=env)
        return parse_junit(junit)


def _last_error(log):
    lines = open(log, errors="replace").read().splitlines()
    pick = [l for l in lines if l.startswith("ksim:") or "error" in l.lower()]
    return (pick or lines or ["?"])[-1].strip()[:300]


def build_errors(log):
    """The lines that say why a build failed (ksim-diagnose's first)."""
    lines = open(log, errors="replace").read().splitlines()
    ksim = [l for l in lines if l.startswith("ksim:")]
    errs = [l for l in lines if re.search(r"\berror\b", l) and not l.startswith("ninja")]
    return (ksim + errs)[:8] or lines[-5:]


def parse_junit(path):
    """{test name: (ok, output)} from CTest's JUnit file."""
    res = {}
    if not os.path.exists(path):
        return res
    for tc in ET.parse(path).getroot().iter("testcase"):
        name = tc.get("name")
        failed = tc.find("failure") is not None or tc.get("status") == "fail"
        out = tc.findtext("system-out") or ""
        res[name] = (not failed, out)
    return res


REPLAY = re.compile(r"(?:^# replay: (.*)$|^\s*replay: (.*)$|(ksim: replay with KSIM_SEED=\d+))", re.M)


def replay_lines(output):
    got = []
    for m in REPLAY.finditer(output):
        line = next(g for g in m.groups() if g)
        if line not in got:
            got.append(line)
    return got


# ---------------------------------------------------------------- a run
class State:
    """Results of one tree state (0 = base, k = patches 1..k)."""
    def __init__(self, k):
        self.k = k
        self.built = True
        self.build_errors = []
        self.tests = {}       # name -> (ok, output)
        self.bench = {}       # label -> [seconds]


def select_suites(spec, patches, known):
    """known: {name: Suite} (suites())."""
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if names == ["auto"] or not names:
        touched = {fd.path for p in patches for fd in p.files}
        names = [s.name for s in known.values() if s.auto and
                 any(t == dp or t.startswith(dp) for t in touched for dp in s.paths)]
        if not names:
            names = ["maple"]
        print(f"  suites (auto, from the files the series touches): {', '.join(names)}")
    for n in names:
        if n not in known:
            raise ReproError(f"--suite {n}: unknown suite (known: {', '.join(known)}, auto)")
    return [known[n] for n in names]


def measure(state, build, suites, args, workdir):
    tag = f"state-{state.k}"
    log = os.path.join(workdir, f"{tag}.log")
    targets = set()
    for s in suites:
        if s.targets is None:
            targets = None
            break
        targets |= set(s.targets)
    if args.stress:
        targets = None
    t0 = time.monotonic()
    if not build.build(sorted(targets) if targets is not None else None, log):
        state.built = False
        state.build_errors = build_errors(log)
        print(f"  [{tag}] build FAILED ({time.monotonic() - t0:.0f}s, log {log})")
        return
    tb = time.monotonic() - t0
    t1 = time.monotonic()
    if args.coverage:
        build.profile_dir = os.path.join(workdir, f"profraw-{state.k}")
        shutil.rmtree(build.profile_dir, ignore_errors=True)
        os.makedirs(build.profile_dir)
    for s in suites:
        if not build.count(s):
            continue
        junit = os.path.join(workdir, f"{tag}-{s.name}.xml")
        state.tests.update(build.run(s, args.seed, junit, log, args.timeout))
    if args.stress:
        exe = [sys.executable, os.path.join(ROOT, "scripts", "ksim"), "stress", "--build",
               build.dir, "--duration", str(args.stress), "--seed", str(args.seed)]
        r = subprocess.run(exe, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(log, "a") as f:
            f.write(r.stdout)
        state.tests[f"stress ({args.stress}s)"] = (r.returncode == 0, r.stdout)
    t_tests = time.monotonic() - t1
    t2 = time.monotonic()
    for s in suites:
        for label, argv in (s.bench if args.bench else ()):
            exe = os.path.join(build.dir, argv[0])
            if not os.path.exists(exe):
                continue
            times = []
            for _ in range(args.bench):
                t = time.monotonic()
                r = subprocess.run([exe] + argv[1:], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL,
                                   env=dict(os.environ, KSIM_SEED=str(args.seed)))
                if r.returncode:        # a failing run is not a time
                    times = None
                    break
                times.append(time.monotonic() - t)
            if times:
                state.bench[label] = times
    bad = sum(1 for ok, _ in state.tests.values() if not ok)
    print(f"  [{tag}] built in {tb:.0f}s, {len(state.tests)} test(s) in {t_tests:.0f}s: "
          f"{bad} failed" + (f"; benchmarks {time.monotonic() - t2:.0f}s" if state.bench else ""),
          flush=True)


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def cell(state, name):
    if state is None:
        return ""
    if not state.built:
        return "no build"
    if name not in state.tests:
        return "-"
    return "pass" if state.tests[name][0] else "FAIL"


def shown(state, name):
    """cell() for the table: a pass that is a known finding's XFAIL, and a
    failure that is its XPASS (the finding stopped failing), say so."""
    c = cell(state, name)
    out = state.tests[name][1] if c in ("pass", "FAIL") else ""
    if c == "pass" and "ksim: XFAIL:" in out:
        return "xfail"
    if c == "FAIL" and "ksim: XPASS:" in out:
        return "XPASS"
    return c


def report(args, patches, suites, states, ksrc, kver, workdir, build):
    names = sorted({n for s in states for n in s.tests})
    measured = [s for s in states if s is not None]
    print()
    empty = [s.name for s in suites if not build.count(s)]
    for n in empty:
        print(f"suite {n}: no tests for this suite in this checkout")
    head = ["test"] + [("base" if s.k == 0 else f"+{s.k}") for s in measured]
    rows = [[n] + [shown(s, n) for s in measured] for n in names]
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)))

    # Benchmarks: base vs last, medians of repeated runs in this process.
    if args.bench and measured[0].k == 0 and len(measured) > 1:
        a, b = measured[0], measured[-1]
        for label in a.bench:
            if label in b.bench:
                ma, mb = _median(a.bench[label]), _median(b.bench[label])
                print(f"  bench {label}: base {ma:.2f}s [{min(a.bench[label]):.2f}-"
                      f"{max(a.bench[label]):.2f}], patched {mb:.2f}s [{min(b.bench[label]):.2f}-"
                      f"{max(b.bench[label]):.2f}], ratio {mb / ma:.2f}x "
                      f"({args.bench} runs each, median [min-max])")

    last = measured[-1]
    first = measured[0]
    series = " ".join(shlex.quote(os.path.abspath(s)) for s in args.series)
    base_cmd = (f"scripts/ksim repro --series {series}"
                + (f" --ksrc {shlex.quote(args.ksrc)}" if args.ksrc else "")
                + (f" --kver {args.kver}" if args.kver and not args.ksrc else "")
                + f" --suite {','.join(s.name for s in suites)} --seed {args.seed}"
                + (f" --preset {args.preset}" if args.preset != "default" else "")
                + "".join(f" --cmake-arg={shlex.quote(a)}" for a in args.cmake_arg))

    def first_change(name, to_fail):
        prev = None
        for s in measured:
            if not s.built or name not in s.tests:
                continue
            ok = s.tests[name][0]
            if prev is not None and prev != ok and ok != to_fail:
                return s.k
            prev = ok
        return None

    # Build failures
    if not last.built:
        bad = next(s for s in measured if not s.built)
        who = patches[bad.k - 1].label if bad.k else "the base tree"
        print(f"\nVERDICT: BUILD FAILS with {who}")
        for l in bad.build_errors:
            print(f"  {l}")
        print(f"reproduce:\n  {base_cmd} --upto {bad.k} --keep")
        return 3

    if first.k == 0 and len(measured) > 1:
        new = [n for n in names if cell(first, n) == "pass" and cell(last, n) == "FAIL"]
        fixed = [n for n in names if cell(first, n) == "FAIL" and cell(last, n) == "pass"]
        still = [n for n in names if cell(first, n) == "FAIL" and cell(last, n) == "FAIL"]
        also_new = [n for n in names if cell(first, n) in ("-", "", "no build") and cell(last, n) == "FAIL"]
        new += also_new
    else:
        new = [n for n in names if cell(last, n) == "FAIL"]
        fixed, still = [], []

    # A listed finding that stops failing (ksim-xfail's XPASS against
    # docs/findings.toml) is what a fix does: FIXED, not a new failure.
    xpass = [n for n in new if "ksim: XPASS:" in last.tests[n][1]]
    new = [n for n in new if n not in xpass]
    fixed += xpass
    # A new failure that passes when rerun alone with the same seed is
    # reported as flaky (the kernel suites have timing-dependent checks), not
    # counted in the exit status.
    flaky = {}
    for n in list(new):
        if args.rerun <= 0 or not last.built:
            break
        passes = 0
        for i in range(args.rerun):
            junit = os.path.join(workdir, f"rerun-{i}.xml")
            sel = Suite(n, "", ["-R", f"^{re.escape(n)}$"])
            res = build.run(sel, args.seed, junit, os.path.join(workdir, "rerun.log"), args.timeout)
            passes += 1 if res.get(n, (False,))[0] else 0
        if passes:
            flaky[n] = passes
            new.remove(n)
    print()
    for n, k in flaky.items():
        print(f"FLAKY  {n}: failed with the series, then passed {k} of {args.rerun} rerun(s) "
              f"with the same seed (not counted)")
    bisected = len(measured) == len(patches) + 1
    for n in fixed:
        k = first_change(n, to_fail=False) if bisected else None
        print(f"FIXED  {n}" + (f": first passes with {patches[k - 1].label}" if k else "")
              + (" (a known finding stops failing: XPASS against docs/findings.toml)" if n in xpass else ""))
    for n in still:
        print(f"STILL FAILS  {n} (fails without the series too)")
    if not new:
        what = "no new failures" if first.k == 0 and len(measured) > 1 else "all selected tests pass"
        print(f"VERDICT: CLEAN: {what} ({len(last.tests)} test(s), kernel {kver}, "
              f"{len(patches)} patch(es), seed {args.seed})")
        return 0
    print(f"VERDICT: {len(new)} FAILURE(S) with the series (kernel {kver}, seed {args.seed})")
    for n in new:
        k = first_change(n, to_fail=True) if bisected else None
        intro = f"; first bad: {patches[k - 1].label}" if k else ""
        print(f"FAIL  {n}{intro}")
        print(f"  reproduce (tree kept at {workdir}/tree, build {build.dir}):")
        print(f"    ctest --test-dir {build.dir} -R '^{re.escape(n)}$' --output-on-failure")
        for l in replay_lines(last.tests[n][1])[:5]:
            print(f"    {l}")
        print(f"    {base_cmd} --upto {k or len(patches)} --keep   # rebuild that tree from scratch")
    return 1


def _ranges(lines):
    """[3, 4, 5, 9] -> "3-5,9"."""
    out, lines = [], sorted(lines)
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and lines[j + 1] == lines[j] + 1:
            j += 1
        out.append(str(lines[i]) if i == j else f"{lines[i]}-{lines[j]}")
        i = j + 1
    return ",".join(out)


def patch_coverage(tree, build, patches, suites, state, workdir):
    """Which added or changed lines of the kernel files the suites executed."""
    from ksimlib import coverage as C
    try:
        run = C.Run(build.dir)
        binaries = sorted({b for s in suites for b in C.test_binaries(build.dir, s.ctest)})
        cov = run.report_dirs([build.profile_dir], binaries, f"state-{state.k}")
    except C.CovError as e:
        print(f"\nPATCH COVERAGE: not measured: {e}")
        return
    changed = tree.changed_lines(fd.path for p in patches for fd in p.files)
    print(f"\nPATCH COVERAGE: lines the series adds or changes, run by suites "
          f"{', '.join(s.name for s in suites)} ({len(binaries)} test binaries)")
    ran = total = 0
    for path, lines in changed.items():
        if C.EXCLUDE_RE.match(path):
            continue
        fc = cov.files.get(path)
        if fc is None or not fc.lines:
            print(f"  {path}: {len(lines)} line(s); the suites' binaries do not compile this file")
            continue
        hit = [l for l in lines if fc.lines.get(l)]
        miss = [l for l in lines if l in fc.lines and not fc.lines[l]]
        other = len(lines) - len(hit) - len(miss)
        ran += len(hit)
        total += len(hit) + len(miss)
        print(f"  {path}: {len(hit)} of {len(hit) + len(miss)} code line(s) executed "
              f"({C.pct(len(hit), len(hit) + len(miss)).strip()})"
              + (f"; {other} line(s) not code (comments, declarations, compiled out)"
                 if other else ""))
        if hit:
            print(f"    executed:      {path}:{_ranges(hit)}")
        if miss:
            print(f"    never reached: {path}:{_ranges(miss)}")
    print(f"  patch coverage: {ran} of {total} code line(s) executed "
          f"({C.pct(ran, total).strip()})" if total else
          "  patch coverage: the series changes no code line the suites' binaries compile")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ksim repro", description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true",
                    help="print the suites (name, CTest selection, kernel paths) and stop")
    ap.add_argument("--series", nargs="+", metavar="FILE",
                    help="mbox, .patch/.diff files, or directories of them, in order")
    ap.add_argument("--suite", default="auto",
                    help="comma-separated suite names (the components' and maple-regression, "
                         "regression, stress, fuzz, unit: the build's ksim-manifest.json); "
                         "'auto' (default) picks the suites whose kernel paths the series touches")
    ap.add_argument("--ksrc", default=os.environ.get("KSRC", ""), help="kernel tree (default: KVER)")
    ap.add_argument("--kver", default=os.environ.get("KVER", ""), help="Debian linux-source version")
    ap.add_argument("--ab", action="store_true", help="also run the tree without the series")
    ap.add_argument("--bisect", action="store_true", help="run after every patch (implies --ab)")
    ap.add_argument("--upto", type=int, help="apply only patches 1..K")
    ap.add_argument("--stress", type=float, default=0, metavar="SECONDS",
                    help="also run `ksim stress` for SECONDS in each measured state")
    ap.add_argument("--fuzz", type=float, default=0, metavar="SECONDS")
    ap.add_argument("--bench", type=int, default=0, metavar="RUNS",
                    help="with --ab: run the suites' benchmarks RUNS times per side")
    ap.add_argument("--rerun", type=int, default=1, metavar="N",
                    help="rerun each new failure N times alone; passing once = flaky (default 1)")
    ap.add_argument("--seed", type=int, help="KSIM_SEED for every test (default: time)")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--coverage", action="store_true",
                    help="build with the coverage preset; report which lines the series adds or "
                         "changes the suites executed and which they never reached")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--workdir", help="default: build/repro/<time> in this checkout")
    ap.add_argument("--keep", action="store_true", help="keep the scratch tree and build")
    args = ap.parse_args(argv)
    if not args.series and not args.list:
        ap.error("--series is required (or --list)")
    if args.seed is None:
        args.seed = int(time.time())
    if args.coverage:
        if args.preset not in ("default", "coverage"):
            print(f"ksim repro: --coverage uses the coverage preset, not --preset {args.preset}",
                  file=sys.stderr)
            return 2
        args.preset = "coverage"
    try:
        return list_suites(args) if args.list else run(args)
    except ReproError as e:
        print(f"ksim repro: {e}", file=sys.stderr)
        return e.code


def list_suites(args):
    ksrc, kver = resolve_ksrc(args.ksrc, args.kver)
    known = suites_for(ksrc, args.preset, args.cmake_arg)
    print(f"ksim repro: suites for kernel {kver} ({ksrc}), from ksim-manifest.json")
    w = max(len(n) for n in known)
    for s in known.values():
        print(f"  {s.name:<{w}}  {s.help}")
        print(f"  {'':<{w}}    ctest {' '.join(shlex.quote(a) for a in s.ctest)}; "
              f"{'auto: ' + ' '.join(s.paths) if s.auto and s.paths else 'not picked by auto'}")
    return 0


def run(args):
    patches = read_series(args.series)
    if args.upto is not None:
        if not 0 <= args.upto <= len(patches):
            raise ReproError(f"--upto {args.upto}: the series has {len(patches)} patch(es)")
        patches = patches[:args.upto]
    if args.fuzz:
        print("  note: --fuzz: short fuzz runs are not wired in this checkout "
              "(no fuzz targets yet); corpus replay runs as the 'fuzz' suite")
    ksrc, kver = resolve_ksrc(args.ksrc, args.kver)
    workdir = os.path.abspath(args.workdir or os.path.join(
        ROOT, "build", "repro", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"))
    if os.path.exists(workdir) and os.listdir(workdir):
        raise ReproError(f"--workdir {workdir} exists and is not empty")
    os.makedirs(workdir, exist_ok=True)
    print(f"ksim repro: kernel {kver} ({ksrc}), {len(patches)} patch(es), seed {args.seed}, "
          f"work {workdir}")
    tree = Tree(ksrc, os.path.join(workdir, "tree"))
    rc = 2
    try:
        t0 = time.monotonic()
        tree.create()
        print(f"  scratch tree: {tree.dir} ({'git worktree' if tree.git else 'hard-linked copy'}, "
              f"{time.monotonic() - t0:.1f}s)")
        # Without --ab/--bisect the whole series goes on first: a series that
        # does not apply stops before anything is built.
        if not (args.ab or args.bisect):
            for p in patches:
                notes = tree.apply(p, workdir)
                print(f"  applied {p.label}" + "".join(f"\n    note: {n}" for n in notes))
        build = Build(workdir, tree, args.preset, args.jobs, args.cmake_arg)
        build.configure()
        # The suites are those of the build about to run them (its
        # ksim-manifest.json): configured first, so a series that does not
        # apply still stops before anything is configured or built.
        suites = select_suites(args.suite, patches, build.suites())
        states = []
        if args.ab or args.bisect:
            st = State(0)
            measure(st, build, suites, args, workdir)
            states.append(st)
            for p in patches:
                notes = tree.apply(p, workdir)
                print(f"  applied {p.label}" + "".join(f"\n    note: {n}" for n in notes))
                if args.bisect or p.index == len(patches):
                    st = State(p.index)
                    measure(st, build, suites, args, workdir)
                    states.append(st)
        else:
            st = State(len(patches))
            measure(st, build, suites, args, workdir)
            states.append(st)
        rc = report(args, patches, suites, states, ksrc, kver, workdir, build)
        if args.coverage and states[-1].built:
            patch_coverage(tree, build, patches, suites, states[-1], workdir)
        return rc
    except ReproError as e:
        rc = e.code
        raise
    finally:
        # Failures keep the tree and build (the reproduce commands use them);
        # a clean verdict or a series that does not apply leaves nothing.
        if rc in (0, 2) and not args.keep:
            tree.remove()
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"  kept: {workdir} (remove with: rm -rf {workdir}"
                  + (f"; git -C {tree.src} worktree prune" if tree.git else "") + ")")
