"""Which kernel functions ksim compiles, and which functions a series changes.

ksim takes kernel code three ways: whole .c files #included by a wrapper
(maple/maple_tree.c includes lib/maple_tree.c), single functions copied by
scripts/ksim-extract into build/.../gen/*_gen.[ch] (their #line directives
name the kernel file and line), and the static inlines of the kernel headers
those pull in.  All three show in the preprocessor's output: each
translation unit of a configured build is run through `cc -E` with its own
compile command (compile_commands.json), and the line markers say which
lines of which kernel file the compiler reads; code under an #if that is
false in ksim's configuration is absent.  A function is compiled when a
line of its body survives; nothing needs to be built for this, only the
generated extracts (ninja makes them in seconds).

BuildMap keeps the result per object file in <build>/ksim-compiled.pickle and
redoes a unit only when its command or one of the files it read changed
(the mtimes), so a repro run re-reads the few units that include the files
its series touches.  The owners of an object are the components whose
folder built it (maple/, mm-sim/ ...), or, for an object of a shared
folder (shim/, fuzz/, stress/), the components whose binaries link it
(`ninja -t commands <binary>`).
"""
import bisect
import json
import os
import pickle
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor

CACHE = "ksim-compiled.pickle"
VERSION = 3


# ---------------------------------------------------------------- C text
def comment_mask(text):
    """Same length as text: comments and string/char literals blanked,
    newlines kept (preprocessor lines stay: they are code here)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


class Func:
    """A function definition: lines start (declaration) .. end (closing brace)."""
    def __init__(self, name, start, body, end):
        self.name, self.start, self.body, self.end = name, start, body, end

    def __repr__(self):
        return f"{self.name}@{self.start}-{self.end}"


# Definitions made by a macro: SYSCALL_DEFINE3(mremap, ...), BPF_CALL_2(name, ...).
DEFINER = re.compile(r"^(?:[A-Z0-9_]*DEFINE\d*|BPF_CALL_\d|COMPAT_SYSCALL_DEFINE\d)$")


def functions(text):
    """[Func] of a C file's function definitions (top-level brace blocks after
    a parameter list), with 1-based line numbers."""
    from ksimlib import mutate
    m = mutate.mask(text)
    nl = [i for i, c in enumerate(text) if c == "\n"]
    lines = m.split("\n")

    def line(off):
        return bisect.bisect_right(nl, off - 1) + 1

    out = []
    for name, lo, hi in mutate.function_bodies(m):
        brace = lo - 1
        head = m[max(0, brace - 4000):brace]
        start_off = brace
        if DEFINER.match(name):
            mo = list(re.finditer(r"\b" + re.escape(name) + r"\s*\(\s*(\w+)", head))
            if mo:
                name = f"{name}({mo[-1].group(1)})"
                start_off = brace - len(head) + mo[-1].start()
        else:
            mo = list(re.finditer(r"\b" + re.escape(name) + r"\s*\(", head))
            if mo:
                start_off = brace - len(head) + mo[-1].start()
        start = line(start_off)
        # The return type and storage class on the lines before the name.
        while start > 1:
            prev = lines[start - 2]
            if not prev.strip() or prev[0].isspace() or \
                    prev.rstrip().endswith((";", "}", "{", ")", "\\", ",", ":")):
                break
            start -= 1
        out.append(Func(name, start, line(brace), line(hi)))
    return out


def func_at(funcs, line):
    for f in funcs:
        if f.start <= line <= f.end:
            return f
    return None


# ---------------------------------------------------------------- changes
def diff_lines(old_path, new_path):
    """(removed old line numbers, added new line numbers) of `diff -U0`."""
    r = subprocess.run(["diff", "-U0", old_path or "/dev/null", new_path or "/dev/null"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       encoding="utf-8", errors="surrogateescape")
    removed, added = [], []
    for l in r.stdout.splitlines():
        m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", l)
        if m:
            a, b = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            c, d = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
            removed += range(a, a + b)
            added += range(c, c + d)
    return removed, added


class Changed:
    """One changed function (name, kernel file): its changed code lines in the
    patched file (added) and in the base file (removed)."""
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.added, self.removed = [], []
        self.new_def = None         # Func in the patched file (None: removed by the series)
        self.old_def = None         # Func in the base file (None: added by the series)
        self.objects = set()        # objects that compile it (patched tree)
        self.uncopied = False       # in a file outside the directories ksim copies
        self.dead = []              # changed lines of it the preprocessor drops (#if) here

    @property
    def key(self):
        return (self.path, self.name)

    @property
    def label(self):
        return f"{self.name}()" if "(" not in self.name else self.name


def directive_lines(text):
    """Line numbers of preprocessor directives and their continuation lines
    (-E prints none of them, so the map cannot say they are read)."""
    out, cont = set(), False
    for n, l in enumerate(comment_mask(text).split("\n"), 1):
        if cont or l.lstrip().startswith("#"):
            out.add(n)
            cont = l.rstrip().endswith("\\")
        else:
            cont = False
    return out


def dead_lines(text, live):
    """Code lines the preprocessor dropped: those of a run between two
    directive lines none of whose code lines reached its output (an #if
    group not taken).  A line missing from the output is not enough: the
    continuation lines of a macro call spanning several lines are printed
    on its first line."""
    cm = comment_mask(text).split("\n")
    directives = directive_lines(text)
    dead, run = set(), []

    def close():
        if run and not any(l in live for l in run):
            dead.update(run)
        run.clear()
    for n, l in enumerate(cm, 1):
        if n in directives:
            close()
        elif l.strip():
            run.append(n)
    close()
    return dead


def hunk_functions(diff_text):
    """Names of the functions a diff's hunk headers name (git writes the
    enclosing function after the second @@): for a file that is not there."""
    names = []
    for m in re.finditer(r"^@@ [^@]* @@ ?(.*)$", diff_text, re.M):
        fm = re.search(r"([A-Za-z_]\w*)\s*\(", m.group(1))
        if fm and fm.group(1) not in names:
            names.append(fm.group(1))
    return names


class FileChange:
    def __init__(self, path, old_text, new_text):
        self.path = path
        self.old_text, self.new_text = old_text, new_text
        self.funcs = {}             # name -> Changed
        self.outside_added = []     # code lines outside functions (patched numbering)
        self.outside_removed = []
        self.comment_lines = 0      # changed lines that are only comments or blank
        self.directives = set()     # preprocessor lines of the patched file (those added)
        self.c_like = path.endswith((".c", ".h"))


def file_change(path, old_file, new_file):
    """FileChange of one kernel file between its base and patched versions
    (either may be None: created or deleted)."""
    old = open(old_file, encoding="utf-8", errors="surrogateescape").read() if old_file else ""
    new = open(new_file, encoding="utf-8", errors="surrogateescape").read() if new_file else ""
    fc = FileChange(path, old if old_file else None, new if new_file else None)
    removed, added = diff_lines(old_file, new_file)
    if not fc.c_like:
        fc.outside_added, fc.outside_removed = added, removed
        return fc
    oldf = functions(old) if old_file and removed else []
    newf = functions(new) if new_file else []
    for side, text, lines, funcs in (("removed", old, removed, oldf), ("added", new, added, newf)):
        if not lines:
            continue
        cm = comment_mask(text).split("\n")
        for ln in lines:
            if ln - 1 >= len(cm) or not cm[ln - 1].strip():
                fc.comment_lines += 1
                continue
            f = func_at(funcs, ln)
            if f is None:
                (fc.outside_added if side == "added" else fc.outside_removed).append(ln)
                continue
            ch = fc.funcs.get(f.name)
            if ch is None:
                ch = fc.funcs[f.name] = Changed(path, f.name)
            getattr(ch, side).append(ln)
    # Each changed function's definition on both sides.
    if any(not ch.removed for ch in fc.funcs.values()) and old_file and not oldf:
        oldf = functions(old)
    fc.directives = directive_lines(new) if new_file and added else set()
    newd, oldd = {f.name: f for f in newf}, {f.name: f for f in oldf}
    for ch in fc.funcs.values():
        ch.new_def, ch.old_def = newd.get(ch.name), oldd.get(ch.name)
    return fc


# ---------------------------------------------------------------- the build's map
def preprocess_argv(entry):
    """(object, argv) running a compile_commands.json entry's compiler with
    -E instead of -c (no object, no dependency file)."""
    argv = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = entry.get("output") or (argv[argv.index("-o") + 1] if "-o" in argv else "")
    cmd, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MT", "-MF", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        cmd.append(a)
    return out, cmd + ["-E"]


def _ranges(lines):
    out, lines = [], sorted(lines)
    for l in lines:
        if out and out[-1][1] == l - 1:
            out[-1][1] = l
        else:
            out.append([l, l])
    return out


def _unranges(rs):
    return {l for a, b in rs for l in range(a, b + 1)}


class BuildMap:
    """What a configured build compiles from the kernel tree `tree`."""
    def __init__(self, build, tree):
        self.build = os.path.abspath(build)
        self.tree = os.path.normpath(os.path.abspath(tree))
        self.file = os.path.join(self.build, CACHE)
        self.units = {}     # object -> {"cmd", "inputs": {path: mtime_ns}, "live": {rel: ranges}, "ok"}
        self.links = {}     # binary target -> [objects]
        self.links_stamp = None
        try:
            with open(self.file, "rb") as f:
                d = pickle.load(f)
            if d.get("version") == VERSION and d.get("tree") == self.tree:
                self.units, self.links, self.links_stamp = d["units"], d["links"], d["links_stamp"]
        except (OSError, ValueError, KeyError, EOFError, pickle.UnpicklingError):
            pass
        self._live = {}
        self.dirty = False

    def save(self):
        """Write the map if it changed."""
        if not self.dirty:
            return
        self.dirty = False
        tmp = self.file + ".tmp"
        with open(tmp, "wb") as f:
            pickle.dump({"version": VERSION, "tree": self.tree, "units": self.units,
                         "links": self.links, "links_stamp": self.links_stamp}, f,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self.file)

    def _rel(self, directory, p):
        ap = os.path.normpath(os.path.join(directory, p))
        if ap.startswith(self.tree + "/"):
            return ap[len(self.tree) + 1:]
        return None

    def _stale(self, obj, cmd):
        u = self.units.get(obj)
        if not u or not u.get("ok") or u["cmd"] != cmd:
            return True
        for p, mt in u["inputs"].items():
            try:
                if os.stat(p).st_mtime_ns != mt:
                    return True
            except OSError:
                return True
        return False

    def _preprocess(self, entry, argv):
        d = entry["directory"]
        r = subprocess.run(argv, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        live, inputs = {}, set()
        cur, ln = None, 0
        marker = re.compile(rb'^# (\d+) "(.*)"')
        for l in r.stdout.split(b"\n"):
            if l[:2] == b"# ":
                mk = marker.match(l)
                if mk:
                    ln = int(mk.group(1))
                    p = mk.group(2).decode("utf-8", "surrogateescape")
                    if not p.startswith("<"):
                        inputs.add(os.path.normpath(os.path.join(d, p)))
                    rel = self._rel(d, p)
                    cur = live.setdefault(rel, set()) if rel else None
                    continue
            if cur is not None and l.strip():
                cur.add(ln)
            ln += 1
        mt = {}
        for p in inputs:
            try:
                mt[p] = os.stat(p).st_mtime_ns
            except OSError:
                pass
        return {"cmd": " ".join(argv), "inputs": mt, "ok": r.returncode == 0,
                "live": {k: _ranges(v) for k, v in live.items() if v}}

    def entries(self):
        db = json.load(open(os.path.join(self.build, "compile_commands.json")))
        out = []
        for e in db:
            obj, argv = preprocess_argv(e)
            # The shim's headers-alone check is not linked into anything.
            if "ksim_shim_headers.dir" in obj:
                continue
            out.append((obj, e, argv))
        return out

    def refresh(self, jobs=2, objects=None):
        """Preprocess the units whose inputs changed (all, or those in
        `objects`).  Returns the number redone."""
        todo = [(o, e, a) for o, e, a in self.entries()
                if (objects is None or o in objects) and self._stale(o, " ".join(a))]
        with ThreadPoolExecutor(max(1, jobs)) as ex:
            for (obj, _, _), u in zip(todo, ex.map(lambda t: self._preprocess(t[1], t[2]), todo)):
                self.units[obj] = u
        self._live = {}
        if todo:
            self.dirty = True
        return len(todo)

    def objects_reading(self, paths):
        """Objects whose unit reads one of `paths` (kernel-relative)."""
        ps = set(paths)
        return {o for o, u in self.units.items() if ps & set(u["live"])}

    def live(self, obj, path):
        k = (obj, path)
        if k not in self._live:
            u = self.units.get(obj)
            self._live[k] = _unranges(u["live"].get(path, [])) if u else set()
        return self._live[k]

    def failed_units(self):
        return sorted(o for o, u in self.units.items() if not u.get("ok"))

    def files(self):
        """Every kernel file some unit reads."""
        return {p for u in self.units.values() for p in u["live"]}

    # -- which binary links which objects
    def link_objects(self, targets):
        """{target: [objects]} from `ninja -t commands` (cached per build.ninja)."""
        stamp = str(os.stat(os.path.join(self.build, "build.ninja")).st_mtime_ns)
        if stamp != self.links_stamp:
            self.links, self.links_stamp = {}, stamp
        miss = [t for t in targets if t not in self.links]
        for t in miss:
            r = subprocess.run(["ninja", "-C", self.build, "-t", "commands", t],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            objs = []
            for l in r.stdout.splitlines():
                m = re.search(r"\s-o\s+(\S+\.o)\s", l + " ")
                if m and " -c " in l + " ":
                    objs.append(m.group(1))
            self.links[t] = objs
        if miss:
            self.dirty = True
        return {t: self.links[t] for t in targets}



def compiled_in(bmap, path, fdef, objects):
    """The objects (of `objects`) that compile function definition fdef of path."""
    if fdef is None:
        return set()
    body = set(range(fdef.body, fdef.end + 1))
    return {o for o in objects if bmap.live(o, path) & body}
