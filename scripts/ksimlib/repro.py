"""ksim repro: a patch series in, a verdict that says what was tested out.

    scripts/ksim repro --series FILE.mbox|b4-dir|*.patch [--suite auto|maple,...]
                       [--ab] [--bisect] [--ksrc DIR [--base REV] | --kver 6.1] [--seed N]
    scripts/ksim repro --range v7.3..HEAD --ksrc ~/src/linux

Steps:
 1. Read the series (scripts/ksimlib/patchset.py: mbox, b4 am output, mails
    in any transfer encoding, .patch files, a git range of a git KSRC).
 2. The scratch tree: a hard-linked copy of the directories ksim compiles
    (a `git worktree` of a git KSRC, at --base or HEAD), kept between runs
    with its build directory in a cache keyed by tree and configuration
    (build/repro/cache/); a run first puts the tree back to its base.
 3. Before anything is built, the whole series is applied: a patch that
    does not apply but reverse-applies is "in the tree already"; a
    base-commit: the tree is not at is reported.
 4. Which functions the series changes, and which of them ksim compiles
    (scripts/ksimlib/compiled.py: the preprocessor output of every
    translation unit of the build).  The suites are the tests of the
    components whose own code compiles a changed function, restricted to the
    tests whose binary links it; a series that changes nothing ksim compiles
    stops here (NOT COVERED).
 5. Build only those tests' targets (incremental on the kept build); a
    build failure is bisected over the series and attributed to its first
    breaking patch, and the patched tree is searched for the missing symbol
    before the shim is blamed.
 6. Run the tests (one CTest run, one seed), with clang source-based
    coverage (the coverage preset is the default), and say which changed
    functions and lines they executed.

States: 0 = the tree without the series, k = patches 1..k applied.  The
default run measures the last state only; --ab measures 0 and the last,
--bisect every state.

Verdicts and exit status:
  0  CLEAN           the selected tests pass and executed every changed function
                     and every changed line that has code
  1  FAILURES        a selected test fails with the series (--ab/--bisect: a new failure)
  2  bad input, DOES NOT APPLY, ALREADY APPLIED
  3  BUILD FAILS     with the series (the first breaking patch named), or without it
  4  PARTLY COVERED  the tests pass, but some changed function or line was not
                     compiled by ksim or not executed (listed); also when coverage
                     was not measured (a preset without it)
  5  NOT COVERED     none of the changed code was executed, or ksim compiles none
                     of it (then nothing is built)
"""
import argparse
import fcntl
import hashlib
import importlib.machinery
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from ksimlib import compiled as CM
from ksimlib import patchset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KSIM_KERNEL = os.path.join(ROOT, "scripts", "ksim-kernel")
CACHE_DIR = os.path.join(ROOT, "build", "repro", "cache")
CACHE_KEEP = 3          # cache entries kept (least recently used go first)
EXIT = {"CLEAN": 0, "FAILURES": 1, "INPUT": 2, "BUILD FAILS": 3, "PARTLY COVERED": 4,
        "NOT COVERED": 5}


def die(msg, code=2):
    print(f"ksim repro: {msg}", file=sys.stderr)
    sys.exit(code)


class ReproError(Exception):
    """One-line failure with an exit code."""
    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code


class ApplyError(ReproError):
    """A patch that does not apply; already: it reverse-applies (in the tree)."""
    def __init__(self, msg, already=False):
        super().__init__(msg, 2)
        self.already = already


def say(msg=""):
    print(msg, flush=True)


def cpu():
    """CPU seconds (user + system) of this process and its waited-for
    children: the cost of a step, which wall time on a shared machine is not."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


# ---------------------------------------------------------------- suites
class Suite:
    """One selectable suite: which CTest tests, which targets build them,
    which kernel paths its component declares, what it benchmarks."""
    def __init__(self, name, help, ctest, targets=None, paths=(), bench=(), auto=True,
                 component=None):
        self.name, self.help, self.ctest = name, help, ctest
        self.targets = targets      # None: build everything
        self.paths = paths
        self.bench = bench          # (label, argv relative to the build dir)
        self.auto = auto
        self.component = component


def suites(manifest):
    """{name: Suite} from a build's manifest (ksim_component() and ksim_suite()
    calls, cmake/Component.cmake)."""
    out = {}
    for s in manifest.data["suites"]:
        bench = [(b["label"], [os.path.relpath(b["binary"], manifest.build)] + b["args"])
                 for b in s["bench"]]
        out[s["name"]] = Suite(s["name"], s["help"], s["ctest"], s["targets"], s["paths"],
                               bench, s["auto"], s.get("component"))
    return out


def suites_for(ksrc, preset="default", cmake_args=()):
    """The suites before any build of the tree exists (--list, ksim mutate):
    from the manifest of a configure-only build of it."""
    from ksimlib import manifest
    try:
        return suites(manifest.for_tree(ksrc, preset, cmake_args))
    except manifest.ManifestError as e:
        raise ReproError(str(e), 3)


# ---------------------------------------------------------------- series
def read_series(paths):
    """[Patch] of --series PATH... (patchset.read_series; kept for callers)."""
    try:
        return patchset.read_series(paths).patches
    except patchset.SeriesError as e:
        raise ReproError(str(e))


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


def _git(tree, *argv, env=None):
    return subprocess.run(["git", "-C", tree] + list(argv), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace", env=env)


GIT_ENV = {"GIT_COMMITTER_NAME": "ksim repro", "GIT_COMMITTER_EMAIL": "ksim-repro@localhost"}


class Tree:
    """The scratch kernel tree a series is applied to.

    Not a git KSRC: a copy of the directories ksim compiles, hard-linked to
    the source (files are un-linked before a patch writes them, Tree.own, so
    the source is never written).  The files the tree changed are listed in
    <dir>.dirty, written before each change, so reset() -- even in a later
    process -- puts back exactly those, as fresh copies (a new mtime, so
    ninja rebuilds what included the patched version).

    A git KSRC: a `git worktree` at `base` (a revision; HEAD by default);
    patches are applied with `git am`; reset() checks the base out again."""
    def __init__(self, src, dest, base=None):
        self.src, self.dir = src, dest
        self.git = is_git(src)
        self.parts = None
        self.base_rev = base or "HEAD"
        self.base = None            # git: the commit the series goes on
        self.dirty_file = dest.rstrip("/") + ".dirty"
        self.dirty = set()
        self.changed = set()        # files changed since the build last configured
        self._base_copy = None

    # -- making, reusing, removing
    def exists(self):
        return os.path.isdir(self.dir)

    def create(self):
        if self.git:
            self.base = self._resolve_base()    # a bad --base is one line, the tree kept
        if self.exists():
            try:
                return self.reuse()
            except (ReproError, OSError) as e:
                # A kept tree that cannot be put back (its git worktree was
                # pruned, files went missing): made again.
                say(f"  note: the kept tree cannot be reused ({e}); making it again")
                self.remove()
        if self.git:
            dirty = _git(self.src, "status", "--porcelain", "-uno").stdout.strip()
            if dirty and self.base_rev == "HEAD":
                say(f"  note: {self.src} has uncommitted changes; the scratch tree is its HEAD")
            # -f: a kept worktree removed by hand is still registered.
            r = _git(self.src, "worktree", "add", "-f", "--detach", self.dir, self.base)
            if r.returncode:
                raise ReproError(f"git worktree add {self.dir} failed: {r.stdout.strip()[-300:]}")
            return
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

    def _resolve_base(self):
        r = _git(self.src, "rev-parse", "--verify", "-q", self.base_rev + "^{commit}")
        if r.returncode:
            raise ReproError(f"--base {self.base_rev}: not a commit of {self.src}")
        return r.stdout.strip()

    def reuse(self):
        """A tree kept from an earlier run: back to the base."""
        if not self.git:
            self.parts = _kernel_parts()
            try:
                self.dirty = set(json.load(open(self.dirty_file)))
            except (OSError, ValueError):
                self.dirty = set()
        self.reset()

    def remove(self):
        if self.git:
            subprocess.run(["git", "-C", self.src, "worktree", "remove", "--force", self.dir],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)
        if os.path.exists(self.dirty_file):
            os.unlink(self.dirty_file)
        if self._base_copy:
            shutil.rmtree(self._base_copy, ignore_errors=True)

    def reset(self):
        """Back to the base: the files the series changed, and only those."""
        if self.git:
            _git(self.dir, "am", "--abort")
            self.changed |= set(_git(self.dir, "diff", "--name-only", self.base).stdout.split())
            self.changed |= set(_git(self.dir, "ls-files", "--others", "--exclude-standard")
                                .stdout.split())
            r = _git(self.dir, "checkout", "-q", "-f", "--detach", self.base)
            if r.returncode:
                raise ReproError(f"git checkout {self.base} in {self.dir}: {r.stdout.strip()[-200:]}")
            _git(self.dir, "clean", "-fdq")
            return
        self.changed |= self.dirty
        for path in sorted(self.dirty):
            d, s = os.path.join(self.dir, path), os.path.join(self.src, path)
            if os.path.lexists(d):
                os.unlink(d)
            if os.path.isfile(s):
                os.makedirs(os.path.dirname(d), exist_ok=True)
                shutil.copyfile(s, d)
                shutil.copymode(s, d)
        self.dirty = set()
        self._save_dirty()

    def _save_dirty(self):
        with open(self.dirty_file, "w") as f:
            json.dump(sorted(self.dirty), f)

    # -- files
    def in_parts(self, path):
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.parts)

    def own(self, path):
        """Give the scratch tree its own copy of a hard-linked file, or of
        a symbolic link's target (a KSRC made with `cp -rs`): a write must
        never reach the tree it was made from."""
        f = os.path.join(self.dir, path)
        if os.path.isfile(f) and (os.path.islink(f) or os.stat(f).st_nlink > 1):
            tmp = f + ".ksim-own"
            shutil.copyfile(f, tmp)
            shutil.copymode(f, tmp)
            os.replace(tmp, f)

    def base_file(self, path):
        """A file holding PATH as it is at the base (None: not there)."""
        if not self.git:
            p = os.path.join(self.src, path)
            return p if os.path.isfile(p) else None
        if self._base_copy is None:
            self._base_copy = self.dir.rstrip("/") + ".base"
        out = os.path.join(self._base_copy, self.base[:12], path)
        if not os.path.exists(out):
            r = subprocess.run(["git", "-C", self.dir, "show", f"{self.base}:{path}"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            if r.returncode:
                return None
            os.makedirs(os.path.dirname(out), exist_ok=True)
            open(out, "wb").write(r.stdout)
        return out

    def file(self, path):
        p = os.path.join(self.dir, path)
        return p if os.path.isfile(p) else None

    # -- applying
    def apply(self, patch, workdir):
        """Apply one patch.  ApplyError (already=True when it reverse-applies)
        names the patch and the hunk that failed.  Returns notes."""
        return self._apply_git(patch, workdir) if self.git else self._apply_patch(patch, workdir)

    def _apply_patch(self, patch, workdir):
        keep, skipped = [], []
        for fd in patch.files:
            if os.path.exists(os.path.join(self.dir, fd.path)) or \
                    (fd.new and self.in_parts(fd.path)) or \
                    os.path.exists(os.path.join(self.dir, fd.old_path)):
                keep.append(fd)
            else:
                skipped.append(fd.path)
        notes = [f"not in the directories ksim copies, not applied: {', '.join(skipped)}"] \
            if skipped else []
        if not keep:
            return notes + ["touches nothing ksim copies"]
        pf = os.path.join(workdir, f"patch-{patch.index:04d}.diff")
        with open(pf, "w", **patchset.ENC) as f:
            f.write("".join(fd.text if fd.text.endswith("\n") else fd.text + "\n" for fd in keep))
        base = ["patch", "-p1", "-f", "--no-backup-if-mismatch", "-r", "-", "-d", self.dir,
                "-i", pf]
        r = subprocess.run(base + ["--dry-run"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
        if r.returncode:
            rev = subprocess.run(base + ["-R", "--dry-run"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, errors="replace")
            if rev.returncode == 0:
                raise ApplyError(f"{patch.short} appears to be in the tree already "
                                 f"(it reverse-applies): \"{patch.subject}\"", already=True)
            raise ApplyError(f"{patch.label} does not apply: {self._patch_failure(r.stdout, keep)}")
        touched = {fd.path for fd in keep} | {fd.old_path for fd in keep}
        self.dirty |= touched
        self.changed |= touched
        self._save_dirty()
        for p in touched:
            self.own(p)
        r = subprocess.run(base, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace")
        if r.returncode:
            raise ApplyError(f"{patch.label} does not apply: {self._patch_failure(r.stdout, keep)}")
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
            if re.search(r"can't find file to patch", l):
                return f"{cur or 'a file'}: no such file in the tree"
        last = [l for l in out.splitlines() if l.strip()]
        return last[-1] if last else "patch failed"

    def _apply_git(self, patch, workdir):
        pf = os.path.join(workdir, f"patch-{patch.index:04d}.mbox")
        env = dict(os.environ, **{k: os.environ.get(k, v) for k, v in GIT_ENV.items()})
        text = patch.text
        if not patch.headers:       # a bare diff: give git am a mail around it
            text = (f"From: ksim repro <ksim-repro@localhost>\nSubject: {patch.subject}\n\n"
                    f"{patch.subject}\n---\n{text}")
        elif "from" not in patch.headers:
            text = "From: unknown <unknown@localhost>\n" + text
        if not text.startswith("From "):
            text = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n" + text
        with open(pf, "w", **patchset.ENC) as f:
            f.write(text if text.endswith("\n") else text + "\n")
        diff = os.path.join(workdir, f"patch-{patch.index:04d}.diff")
        with open(diff, "w", **patchset.ENC) as f:
            f.write("".join(fd.text if fd.text.endswith("\n") else fd.text + "\n"
                            for fd in patch.files))
        chk = _git(self.dir, "apply", "--check", diff)
        if chk.returncode:
            if _git(self.dir, "apply", "-R", "--check", diff).returncode == 0:
                raise ApplyError(f"{patch.short} appears to be in the tree already "
                                 f"(it reverse-applies): \"{patch.subject}\"", already=True)
            raise ApplyError(f"{patch.label} does not apply: {self._git_failure(chk.stdout, patch)}")
        r = _git(self.dir, "am", "-q", "--keep-cr", pf, env=env)
        self.changed |= {fd.path for fd in patch.files} | {fd.old_path for fd in patch.files}
        if r.returncode == 0:
            return []
        _git(self.dir, "am", "--abort")
        raise ApplyError(f"{patch.label} does not apply (git am): "
                         f"{self._git_failure(r.stdout, patch)}")

    @staticmethod
    def _git_failure(out, patch):
        m = re.search(r"error: patch failed: (\S+):(\d+)", out)
        if m:
            path, line = m.group(1), int(m.group(2))
            for fd in patch.files:
                if fd.path == path:
                    for n, h in enumerate(fd.hunks, 1):
                        hm = re.match(r"@@ -(\d+)", h)
                        if hm and int(hm.group(1)) == line:
                            return f"{path} hunk #{n} ({h}) FAILED at line {line}"
            return f"{path} FAILED at line {line}"
        m = re.search(r"error: (.*)", out)
        return m.group(1) if m else out.strip()[-200:]


# ---------------------------------------------------------------- the cache
class Workspace:
    """Where the scratch tree and its build live.

    Cached (the default): build/repro/cache/<kernel>-<preset>-<key>/{tree,build},
    key = the source tree, the preset and the CMake arguments; one run at a
    time per entry (a lock), the CACHE_KEEP most recently used entries kept.
    Private (--no-cache, --keep): under the run's work directory."""
    def __init__(self, args, ksrc, kver, workdir):
        self.cached = not (args.no_cache or args.keep)
        if self.cached:
            key = hashlib.sha1("\0".join([os.path.realpath(ksrc), args.preset]
                                         + list(args.cmake_arg)).encode()).hexdigest()[:10]
            self.root = os.path.abspath(args.cache or CACHE_DIR)
            self.dir = os.path.join(self.root, f"{kver}-{args.preset}-{key}")
        else:
            self.dir = workdir
        self.lock = None
        self.ksrc = ksrc

    def acquire(self):
        if not self.cached:
            return
        os.makedirs(self.root, exist_ok=True)
        self.lock = open(self.dir + ".lock", "w")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say(f"  waiting for another ksim repro using {self.dir}")
            fcntl.flock(self.lock, fcntl.LOCK_EX)
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "source"), "w") as f:
            f.write(os.path.realpath(self.ksrc) + "\n")
        os.utime(self.dir)

    def release(self):
        if self.lock:
            self.lock.close()
            self.lock = None
            self.evict()

    def evict(self):
        """Keep the CACHE_KEEP most recently used entries; drop entries whose
        source tree is gone.  Entries in use (locked) are never touched."""
        try:
            entries = [os.path.join(self.root, d) for d in os.listdir(self.root)
                       if os.path.isdir(os.path.join(self.root, d))]
        except OSError:
            return
        entries.sort(key=lambda d: os.stat(d).st_mtime, reverse=True)
        for n, d in enumerate(entries):
            try:
                src = open(os.path.join(d, "source")).read().strip()
            except OSError:
                src = ""
            if n < CACHE_KEEP and src and os.path.isdir(src):
                continue
            with open(d + ".lock", "w") as lk:
                try:
                    fcntl.flock(lk, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue
                if src and os.path.isdir(src) and is_git(src):
                    subprocess.run(["git", "-C", src, "worktree", "remove", "--force",
                                    os.path.join(d, "tree")], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                shutil.rmtree(d, ignore_errors=True)
                os.unlink(d + ".lock")


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
        self.log_dir = workdir      # where configure.log goes
        self.targets = None
        self.profile_dir = None     # LLVM_PROFILE_FILE goes here (coverage builds)
        self.coverage = False
        self._probed = None

    def configure(self):
        """Configure; on a kept build, run CMake again only when the tree
        changed a file a feature probe reads (Tree.changed), since probes
        decide what is compiled.  Otherwise ninja's own rule re-runs CMake
        if ksim's CMake files changed."""
        log = os.path.join(self.log_dir, "configure.log")
        changed = getattr(self.tree, "changed", None)
        if os.path.exists(os.path.join(self.dir, "build.ninja")) and changed is not None \
                and not changed & self.probed_files():
            argv = ["ninja", "-C", self.dir, "build.ninja"]
            env = None
        else:
            argv = ["cmake", "--preset", self.preset, "-S", ROOT, "-B", self.dir,
                    f"-DKSRC={self.tree.dir}"] + self.cmake_args
            env = dict(os.environ)
            env.pop("KSRC", None)
            env.pop("KVER", None)
        if run_logged(argv, log, env=env, cwd=ROOT):
            raise ReproError(f"configure failed (log: {log}): " + _last_error(log), 3)
        if changed is not None:
            changed.clear()
        out = subprocess.run(["ninja", "-C", self.dir, "-t", "targets", "all"],
                             stdout=subprocess.PIPE, text=True).stdout
        self.targets = {l.split(":")[0] for l in out.splitlines()}
        cache = open(os.path.join(self.dir, "CMakeCache.txt")).read()
        self.coverage = re.search(r"^KSIM_COVERAGE:\w+=(ON|1|TRUE)$", cache, re.M) is not None
        self._probed = None

    def probed_files(self):
        """Kernel files the feature probes read (features.h names each)."""
        if self._probed is None:
            try:
                text = open(os.path.join(self.dir, "include", "ksim", "features.h")).read()
            except OSError:
                text = ""
            self._probed = set(re.findall(r"^/\* ([\w./-]+?)(?::| \*/)", text, re.M)) | {"Makefile"}
        return self._probed

    def suites(self):
        from ksimlib import manifest
        try:
            return suites(manifest.load(self.dir))
        except manifest.ManifestError as e:
            raise ReproError(str(e), 3)

    def manifest(self):
        from ksimlib import manifest
        return manifest.load(self.dir)

    def generate(self, log):
        """The generated extracts (ksim-extract), which the map preprocesses.
        Those not made yet are made by their own command: through ninja they
        would first wait for their targets' order-only dependencies (the
        whole shim library), which a series ksim does not compile never needs."""
        gens = sorted(t for t in self.targets if re.search(r"_gen\.[ch]$", t))
        have = [g for g in gens if os.path.exists(os.path.join(self.dir, g))]
        for g in gens:
            if g in have:
                continue
            cmd = subprocess.run(["ninja", "-C", self.dir, "-t", "commands", "-s", g],
                                 stdout=subprocess.PIPE, text=True).stdout.strip()
            if cmd:
                run_logged(["sh", "-c", cmd], log, cwd=self.dir)
        if have:
            run_logged(["ninja", "-C", self.dir, "-k", "0"] + have, log)

    def build(self, targets, log):
        argv = ["cmake", "--build", self.dir, "-j", str(self.jobs)]
        if targets is not None:
            have = [t for t in targets if t in self.targets]
            if not have:
                return True
            argv += ["--target"] + have
        return run_logged(argv, log) == 0

    def tests(self, ctest_args):
        """[(name, [command])] of the CTest tests a selection names."""
        out = subprocess.run(["ctest", "--test-dir", self.dir, "--show-only=json-v1"] + ctest_args,
                             stdout=subprocess.PIPE, text=True).stdout
        try:
            return [(t["name"], t.get("command", [])) for t in json.loads(out).get("tests", [])]
        except ValueError:
            return []

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


# ---------------------------------------------------------------- what the series changes
class Plan:
    """The series' changed functions, what compiles them, and the tests that
    will run (selected from the build's map)."""
    def __init__(self):
        self.files = []             # [compiled.FileChange]
        self.changed = []           # [compiled.Changed], in file order
        # path -> (added code lines outside functions, those compiled, removed
        # ones, does any unit read the file)
        self.outside = {}
        self.comments = 0
        self.uncopied = []          # paths outside the directories ksim copies
        self.tests = []             # CTest names to run
        self.binaries = set()       # their binaries (relative to the build)
        self.components = []        # owner components picked
        self.users = {}             # other component -> changed functions its binaries link
        self.targets = set()
        self.bench = []
        self.selected = 0           # tests selected before --tests

    def compiled(self):
        return [c for c in self.changed if c.objects and c.new_def]

    def removed(self):
        return [c for c in self.changed if c.new_def is None]


def owners_of(obj, comp_dirs, comp_of_binary, links):
    """Components an object belongs to: the one whose folder built it, or,
    for a shared folder's object, every component whose binaries link it."""
    for name, d in comp_dirs.items():
        if obj.startswith(d.rstrip("/") + "/"):
            return {name}
    return {comp_of_binary[b] for b, objs in links.items() if obj in objs and b in comp_of_binary}


def plan_series(tree, build, bmap, patches, spec, test_filter, known, jobs):
    """Compute what the series changes and what ksim compiles of it (the
    tree holds the patched state, the map is refreshed for it)."""
    plan = Plan()
    paths = []
    for p in patches:
        for fd in p.files:
            for path in (fd.old_path, fd.path):
                if path and path not in paths:
                    paths.append(path)
    diffs = {}
    for p in patches:
        for fd in p.files:
            diffs[fd.path] = diffs.get(fd.path, "") + fd.text
    for path in paths:
        if not tree.git and not tree.in_parts(path):
            plan.uncopied.append(path)
            # Not there to read: the functions its hunk headers name.
            for name in CM.hunk_functions(diffs.get(path, "")):
                ch = CM.Changed(path, name)
                ch.new_def, ch.uncopied = CM.Func(name, 0, 0, 0), True
                plan.changed.append(ch)
            continue
        old, new = tree.base_file(path), tree.file(path)
        if old is None and new is None:
            continue
        fc = CM.file_change(path, old, new)
        plan.files.append(fc)
        plan.comments += fc.comment_lines
    bmap.refresh(jobs)
    read = bmap.files()
    for fc in plan.files:
        objs = bmap.objects_reading([fc.path])
        live = set().union(*(bmap.live(o, fc.path) for o in objs)) if objs else set()
        dead = CM.dead_lines(fc.new_text, live) if objs and fc.new_text is not None else set()
        for ch in fc.funcs.values():
            ch.objects = CM.compiled_in(bmap, fc.path, ch.new_def, objs)
            if ch.objects:
                ch.dead = [l for l in ch.added if l in dead]
            plan.changed.append(ch)
        # Outside functions: compiled when the build reads the file and the
        # line is not in an #if group it drops (directives count as read).
        plan.outside[fc.path] = (fc.outside_added,
                                 [l for l in fc.outside_added if objs and l not in dead],
                                 fc.outside_removed, fc.path in read)

    # Tests: those of the components whose own code compiles a changed
    # function, whose binary links it.
    m = build.manifest()
    comps = {c["name"]: c for c in m.components}
    comp_dirs = {c["name"]: c["dir"] for c in m.components
                 if any(s.get("component") == c["name"] for s in m.data["suites"])}
    # A binary that names its own tests (ksim_discover_tests(): the kernel's
    # own suites run from one binary) has only a placeholder <prefix>/NOT_BUILT
    # until it is built: build those of the components whose declared paths
    # the series touches, so that their tests can be chosen.
    mine = [c for c in comp_dirs if c in known and any(
        p.startswith(tuple(known[c].paths or ())) for p in paths)]
    pending = sorted({t for c in mine for t in (known[c].targets or [])
                      if any(n.endswith("/NOT_BUILT") for n, _ in build.tests(known[c].ctest))})
    if pending:
        build.build(pending, os.path.join(build.log_dir, "discover.log"))
    all_tests = build.tests([])
    bin_of = {}
    for name, cmd in all_tests:
        for a in cmd:
            # The test's program: an output of the build (it need not exist yet).
            rel = os.path.relpath(a, build.dir) if a.startswith(build.dir + "/") else None
            if rel in build.targets:
                bin_of[name] = rel
                break
    comp_tests = {c: list(comps[c]["tests"]) for c in comp_dirs}
    for c in comp_dirs:
        if c in known:
            comp_tests[c] += [t for t, _ in build.tests(known[c].ctest)
                              if t not in comp_tests[c] and not t.endswith("/NOT_BUILT")]
    comp_of_binary = {}
    for c, ts in comp_tests.items():
        for t in ts:
            if t in bin_of:
                comp_of_binary.setdefault(bin_of[t], c)
    links = bmap.link_objects(sorted(set(comp_of_binary)))
    bmap.save()
    objs_changed = {o for ch in plan.changed for o in ch.objects}
    outside_objs = {o for fc in plan.files for o in bmap.objects_reading([fc.path])
                    if plan.outside[fc.path][1] and set(plan.outside[fc.path][1]) & bmap.live(o, fc.path)}
    hit = objs_changed | outside_objs
    owner = {o: owners_of(o, comp_dirs, comp_of_binary, links) for o in hit}
    names = [s.strip() for s in spec.split(",") if s.strip()] or ["auto"]
    if names == ["auto"]:
        picked = [c for c in comp_dirs if any(c in owner[o] for o in hit)]
        plan.components = picked
        for c in picked:
            for t in comp_tests[c]:
                if t.startswith("fuzz-smoke/"):
                    continue
                b = bin_of.get(t)
                if b is None or (set(links.get(b, ())) & {o for o in hit if c in owner[o]}):
                    plan.tests.append(t)
        for c in comp_dirs:
            if c in picked:
                continue
            fns = sorted({ch.label for ch in plan.changed for b, objs in links.items()
                          if comp_of_binary.get(b) == c and ch.objects & set(objs)})
            if fns:
                plan.users[c] = fns
    else:
        for n in names:
            if n not in known:
                raise ReproError(f"--suite {n}: unknown suite (known: {', '.join(known)}, auto)")
        sel = set()
        for n in names:
            sel |= {t for t, _ in build.tests(known[n].ctest)}
        plan.tests = [t for t, _ in all_tests if t in sel]
        plan.components = names
    plan.selected = len(plan.tests)
    if test_filter:
        try:
            rx = re.compile(test_filter)
        except re.error as e:
            raise ReproError(f"--tests {test_filter}: {e}")
        plan.tests = [t for t in plan.tests if rx.search(t)]
    plan.binaries = {bin_of[t] for t in plan.tests if t in bin_of}
    plan.targets = {b for b in plan.binaries}
    return plan


# ---------------------------------------------------------------- a run
class State:
    """Results of one tree state (0 = base, k = patches 1..k)."""
    def __init__(self, k):
        self.k = k
        self.built = True
        self.build_errors = []
        self.tests = {}       # name -> (ok, output)
        self.bench = {}       # label -> [seconds]
        self.profile = None   # profile directory (coverage builds)


def ctest_regex(names):
    return "^(" + "|".join(re.escape(n) for n in names) + ")$"


def measure(state, build, plan, args, workdir):
    tag = f"state-{state.k}"
    log = os.path.join(workdir, f"{tag}.log")
    targets = sorted(plan.targets | ({argv[0] for _, argv in plan.bench} if args.bench else set()))
    t0, c0 = time.monotonic(), cpu()
    if not build.build(targets if not args.stress else None, log):
        state.built = False
        state.build_errors = build_errors(log)
        say(f"  [{tag}] build FAILED ({time.monotonic() - t0:.0f}s, log {log})")
        return
    tb, cb = time.monotonic() - t0, cpu() - c0
    t1, c1 = time.monotonic(), cpu()
    if build.coverage:
        state.profile = build.profile_dir = os.path.join(workdir, f"profraw-{state.k}")
        shutil.rmtree(build.profile_dir, ignore_errors=True)
        os.makedirs(build.profile_dir)
    if plan.tests:
        junit = os.path.join(workdir, f"{tag}.xml")
        state.tests.update(build.run(Suite(tag, "", ["-R", ctest_regex(plan.tests)]), args.seed,
                                     junit, log, args.timeout))
    if args.stress:
        exe = [sys.executable, os.path.join(ROOT, "scripts", "ksim"), "stress", "--build",
               build.dir, "--duration", str(args.stress), "--seed", str(args.seed)]
        r = subprocess.run(exe, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(log, "a") as f:
            f.write(r.stdout)
        state.tests[f"stress ({args.stress}s)"] = (r.returncode == 0, r.stdout)
    t_tests, c_tests = time.monotonic() - t1, cpu() - c1
    t2 = time.monotonic()
    for label, argv in (plan.bench if args.bench else ()):
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
    say(f"  [{tag}] built in {tb:.0f}s ({cb:.0f}s CPU), {len(state.tests)} test(s) in "
        f"{t_tests:.0f}s ({c_tests:.0f}s CPU): "
        f"{bad} failed" + (f"; benchmarks {time.monotonic() - t2:.0f}s" if state.bench else ""))


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


# ---------------------------------------------------------------- coverage of the changes
class _KernelLines(object):
    """coverage.LineMap without its exclusion of the kernel's test code: a
    series may change lib/test_maple_tree.c, which the maple suite runs."""
    def __new__(cls, ksrc, build):
        from ksimlib import coverage as C

        class M(C.LineMap):
            def rel(self, path):
                memo = self.__dict__.setdefault("_rel", {})
                if path not in memo:
                    p = os.path.realpath(path)
                    memo[path] = os.path.relpath(p, self.ksrc) \
                        if p.startswith(self.ksrc + "/") else None
                return memo[path]
        return M(ksrc, build)


def executed_lines(build, tree, state, binaries, plan):
    """{kernel path: {line: count}} of the files the series changes, from the
    state's profiles.  One `llvm-cov export` per binary, smallest first,
    stopping once every changed function and changed line has been seen
    executed (loading the maple suite's mapping alone costs 7 s of CPU);
    raises coverage.CovError."""
    from ksimlib import coverage as C
    info = C.build_info(build.dir)
    profdata_tool, cov_tool = C.llvm_tools(info["cc"])
    pd = C.merge(profdata_tool, [state.profile], state.profile + ".profdata")
    if not pd:
        raise C.CovError("no profile was written (every test process aborted?)")
    bins = [os.path.join(build.dir, b) for b in binaries]
    bins = sorted((b for b in bins if os.path.exists(b)), key=os.path.getsize)
    if not bins:
        raise C.CovError("no test binary")
    paths = {fc.path for fc in plan.files}
    gens = []
    for d, _, fs in os.walk(build.dir):
        gens += [os.path.join(d, f) for f in fs if re.search(r"_gen\.[ch]$", f)]
    srcs = [os.path.join(tree.dir, p) for p in sorted(paths)] + gens
    lmap = _KernelLines(tree.dir, build.dir)
    res = {}
    mapped = {}         # Changed.key -> lines with a counter (in a binary that compiles it)
    todo = [c for c in plan.changed if c.objects and c.new_def]
    for n, b in enumerate(bins):
        out = f"{state.profile}.{n}.json"
        argv = [cov_tool, "export", "-format=text", "-skip-expansions", "-skip-functions",
                "-instr-profile", pd, b] + srcs
        with open(out, "w") as f:
            r = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            raise C.CovError(f"llvm-cov export failed: {r.stderr.strip()[-300:]}")
        here = {}
        for fdata in json.load(open(out))["data"][0]["files"]:
            path = fdata["filename"]
            if lmap.table(path) is None:
                continue
            for line, c in C.line_counts(fdata["segments"]).items():
                m = lmap.map(path, line)
                if m and m[0] in paths:
                    here.setdefault(m[0], {})
                    here[m[0]][m[1]] = here[m[0]].get(m[1], 0) + c
        for path, lines in here.items():
            d = res.setdefault(path, {})
            for l, c in lines.items():
                d[l] = d.get(l, 0) + c
        for ch in todo:
            body = range(ch.new_def.start, ch.new_def.end + 1)
            got = {l for l in here.get(ch.path, {}) if l in body}
            if got and ch.key not in mapped:
                mapped[ch.key] = got
        # Done when every changed function ran and each changed line with a
        # counter ran (a line without one in a binary that compiles the
        # function has no code of its own).
        if all(ch.key in mapped and any(res[ch.path].get(l, 0) > 0 for l in mapped[ch.key])
               and all(res[ch.path].get(l, 0) > 0 for l in ch.added if l in mapped[ch.key])
               for ch in todo):
            break
    return res


class Coverage:
    """Patch coverage of one measured state."""
    def __init__(self, plan, counts=None, why_not=None):
        self.plan, self.counts, self.why_not = plan, counts, why_not
        self.fn = {}        # Changed.key -> "executed" | "not executed" | "not compiled" | "not selected"
        self.lines = {}     # Changed.key -> (executed, with counters, [never reached], [compiled out])
        sel = plan.binaries
        for ch in plan.changed:
            if ch.new_def is None:
                continue
            if not ch.objects:
                self.fn[ch.key] = "not compiled"
                continue
            if counts is None:
                self.fn[ch.key] = "compiled"
                continue
            fc = counts.get(ch.path, {})
            body = range(ch.new_def.start, ch.new_def.end + 1)
            ran = any(fc.get(l, 0) > 0 for l in body)
            code = [l for l in ch.added if l in fc]
            hit = [l for l in code if fc[l] > 0]
            miss = [l for l in code if fc[l] == 0]
            # Lines under an #if that is false here: changed, never compiled.
            self.lines[ch.key] = (len(hit), len(code) + len(ch.dead), miss)
            self.fn[ch.key] = "executed" if ran else "not executed"
        self.selected = sel

    def totals(self):
        ch = [c for c in self.plan.changed if c.new_def is not None]
        comp = [c for c in ch if self.fn[c.key] != "not compiled"]
        ex = [c for c in comp if self.fn[c.key] == "executed"]
        lh = sum(v[0] for v in self.lines.values())
        lt = sum(v[1] for v in self.lines.values())
        return ch, comp, ex, lh, lt

    def clause(self, built=True):
        ch, comp, ex, lh, lt = self.totals()
        n = len(ch)
        s = f"patch coverage: {len(comp)} of {n} changed function(s) compiled by ksim"
        if not built:
            return s + ", not run (no build)"
        if self.counts is None:
            return s + f", execution not measured ({self.why_not})"
        s += f", {len(ex)} of {len(comp)} executed, {lh} of {lt} changed line(s) executed"
        return s

    def kind(self):
        """CLEAN, PARTLY COVERED or NOT COVERED for passing tests."""
        ch, comp, ex, lh, lt = self.totals()
        outside_compiled = any(v[1] for v in self.plan.outside.values())
        if not ch:
            return "PARTLY COVERED" if outside_compiled else "NOT COVERED"
        if self.counts is None:
            return "PARTLY COVERED"
        if not ex:
            return "NOT COVERED"
        if len(ex) == len(ch) and lh == lt:
            return "CLEAN"
        return "PARTLY COVERED"


def _ranges(lines):
    """[3, 4, 5, 9] -> "3-5,9"."""
    out, lines = [], sorted(set(lines))
    i = 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and lines[j + 1] == lines[j] + 1:
            j += 1
        out.append(str(lines[i]) if i == j else f"{lines[i]}-{lines[j]}")
        i = j + 1
    return ",".join(out)


def print_changes(plan, cov=None):
    """What the series changes, per function: compiled, executed, lines."""
    say("\nCHANGED FUNCTIONS (what the series changes, what ksim compiles and runs of it):")
    if not plan.changed and not any(v[0] or v[2] for v in plan.outside.values()):
        say("  none (the series changes comments or files ksim does not copy only)")
    for ch in plan.changed:
        where = f"{ch.label:<34} {ch.path}"
        if ch.new_def is None:
            say(f"  {where}: removed by the series")
            continue
        if not ch.objects:
            say(f"  {where}: not compiled by ksim"
                + (" (the file is outside the directories ksim copies)" if ch.uncopied else ""))
            continue
        st = cov.fn.get(ch.key) if cov else "compiled"
        line = f"  {where}: compiled ({len(ch.objects)} object(s))"
        if cov and cov.counts is not None:
            hit, tot, miss = cov.lines.get(ch.key, (0, 0, []))
            line += f", {st}; {hit} of {tot} changed line(s) executed"
            if miss:
                line += f"; never reached: {ch.path}:{_ranges(miss)}"
        if ch.dead:
            line += f"; not compiled by ksim (under an #if false here): {ch.path}:{_ranges(ch.dead)}"
        say(line)
    for path, (added, live, removed, read) in plan.outside.items():
        if not added and not removed:
            continue
        n = len(added) + len(removed)
        if live:
            say(f"  {path}: {n} changed line(s) outside functions (declarations, macros, data); "
                f"{len(live)} compiled by ksim: {path}:{_ranges(live)} (whether they ran is not measured)")
        else:
            say(f"  {path}: {n} changed line(s) outside functions; not compiled by ksim")
    if plan.comments:
        say(f"  ({plan.comments} changed line(s) are comments or blank)")
    for p in plan.uncopied:
        if not any(c.path == p for c in plan.changed):
            say(f"  {p}: not in the directories ksim copies (not compiled by ksim)")
    for c, fns in plan.users.items():
        say(f"  also linked by component {c}'s binaries: {', '.join(fns[:6])}"
            f"{' ...' if len(fns) > 6 else ''} (--suite {c} runs its tests)")


def not_covered_list(plan, cov):
    parts = []
    nc = [c for c in plan.changed if c.new_def is not None and not c.objects]
    ne = [c for c in plan.changed if c.new_def is not None and cov and cov.fn.get(c.key) == "not executed"]
    part = [c for c in plan.changed if c.new_def is not None and cov and cov.fn.get(c.key) == "executed"
            and (cov.lines.get(c.key, (0, 0, []))[2] or c.dead)]

    def names(cs):
        return ", ".join(f"{c.label} ({c.path})" for c in cs[:8]) + (" ..." if len(cs) > 8 else "")
    if ne:
        parts.append(f"not executed: {names(ne)}")
    if part:
        parts.append(f"changed lines never reached or not compiled in: {names(part)}")
    if nc:
        parts.append(f"not compiled by ksim: {names(nc)}")
    return "; ".join(parts)


# ---------------------------------------------------------------- build failures
def find_symbol(tree, sym, kind, where):
    """Where the patched tree defines or declares sym: [(file, line, text)]."""
    dirs = ["include", "arch/x86/include"]
    if where and "/" in where:
        dirs.append(os.path.dirname(where))
    dirs = [d for d in dirs if os.path.isdir(os.path.join(tree.dir, d))]
    s = re.escape(sym.split()[-1])
    sp = "[[:space:]]"     # grep -E knows no \s inside brackets
    if kind in ("incomplete type", "missing member"):
        pat = rf"^{sp}*struct{sp}+{s}{sp}*\{{"
    elif kind == "unknown type":
        pat = (rf"(^typedef.*[^A-Za-z0-9_]{s}{sp}*;|^{sp}*(struct|union|enum){sp}+{s}{sp}*\{{|"
               rf"^#{sp}*define{sp}+{s}([^A-Za-z0-9_]|$))")
    elif kind == "missing header":
        p = os.path.join(tree.dir, "include", sym)
        return [(os.path.join("include", sym), 1, "")] if os.path.exists(p) else []
    else:
        # A declaration or definition: the name after a type on a line that
        # does not start with whitespace, or at its start; a macro; a variable.
        pat = (rf"(^[A-Za-z_][^;=()]*[[:space:]*]{s}{sp}*\(|^{s}{sp}*\(|"
               rf"^#{sp}*define{sp}+{s}([^A-Za-z0-9_]|$)|"
               rf"^(extern{sp}+)?[A-Za-z_][A-Za-z0-9_[:space:]*]*[^A-Za-z0-9_]{s}{sp}*(;|\[|=))")
    r = subprocess.run(["grep", "-rnE", "--include=*.h", "--include=*.c", pat] + dirs,
                       cwd=tree.dir, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, errors="replace")
    out = []
    for l in r.stdout.splitlines():
        f, _, rest = l.partition(":")
        n, _, text = rest.partition(":")
        out.append((f, int(n) if n.isdigit() else 0, text.strip()))
    return out


def member_in_struct(tree, struct, member, hits):
    """Does one of the struct's definitions (hits) in the tree have member?"""
    for f, n, _ in hits:
        try:
            lines = open(os.path.join(tree.dir, f), errors="replace").read().split("\n")
        except OSError:
            continue
        depth, body = 0, []
        for l in lines[n - 1:n + 400]:
            body.append(l)
            depth += l.count("{") - l.count("}")
            if depth <= 0 and len(body) > 1:
                break
        if re.search(rf"\b{re.escape(member)}\b", "\n".join(body)):
            return f
    return None


DIAG = re.compile(r"^ksim: (\S+) \(kernel [^)]*\) needs '(.+)', which the shim lacks \[(.+)\]$")


def diagnose(tree, errors, patches, k):
    """Lines that say who broke the build at state k: the series (it uses
    what the patched tree does not have) or the shim (the tree has it)."""
    out = []
    for e in errors:
        m = DIAG.match(e)
        if not m:
            continue
        where, what, kind = m.groups()
        if kind == "missing member":
            parts = what.split()
            struct = " ".join(p for p in parts if p != parts[-1]) if parts[0] == "struct" else " ".join(parts[1:])
            member = parts[-1] if parts[0] == "struct" else parts[0]
            sym = struct
        else:
            sym, member = what, None
        plain = sym.split()[-1]
        intro = next((p for p in patches[:k] if re.search(rf"\b{re.escape(member or plain)}\b",
                                                         p.added_text())), None)
        who = intro.short if intro else None
        hits = find_symbol(tree, sym, kind, where)
        hits = [h for h in hits if not (h[0] == where and kind not in ("missing member",))]
        if kind == "missing member":
            has = member_in_struct(tree, plain, member, hits)
            if has:
                out.append(f"the shim lacks member '{member}' of {sym}: the patched tree's {has} "
                           f"has it (ksim's own definition of {sym} needs it)"
                           + (f"; {who} uses it" if who else ""))
            else:
                out.append(f"{who or 'the series'} uses member '{member}' of {sym}, which this tree's "
                           f"{sym} does not have")
            continue
        call = f"{plain}()" if kind in ("undeclared function", "undefined symbol at link") else plain
        if not hits:
            verb = {"undeclared function": "calls", "undefined symbol at link": "calls",
                    "missing header": "includes"}.get(kind, "uses")
            out.append(f"{who or 'the series'} {verb} {call}, which this tree does not define "
                       f"(nothing in include/, arch/x86/include/ or {os.path.dirname(where) or '.'}/ "
                       f"of the patched tree declares it)"
                       + ("" if who else f"; first reported in {where}"))
            continue
        f, n, text = hits[0]
        if f.endswith(".h"):
            out.append(f"the shim lacks {call}: the patched tree declares it in {f}:{n}; ksim's "
                       f"shim/include/{f[len('include/'):] if f.startswith('include/') else f} "
                       f"needs it" + (f" ({who} starts using it)" if who else ""))
        else:
            out.append(f"the shim lacks {call}: it is defined in {f}:{n}, which ksim does not "
                       f"compile" + (f" ({who} starts using it)" if who else ""))
    return out


def compiler_errors(tree, errors, patches, n=6):
    """The compiler's own first errors (ksim-diagnose keeps them in a log next
    to the object), each kernel line the series added marked with its patch."""
    out = []
    for e in errors:
        m = re.match(r"^ksim: full compiler output: (\S+)$", e)
        if not m:
            if not DIAG.match(e) and not e.startswith("ksim:"):
                out.append(e)
            continue
        try:
            log = open(m.group(1), errors="replace").read().splitlines()
        except OSError:
            continue
        for l in log:
            em = re.match(r"^(\S+?):(\d+):(?:\d+:)? (?:fatal )?error: ", l)
            if not em:
                continue
            path = em.group(1)
            rel = os.path.relpath(path, tree.dir) if path.startswith(tree.dir + "/") else path
            l = l.replace(tree.dir + "/", "")
            try:
                text = open(path, errors="replace").read().split("\n")[int(em.group(2)) - 1].strip()
            except (OSError, IndexError):
                text = ""
            who = next((p for p in patches if text and any(
                a.strip() == text for a in p.added_text().split("\n"))), None) if text else None
            out.append(l + (f"  [{rel}:{em.group(2)} is added by {who.short}]" if who else ""))
            if len(out) >= n:
                return out
        out.append(f"(full output: {m.group(1)})")
    return out[:n + 1]


# ---------------------------------------------------------------- reporting
def report(args, patches, plan, states, kver, workdir, build, tree, cov, cmd):
    names = sorted({n for s in states for n in s.tests})
    measured = [s for s in states if s is not None]
    if names:
        head = ["test"] + [("base" if s.k == 0 else f"+{s.k}") for s in measured]
        rows = [[n] + [shown(s, n) for s in measured] for n in names]
        # One state and many tests: the rows that are not a plain pass.
        if len(measured) == 1 and len(rows) > 30 and not args.verbose:
            quiet = [r for r in rows if r[1] in ("pass", "xfail")]
            rows = [r for r in rows if r[1] not in ("pass", "xfail")]
            nx = sum(1 for r in quiet if r[1] == "xfail")
            say(f"\n  {len(quiet)} test(s) pass" + (f" ({nx} of them xfail: a known finding "
                f"fails as docs/findings.toml says)" if nx else "") + " (--verbose lists them)")
        if rows:
            say()
            w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
            for r in [head] + rows:
                say("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)))

    if args.bench and measured[0].k == 0 and len(measured) > 1:
        a, b = measured[0], measured[-1]
        for label in a.bench:
            if label in b.bench:
                ma, mb = _median(a.bench[label]), _median(b.bench[label])
                say(f"  bench {label}: base {ma:.2f}s [{min(a.bench[label]):.2f}-"
                    f"{max(a.bench[label]):.2f}], patched {mb:.2f}s [{min(b.bench[label]):.2f}-"
                    f"{max(b.bench[label]):.2f}], ratio {mb / ma:.2f}x "
                    f"({args.bench} runs each, median [min-max])")

    last, first = measured[-1], measured[0]

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

    if first.k == 0 and len(measured) > 1:
        new = [n for n in names if cell(first, n) == "pass" and cell(last, n) == "FAIL"]
        fixed = [n for n in names if cell(first, n) == "FAIL" and cell(last, n) == "pass"]
        still = [n for n in names if cell(first, n) == "FAIL" and cell(last, n) == "FAIL"]
        new += [n for n in names if cell(first, n) in ("-", "", "no build") and cell(last, n) == "FAIL"]
    else:
        new = [n for n in names if cell(last, n) == "FAIL"]
        fixed, still = [], []
    xpass = [n for n in new if "ksim: XPASS:" in last.tests[n][1]]
    new = [n for n in new if n not in xpass]
    fixed += xpass
    flaky = {}
    for n in list(new):
        if args.rerun <= 0:
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
    say()
    for n, k in flaky.items():
        say(f"FLAKY  {n}: failed with the series, then passed {k} of {args.rerun} rerun(s) "
            f"with the same seed (not counted)")
    bisected = len(measured) == len(patches) + 1
    for n in fixed:
        k = first_change(n, to_fail=False) if bisected else None
        say(f"FIXED  {n}" + (f": first passes with {patches[k - 1].label}" if k else "")
            + (" (a known finding stops failing: XPASS against docs/findings.toml)" if n in xpass else ""))
    for n in still:
        say(f"STILL FAILS  {n} (fails without the series too)")
    print_changes(plan, cov)
    ctx = f"kernel {kver}, {len(patches)} patch(es), seed {args.seed}"
    if not new:
        kind = cov.kind()
        what = ("no new failures" if first.k == 0 and len(measured) > 1
                else f"all {len(last.tests)} selected test(s) pass")
        missing = not_covered_list(plan, cov)
        say(f"\nVERDICT: {kind}: {what}; {cov.clause()}"
            + (f"; {missing}" if missing and kind != "CLEAN" else "") + f" ({ctx})")
        if kind != "CLEAN":
            say("  (CLEAN needs every changed function compiled by ksim and executed by the "
                "selected tests, and every changed line that has code executed)")
        return EXIT[kind]
    say(f"\nVERDICT: {len(new)} FAILURE(S) with the series; {cov.clause()} ({ctx})")
    for n in new:
        k = first_change(n, to_fail=True) if bisected else None
        intro = f"; first bad: {patches[k - 1].label}" if k else ""
        say(f"FAIL  {n}{intro}")
        say(f"  reproduce (build {build.dir}, as it is until the next ksim repro of this tree):")
        say(f"    ctest --test-dir {build.dir} -R '^{re.escape(n)}$' --output-on-failure")
        for l in replay_lines(last.tests[n][1])[:5]:
            say(f"    {l}")
        say(f"    {cmd} --upto {k or len(patches)} --keep   # that tree and build, kept apart")
    return 1


def repro_command(args, patches):
    if args.range:
        src = f"--range {shlex.quote(args.range)}"
    else:
        src = "--series " + " ".join(shlex.quote(os.path.abspath(s)) for s in args.series)
    return (f"scripts/ksim repro {src}"
            + (f" --ksrc {shlex.quote(args.ksrc)}" if args.ksrc else "")
            + (f" --kver {args.kver}" if args.kver and not args.ksrc else "")
            + (f" --base {shlex.quote(args.base)}" if args.base else "")
            + f" --suite {args.suite} --seed {args.seed}"
            + (f" --tests {shlex.quote(args.tests)}" if args.tests else "")
            + (f" --preset {args.preset}" if args.preset != "coverage" else "")
            + "".join(f" --cmake-arg={shlex.quote(a)}" for a in args.cmake_arg))


# ---------------------------------------------------------------- command line
def main(argv=None):
    doc = __doc__.split("\nVerdicts and exit status:")
    ap = argparse.ArgumentParser(prog="ksim repro", description=__doc__.splitlines()[0],
                                 epilog="Verdicts and exit status:" + doc[1] if len(doc) > 1 else None,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true",
                    help="print the suites (name, CTest selection, kernel paths) and stop")
    ap.add_argument("--series", nargs="+", metavar="PATH",
                    help="mbox, b4 am .mbx file or output directory, .patch/.diff files or mails, "
                         "or directories of them, in order")
    ap.add_argument("--range", metavar="A..B",
                    help="the commits A..B of a git KSRC (git format-patch), tested on merge-base(A, B)")
    ap.add_argument("--suite", default="auto",
                    help="comma-separated suite names (--list); 'auto' (default): the tests of the "
                         "components whose code compiles a function the series changes")
    ap.add_argument("--tests", metavar="REGEX", help="only the selected tests matching REGEX")
    ap.add_argument("--ksrc", default=os.environ.get("KSRC", ""), help="kernel tree (default: KVER)")
    ap.add_argument("--kver", default=os.environ.get("KVER", ""), help="Debian linux-source version")
    ap.add_argument("--base", metavar="REV",
                    help="git KSRC: the revision the series goes on (default HEAD; --range: its start)")
    ap.add_argument("--ab", action="store_true", help="also run the tree without the series")
    ap.add_argument("--bisect", action="store_true", help="run after every patch (implies --ab)")
    ap.add_argument("--upto", type=int, help="apply only patches 1..K")
    ap.add_argument("--skip-applied", action="store_true",
                    help="test the patches that are not in the tree yet when some already are")
    ap.add_argument("--stress", type=float, default=0, metavar="SECONDS",
                    help="also run `ksim stress` for SECONDS in each measured state")
    ap.add_argument("--fuzz", type=float, default=0, metavar="SECONDS")
    ap.add_argument("--bench", type=int, default=0, metavar="RUNS",
                    help="with --ab: run the suites' benchmarks RUNS times per side")
    ap.add_argument("--rerun", type=int, default=1, metavar="N",
                    help="rerun each new failure N times alone; passing once = flaky (default 1)")
    ap.add_argument("--seed", type=int, help="KSIM_SEED for every test (default: time)")
    ap.add_argument("--preset", default="coverage",
                    help="build preset (default coverage: ASan+UBSan, clang, source-based coverage; "
                         "another preset cannot say what the tests executed)")
    ap.add_argument("--coverage", action="store_true", help="the coverage preset (the default)")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--workdir", help="this run's scratch directory (logs); default build/repro/runs/<time>")
    ap.add_argument("--cache", metavar="DIR", help=f"cache of kept trees and builds (default {CACHE_DIR})")
    ap.add_argument("--no-cache", action="store_true",
                    help="a fresh tree and build in the work directory, removed at the end")
    ap.add_argument("--keep", action="store_true",
                    help="a fresh tree and build in the work directory, kept")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every test's row")
    args = ap.parse_args(argv)
    if not args.series and not args.list and not args.range:
        ap.error("--series or --range is required (or --list)")
    if args.series and args.range:
        ap.error("--series and --range: pick one")
    if args.seed is None:
        args.seed = int(time.time())
    if args.coverage and args.preset != "coverage":
        print(f"ksim repro: --coverage is the coverage preset, not --preset {args.preset}",
              file=sys.stderr)
        return 2
    try:
        return list_suites(args) if args.list else run(args)
    except (ReproError, patchset.SeriesError) as e:
        print(f"ksim repro: {e}", file=sys.stderr)
        return getattr(e, "code", 2)


def list_suites(args):
    ksrc, kver = resolve_ksrc(args.ksrc, args.kver)
    known = suites_for(ksrc, args.preset, args.cmake_arg)
    say(f"ksim repro: suites for kernel {kver} ({ksrc}), from ksim-manifest.json")
    say("  auto (default): the tests of the components whose own code compiles a function the "
        "series changes, whose binary links it (component tests, regressions, stress, fuzz replay)")
    w = max(len(n) for n in known)
    for s in known.values():
        say(f"  {s.name:<{w}}  {s.help}")
        say(f"  {'':<{w}}    ctest {' '.join(shlex.quote(a) for a in s.ctest)}")
    return 0


def check_base(series, tree, args):
    """Notes about the series' base-commit: against the tree."""
    bc = series.base_commit
    if not bc or series.range_base:
        return []
    if not tree.git:
        return [f"the series says base-commit: {bc[:12]}; this tree is not a git tree, so ksim "
                f"cannot tell whether it is that commit"]
    if tree.base.startswith(bc) or bc.startswith(tree.base):
        return []
    r = _git(tree.src, "rev-parse", "--verify", "-q", bc + "^{commit}")
    subj = _git(tree.src, "log", "-1", "--format=%s", bc).stdout.strip() if r.returncode == 0 else ""
    at = f"the tree is at {tree.base[:12]}" + (" (--base)" if args.base else " (HEAD)")
    if r.returncode == 0:
        return [f"the series says base-commit: {bc[:12]} (\"{subj}\"), {at}; "
                f"--base {bc[:12]} tests it on its base (a git worktree at that commit)"]
    return [f"the series says base-commit: {bc[:12]}, which {tree.src} does not have; {at}"]


def apply_all(tree, patches, workdir, quiet=False):
    """Apply the series; [(patch, "applied"|"already"|"fails", message/notes)]."""
    out = []
    for p in patches:
        try:
            notes = tree.apply(p, workdir)
            out.append((p, "applied", notes))
            if not quiet:
                say(f"  applied {p.label}" + "".join(f"\n    note: {n}" for n in notes))
        except ApplyError as e:
            out.append((p, "already" if e.already else "fails", str(e)))
            if not quiet:
                say(f"  {e}")
            if not e.already:
                break
    return out


def run(args):
    t_start, c_start = time.monotonic(), cpu()
    ksrc, kver = resolve_ksrc(args.ksrc, args.kver)
    if args.range:
        series = patchset.read_range(ksrc, args.range)
        if not args.base:
            args.base = series.range_base
    else:
        series = patchset.read_series(args.series)
    patches = series.patches
    if args.upto is not None:
        if not 0 <= args.upto <= len(patches):
            raise ReproError(f"--upto {args.upto}: the series has {len(patches)} patch(es)")
        patches = patches[:args.upto]
    if args.fuzz:
        say("  note: --fuzz: short fuzz campaigns are not wired in; corpus replay of the picked "
            "components runs with their tests")
    workdir = os.path.abspath(args.workdir or os.path.join(
        ROOT, "build", "repro", "runs", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"))
    if os.path.exists(workdir) and os.listdir(workdir):
        raise ReproError(f"--workdir {workdir} exists and is not empty")
    os.makedirs(workdir, exist_ok=True)
    ws = Workspace(args, ksrc, kver, workdir)
    say(f"ksim repro: kernel {kver} ({ksrc}), {len(patches)} patch(es), seed {args.seed}, "
        f"work {workdir}")
    rc = 2
    tree = None
    keep_reason = None
    try:
        ws.acquire()
        tree = Tree(ksrc, os.path.join(ws.dir, "tree"), args.base)
        if args.base and not tree.git:
            raise ReproError(f"--base {args.base}: {ksrc} is not a git tree")
        t0 = time.monotonic()
        reused = tree.exists()
        tree.create()
        say(f"  scratch tree: {tree.dir} ({'git worktree' if tree.git else 'hard-linked copy'}"
            f"{', kept from an earlier run' if reused else ''}, {time.monotonic() - t0:.1f}s)")
        for n in check_base(series, tree, args):
            say(f"  note: {n}")

        # 1. The whole series, before anything is built.
        status = apply_all(tree, patches, workdir)
        already = [p for p, st, _ in status if st == "already"]
        fails = [(p, m) for p, st, m in status if st == "fails"]
        if fails or (already and not args.skip_applied) or len(already) == len(patches):
            rc = verdict_apply(patches, status, series, tree, kver, args)
            return rc
        todo = [p for p, st, _ in status if st == "applied"]
        if already:
            say(f"  --skip-applied: testing {len(todo)} patch(es); "
                f"{', '.join(p.short for p in already)} are in the tree already")

        # 2. What it changes, and what of that ksim compiles.
        build = Build(ws.dir, tree, args.preset, args.jobs, args.cmake_arg)
        build.log_dir = workdir
        t0, c0 = time.monotonic(), cpu()
        build.configure()
        build.generate(os.path.join(workdir, "generate.log"))
        bmap = CM.BuildMap(build.dir, tree.dir)
        known = build.suites()
        plan = plan_series(tree, build, bmap, todo, args.suite, args.tests, known, args.jobs)
        plan.bench = [b for n in plan.components if n in known for b in known[n].bench]
        whose = (f"component(s) {', '.join(plan.components)}" if args.suite == "auto"
                 else f"suite(s) {args.suite}") if plan.components else "no component"
        say(f"  configured and mapped what ksim compiles ({time.monotonic() - t0:.0f}s, "
            f"{cpu() - c0:.0f}s CPU); tests: {plan.selected} of {whose}"
            + (f", {len(plan.tests)} of them matching --tests" if args.tests else ""))
        cmd = repro_command(args, patches)
        # Removed functions: the build says whether anything still needed them.
        removed_read = [c for c in plan.removed() if plan.outside[c.path][3]]
        if not plan.compiled() and not removed_read and \
                not any(v[1] for v in plan.outside.values()):
            print_changes(plan)
            what = (f"the series changes {len(plan.changed)} function(s), none compiled by ksim"
                    if plan.changed else "the series changes no code ksim compiles")
            nc = not_covered_list(plan, None)
            say(f"\nVERDICT: NOT COVERED: {what}"
                + (f" ({nc.replace('not compiled by ksim: ', '')})" if nc else "")
                + f"; nothing was built or run (kernel {kver}, {len(patches)} patch(es))")
            rc = EXIT["NOT COVERED"]
            return rc
        if not plan.tests:
            raise ReproError("no test selected (--suite/--tests select none of this build's tests)")

        # 3. Build and run: states.
        states = []
        if args.ab or args.bisect:
            tree.reset()
            build.configure()
            st = State(0)
            measure(st, build, plan, args, workdir)
            states.append(st)
            if not st.built:
                rc = verdict_base_broken(st, kver, args)
                keep_reason = "the tree without the series does not build"
                return rc
            for p in todo:
                notes = tree.apply(p, workdir)
                if notes:
                    say(f"  {p.short}: " + "; ".join(notes))
                build.configure()
                if args.bisect or p is todo[-1]:
                    st = State(p.index)
                    measure(st, build, plan, args, workdir)
                    states.append(st)
                    if not st.built:
                        break
        else:
            st = State(len(patches))
            measure(st, build, plan, args, workdir)
            states.append(st)
        last = states[-1]
        if not last.built:
            rc = bisect_build(tree, build, plan, todo, patches, states, args, workdir, kver)
            keep_reason = "build failure"
            return rc

        # 4. Coverage and the verdict.
        from ksimlib.coverage import CovError
        if build.coverage:
            try:
                t0, c0 = time.monotonic(), cpu()
                counts = executed_lines(build, tree, last, plan.binaries, plan)
                cov = Coverage(plan, counts)
                say(f"  coverage of the changed files read ({time.monotonic() - t0:.0f}s, "
                    f"{cpu() - c0:.0f}s CPU)")
            except (CovError, OSError, ValueError, KeyError) as e:
                cov = Coverage(plan, None, f"coverage failed: {e}")
        else:
            cov = Coverage(plan, None, f"preset {args.preset} has no coverage instrumentation")
        # The raw profiles have been read: a failure keeps the logs only.
        for st in states:
            if st.profile:
                for f in os.listdir(workdir):
                    if f.startswith(os.path.basename(st.profile)):
                        p = os.path.join(workdir, f)
                        shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
        build.profile_dir = None    # reruns of a failure write no profile
        rc = report(args, patches, plan, states, kver, workdir, build, tree, cov, cmd)
        if rc == 1:
            keep_reason = "test failure"
        return rc
    except ReproError as e:
        rc = e.code
        raise
    finally:
        say(f"  ({time.monotonic() - t_start:.0f}s, {cpu() - c_start:.0f}s CPU)")
        if tree is not None and not ws.cached and not args.keep:
            tree.remove()
        if keep_reason or args.keep:
            say(f"  kept: {workdir} (logs"
                + (", tree and build" if args.keep else "")
                + f"; remove with: rm -rf {workdir}"
                + (f"; git -C {tree.src} worktree prune" if args.keep and tree and tree.git else "")
                + ")")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
        ws.release()


def verdict_apply(patches, status, series, tree, kver, args):
    already = [p for p, st, _ in status if st == "already"]
    fails = [(p, m) for p, st, m in status if st == "fails"]
    applied = [p for p, st, _ in status if st == "applied"]
    base = check_base(series, tree, args)
    if fails:
        p, m = fails[0]
        rest = len(patches) - p.index
        say(f"\nVERDICT: DOES NOT APPLY: {m}"
            + (f"; {', '.join(x.short for x in already)} appear(s) to be in the tree already"
               if already else "")
            + (f"; {rest} later patch(es) not checked" if rest else "")
            + f" (kernel {kver}; nothing was built)")
    elif len(already) == len(patches):
        say(f"\nVERDICT: ALREADY APPLIED: {'all ' if len(patches) > 1 else ''}{len(patches)} "
            f"patch(es) of the series appear to be in kernel {kver} already (each reverse-applies "
            f"to the tree); nothing was built")
    else:
        say(f"\nVERDICT: PARTLY APPLIED ALREADY: {', '.join(p.short for p in already)} appear(s) "
            f"to be in the tree already, {len(applied)} patch(es) apply; --skip-applied tests "
            f"those on this tree (kernel {kver}; nothing was built)")
    for n in base:
        say(f"  {n}")
    return 2


def verdict_base_broken(st, kver, args):
    say(f"\nVERDICT: BUILD FAILS on the tree without the series (kernel {kver}): ksim's defect "
        f"(the shim or the build), not the series'")
    for l in st.build_errors:
        say(f"  {l}")
    return 3


def bisect_build(tree, build, plan, todo, patches, states, args, workdir, kver):
    """The build failed with the series: find the first patch that breaks it
    (incremental builds: each step applies one patch more), then say whose
    the missing symbol is."""
    bad = states[-1]
    k_bad, errors = None, bad.build_errors
    if len(states) > 1 and states[-2].built:
        # --bisect/--ab measured the states: the failing one is known when
        # the one before it built (--bisect), else walk between them.
        lo = states[-2].k
    else:
        lo = None
    if lo is not None and args.bisect:
        k_bad = bad.k
    else:
        say("  bisecting the build failure over the series (one incremental build per patch "
            "that touches a file the selected tests compile)")
        read = CM.BuildMap(build.dir, tree.dir).files()
        tree.reset()
        build.configure()
        log = os.path.join(workdir, "bisect-0.log")
        if lo is None:
            if not build.build(sorted(plan.targets), log):
                st = State(0)
                st.built, st.build_errors = False, build_errors(log)
                return verdict_base_broken(st, kver, args)
            say("  [bisect] the tree without the series builds")
        for p in todo:
            tree.apply(p, workdir)
            paths = {f.path for f in p.files} | {f.old_path for f in p.files}
            build.configure()
            if not (paths & read) and not any(f.new for f in p.files):
                continue
            log = os.path.join(workdir, f"bisect-{p.index}.log")
            if not build.build(sorted(plan.targets), log):
                k_bad, errors = p.index, build_errors(log)
                say(f"  [bisect] {p.short}: build FAILS")
                break
            say(f"  [bisect] {p.short}: builds")
    print_changes(plan)
    cov = Coverage(plan, None, "")
    if k_bad is None:
        say(f"\nVERDICT: BUILD FAILS with the whole series, but every prefix of it built when "
            f"bisected; {cov.clause(built=False)} (kernel {kver})")
        for l in errors:
            say(f"  {l}")
        return 3
    p = patches[k_bad - 1]
    diag = diagnose(tree, errors, patches, k_bad)
    # The compiler's full output lives in the kept build until its next
    # run: the run's directory (kept) gets a copy.
    for i, e in enumerate(errors):
        m = re.match(r"^ksim: full compiler output: (\S+)$", e)
        if m and os.path.exists(m.group(1)):
            dst = os.path.join(workdir, os.path.basename(m.group(1)))
            shutil.copyfile(m.group(1), dst)
            errors[i] = f"ksim: full compiler output: {dst}"
    say(f"\nVERDICT: BUILD FAILS with {p.label} (the first patch that breaks the build); "
        f"{cov.clause(built=False)} (kernel {kver})")
    for d in diag:
        say(f"  {d}")
    say("  compiler:")
    for l in compiler_errors(tree, errors, patches[:k_bad]):
        say(f"    {l}")
    say(f"reproduce:\n  {repro_command(args, patches)} --upto {k_bad} --keep")
    return 3
