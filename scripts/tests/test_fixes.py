#!/usr/bin/env python3
"""The findings' known fixes (scripts/ksimlib/fixes.py), without building:
the edit engine on a fake kernel file (whitespace ignored, exactly once,
never inside a comment, a missing or ambiguous text is one error line naming
finding, file, function and kernel version, a finding applies all or
nothing), the schema refuses broken entries, and every fix in
docs/findings.toml applies to this build's tree (argv[1]) where its finding
is present."""
import copy
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from ksimlib import findings, fixes  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(f"{'ok' if cond else 'not ok'} - {what}")
    failures += not cond


SRC = """/* SPDX-License-Identifier: GPL-2.0 */
static int twice(int x)
{
	/* gap = max - min + 1; in a comment */
	int gap = x + 1;

	return gap * 2;
}

static int other(int x)
{
	int gap = x + 1;
	return gap;
}
"""


def finding(edits, status=None):
    return {"id": "fake", "kind": "bug",
            "status": status or {"6.1": "present", "6.12": "present", "7.2": "gone", "7.3": "n/a"},
            "fix_edits": edits}


def edit(**kw):
    e = {"file": "lib/fake.c", "function": "twice", "old": "int gap = x + 1;",
         "new": "int gap = x + 2;"}
    e.update(kw)
    return e


# The edit engine.
out = fixes.apply_text(finding([edit(old="int   gap =\n x + 1 ;".replace(" ;", ";"))]), "6.1", "6.1.1",
                       {"lib/fake.c": SRC})
check("int gap = x + 2;" in out["lib/fake.c"].split("static int other")[0]
      and "int gap = x + 1;" in out["lib/fake.c"].split("static int other")[1],
      "old is found in its function only, whitespace ignored")
check("/* gap = max - min + 1; in a comment */" in out["lib/fake.c"], "the rest of the file is unchanged")
try:
    fixes.apply_text(finding([edit(old="gap = max - min + 1;")]), "6.1", "6.1.1", {"lib/fake.c": SRC})
    check(False, "text only in a comment is not found")
except fixes.FixError as e:
    check("fake" in str(e) and "6.1.1" in str(e) and "lib/fake.c" in str(e) and "twice()" in str(e)
          and "not found" in str(e), f"text only in a comment is not found: {e}")
try:
    fixes.apply_text(finding([edit(function="nosuch")]), "6.1", "6.1.1", {"lib/fake.c": SRC})
    check(False, "a missing function is an error")
except fixes.FixError as e:
    check("nosuch()" in str(e) and "function not found" in str(e), f"a missing function: {e}")
try:
    fixes.apply_text(finding([edit(function="twice", old="gap")]), "6.1", "6.1.1", {"lib/fake.c": SRC})
    check(False, "an ambiguous text is an error")
except fixes.FixError as e:
    check("2 times" in str(e), f"an ambiguous text: {e}")
check(fixes.edits_for(finding([edit()]), "7.2") == [], "no edits where the finding is not present")
check(len(fixes.edits_for(finding([edit(trees=["6.12"])]), "6.1")) == 0
      and len(fixes.edits_for(finding([edit(trees=["6.12"])]), "6.12")) == 1, "trees limits an edit")

# All or nothing per finding, on a scratch tree.
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "lib"))
    open(os.path.join(d, "lib", "fake.c"), "w").write(SRC)
    good = finding([edit()])
    bad = dict(finding([edit(function="other", old="return gap;", new="return 0;"),
                        edit(old="no such text")]), id="bad")
    texts, applied, errors = fixes.fixed_files([bad, good], d, "6.12.3")
    check(applied == ["fake"] and len(errors) == 1 and "return 0;" not in texts["lib/fake.c"],
          "a finding whose edit does not apply is skipped whole, the others apply")
    check(open(os.path.join(d, "lib", "fake.c")).read() == SRC, "the source tree is never written")
    # Two findings one fix removes (fix_with): applied once, both counted.
    orig_by_id = fixes.findings.by_id
    twin = {"id": "twin", "kind": "bug", "status": good["status"], "fix_with": "fake"}
    fixes.findings.by_id = lambda fid: good if fid == "fake" else orig_by_id(fid)
    try:
        texts, applied, errors = fixes.fixed_files([good, twin], d, "6.12.3")
    finally:
        fixes.findings.by_id = orig_by_id
    check(applied == ["fake", "twin"] and not errors and texts["lib/fake.c"].count("x + 2") == 1,
          "a fix shared through fix_with applies once and counts for both")

# The schema.
base = next(f for f in findings.load() if f.get("fix_edits"))
for mutate, what in ((lambda f: f.update(fix_edits=[]), "empty fix_edits"),
                     (lambda f: f["fix_edits"][0].pop("old"), "an edit without old"),
                     (lambda f: f["fix_edits"][0].update(color="red"), "an unknown key"),
                     (lambda f: f.update(kind="test"), "fix_edits on a test finding"),
                     (lambda f: f["fix_edits"][0].update(trees=["5.4"]), "a tree not present"),
                     (lambda f: f.update(verify_with="other"), "verify_with not a list")):
    f = copy.deepcopy(base)
    mutate(f)
    check(fixes.check_schema(f, "x") is not None, f"the schema refuses {what}")

# Every fix applies to this build's tree.
if len(sys.argv) > 1:
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim"), "fixes", "--build",
                        sys.argv[1], "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    check(r.returncode == 0, "every fix applies to this build's tree: " + r.stdout.strip().replace("\n", "; "))

# The kernel files a binary runs include those of generated files (the
# functions ksim-extract copies into mm-sim/gen/, by their #line): the mm
# findings' fixes are candidates when the mm fuzz target fails.
if len(sys.argv) > 1 and os.path.exists(os.path.join(sys.argv[1], "fuzz", "fuzz_mm_replay")):
    from ksimlib import report
    ks = report.tree_info(sys.argv[1])[1]
    kf = fixes.kernel_files(sys.argv[1], ["fuzz/fuzz_mm_replay"], ks)
    # dup_mmap() and its neighbours: only ever extracted, on every tree.
    check("kernel/fork.c" in kf and "lib/maple_tree.c" in kf,
          "fuzz_mm_replay runs lib/maple_tree.c (#included) and kernel/fork.c (extracted): "
          + ", ".join(sorted(f for f in kf if f.endswith(".c"))))

# ksim report --patch: a finding's fix and kernel-suite test as a
# format-patch series against this build's tree that applies to it, signed
# off, checkpatch-clean of errors.
if len(sys.argv) > 1:
    from ksimlib import report
    kver = report.tree_info(sys.argv[1])[0]
    tree = findings.tree_of(kver) if kver else None
    # One finding per kernel test file (lib/test_maple_tree.c, lib/test_xarray.c, ...).
    chosen = {}
    for f in findings.load():
        ks = report.kernel_suite(f)
        if ks and fixes.edits_for(f, tree) and f["status"].get(tree) == "present":
            chosen.setdefault(ks.file, f)
    ksrc = report.tree_info(sys.argv[1])[1]
    for suite_file, f in sorted(chosen.items()):
        with tempfile.TemporaryDirectory() as out:
            env = dict(os.environ, GIT_AUTHOR_NAME="A Tester", GIT_AUTHOR_EMAIL="tester@example.org")
            r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim"), "report", f["id"],
                                "--patch", out, "--tree", tree], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            pats = sorted(os.listdir(out))
            check(r.returncode == 0 and len(pats) == 2,
                  f"report {f['id']} --patch: two patches, 0 checkpatch errors: {r.stdout.strip()[-300:]}")
            for p in pats:
                text = open(os.path.join(out, p)).read()
                check(text.startswith("From ") and "Signed-off-by: A Tester <tester@example.org>" in text,
                      f"{p}: a mail, signed off")
                a = subprocess.run(["patch", "-p1", "--dry-run", "-s", "-d", ksrc, "-i",
                                    os.path.join(out, p)], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
                check(a.returncode == 0, f"{p} applies to {kver}: {a.stdout.strip()[-200:]}")
            check(suite_file in open(os.path.join(out, pats[-1])).read() if pats else False,
                  f"report {f['id']} --patch: the test patch adds to {suite_file}")
    if not chosen:
        print(f"# no finding with a fix and a kernel-style test on {kver}: --patch not checked")

print(f"# {failures} failure(s)")
sys.exit(1 if failures else 0)
