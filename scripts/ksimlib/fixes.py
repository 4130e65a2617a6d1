"""Known fixes: each kernel finding's fix, applied to a scratch copy of a tree.

A finding of kind bug or backport (docs/findings.toml) carries its fix as
`fix_edits`, our own text: edits anchored in a kernel function,

    fix_edits = [
      { file = "lib/maple_tree.c", function = "mas_rev_awalk",
        old = "gap = max - min + 1;", new = "gap = max - min + 1 ?: ULONG_MAX;" },
    ]

`old` is found inside the function's definition (scripts/ksim-extract's
finder: a definition at the start of a line, `MACRO(name)` for
SYSCALL_DEFINE-style ones) with whitespace ignored, exactly once; `new`
replaces it as written (its later lines carry their own indentation).
`trees` limits an edit to some trees (default: every tree the finding is
present on), for code that differs between trees.  An edit that does not
apply is one error line naming the finding, file, function and kernel
version; nothing of that finding is applied then.  Kernel text never lives
in this repository: the edits are applied to scratch copies at run time.

Uses:
  - a NEW failure (a test, a stress run, a fuzz input whose signature no
    finding lists) is replayed on the same tree with the known fixes
    applied (FixedTree, attribute()): if it disappears, it is attributed to
    the finding whose fix alone makes it disappear (or to the set), with the
    runs kept as evidence; if it persists, it is NEW;
  - `ksim report --verify`: a finding is present on a tree when its
    reproducer fails there and passes with its fix alone;
  - `ksim fixes`: list, check that every fix applies, print a fix as a diff.
"""
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

from ksimlib import findings

ROOT = findings.ROOT
FIXED_ROOT = os.path.join(ROOT, "build", "fixed")
EVIDENCE = os.path.join(ROOT, "ksim-out", "attribution")
EDIT_KEYS = {"file", "function", "old", "new", "trees"}
# Kinds that carry a fix: kernel bugs, missing backports, and the behaviour a
# doc-gap finding tests (its code alternative: a new face of it is attributed too).
FIXABLE = ("bug", "backport", "doc")


class FixError(Exception):
    pass


_extract = None


def _extractor():
    """scripts/ksim-extract as a module: its function finder is the one the build uses."""
    global _extract
    if _extract is None:
        _extract = importlib.machinery.SourceFileLoader(
            "ksim_extract", os.path.join(ROOT, "scripts", "ksim-extract")).load_module()
    return _extract


def check_schema(f, where):
    """findings.py's schema check of `fix_edits` and `fix_with` (TableError-style
    message, or None)."""
    vw = f.get("verify_with", [])
    if not isinstance(vw, list) or not all(isinstance(i, str) for i in vw):
        return f"{where}: verify_with must be a list of finding ids"
    if "fix_with" in f:
        if "fix_edits" in f:
            return f"{where}: fix_edits and fix_with together (one fix, one place)"
        if f["kind"] not in FIXABLE or not isinstance(f["fix_with"], str):
            return f"{where}: fix_with on a finding of kind '{f['kind']}' ({', '.join(FIXABLE)} only)"
        return None     # the other finding's existence: findings.load()
    edits = f.get("fix_edits")
    if edits is None:
        return None
    if not isinstance(edits, list) or not edits:
        return f"{where}: fix_edits must be a non-empty list"
    if f["kind"] not in FIXABLE:
        return f"{where}: fix_edits on a finding of kind '{f['kind']}' ({', '.join(FIXABLE)} only)"
    present = [t for t in findings.TREES if f["status"][t] == "present"]
    for j, e in enumerate(edits):
        ew = f"{where}: fix_edits {j + 1}"
        if not isinstance(e, dict):
            return f"{ew}: expected a table"
        if set(e) - EDIT_KEYS:
            return f"{ew}: unknown key(s) {', '.join(sorted(set(e) - EDIT_KEYS))}"
        for k in ("file", "function", "old", "new"):
            if not isinstance(e.get(k), str) or (k != "new" and not e[k].strip()):
                return f"{ew}: missing '{k}'"
        for t in e.get("trees", present):
            if t not in present:
                return f"{ew}: tree {t} is '{f['status'].get(t)}', not present"
    return None


def owner(f):
    """The finding whose edits are F's fix: itself, or the one its fix_with
    names (two findings one fix removes, e.g. two faces of one wrong bound)."""
    return findings.by_id(f["fix_with"]) if f.get("fix_with") else f


def edits_for(f, tree):
    """The finding's edits that apply on TREE ("6.12"): [] where it is not present."""
    if tree is None or f["status"].get(tree) != "present":
        return []
    o = owner(f)
    if o is not f:
        return edits_for(o, tree)
    present = [t for t in findings.TREES if f["status"][t] == "present"]
    return [e for e in f.get("fix_edits", []) if tree in e.get("trees", present)]


def with_fix(fs, tree):
    """The findings with a fix for TREE."""
    return [f for f in fs if edits_for(f, tree)]


def _find(text, code, e, where):
    """(start, end) of the edit's `old` text, whitespace ignored, in its function."""
    ex = _extractor()
    defs = ex.find_definitions(text, code, e["function"])
    if not defs:
        raise FixError(f"{where}: function not found")
    pat = re.compile(r"\s+".join(re.escape(tok) for tok in e["old"].split()))
    hits = []
    for start, _brace, end in defs:
        for m in pat.finditer(text, start, end):
            # Not inside a comment: the stripped copy keeps code only.
            if code[m.start()] == text[m.start()]:
                hits.append((m.start(), m.end()))
    if not hits:
        raise FixError(f"{where}: text not found: {e['old'].strip()[:100]!r}")
    if len(hits) > 1:
        raise FixError(f"{where}: text found {len(hits)} times (make 'old' longer): "
                       f"{e['old'].strip()[:100]!r}")
    return hits[0]


def apply_text(f, tree, kver, files):
    """Apply the finding's edits for TREE to FILES ({path: text}, read as
    needed from the tree the caller named); returns {path: new text}.
    FixError names the finding, file, function and kernel version."""
    out = {}
    for e in edits_for(f, tree):
        path = e["file"]
        where = f"fix of finding {f['id']} (kernel {kver}): {path}: {e['function']}()"
        text = out.get(path, files.get(path))
        if text is None:
            raise FixError(f"{where}: the file is missing")
        code = _extractor().strip_code(text)
        a, b = _find(text, code, e, where)
        out[path] = text[:a] + e["new"].strip() + text[b:]
    return out


def _read(ksrc, path):
    try:
        return open(os.path.join(ksrc, path), encoding="utf-8", errors="surrogateescape").read()
    except OSError:
        return None


def fixed_files(fs, ksrc, kver):
    """({path: fixed text}, applied ids, [errors]) for the findings FS on this tree:
    each finding all or nothing, later findings on top of earlier ones."""
    tree = findings.tree_of(kver)
    texts, applied, errors, done = {}, [], [], {}
    for f in fs:
        es = edits_for(f, tree)
        if not es:
            continue
        o = owner(f)
        if o["id"] in done:         # a fix shared through fix_with: applied once
            if done[o["id"]]:
                applied.append(f["id"])
            continue
        src = {e["file"]: texts.get(e["file"]) or _read(ksrc, e["file"]) for e in es}
        try:
            new = apply_text(f, tree, kver, src)
        except FixError as err:
            errors.append(str(err))
            done[o["id"]] = False
            continue
        texts.update(new)
        applied.append(f["id"])
        done[o["id"]] = True
    return texts, applied, errors


def diff(f, ksrc, kver):
    """The finding's fix on this tree as a unified diff (a/ b/ paths), or FixError."""
    import difflib
    tree = findings.tree_of(kver)
    es = edits_for(f, tree)
    if not es:
        raise FixError(f"finding {f['id']}: no fix for tree {tree or kver}")
    src = {e["file"]: _read(ksrc, e["file"]) for e in es}
    new = apply_text(f, tree, kver, src)
    out = []
    for path in sorted(new):
        out += difflib.unified_diff(src[path].splitlines(True), new[path].splitlines(True),
                                    f"a/{path}", f"b/{path}")
    return "".join(out)


# ------------------------------------------------------------------ the fixed tree

def _cache(build, key):
    from ksimlib import report
    return report.cache_value(build, key)


class FixedTree:
    """A scratch copy of the tree a build uses, with known fixes applied, and
    its own build directory configured like that build.  One per (build
    configuration, tree), kept under build/fixed/ and reused: switching
    the set of fixes rewrites only the files they touch, so ninja rebuilds
    only what includes them.  A lock serialises its users."""

    def __init__(self, build):
        self.origin = os.path.abspath(build)
        self.ksrc = _cache(build, "KSIM_KSRC_RESOLVED")
        self.kver = _cache(build, "KSIM_KVERSION_RESOLVED")
        if not self.ksrc or not self.kver:
            raise FixError(f"{build}: not a configured ksim build directory")
        self.tree_name = findings.tree_of(self.kver)
        key = hashlib.sha1(f"{os.path.realpath(self.ksrc)}\0{self.origin}".encode()).hexdigest()[:10]
        self.dir = os.path.join(FIXED_ROOT, f"{os.path.basename(self.origin)}-{key}")
        self.tree = os.path.join(self.dir, "tree")
        self.build = os.path.join(self.dir, "build")
        self._lock = None

    # -- locking
    def __enter__(self):
        os.makedirs(self.dir, exist_ok=True)
        self._lock = open(os.path.join(self.dir, "lock"), "w")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    def _state(self):
        try:
            return json.load(open(os.path.join(self.dir, "state.json")))
        except (OSError, ValueError):
            return {}

    def _save(self, st):
        with open(os.path.join(self.dir, "state.json"), "w") as fp:
            json.dump(st, fp)

    def ensure(self, log):
        """The scratch tree (hard links to KSRC, made afresh: KSRC may have
        changed since) and its configured build directory."""
        from ksimlib import repro
        shutil.rmtree(self.tree, ignore_errors=True)
        t = repro.Tree(self.ksrc, self.tree)
        t.git = False       # the tree as it is on disk, not a git worktree of HEAD
        t.create()
        self._tree = t
        st = self._state()
        # Fresh links carry the tarball's old times: a file a fix touched
        # before must look newer than the objects built from that fix.
        for path in st.get("touched", []):
            if os.path.isfile(os.path.join(self.tree, path)):
                t.own(path)
                os.utime(os.path.join(self.tree, path))
        st["applied"] = []
        self._save(st)
        if os.path.exists(os.path.join(self.build, "build.ninja")):
            return
        args = ["cmake", "-G", "Ninja", "-S", ROOT, "-B", self.build, f"-DKSRC={self.tree}",
                "-DKSIM_FUZZ_SMOKE=OFF"]
        for k in ("KSIM_SANITIZE", "CMAKE_C_COMPILER", "CMAKE_BUILD_TYPE", "KSIM_FUZZ",
                  "KSIM_COVERAGE"):
            v = _cache(self.origin, k)
            if v is not None:
                args.append(f"-D{k}={v}")
        r = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT)
        if r.returncode:
            raise FixError(f"configuring the fixed tree's build failed (log {log.name})")

    def select(self, fs, log):
        """Make the scratch tree the pristine tree plus the fixes of FS;
        returns the ids applied ([errors] printed to the log)."""
        st = self._state()
        texts, applied, errors = fixed_files(fs, self.ksrc, self.kver)
        for e in errors:
            log.write(f"ksim: {e}\n")
        touched = set(st.get("touched", [])) | set(texts)
        for path in sorted(touched):
            dest = os.path.join(self.tree, path)
            self._tree.own(path)
            want = texts.get(path)
            if want is None:
                want = _read(self.ksrc, path)
            cur = _read(self.tree, path)
            if cur != want:
                with open(dest, "w", encoding="utf-8", errors="surrogateescape") as fp:
                    fp.write(want)
        st.update(applied=applied, touched=sorted(touched))
        self._save(st)
        log.flush()
        return applied, errors

    def build_targets(self, targets, log):
        r = subprocess.run(["cmake", "--build", self.build, "-j", str(os.cpu_count() or 2),
                            "--target"] + targets, stdout=log, stderr=subprocess.STDOUT)
        return r.returncode == 0

    def translate(self, argv):
        """A command of the original build, pointed at this one."""
        return [a.replace(self.origin, self.build) for a in argv]


# ------------------------------------------------------------------ attribution

def kernel_files(build, targets, ksrc):
    """The files under KSRC that the targets' objects were compiled from
    (ninja's graph down to the objects, then their dependency lists)."""
    def ninja(*a):
        return subprocess.run(["ninja", "-C", build, "-t"] + list(a), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout
    seen, objs, stack = set(), [], list(targets)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.endswith(".o"):
            objs.append(n)
            continue
        inputs = ninja("query", n).split("  outputs:")[0].splitlines()[2:]
        for l in inputs:
            m = re.match(r"\s+(\|\|?\s+)?(\S+)$", l)
            if m and not (m.group(1) or "").startswith("||") and not m.group(2).startswith("/"):
                stack.append(m.group(2))
    files = set()
    # A file of a tree made with `cp -rs` is a link to another tree: its
    # path, not its target, says which tree it belongs to.
    tops = {os.path.realpath(ksrc) + os.sep, os.path.abspath(ksrc) + os.sep}

    def in_tree(path):
        for cand in (os.path.normpath(path), os.path.realpath(path)):
            for top in tops:
                if cand.startswith(top):
                    return cand[len(top):]
        return None

    btop = os.path.realpath(build) + os.sep
    for l in ninja("deps", *objs).splitlines() if objs else []:
        p = l.strip()
        if p and not l.startswith(p):
            kp = in_tree(os.path.join(build, p))
            rp = os.path.realpath(os.path.join(build, p))
            if kp:
                files.add(kp)
            elif rp.startswith(btop):
                # A generated file (ksim-extract's functions, mm-sim/gen/):
                # its #line directives name the kernel files it holds.
                try:
                    text = open(rp, encoding="utf-8", errors="replace").read()
                except OSError:
                    continue
                for m in re.finditer(r'^#line \d+ "([^"]+)"', text, re.M):
                    kp = in_tree(m.group(1))
                    if kp:
                        files.add(kp)
    return files


def targets_of(argv, build):
    """Ninja targets (binary paths relative to BUILD) that a command runs."""
    out = []
    b = os.path.abspath(build) + os.sep
    for a in argv:
        for tok in a.split("="):
            if tok.startswith(b) and os.path.isfile(tok) and os.access(tok, os.X_OK):
                out.append(os.path.relpath(tok, build))
    return out


def _run(argv, cwd, timeout, log, env=None):
    """(status, output): status 'pass', 'fail' or 'hang'."""
    log.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
    log.flush()
    try:
        r = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout, env=env)
        out, st = r.stdout, ("pass" if r.returncode == 0 else "fail")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        st = "hang"
    log.write(out[-20000:] + f"\n[{st}]\n")
    log.flush()
    return st, out


def relevance(f, output):
    """How much the failure's output names the finding's functions."""
    names = set(re.findall(r"\b([a-z_][a-z0-9_]{3,})\(\)", f["where"]))
    names |= set(re.findall(r"\b([a-z_][a-z0-9_]{3,})\b", f["where"].split(":", 1)[-1]))
    return sum(1 for n in names if re.search(rf"\b{re.escape(n)}\b", output))


def build_of(path):
    """The configured build directory a binary belongs to, or None."""
    d = os.path.dirname(os.path.abspath(path))
    while d != "/":
        if os.path.exists(os.path.join(d, "CMakeCache.txt")):
            return d
        d = os.path.dirname(d)
    return None


def enabled():
    """KSIM_ATTRIBUTION=1: `make test` and `make matrix` set it."""
    return os.environ.get("KSIM_ATTRIBUTION") == "1"


def attribute(build, argv, cwd=None, output="", name="", timeout=600, reruns=3, say=print):
    """Replay a NEW failure of ARGV (a command of BUILD) on the tree with the
    known fixes applied.  Returns (verdict, detail): ("attributed", [ids]),
    ("new", text) or ("unavailable", text).

    Timing-dependent failures are judged by reruns: the pristine tree must
    fail again (up to RERUNS tries), the fixed tree must pass RERUNS times."""
    fs = findings.load()
    ft = FixedTree(build)
    tree = ft.tree_name
    cwd = os.path.abspath(cwd or os.getcwd())
    # Relative paths made absolute, so that they can point into the fixed build.
    argv = [os.path.abspath(os.path.join(cwd, a)) if not a.startswith("-") and os.sep in a
            and os.path.exists(os.path.join(cwd, a)) else a for a in argv]
    targets = targets_of(argv, build)
    ran = kernel_files(build, targets, ft.ksrc) if targets else None
    cands = [f for f in with_fix(fs, tree)
             if ran is None or any(e["file"] in ran for e in edits_for(f, tree))]
    if not cands:
        return "unavailable", (f"no known fix of tree {tree or ft.kver} touches the kernel code "
                               f"this command runs")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    evid = os.path.join(EVIDENCE, f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name or 'run')}-{stamp}-{os.getpid()}")
    os.makedirs(evid, exist_ok=True)
    with open(os.path.join(evid, "failure.txt"), "w") as fp:
        fp.write("$ " + " ".join(shlex.quote(a) for a in argv) + f"\n(cwd {cwd})\n\n{output}")
    log = open(os.path.join(evid, "log.txt"), "w")
    say(f"ksim: replaying on kernel {ft.kver} with known fixes applied "
        f"({len(cands)} candidate(s); evidence in {os.path.relpath(evid, ROOT)})")
    # The pristine tree first: a failure that does not come back is timing's.
    again = 0
    for _ in range(reruns):
        st, _out = _run(argv, cwd, timeout, log)
        if st != "pass":
            again = 1
            break
    if not again:
        log.close()
        return "new", (f"did not fail again in {reruns} reruns on the pristine tree "
                       f"(timing-dependent; not attributed); evidence {os.path.relpath(evid, ROOT)}")
    fargv = ft.translate(argv)
    fcwd = ft.translate([cwd])[0] if cwd else None

    def passes_with(sel):
        applied, errors = ft.select(sel, log)
        if not applied:
            return None, errors
        if targets and not ft.build_targets(targets, log):
            return None, errors + ["the fixed tree does not build (see the log)"]
        for _ in range(reruns):
            st, _out = _run(fargv, fcwd, timeout, log)
            if st != "pass":
                return False, errors
        return True, errors

    with ft:
        ft.ensure(log)
        ok, errors = passes_with(cands)
        if ok is None:
            log.close()
            return "unavailable", "; ".join(errors) or "no fix applies to this tree"
        if not ok:
            ids = ", ".join(f["id"] for f in cands)
            log.close()
            return "new", (f"fails on the fixed tree too (fixes tried: {ids}); "
                           f"evidence {os.path.relpath(evid, ROOT)}")
        if len(cands) == 1:
            ft.select([], log)
            log.close()
            with open(os.path.join(evid, "verdict.txt"), "w") as fp:
                fp.write(f"attributed to {cands[0]['id']}: passes {reruns}/{reruns} with its fix\n")
            return "attributed", [cands[0]["id"]]
        # Which one: each fix alone, the likeliest first.
        ranked = sorted(cands, key=lambda f: -relevance(f, output))
        for f in ranked:
            one, _ = passes_with([f])
            if one:
                ft.select([], log)
                log.close()
                with open(os.path.join(evid, "verdict.txt"), "w") as fp:
                    fp.write(f"attributed to {f['id']}: passes {reruns}/{reruns} with its fix alone\n")
                return "attributed", [f["id"]]
        ft.select([], log)
        log.close()
        ids = [f["id"] for f in cands]
        with open(os.path.join(evid, "verdict.txt"), "w") as fp:
            fp.write(f"attributed to the fixes together: {', '.join(ids)} (no single fix suffices)\n")
        return "attributed", ids


def record(build, name, verdict, detail, argv):
    """The run's list of attributions (printed by `ksim fixes --summary`)."""
    d = os.path.join(build, "ksim-attributions")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{time.time():.6f}-{os.getpid()}.json"), "w") as fp:
        json.dump({"test": name, "verdict": verdict, "detail": detail, "argv": argv,
                   "time": time.time()}, fp)


# ------------------------------------------------------------------ verification

def _own_parts_pass(ft, labels, own_re, repro, log):
    """(ok, text): the tests of LABELS matching OWN_RE other than the
    reproducer (judged already), run on the fixed build without ksim-xfail,
    each expected to pass."""
    from ksimlib import report
    r = subprocess.run(["ctest", "--test-dir", ft.build, "-N", "-L", labels, "-R", own_re],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    names = [m.group(1) for m in re.finditer(r"^\s*Test\s+#\d+: (\S+)$", r.stdout, re.M)
             if m.group(1) != repro]
    failed = []
    for n in names:
        argv, cwd = report.test_command(ft.build, n)
        st = _run(argv, cwd, 900, log)[0] if argv else "missing"
        if st != "pass":
            failed.append(f"{n} {st}")
    if not names:
        return True, ""
    return not failed, (f"; its {len(names)} other listed part(s) in -L '{labels}', run on the fixed "
                        f"tree without their XFAIL: "
                        + (f"{len(failed)} failed ({', '.join(failed[:4])})" if failed else "all pass"))


def verify(build, ids=None, labels=None, say=print):
    """Each finding's fix, alone, on BUILD's tree: its reproducer fails on
    the pristine build and passes on the fixed one; with LABELS, those CTest
    labels pass on the fixed build too (the fix breaks nothing they check).
    Returns the number of disagreements."""
    from ksimlib import report
    fs = findings.load()
    ft = FixedTree(build)
    chosen = [f for f in with_fix(fs, ft.tree_name) if not ids or f["id"] in ids]
    unknown = set(ids or []) - {f["id"] for f in chosen}
    bad = 0
    for u in sorted(unknown):
        say(f"ksim fixes: {u}: no fix for tree {ft.tree_name or ft.kver} (or no such finding)")
        bad += 1
    os.makedirs(EVIDENCE, exist_ok=True)
    logpath = os.path.join(EVIDENCE, f"verify-{os.path.basename(ft.dir)}.log")
    with ft, open(logpath, "w") as log:
        ft.ensure(log)
        for f in chosen:
            repro = findings.reproducer(f, ft.tree_name)
            argv, cwd = report.test_command(build, repro)
            if argv is None:
                say(f"  {f['id']:<38} reproducer {repro} is not a test of {build}")
                bad += 1
                continue
            sometimes = bool(f["xfail"]) and all(x.get("sometimes") for x in f["xfail"])
            targets = targets_of(argv, build) or [os.path.relpath(a, build) for a in argv
                                                  if a.startswith(os.path.abspath(build) + os.sep)]
            if targets:     # the pristine build may be configured only
                subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target"]
                               + targets, stdout=log, stderr=subprocess.STDOUT)
                targets = targets_of(argv, build)
            pristine, _ = _run(argv, cwd, 600, log)
            # A reproducer whose input also hits other findings on this tree
            # (verify_with) needs their fixes too; the verdict names them.
            also = [o for o in (findings.by_id(i) for i in f.get("verify_with", []))
                    if edits_for(o, ft.tree_name)]
            applied, errors = ft.select([f] + also, log)
            if not applied:
                say(f"  {f['id']:<38} DOES NOT APPLY: {'; '.join(errors)}")
                bad += 1
                continue
            if targets and not ft.build_targets(targets, log):
                say(f"  {f['id']:<38} the fixed tree DOES NOT BUILD (log {logpath})")
                bad += 1
                continue
            fixed, _ = _run(ft.translate(argv), ft.translate([cwd])[0] if cwd else None, 600, log)
            ok = fixed == "pass" and (pristine != "pass" or sometimes)
            extra = ""
            if ok and labels:
                r = subprocess.run(["cmake", "--build", ft.build, "-j", str(os.cpu_count() or 2)],
                                   stdout=log, stderr=subprocess.STDOUT)
                # The reproducer itself was judged above: in the label run its
                # XFAIL expectation (the finding is present on this tree) would
                # call the fixed tree's pass a failure.  So would the other
                # tests the finding lists for this tree (under any label
                # prefix: bpf-selftests/ and bpf-selftests-fault/ run one part).
                own = [re.escape(repro)] + ["[^/]+/" + re.escape(x["part"]) for x in f["xfail"]
                                            if x["in"] not in ("fuzz", "stress")
                                            and ft.tree_name in x.get("trees", [t for t, s in f["status"].items()
                                                                                if s == "present"])]
                own_re = "^(" + "|".join(sorted(set(own))) + ")$"
                t = subprocess.run(["ctest", "--test-dir", ft.build, "-L", labels,
                                    "-E", own_re, "-j",
                                    str(os.cpu_count() or 2), "--timeout", "900"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                log.write(t.stdout)
                m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", t.stdout)
                fails = [l.strip() for l in t.stdout.splitlines() if re.match(r"\s+\d+ - ", l)]
                extra = f"; -L '{labels}' on the fixed tree: " + (
                    f"{m.group(3)} tests, {m.group(2)} failed" if m else "did not run") + (
                    f" ({', '.join(fails[:6])})" if fails else "")
                ok = ok and r.returncode == 0 and bool(m) and m.group(2) == "0"
                # The finding's own parts, left out above, must pass on the
                # fixed tree when run without their XFAIL expectation.
                inv_ok, inv_text = _own_parts_pass(ft, labels, own_re, repro, log)
                extra += inv_text
                ok = ok and inv_ok
            bad += not ok
            say(f"  {f['id']:<38} pristine {pristine:<4} fixed {fixed:<4} "
                f"{'ok' if ok else 'DISAGREES'}{extra}"
                + (f" (with the fix of {', '.join(o['id'] for o in also)})" if also else ""))
        ft.select([], log)
    say(f"ksim fixes --verify: kernel {ft.kver}: {len(chosen)} fix(es), {bad} disagreement(s); "
        f"log {os.path.relpath(logpath, ROOT)}")
    return bad


# ------------------------------------------------------------------ the command

def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="ksim fixes", description="the findings' known fixes")
    ap.add_argument("--build", help="a configured build directory (its tree and version)")
    ap.add_argument("--check", action="store_true",
                    help="every fix applies to the build's tree (exit 1 if one does not)")
    ap.add_argument("--diff", metavar="ID", help="print finding ID's fix for the build's tree")
    ap.add_argument("--verify", nargs="*", metavar="ID",
                    help="each fix (or these) alone on the build's tree: its reproducer fails on "
                         "the pristine tree and passes on the fixed one")
    ap.add_argument("-L", "--labels", help="with --verify: these CTest labels must pass on each fixed tree")
    ap.add_argument("--summary", metavar="SINCE", type=float,
                    help="the attributions recorded in the build since a time (seconds)")
    args = ap.parse_args(argv)
    try:
        fs = findings.load()
    except findings.TableError as e:
        print(f"ksim fixes: {e}", file=sys.stderr)
        return 2
    if args.summary is not None:
        return summary(args.build, args.summary)
    if not args.build:
        for f in fs:
            if f["kind"] in FIXABLE:
                trees = [t for t in findings.TREES if edits_for(f, t)]
                missing = [t for t in findings.TREES if f["status"][t] == "present" and t not in trees]
                print(f"{f['id']:<38} fix for: {', '.join(trees) or '-':<20}"
                      + (f" no fix for: {', '.join(missing)}" if missing else ""))
        return 0
    ksrc, kver = _cache(args.build, "KSIM_KSRC_RESOLVED"), _cache(args.build, "KSIM_KVERSION_RESOLVED")
    if not ksrc:
        print(f"ksim fixes: {args.build}: not a configured build directory", file=sys.stderr)
        return 2
    if args.verify is not None:
        try:
            return 1 if verify(args.build, args.verify, args.labels) else 0
        except FixError as e:
            print(f"ksim fixes: {e}", file=sys.stderr)
            return 2
    if args.diff:
        f = findings.by_id(args.diff)
        if not f:
            print(f"ksim fixes: no finding '{args.diff}'", file=sys.stderr)
            return 2
        try:
            sys.stdout.write(diff(f, ksrc, kver))
        except FixError as e:
            print(f"ksim: {e}", file=sys.stderr)
            return 1
        return 0
    _texts, applied, errors = fixed_files(fs, ksrc, kver)
    for e in errors:
        print(f"ksim: {e}")
    tree = findings.tree_of(kver)
    print(f"ksim fixes: kernel {kver}: {len(applied)} fix(es) apply"
          + (f", {len(errors)} do not" if errors else "")
          + f"; {len([f for f in fs if f['kind'] in FIXABLE and f['status'].get(tree) == 'present' and not edits_for(f, tree)])} present finding(s) without a fix")
    return 1 if errors and args.check else 0


def summary(build, since):
    d = os.path.join(build or ".", "ksim-attributions")
    rows = []
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        try:
            r = json.load(open(os.path.join(d, n)))
        except (OSError, ValueError):
            continue
        if r["time"] >= since:
            rows.append(r)
    for r in rows:
        what = ", ".join(r["detail"]) if r["verdict"] == "attributed" else r["detail"]
        print(f"ksim: {r['verdict'].upper()}: {r['test']}: {what}")
    if rows:
        print(f"ksim: {sum(r['verdict'] == 'attributed' for r in rows)} failure(s) attributed to known "
              f"findings by their fixes (not failures of this tree)")
    return 0
