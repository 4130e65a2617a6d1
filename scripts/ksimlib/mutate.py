"""ksim mutate: mutation testing of a kernel file against a ksim suite.

    scripts/ksim mutate --file lib/maple_tree.c --count 100 --seed 1 --suite maple
                        [--kver 7.3 | --ksrc DIR] [-j N] [--timeout S] [--shard I/N]
                        [--out DIR] [--preset default|release] [--against-kernel-harness]
    scripts/ksim mutate --merge DIR... [--out DIR]

Never touches the repository or the kernel tree: each worker gets a scratch
copy of the tree (scripts/ksimlib/repro.py's Tree: hard links, the mutated
file a real copy) and one configured build directory.  A mutant is written
over that copy in place; ninja rebuilds only the objects that include the
file; the suite's CTest tests run one by one (fastest first, stop at the
first failure) with a time limit; the original is written back.

Mutants: the sites of a fixed set of operators in the file's function bodies
(comments, strings, preprocessor lines and code the build's preprocessor
drops are excluded), sampled with the seed: an operator is drawn uniformly
among those with sites left, then one of its sites, so rare operators (min/max,
rcu_assign_pointer, locks) are represented.  Same tree, file, seed and count:
same mutants, same ids.

Verdicts: killed (a test failed), timeout, survived, did-not-compile.  Kill
rate = (killed + timeout) / (mutants that compiled).

Resumable: one result file per mutant id in --out; a rerun skips what is
done (the sample is kept in --out/meta.json and checked against the file's
hash).  Shardable: --shard I/N runs the mutants whose index is I-1 modulo N;
--merge combines result directories of the same sample into one report.

Exit status: 0 run completed (whatever the kill rate), 2 bad input,
3 the unmutated tree does not build or its tests fail.
"""
import argparse
import hashlib
import html
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import difflib

from ksimlib import repro
from ksimlib.repro import ROOT, ReproError

# ---------------------------------------------------------------- source analysis
OPERATORS = {
    "relational": "relational operator boundary/negation (< <=, > >=, == !=)",
    "arithmetic": "arithmetic/bitwise operator swap (+ -, << >>, & |)",
    "logical": "logical connector swap (&& ||)",
    "constant": "integer constant +1 / -1",
    "negate": "negated if/while condition",
    "delete-call": "call statement removed",
    "delete-assign": "assignment / increment statement removed",
    "minmax": "min <-> max",
    "rcu-assign": "rcu_assign_pointer(p, v) -> p = v",
    "lock": "lock or unlock call removed",
}

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "case", "goto", "do", "else",
            "break", "continue", "default", "typeof", "__typeof__", "_Static_assert"}
TYPE_WORDS = r"(?:const|volatile|unsigned|signed|struct|union|enum|void|char|short|int|long|bool|" \
             r"u8|u16|u32|u64|s8|s16|s32|s64|__u\d+|__s\d+|\w+_t)"
CAST_RE = re.compile(rf"^\s*{TYPE_WORDS}\b[\w\s\*]*$")
# Checks of a correct program: removing one is an equivalent mutant by construction.
ASSERT_CALL = re.compile(r"^(?:\w*BUG_ON\w*|\w*WARN_ON\w*|WARN\w*|lockdep_\w+|might_sleep\w*|"
                         r"trace_\w+|BUILD_BUG\w*|static_assert|prefetch\w*|kmemleak_\w+|"
                         r"mt_dump|mas_dump|mt_validate\w*|pr_\w+|printk|dump_stack)$")
# Declaration macros: removing one does not compile.
DECL_CALL = re.compile(r"^(?:MA_STATE|MA_WR_STATE|MA_TOPIARY|DEFINE_\w+|DECLARE_\w+|LIST_HEAD|"
                       r"LLIST_HEAD|\w+_STATE)$")
LOCK_CALL = re.compile(r"^(?!lockdep)\w*(?:_|^)(?:un)?lock(?:_irq|_irqsave|_irqrestore|_bh|_nested|"
                       r"_nest_lock)?$")
LVALUE = r"\*?\s*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*\w+|\s*\[[^\]\n]*\])*"
ASSIGN_RE = re.compile(rf"^(?:{LVALUE})\s*(?:=(?!=)|\+=|-=|\*=|/=|%=|\|=|&=|\^=|<<=|>>=)")
INCDEC_RE = re.compile(rf"^(?:(?:{LVALUE})\s*(?:\+\+|--)|(?:\+\+|--)\s*(?:{LVALUE}))\s*;$")
CALL_RE = re.compile(r"^([A-Za-z_]\w*)\s*\(")
LABEL_RE = re.compile(r"^(?:case\b[^;:]*:(?!:)|default\s*:|else\b|[A-Za-z_]\w*\s*:(?!:))\s*")


def mask(text):
    """Same length as text: comments, string and char literals and
    preprocessor lines (with their continuations) blanked, newlines kept."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            i += 1
            continue
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):        # a comment inside a directive
                    e = text.find("*/", j + 2)
                    j = n if e < 0 else e + 2
                    continue
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        at_line_start = False
        if c == "\n":
            at_line_start = True
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_paren(m, i):
    """Index of the bracket closing the one at m[i]."""
    open_, close = m[i], {"(": ")", "[": "]", "{": "}"}[m[i]]
    depth = 0
    for j in range(i, len(m)):
        if m[j] == open_:
            depth += 1
        elif m[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return -1


def open_paren(m, k, lo=0):
    """Index of the '(' matching the ')' at m[k], searching back to lo (lo - 1 if none)."""
    depth, j = 0, k
    while j >= lo:
        if m[j] == ")":
            depth += 1
        elif m[j] == "(":
            depth -= 1
            if depth == 0:
                break
        j -= 1
    return j


def func_name(m, k):
    """The function whose parameter list closes at m[k] (trailing
    attribute macros such as __must_hold(x) skipped)."""
    for _ in range(4):
        j = open_paren(m, k)
        mo = re.search(r"([A-Za-z_]\w*)\s*$", m[max(0, j - 200):j])
        if not mo:
            return "?"
        if not mo.group(1).startswith("__"):
            return mo.group(1)
        k = j - len(m[max(0, j - 200):j]) + mo.start() - 1
        while k >= 0 and m[k].isspace():
            k -= 1
        if k < 0 or m[k] != ")":
            return mo.group(1)
    return "?"


def function_bodies(m):
    """[(name, start, end)]: top-level brace blocks that follow a ')'
    (function definitions; initializers and struct bodies do not)."""
    bodies, i, n = [], 0, len(m)
    while i < n:
        c = m[i]
        if c == "{":
            end = match_paren(m, i)
            if end < 0:
                break
            k = i - 1
            while k >= 0 and m[k].isspace():
                k -= 1
            if k >= 0 and m[k] == ")":
                bodies.append((func_name(m, k), i + 1, end))
            i = end + 1
        elif c in "([":
            e = match_paren(m, i)
            i = n if e < 0 else e + 1
        else:
            i += 1
    return bodies


def prev_token(m, i, lo):
    """(char, word) before position i: the previous non-space char and, when
    it ends an identifier, that identifier."""
    k = i - 1
    while k >= lo and m[k].isspace():
        k -= 1
    if k < lo:
        return "", ""
    if m[k].isalnum() or m[k] == "_":
        e = k + 1
        while k >= lo and (m[k].isalnum() or m[k] == "_"):
            k -= 1
        return m[e - 1], m[k + 1:e]
    return m[k], ""


def is_binary(m, i, lo):
    """True when the operator at i has a left operand (not unary, not after a cast)."""
    c, word = prev_token(m, i, lo)
    if word:
        return word not in KEYWORDS
    if c == "]":
        return True
    if c == ")":
        k = i - 1
        while m[k].isspace():
            k -= 1
        inner = m[open_paren(m, k, lo) + 1:k]
        return not CAST_RE.match(inner)
    return False


class Site:
    def __init__(self, op, start, end, repl):
        self.op, self.start, self.end, self.repl = op, start, end, repl


def statements(m, lo, hi):
    """(start, end) of simple statements (up to and including ';') in m[lo:hi]
    at brace depth of their block; for/if/while headers are not statements."""
    out = []
    i, start = lo, lo
    while i < hi:
        c = m[i]
        if c in "{}":
            start = i + 1
            i += 1
        elif c == ";":
            out.append((start, i + 1))
            start = i + 1
            i += 1
        elif c == "(":
            e = match_paren(m, i)
            if e < 0:
                break
            _, word = prev_token(m, i, lo)
            i = e + 1
            if word in ("if", "for", "while", "switch"):
                start = i
        else:
            i += 1
    return out


def find_sites(text, m=None):
    """Every mutation site of every operator in the function bodies of text."""
    m = m if m is not None else mask(text)
    sites = []
    for name, lo, hi in function_bodies(m):
        body = m[lo:hi]

        def add(op, s, e, repl):
            sites.append(Site(op, lo + s, lo + e, repl))

        for mo in re.finditer(r"(?<![<>=!\-+*/%&|^])(<=|>=|==|!=|<|>)(?![<>=])", body):
            if mo.group(1) == ">" and mo.start() > 0 and body[mo.start() - 1] == "-":
                continue
            repl = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}[mo.group(1)]
            add("relational", mo.start(), mo.end(), repl)
        for mo in re.finditer(r"(?<![+\-&|<>=!*/%^])(\+|-|&|\||<<|>>)(?![+\-&|<>=])", body):
            if mo.group(1) == "-" and body[mo.end():mo.end() + 1] == ">":
                continue
            if not is_binary(m, lo + mo.start(), lo):
                continue
            repl = {"+": "-", "-": "+", "&": "|", "|": "&", "<<": ">>", ">>": "<<"}[mo.group(1)]
            add("arithmetic", mo.start(), mo.end(), repl)
        for mo in re.finditer(r"(&&|\|\|)", body):
            add("logical", mo.start(), mo.end(), "||" if mo.group(1) == "&&" else "&&")
        for mo in re.finditer(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])", body):
            lit, suf = mo.group(1), mo.group(2)
            v = int(lit, 16) if lit[:2].lower() == "0x" else int(lit, 8 if lit != "0" and
                                                                  lit.startswith("0") else 10)
            fmt = (lambda x: hex(x)) if lit[:2].lower() == "0x" else str
            add("constant", mo.start(), mo.end(), fmt(v + 1) + suf)
            if v > 0:
                add("constant", mo.start(), mo.end(), fmt(v - 1) + suf)
        for mo in re.finditer(r"\b(if|while)\s*\(", body):
            p = mo.end() - 1
            e = match_paren(body, p)
            if e < 0:
                continue
            cond = body[p + 1:e].strip()
            if re.fullmatch(r"0|1|true|false", cond):
                continue
            add("negate", p, e + 1, "(!" + text[lo + p:lo + e + 1] + ")")
        for mo in re.finditer(r"\b(min|max|min_t|max_t|min3|max3|min_not_zero)\s*\(", body):
            w = mo.group(1)
            repl = w.replace("min", "\0").replace("max", "min").replace("\0", "max")
            if w == "min_not_zero":
                continue
            add("minmax", mo.start(1), mo.end(1), repl)
        for mo in re.finditer(r"\brcu_assign_pointer\s*\(", body):
            p = mo.end() - 1
            e = match_paren(body, p)
            if e < 0:
                continue
            args, depth, cut = body[p + 1:e], 0, -1
            for k, ch in enumerate(args):
                if ch in "([{":
                    depth += 1
                elif ch in ")]}":
                    depth -= 1
                elif ch == "," and depth == 0:
                    cut = k
                    break
            if cut < 0:
                continue
            raw = text[lo + p + 1:lo + e]
            add("rcu-assign", mo.start(), e + 1,
                raw[:cut].strip() + " = " + raw[cut + 1:].strip())
        for s, e in statements(m, lo, hi):
            raw = m[s:e]
            lead = len(raw) - len(raw.lstrip())
            stmt = raw.strip()
            lab = LABEL_RE.match(stmt)
            if lab and not ASSIGN_RE.match(stmt):
                lead += lab.end()
                stmt = stmt[lab.end():]
            if not stmt or stmt == ";":
                continue
            # Keep the line count: the statement's newlines stay.
            repl = ";" + "\n" * text[s + lead:e].count("\n")
            cm = CALL_RE.match(stmt)
            if cm and cm.group(1) not in KEYWORDS:
                p = stmt.index("(")
                if match_paren(stmt, p) != len(stmt) - 2:
                    continue        # f(x) + y; or f(x)->g = ...
                fn = cm.group(1)
                if ASSERT_CALL.match(fn) or DECL_CALL.match(fn):
                    continue
                if "lock" in fn and LOCK_CALL.match(fn):
                    sites.append(Site("lock", s + lead, e, repl))
                else:
                    sites.append(Site("delete-call", s + lead, e, repl))
            elif ASSIGN_RE.match(stmt) or INCDEC_RE.match(stmt):
                sites.append(Site("delete-assign", s + lead, e, repl))
    return sites


def cond_groups(text):
    """[(first, last)] line ranges (1-based) of each #if/#elif/#else branch."""
    groups, stack = [], []
    lines = text.split("\n")
    ln = 0
    while ln < len(lines):
        s = lines[ln].lstrip()
        n = 1
        while lines[ln + n - 1].endswith("\\") and ln + n < len(lines):
            n += 1
        d = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b", s)
        if d:
            kw = d.group(1)
            if kw in ("elif", "else", "endif") and stack:
                groups.append((stack.pop(), ln))
            if kw != "endif":
                stack.append(ln + n + 1)
        ln += n
    return groups


def live_filter(text, live):
    """A function: line -> False when the line is in a preprocessor branch
    none of whose lines the build compiles."""
    if live is None:
        return lambda line: True
    dead = []
    for a, b in cond_groups(text):
        if b >= a and not any(l in live for l in range(a, b + 1)):
            dead.append((a, b))
    any_live = bool(live)
    return lambda line: any_live and not any(a <= line <= b for a, b in dead)


class Mutant:
    def __init__(self, index, site, text, path):
        self.index = index
        self.op = site.op
        self.start, self.end, self.repl = site.start, site.end, site.repl
        self.line = text.count("\n", 0, site.start) + 1
        self.path = path
        self.id = f"m{index:04d}"
        self.func = ""
        self.orig = text[site.start:site.end]

    def apply(self, text):
        return text[:self.start] + self.repl + text[self.end:]

    def diff(self, text):
        new = self.apply(text)
        a, b = text.splitlines(True), new.splitlines(True)
        return "".join(difflib.unified_diff(a, b, f"a/{self.path}", f"b/{self.path}", n=2))

    def digest(self):
        return hashlib.sha1(f"{self.op}:{self.start}:{self.end}:{self.repl}".encode()).hexdigest()[:12]

    def to_json(self, text):
        return {"id": self.id, "index": self.index, "op": self.op, "line": self.line,
                "func": self.func, "start": self.start, "end": self.end, "repl": self.repl,
                "orig": self.orig, "digest": self.digest(), "diff": self.diff(text)}


def sample(text, path, seed, count, live=None):
    """The seeded mutant list: an operator drawn uniformly among those with
    sites left, then one of its sites; (op, offset, replacement) unique."""
    m = mask(text)
    ok = live_filter(text, live)
    sites = [s for s in find_sites(text, m) if ok(text.count("\n", 0, s.start) + 1)]
    bodies = function_bodies(m)
    by_op = {}
    for s in sites:
        by_op.setdefault(s.op, []).append(s)
    per_op = {op: len(v) for op, v in by_op.items()}
    rng = random.Random(seed)
    for op in sorted(by_op):
        rng.shuffle(by_op[op])
    out = []
    while len(out) < count:
        ops = sorted(op for op in by_op if by_op[op])
        if not ops:
            break
        s = by_op[rng.choice(ops)].pop()
        mu = Mutant(len(out), s, text, path)
        mu.func = next((nm for nm, lo, hi in bodies if lo <= s.start < hi), "")
        out.append(mu)
    return out, len(sites), per_op


# ---------------------------------------------------------------- which lines the build compiles
def tus_of(build_dir, path):
    """Objects whose dependency list (ninja's deps log) includes path."""
    out = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    want = os.path.realpath(path)
    objs, cur = [], None
    for l in out.splitlines():
        if l and not l[0].isspace():
            cur = l.split(":")[0]
        elif l.strip() and cur and os.path.realpath(l.strip()) == want and cur not in objs:
            objs.append(cur)
    return objs


def live_lines(build_dir, objs, path):
    """Lines of path that survive preprocessing in any of the objects' TUs."""
    db = json.load(open(os.path.join(build_dir, "compile_commands.json")))
    want = os.path.realpath(path)
    live = set()
    want_objs = {os.path.normpath(os.path.join(build_dir, o)) for o in objs}
    from ksimlib.compiled import preprocess_argv
    for e in db:
        out, cmd = preprocess_argv(e)
        if os.path.normpath(os.path.join(e["directory"], out)) not in want_objs:
            continue
        r = subprocess.run(cmd, cwd=e["directory"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, errors="replace")
        cur, ln = None, 0
        for l in r.stdout.split("\n"):
            mk = re.match(r'^# (\d+) "(.*)"', l)
            if mk:
                ln, cur = int(mk.group(1)), mk.group(2)
                cur_ok = os.path.realpath(os.path.join(e["directory"], cur)) == want
                continue
            if cur is not None and cur_ok and l.strip():
                live.add(ln)
            ln += 1
    return live


# ---------------------------------------------------------------- running
def ctest_escape(name):
    return re.sub(r"([.\[\]()*+?^$|\\])", r"\\\1", name)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


ACTIVE = set()          # running children (own sessions), killed on exit
ACTIVE_LOCK = threading.Lock()


def kill_active():
    with ACTIVE_LOCK:
        for p in list(ACTIVE):
            kill_group(p)


def run_cmd(argv, log, timeout=None, cwd=None, env=None):
    """Run in its own session; ('ok'|'fail'|'timeout', seconds, output)."""
    t0 = time.monotonic()
    with open(log, "w") as f:
        f.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
        f.flush()
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, env=env,
                             start_new_session=True)
        with ACTIVE_LOCK:
            ACTIVE.add(p)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(p)
            p.wait()
            rc = None
        finally:
            with ACTIVE_LOCK:
                ACTIVE.discard(p)
    dt = time.monotonic() - t0
    out = open(log, errors="replace").read()
    return ("timeout" if rc is None else "ok" if rc == 0 else "fail"), dt, out


FAIL_LINE = re.compile(r"(ksim: [^\n]*(?:FAIL|fail|problem|BUG|WARN)[^\n]*|[^\n]*Assertion[^\n]*failed"
                       r"[^\n]*|ERROR: \w+Sanitizer[^\n]*|[^\n]*runtime error:[^\n]*|"
                       r"[^\n]*MT_BUG_ON[^\n]*|[^\n]*BUG at[^\n]*|[^\n]*\bXPASS\b[^\n]*)")


def why(out):
    """The line that says why a run failed: sanitizer reports first, then
    assertions and ksim failures (not the notices that do not fail)."""
    found = [m.group(1).strip() for m in FAIL_LINE.finditer(out) if "not failing" not in m.group(1)]
    for pat in ("Sanitizer", "runtime error", "Assertion", "XPASS"):
        for f in found:
            if pat in f:
                return f[:240]
    if found:
        return found[0][:240]
    lines = [l for l in out.splitlines() if l.strip() and not l.startswith("$ ")]
    return (lines[-1].strip() if lines else "")[:240]


class Worker:
    """One scratch tree + one build directory (+ one kernel-harness copy)."""
    def __init__(self, k, ctx):
        self.k, self.ctx = k, ctx
        self.dir = os.path.join(ctx.workdir, f"w{k}")
        self.tree = repro.Tree(ctx.ksrc, os.path.join(self.dir, "tree"))
        self.build = None
        self.harness = None     # (hdir, binary, env)

    def setup(self):
        os.makedirs(self.dir, exist_ok=True)
        t0 = time.monotonic()
        self.tree.create()
        self.tree.own(self.ctx.file)
        f = os.path.join(self.tree.dir, self.ctx.file)
        if not os.path.isfile(f):
            raise ReproError(f"--file {self.ctx.file}: not in the directories ksim copies")
        if os.stat(f).st_nlink != 1:
            raise ReproError(f"{f}: still hard-linked into the source tree; refusing to write it")
        self.path = f
        self.orig = open(f).read()
        self.build = repro.Build(self.dir, self.tree, self.ctx.args.preset, 2,
                                 self.ctx.args.cmake_arg)
        self.build.configure()
        log = os.path.join(self.dir, "build-base.log")
        ok = self.build.build(self.ctx.targets, log)
        # Mutants: one compile job per worker, the workers run side by side.
        self.build.jobs = 1 if self.ctx.jobs > 1 else 2
        if not ok:
            raise ReproError(f"worker {self.k}: the unmutated tree does not build: "
                             + "; ".join(repro.build_errors(log)[:2]) + f" (log {log})", 3)
        self.ctx.say(f"  worker {self.k}: scratch tree + build ready in "
                     f"{time.monotonic() - t0:.0f}s ({self.build.dir})")
        if self.ctx.args.against_kernel_harness:
            self.setup_harness()

    def setup_harness(self):
        from ksimlib import bench_maple_suite as bms
        t0 = time.monotonic()
        hw = os.path.join(self.dir, "kharness")
        os.makedirs(hw, exist_ok=True)
        try:
            binary, info = bms.build_kernel_harness(self.ctx.ksrc, hw)
        except bms.BenchError as e:
            raise ReproError(f"kernel harness: {e}", 3)
        hdir = os.path.dirname(binary)
        kfile = os.path.normpath(os.path.join(hdir, "../../..", self.ctx.file))
        if os.path.samefile(kfile, os.path.join(self.ctx.ksrc, self.ctx.file)) or \
                os.stat(kfile).st_nlink != 1:
            raise ReproError(f"{kfile}: not a private copy; refusing to write it")
        self.harness = (hdir, binary, bms.make_env(bms.extra_cflags(self.ctx.ksrc)), kfile)
        self.ctx.say(f"  worker {self.k}: kernel harness ({bms.HARNESS} maple) ready in "
                     f"{time.monotonic() - t0:.0f}s, flags {info['flags']}")

    def remove(self):
        self.tree.remove()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- ksim side
    def run_tests(self, tests, timeouts, tag):
        """Tests one by one in order; stop at the first failure.
        Returns (verdict, test, reason, {test: seconds})."""
        times = {}
        for t in tests:
            log = os.path.join(self.dir, f"{tag}-test.log")
            argv = ["ctest", "--test-dir", self.build.dir, "-R", f"^{ctest_escape(t)}$",
                    "-FA", ".*", "--timeout", str(int(timeouts[t])), "--output-on-failure"]
            # A mutant's failures are the point: never replayed with the known fixes.
            env = dict(os.environ, KSIM_SEED=str(self.ctx.args.seed), KSIM_ATTRIBUTION="0")
            st, dt, out = run_cmd(argv, log, timeout=timeouts[t] + 60, env=env)
            times[t] = dt
            if "***Timeout" in out or st == "timeout":
                return "timeout", t, f"over {int(timeouts[t])}s", times
            if st != "ok" or "tests passed, 0 tests failed" not in out and "100% tests passed" \
                    not in out:
                return "killed", t, why(out.split("Start ", 1)[-1]), times
        return "survived", "", "", times

    def mutate_ksim(self, mu, text):
        ctx = self.ctx
        with open(self.path, "w") as f:
            f.write(mu.apply(text))
        try:
            t0 = time.monotonic()
            log = os.path.join(self.dir, "build-mutant.log")
            argv = ["cmake", "--build", self.build.dir, "-j", str(self.build.jobs)]
            if ctx.targets is not None:
                argv += ["--target"] + [t for t in ctx.targets if t in self.build.targets]
            st, tb, _ = run_cmd(argv, log)
            if st != "ok":
                errs = [l for l in repro.build_errors(log) if "error" in l]
                return {"verdict": "did-not-compile", "build_s": round(tb, 1),
                        "reason": (errs or [""])[0][-240:]}
            v, t, reason, times = self.run_tests(ctx.tests, ctx.timeouts, "mutant")
            return {"verdict": v, "test": t, "reason": reason, "build_s": round(tb, 1),
                    "test_s": round(sum(times.values()), 1)}
        finally:
            with open(self.path, "w") as f:
                f.write(text)

    # -- kernel harness side
    def harness_build(self, log):
        hdir, _, env, kfile = self.harness
        rel = os.path.relpath(kfile, hdir)
        # Only the objects that compile the file: maple.o; the other objects
        # list it as a prerequisite but do not include it (-o: assume old).
        st, dt, out = run_cmd(["make", "-C", hdir, "maple.o"], log, env=env)
        if st != "ok":
            return False, dt, out
        st2, dt2, out2 = run_cmd(["make", "-C", hdir, "-o", rel, "-o",
                                  "../../../lib/test_maple_tree.c", "maple"], log + ".link",
                                 env=env)
        return st2 == "ok", dt + dt2, out + out2

    def harness_run(self, log, timeout):
        hdir, binary, env, _ = self.harness
        return run_cmd([binary], log, timeout=timeout, cwd=hdir)

    def mutate_kernel(self, mu, text):
        hdir, binary, env, kfile = self.harness
        with open(kfile, "w") as f:
            f.write(mu.apply(text))
        try:
            log = os.path.join(self.dir, "kharness-mutant.log")
            ok, tb, out = self.harness_build(log)
            if not ok:
                errs = [l for l in out.splitlines() if re.search(r"\berror\b", l)]
                return {"verdict": "did-not-compile", "build_s": round(tb, 1),
                        "reason": (errs or [""])[0][-240:]}
            st, dt, out = self.harness_run(log, self.ctx.ktimeout)
            res = {"build_s": round(tb, 1), "test_s": round(dt, 1)}
            if st == "timeout":
                res.update(verdict="timeout", reason=f"over {int(self.ctx.ktimeout)}s")
            elif st == "ok":
                res.update(verdict="survived")
            else:
                reason = why(out)
                # A timing-dependent check of the kernel's harness that fails
                # under load without any mutation: confirm by one rerun.
                if "slowread" in out:
                    st2, dt2, _ = self.harness_run(log + ".rerun", self.ctx.ktimeout)
                    res["test_s"] = round(dt + dt2, 1)
                    if st2 == "ok":
                        res.update(verdict="survived", note="failed once in run_check_rcu_slowread"
                                   " (timing), passed on rerun")
                        return res
                res.update(verdict="killed", reason=reason)
            return res
        finally:
            with open(kfile, "w") as f:
                f.write(text)


class Ctx:
    """What the workers share."""
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()

    def say(self, msg):
        with self.lock:
            print(msg, flush=True)


# ---------------------------------------------------------------- results, report
def load_results(dirs):
    meta, res = None, {}
    for d in dirs:
        mp = os.path.join(d, "meta.json")
        if not os.path.exists(mp):
            raise ReproError(f"--merge {d}: no meta.json (not a ksim mutate result directory)")
        m = json.load(open(mp))
        if meta is None:
            meta = m
        elif (m["file"], m["file_sha256"], m["seed"], m["sample_digest"]) != \
                (meta["file"], meta["file_sha256"], meta["seed"], meta["sample_digest"]):
            raise ReproError(f"--merge {d}: a different sample ({m['file']} seed {m['seed']}, "
                             f"{m['count']} mutants) than {dirs[0]}")
        rd = os.path.join(d, "results")
        for f in sorted(os.listdir(rd)) if os.path.isdir(rd) else []:
            if f.endswith(".json"):
                r = json.load(open(os.path.join(rd, f)))
                res.setdefault(r["id"], {}).update({k: v for k, v in r.items() if v})
    return meta, res


VERDICTS = ["killed", "timeout", "survived", "did-not-compile"]


def rate(counts):
    compiled = sum(counts.get(v, 0) for v in ("killed", "timeout", "survived"))
    k = counts.get("killed", 0) + counts.get("timeout", 0)
    return (100.0 * k / compiled if compiled else float("nan")), k, compiled


def summarize(meta, res, side):
    counts, per_op = {}, {}
    for mu in meta["mutants"]:
        r = res.get(mu["id"], {}).get(side)
        v = r["verdict"] if r else "not run"
        counts[v] = counts.get(v, 0) + 1
        per_op.setdefault(mu["op"], {}).setdefault(v, 0)
        per_op[mu["op"]][v] += 1
    return counts, per_op


def report(meta, res, outdir):
    sides = [("ksim", f"ksim suite {meta['suite']}")]
    if any("kernel" in r for r in res.values()):
        sides.append(("kernel", "kernel harness"))
    muts = meta["mutants"]
    L = []
    L.append(f"ksim mutate: {meta['file']} (kernel {meta['kver']}), suite {meta['suite']}, "
             f"preset {meta['preset']}" + "".join(" " + a for a in meta.get("cmake_arg", []))
             + f", seed {meta['seed']}: {len(muts)} mutants sampled from {meta['sites']} sites")
    summ = {s: summarize(meta, res, s) for s, _ in sides}
    head = ["verdict"] + [lbl for _, lbl in sides]
    rows = [[v] + [str(summ[s][0].get(v, 0)) for s, _ in sides] for v in VERDICTS + ["not run"]]
    rows.append(["kill rate"] + ["%.1f%% (%d/%d)" % rate(summ[s][0]) for s, _ in sides])
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        L.append("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    if len(sides) == 2:
        both = [res[mu["id"]] for mu in muts if all(
            res.get(mu["id"], {}).get(s, {}).get("verdict", "did-not-compile") != "did-not-compile"
            for s, _ in sides)]
        det = lambda r, s: r[s]["verdict"] in ("killed", "timeout")
        L.append(f"  same mutants, both sides compiled and ran: {len(both)}; killed by both "
                 f"{sum(1 for r in both if det(r, 'ksim') and det(r, 'kernel'))}, by ksim only "
                 f"{sum(1 for r in both if det(r, 'ksim') and not det(r, 'kernel'))}, by the kernel "
                 f"harness only {sum(1 for r in both if det(r, 'kernel') and not det(r, 'ksim'))}, "
                 f"by neither {sum(1 for r in both if not det(r, 'ksim') and not det(r, 'kernel'))}")
    for s, lbl in sides:
        rs = [res[mu["id"]][s] for mu in muts if s in res.get(mu["id"], {})]
        if rs:
            med = lambda xs: sorted(xs)[len(xs) // 2] if xs else 0
            b = [r.get("build_s", 0) for r in rs]
            t = [r.get("test_s", 0) for r in rs]
            L.append(f"  time per mutant, {lbl}: build median {med(b):.0f}s, tests median "
                     f"{med(t):.0f}s (max {max(t):.0f}s), {sum(b) + sum(t):.0f}s in all for "
                     f"{len(rs)} mutants")
    L.append("")
    L.append("per operator (killed+timeout / compiled; sites in the file):")
    oh = ["operator", "sampled"] + [lbl for _, lbl in sides] + ["sites"]
    orow = []
    for op in OPERATORS:
        n = sum(1 for mu in muts if mu["op"] == op)
        if not n:
            continue
        orow.append([op, str(n)] + ["%d/%d" % rate(summ[s][1].get(op, {}))[1:] for s, _ in sides]
                    + [str(meta["sites_per_op"].get(op, 0))])
    w = [max(len(r[i]) for r in orow + [oh]) for i in range(len(oh))]
    for r in [oh] + orow:
        L.append("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    for s, lbl in sides:
        surv = [mu for mu in muts if res.get(mu["id"], {}).get(s, {}).get("verdict") == "survived"]
        L.append("")
        L.append(f"survivors, {lbl}: {len(surv)}")
        for mu in surv:
            other = [f"{l2}: {res.get(mu['id'], {}).get(s2, {}).get('verdict', 'not run')}"
                     for s2, l2 in sides if s2 != s]
            L.append(f"  {meta['file']}:{mu['line']} {mu['id']} [{mu['op']}] in {mu['func']}()"
                     + (f"  ({'; '.join(other)})" if other else ""))
            L.extend("    " + l for l in mu["diff"].splitlines()[2:])
    text = "\n".join(L) + "\n"
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "report.txt"), "w") as f:
        f.write(text)
    write_html(meta, res, sides, summ, os.path.join(outdir, "report.html"))
    return text


def write_html(meta, res, sides, summ, path):
    e = html.escape
    muts = meta["mutants"]
    h = ["<!doctype html><meta charset=utf-8><title>ksim mutate " + e(meta["file"]) + "</title>",
         "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border:1px solid #ccc}"
         "table{border-collapse:collapse}pre{background:#f6f6f6;margin:2px 0 10px}"
         ".killed,.timeout{color:#070}.survived{color:#b00;font-weight:bold}</style>",
         f"<h1>ksim mutate: {e(meta['file'])}</h1>",
         f"<p>kernel {e(meta['kver'])}, suite {e(meta['suite'])}, preset {e(meta['preset'])}, "
         f"seed {meta['seed']}: {len(muts)} mutants sampled from {meta['sites']} sites</p>",
         "<table><tr><th>verdict</th>" + "".join(f"<th>{e(l)}</th>" for _, l in sides) + "</tr>"]
    for v in VERDICTS + ["not run"]:
        h.append(f"<tr><td>{v}</td>" + "".join(f"<td>{summ[s][0].get(v, 0)}</td>"
                                              for s, _ in sides) + "</tr>")
    h.append("<tr><th>kill rate</th>" + "".join("<th>%.1f%% (%d/%d)</th>" % rate(summ[s][0])
                                                for s, _ in sides) + "</tr></table>")
    h.append("<h2>Per operator</h2><table><tr><th>operator</th><th>sampled</th>"
             + "".join(f"<th>{e(l)}</th>" for _, l in sides) + "</tr>")
    for op, desc in OPERATORS.items():
        n = sum(1 for mu in muts if mu["op"] == op)
        if n:
            h.append(f"<tr><td title='{e(desc)}'>{op}</td><td>{n}</td>" + "".join(
                "<td>%d/%d</td>" % rate(summ[s][1].get(op, {}))[1:] for s, _ in sides) + "</tr>")
    h.append("</table><h2>Mutants</h2><table><tr><th>id</th><th>where</th><th>operator</th>"
             + "".join(f"<th>{e(l)}</th>" for _, l in sides) + "</tr>")
    for mu in muts:
        cells = []
        for s, _ in sides:
            r = res.get(mu["id"], {}).get(s, {})
            v = r.get("verdict", "not run")
            cells.append(f"<td class='{v}' title='{e(r.get('test', '') + ' ' + r.get('reason', ''))}'>"
                         f"{v}</td>")
        h.append(f"<tr><td><a href='#{mu['id']}'>{mu['id']}</a></td><td>{e(meta['file'])}:"
                 f"{mu['line']} {e(mu['func'])}()</td><td>{mu['op']}</td>{''.join(cells)}</tr>")
    h.append("</table><h2>Survivors</h2>")
    for mu in muts:
        vs = [res.get(mu["id"], {}).get(s, {}).get("verdict") for s, _ in sides]
        if "survived" in vs:
            h.append(f"<h3 id='{mu['id']}'>{mu['id']} {e(meta['file'])}:{mu['line']} "
                     f"{e(mu['func'])}() [{mu['op']}]: " + ", ".join(
                         f"{l} {v or 'not run'}" for (_, l), v in zip(sides, vs)) + "</h3>")
            h.append(f"<pre>{e(mu['diff'])}</pre>")
    with open(path, "w") as f:
        f.write("\n".join(h) + "\n")


# ---------------------------------------------------------------- main
def parse_shard(s):
    m = re.fullmatch(r"(\d+)/(\d+)", s or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ReproError(f"--shard {s}: expected I/N with 1 <= I <= N (e.g. 2/4)")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ksim mutate", description=__doc__.splitlines()[0])
    ap.add_argument("--file", help="kernel file, relative to the tree (e.g. lib/maple_tree.c)")
    ap.add_argument("--suite", default="maple",
                    help="a repro suite (scripts/ksim repro --list; default maple)")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="sample seed, also KSIM_SEED of the tests")
    ap.add_argument("--ksrc", default=os.environ.get("KSRC", ""))
    ap.add_argument("--kver", default=os.environ.get("KVER", ""))
    ap.add_argument("-j", "--jobs", type=int, default=1, help="workers (tree + build each)")
    ap.add_argument("--timeout", type=float, default=0,
                    help="per-test limit in seconds (default: 3x the unmutated time + 30 s)")
    ap.add_argument("--shard", help="I/N: run only the mutants with index = I-1 mod N")
    ap.add_argument("--out", help="results directory (default ksim-out/mutate/<file>-s<seed>-"
                                  "n<count>-<suite>)")
    ap.add_argument("--preset", default="default", help="build preset (default: ASan+UBSan)")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG")
    ap.add_argument("--against-kernel-harness", action="store_true",
                    help="also run each mutant against the kernel's own harness for the file")
    ap.add_argument("--no-ksim", action="store_true", help="only the kernel harness side")
    ap.add_argument("--list", action="store_true", help="print the sample and stop")
    ap.add_argument("--keep", action="store_true", help="keep the scratch trees and builds")
    ap.add_argument("--workdir", help="scratch trees and builds (default build/mutate/<time>)")
    ap.add_argument("--merge", nargs="+", metavar="DIR", help="combine result directories")
    args = ap.parse_args(argv)
    try:
        if args.merge:
            meta, res = load_results(args.merge)
            out = args.out or args.merge[0]
            print(report(meta, res, out), end="")
            print(f"written: {os.path.join(out, 'report.txt')}, {os.path.join(out, 'report.html')}")
            return 0
        return run(args)
    except ReproError as e:
        print(f"ksim mutate: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("ksim mutate: interrupted (results so far are kept; rerun to resume)",
              file=sys.stderr)
        return 130


HARNESSES = {"lib/maple_tree.c": "tools/testing/radix-tree maple"}


def run(args):
    if not args.file:
        raise ReproError("--file is required (e.g. --file lib/maple_tree.c)")
    shard = parse_shard(args.shard) if args.shard else (1, 1)
    if args.count < 1 or args.jobs < 1:
        raise ReproError("--count and -j must be at least 1")
    if not args.file.endswith(".c") or args.file.startswith("/") or ".." in args.file.split("/"):
        raise ReproError(f"--file {args.file}: expected a .c file relative to the kernel tree")
    if args.against_kernel_harness and args.file not in HARNESSES:
        raise ReproError(f"--against-kernel-harness: no kernel harness wired for {args.file} "
                         f"(have: {', '.join(HARNESSES)})")
    if args.no_ksim and not args.against_kernel_harness:
        raise ReproError("--no-ksim needs --against-kernel-harness")
    ksrc, kver = repro.resolve_ksrc(args.ksrc, args.kver)
    src = os.path.join(ksrc, args.file)
    if not os.path.isfile(src):
        raise ReproError(f"--file {args.file}: no such file in {ksrc}")
    if not any(args.file.startswith(p.rstrip("/") + "/") for p in repro._kernel_parts()):
        raise ReproError(f"--file {args.file}: not in the directories ksim compiles")
    # The suite comes from the manifest of a configure-only build of the
    # tree (repro.suites_for): the workers' own builds do not exist yet.
    known = repro.suites_for(ksrc, args.preset, args.cmake_arg)
    if args.suite not in known:
        raise ReproError(f"--suite {args.suite}: unknown suite (known: {', '.join(known)})")
    suite = known[args.suite]
    text = open(src).read()
    sha = hashlib.sha256(text.encode()).hexdigest()
    tag = f"{args.file.replace('/', '_')}-s{args.seed}-n{args.count}-{args.suite}"
    out = os.path.abspath(args.out or os.path.join(ROOT, "ksim-out", "mutate", tag))
    os.makedirs(os.path.join(out, "results"), exist_ok=True)
    ctx = Ctx(args)
    ctx.ksrc, ctx.kver, ctx.file, ctx.suite = ksrc, kver, args.file, suite
    ctx.jobs = args.jobs
    ctx.targets = sorted(suite.targets) if suite.targets is not None else None
    ctx.workdir = os.path.abspath(args.workdir or os.path.join(
        ROOT, "build", "mutate", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"))
    mp = os.path.join(out, "meta.json")
    meta = json.load(open(mp)) if os.path.exists(mp) else None
    key = {"file": args.file, "file_sha256": sha, "seed": args.seed, "count": args.count,
           "suite": args.suite, "preset": args.preset, "cmake_arg": args.cmake_arg}
    if meta and any(meta.get(k) != v for k, v in key.items()):
        diff = ", ".join(f"{k} {meta.get(k)!r} (now {v!r})" for k, v in key.items()
                         if meta.get(k) != v and k != "file_sha256")
        raise ReproError(f"--out {out} holds another run ({diff or 'the file changed'}); "
                         "use another --out")
    print(f"ksim mutate: {args.file} on kernel {kver} ({ksrc}), suite {args.suite}, "
          f"seed {args.seed}, preset {args.preset}, results in {out}", flush=True)
    workers = []
    try:
        if meta is None or args.list:
            w0 = Worker(0, ctx)
            workers.append(w0)
            w0.setup()
            objs = tus_of(w0.build.dir, w0.path)
            if not objs:
                raise ReproError(f"--file {args.file}: not compiled by suite {args.suite}'s "
                                 f"targets ({', '.join(ctx.targets or ['all'])})")
            live = live_lines(w0.build.dir, objs, w0.path)
            if not live:
                raise ReproError(f"--file {args.file}: no line of it survives preprocessing in "
                                 f"{', '.join(objs)}", 3)
            muts, nsites, per_op = sample(text, args.file, args.seed, args.count, live)
            print(f"  {len(muts)} mutants from {nsites} sites in {len(live)} compiled lines "
                  f"(objects: {', '.join(os.path.basename(o) for o in objs)})", flush=True)
            meta = dict(key, kver=kver, sites=nsites, sites_per_op=per_op,
                        objects=objs, mutants=[mu.to_json(text) for mu in muts])
            meta["sample_digest"] = hashlib.sha1("".join(
                mu["digest"] for mu in meta["mutants"]).encode()).hexdigest()[:16]
            if args.list:
                for mu in meta["mutants"]:
                    print(f"  {mu['id']} {args.file}:{mu['line']} {mu['func']}() [{mu['op']}] "
                          f"{mu['orig'].strip()[:50]!r} -> {mu['repl'].strip()[:50]!r}")
                return 0
            with open(mp + ".tmp", "w") as f:
                json.dump(meta, f, indent=1)
            os.replace(mp + ".tmp", mp)
        mine = [mu for mu in meta["mutants"] if mu["index"] % shard[1] == shard[0] - 1]

        def todo_sides(mu):
            rp = os.path.join(out, "results", mu["id"] + ".json")
            r = json.load(open(rp)) if os.path.exists(rp) else {}
            need = [] if args.no_ksim or "ksim" in r else ["ksim"]
            if args.against_kernel_harness and "kernel" not in r:
                need.append("kernel")
            return need

        todo = [mu for mu in mine if todo_sides(mu)]
        print(f"  shard {shard[0]}/{shard[1]}: {len(mine)} mutant(s), {len(mine) - len(todo)} "
              f"already done, {len(todo)} to run, {args.jobs} worker(s)", flush=True)
        if todo:
            execute(ctx, args, meta, todo, todo_sides, text, out, workers)
        _, res = load_results([out])
        print()
        print(report(meta, res, out), end="")
        print(f"written: {os.path.join(out, 'report.txt')}, {os.path.join(out, 'report.html')}")
        return 0
    finally:
        kill_active()
        for w in workers:
            if args.keep:
                print(f"  kept: {w.dir}")
            else:
                w.remove()
        if not args.keep and os.path.isdir(ctx.workdir) and not os.listdir(ctx.workdir):
            os.rmdir(ctx.workdir)


_kfiles = {}


def sees_file(test, build, tree, path):
    """False when every binary TEST runs from BUILD is built without PATH
    (a command naming no binary of the build, e.g. a script, may see it)."""
    from ksimlib import fixes
    targets = fixes.targets_of(test.get("command", []), build)
    if not targets:
        return True
    key = tuple(sorted(targets))
    if key not in _kfiles:
        _kfiles[key] = fixes.kernel_files(build, targets, tree)
    return path in _kfiles[key]


def execute(ctx, args, meta, todo, todo_sides, text, out, workers):
    if not workers:
        workers.append(Worker(0, ctx))
        workers[0].setup()
    elif args.against_kernel_harness and not workers[0].harness:
        workers[0].setup_harness()
    w0 = workers[0]
    # The unmutated suite: every test must pass, and its times set the limits.
    need_ksim = any("ksim" in todo_sides(mu) for mu in todo)
    if need_ksim:
        out_n = subprocess.run(["ctest", "--test-dir", w0.build.dir, "-N",
                                "--show-only=json-v1"] + ctx.suite.ctest,
                               stdout=subprocess.PIPE, text=True).stdout
        tests = json.loads(out_n).get("tests", [])
        if not tests:
            raise ReproError(f"suite {args.suite}: no tests for this suite in this checkout")
        # A test whose binaries do not compile the file cannot see the mutant.
        tests = [t for t in tests if sees_file(t, w0.build.dir, w0.tree.dir, ctx.file)]
        # A fixture user (e.g. maple-suite/summary, a script adding up its
        # setups' counts) sees the file only through its setups: without
        # them left it has nothing to read and fails on a pristine tree.
        def fixtures(t, prop):
            return {f for p in t.get("properties", []) if p["name"] == prop
                    for f in (p["value"] if isinstance(p["value"], list) else [p["value"]])}
        provided = set().union(*(fixtures(t, "FIXTURES_SETUP") for t in tests)) if tests else set()
        tests = [t for t in tests if fixtures(t, "FIXTURES_REQUIRED") <= provided]
        if not tests:
            raise ReproError(f"suite {args.suite}: no test of it runs code of {ctx.file}")
        names = [t["name"] for t in tests]
        fixtured = {t["name"] for t in tests if fixtures(t, "FIXTURES_REQUIRED")}
        base = {n: 900.0 for n in names}
        # A test that fails once on the unmutated tree gets one more run: on a
        # loaded machine a stress run's watchdog can fire (seen at load 90);
        # failing twice stops the run.  The first failure's log is kept.
        times, left = {}, list(names)
        while left:
            v, t, reason, tt = w0.run_tests(left, base, "base")
            times.update(tt)
            if v == "survived":
                break
            keep = os.path.join(out, "base-failed-once-" + re.sub(r"\W", "_", t) + ".log")
            shutil.copy(os.path.join(w0.dir, "base-test.log"), keep)
            ctx.say(f"  unmutated tree: {t} failed ({v}: {reason}); running it again (log {keep})")
            v2, _, reason2, tt = w0.run_tests([t], base, "base")
            times.update(tt)
            if v2 != "survived":
                raise ReproError(f"the unmutated tree fails {t} twice ({v}: {reason}; {v2}: "
                                 f"{reason2}); mutation results would mean nothing", 3)
            left = left[left.index(t) + 1:]
        # Fastest first (a kill stops the run), fixture users last.
        ctx.tests = sorted(names, key=lambda n: (n in fixtured, times[n]))
        ctx.timeouts = {n: args.timeout or max(60.0, 3 * times[n] + 30) for n in names}
        ctx.say(f"  unmutated suite: {len(names)} test(s) pass in {sum(times.values()):.0f}s; "
                f"limits " + ", ".join(f"{n} {ctx.timeouts[n]:.0f}s" for n in ctx.tests))
    if args.against_kernel_harness:
        log = os.path.join(w0.dir, "kharness-base.log")
        st, dt, o = w0.harness_run(log, 3600)
        if st != "ok":
            st, dt, o = w0.harness_run(log, 3600)   # once more: it has timing checks
        if st != "ok":
            raise ReproError(f"the kernel harness fails unmutated ({why(o)}); log {log}", 3)
        ctx.ktimeout = args.timeout or max(120.0, 3 * dt + 30)
        ctx.say(f"  unmutated kernel harness passes in {dt:.0f}s; limit {ctx.ktimeout:.0f}s")
    queue = list(todo)
    total, done = len(todo), [0]
    stats = {"ksim": [], "kernel": []}
    errors = []

    def work(w):
        try:
            if w.build is None:
                w.setup()
            elif args.against_kernel_harness and not w.harness:
                w.setup_harness()
        except ReproError as e:
            errors.append(e)
            return
        while True:
            with ctx.lock:
                if not queue or errors:
                    return
                mu = queue.pop(0)
            rp = os.path.join(out, "results", mu["id"] + ".json")
            r = json.load(open(rp)) if os.path.exists(rp) else {"id": mu["id"]}
            m = Mutant.__new__(Mutant)
            m.start, m.end, m.repl = mu["start"], mu["end"], mu["repl"]
            t0 = time.monotonic()
            need = todo_sides(mu)
            if "ksim" in need:
                r["ksim"] = w.mutate_ksim(m, text)
            if "kernel" in need:
                r["kernel"] = w.mutate_kernel(m, text)
            r["digest"] = mu["digest"]
            with open(rp + ".tmp", "w") as f:
                json.dump(r, f, indent=1)
            os.replace(rp + ".tmp", rp)
            dt = time.monotonic() - t0
            with ctx.lock:
                done[0] += 1
                for s in need:
                    stats[s].append(r[s]["verdict"])
                parts = []
                for s in ("ksim", "kernel"):
                    if s in r:
                        x = r[s]
                        parts.append(f"{'ksim' if s == 'ksim' else 'kernel harness'}: "
                                     f"{x['verdict']}" + (f" by {x['test']}" if x.get("test") else "")
                                     + f" (build {x.get('build_s', 0):.0f}s, tests "
                                     f"{x.get('test_s', 0):.0f}s)")
                rates = "; ".join("%s %.0f%%" % (s, rate({v: stats[s].count(v) for v in VERDICTS})[0])
                                  for s in ("ksim", "kernel") if stats[s])
                print(f"[{done[0]}/{total}] {mu['id']} {meta['file']}:{mu['line']} {mu['func']}() "
                      f"[{mu['op']}] {dt:.0f}s: " + "; ".join(parts) + f"  | kill rate so far: {rates}",
                      flush=True)

    for k in range(len(workers), min(args.jobs, len(todo))):
        workers.append(Worker(k, ctx))
    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)
    if errors:
        raise errors[0]
