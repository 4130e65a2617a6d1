"""The findings table (docs/findings.toml): one entry per root cause.

Everything that knows about known kernel failures reads it through here:
scripts/ksim-xfail (CTest), the fuzz smoke triage (fuzz.py), `ksim stress`
(stress.py) and `ksim report` (report.py).  load() checks the schema and
fails with one line naming the entry and the field.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "docs", "findings.toml")

TREES = ("6.1", "6.12", "7.2", "7.3")
STATUSES = ("present", "gone", "n/a", "unseen")
KINDS = {"bug": "kernel bug", "backport": "fixed upstream, missing in the trees marked present",
         "test": "not a kernel bug (test code)",
         "doc": "not a kernel bug (intended behaviour that the kernel-doc does not state: a doc gap)"}
# What a stable tree marked present can expect (optional, kind backport only).
STABLE = {"rewrite": "fixed upstream by a rewrite, no commit to cherry-pick: a stable fix would be new code",
          "unlikely": "fixed upstream by a rework that no stable tree took and no in-tree caller of "
                      "the stable tree reaches: stable is unlikely to take it"}
COMPONENTS = ("maple", "mm-sim", "bpf", "xarray")
CONTEXTS = ("maple", "mm-sim", "qptrie", "xarray", "fuzz", "stress")
REQUIRED = ("id", "subject", "kind", "component", "where", "status", "reach", "reproducer",
            "summary", "xfail")
OPTIONAL = ("fix", "kernel_test", "candidate_fix", "stable", "fix_edits", "fix_with", "verify_with",
            "fix_subject")
XFAIL_KEYS = {"in", "part", "match", "trees", "sometimes", "note", "alone"}

# A sanitizer's report or a BUG in a run's output: each fails the run.
SAN_REPORT = re.compile(r"WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|"
                        r"runtime error:|ksim: BUG")
# A line that fails a run: one of those, or a failing problem of the shim
# (shim/ksim/core.c's names; not its "(expected)" or "(reported once per
# site, not failing)" lines).  An xfail entry marked alone must explain
# every such line (scripts/ksim-xfail).
PROBLEM = re.compile(r"ksim: (?:test failure|WARNING|lockdep|suspicious RCU usage|"
                     r"sleeping function called from invalid context|memory leak): |"
                     + SAN_REPORT.pattern)


class TableError(Exception):
    pass


def tree_of(kver):
    """The supported tree a kernel version belongs to ("6.12.117" -> "6.12"), or None."""
    for t in sorted(TREES, key=len, reverse=True):
        if kver == t or kver.startswith(t + "."):
            return t
    return None


def _check(f, i, ids):
    where = f"{TABLE}: finding {i + 1} ({f.get('id', '?')})"
    for k in REQUIRED:
        if k not in f:
            raise TableError(f"{where}: missing '{k}'")
    for k in f:
        if k not in REQUIRED and k not in OPTIONAL:
            raise TableError(f"{where}: unknown field '{k}'")
    if f["id"] in ids:
        raise TableError(f"{where}: duplicate id")
    if f["kind"] not in KINDS:
        raise TableError(f"{where}: kind '{f['kind']}' (one of {', '.join(KINDS)})")
    if f["component"] not in COMPONENTS:
        raise TableError(f"{where}: component '{f['component']}' (one of {', '.join(COMPONENTS)})")
    if "stable" in f and (f["kind"] != "backport" or f["stable"] not in STABLE):
        raise TableError(f"{where}: stable '{f['stable']}' (kind backport only; one of {', '.join(STABLE)})")
    if sorted(f["status"]) != sorted(TREES):
        raise TableError(f"{where}: status must name every tree ({', '.join(TREES)})")
    for t, s in f["status"].items():
        if s not in STATUSES:
            raise TableError(f"{where}: status {t} = '{s}' (one of {', '.join(STATUSES)})")
    present = [t for t in TREES if f["status"][t] == "present"]
    if f["kind"] in ("bug", "backport") and present and f["status"].get(TREES[-1]) == "gone" \
            and not f.get("fix"):
        raise TableError(f"{where}: gone on {TREES[-1]}: say what fixed it ('fix')")
    m = _REPRO_OTHER.match(f["reproducer"])
    if " " in f["reproducer"] and (not m or set(re.split(r",\s*", m.group(2))) - set(TREES)):
        raise TableError(f"{where}: reproducer '{f['reproducer']}' (a test name, or 'NAME (T, T: OTHER)')")
    from ksimlib import fixes
    err = fixes.check_schema(f, where)
    if err:
        raise TableError(err)
    for j, x in enumerate(f["xfail"]):
        xw = f"{where}: xfail {j + 1}"
        if set(x) - XFAIL_KEYS:
            raise TableError(f"{xw}: unknown key(s) {', '.join(sorted(set(x) - XFAIL_KEYS))}")
        for k in ("in", "part", "match"):
            if not x.get(k):
                raise TableError(f"{xw}: missing '{k}'")
        if x["in"] not in CONTEXTS:
            raise TableError(f"{xw}: in = '{x['in']}' (one of {', '.join(CONTEXTS)})")
        trees = x.get("trees", present)
        # A timing-dependent signature may cover trees where it was never seen.
        allowed = present + ([t for t in TREES if f["status"][t] == "unseen"]
                             if x.get("sometimes") else [])
        for t in trees:
            if t not in allowed:
                raise TableError(f"{xw}: tree {t} is '{f['status'][t]}', not present")


_REPRO_OTHER = re.compile(r"^(\S+) \(([\d.]+(?:,\s*[\d.]+)*): (\S+)\)$")


def reproducer(f, tree=None):
    """The CTest name of the finding's reproducer on TREE ('NAME (T, T:
    OTHER)': those trees name the test OTHER)."""
    m = _REPRO_OTHER.match(f["reproducer"])
    if not m:
        return f["reproducer"]
    return m.group(3) if tree in re.split(r",\s*", m.group(2)) else m.group(1)


_cache = None


def load():
    """The findings, schema-checked (TableError on a bad table)."""
    global _cache
    if _cache is None:
        _cache = _load_cached()
    return _cache


def _load_cached():
    """The checked table from a JSON copy keyed by the TOML file's size and
    mtime: every test of make test runs through ksim-xfail, and parsing the
    TOML took ~90 ms of each (~400 tests a tier).  The copy is written only
    after the schema check passed, atomically (tests run side by side)."""
    try:
        st = os.stat(TABLE)
    except OSError as e:
        raise TableError(f"{TABLE}: {e}")
    key = f"{os.path.realpath(TABLE)}:{st.st_size}:{st.st_mtime_ns}"
    cdir = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                        "ksim", "findings")
    path = os.path.join(cdir, re.sub(r"[^\w.-]", "_", os.path.realpath(TABLE)).strip("_")
                        + ".json")
    try:
        with open(path) as fp:
            c = json.load(fp)
        if c.get("key") == key:
            return c["finding"]
    except (OSError, ValueError, AttributeError, KeyError):
        pass
    found = _load_checked()
    try:
        os.makedirs(cdir, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as fp:
            json.dump({"key": key, "finding": found}, fp)
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        pass	# no cache: parse every time
    return found


def _load_checked():
    import tomllib	# here: the cached path needs no TOML parser (36 ms to import)
    try:
        with open(TABLE, "rb") as fp:
            data = tomllib.load(fp)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TableError(f"{TABLE}: {e}")
    found = data.get("finding", [])
    ids = set()
    for i, f in enumerate(found):
        _check(f, i, ids)
        ids.add(f["id"])
    edits = {f["id"] for f in found if f.get("fix_edits")}
    for f in found:
        if f.get("fix_with") and f["fix_with"] not in edits:
            raise TableError(f"{TABLE}: finding {f['id']}: fix_with '{f['fix_with']}' names no "
                             f"finding with fix_edits")
        for o in f.get("verify_with", []):
            if o not in edits:
                raise TableError(f"{TABLE}: finding {f['id']}: verify_with '{o}' names no "
                                 f"finding with fix_edits")
    return found


def load_or_exit():
    try:
        return load()
    except TableError as e:
        sys.exit(f"ksim: {e}")


def by_id(fid):
    for f in load_or_exit():
        if f["id"] == fid:
            return f
    return None


def xfails(context, kver):
    """The known failures of one table ("maple", "fuzz", ...) on kernel kver:
    dicts with part, match (list of substrings), sometimes, alone, why, id."""
    tree = tree_of(kver)
    out = []
    if tree is None:
        return out
    for f in load_or_exit():
        present = [t for t in TREES if f["status"][t] == "present"]
        for x in f["xfail"]:
            if x["in"] != context or tree not in x.get("trees", present):
                continue
            why = f"{f['id']}: {f['subject']}"
            if x.get("note"):
                why += f" ({x['note']})"
            out.append({"part": x["part"], "match": x["match"].split(" && "), "raw": x["match"],
                        "sometimes": bool(x.get("sometimes")), "alone": bool(x.get("alone")),
                        "why": why, "id": f["id"],
                        "kind": f["kind"]})
    return out
