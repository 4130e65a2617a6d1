"""Tests of `ksim repro` itself (CTest label: repro).

Every series here is written at test time, by this file, against the kernel
tree the build uses (KSRC): small changes of our own to kernel functions
(lib/maple_tree.c, kernel/fork.c), diffed and wrapped in mails -- plain,
quoted-printable, base64, with a thread's full headers, as a b4 am
directory.  No patch file is kept in the repository.

  test_repro.py KSRC [--cache DIR] [CASE...]
  test_repro.py KSRC --write DIR        only write the series (to try by hand)

Cases: parse, noapply, already, git, uncompiled, good, coverage, buildfail,
bisect.  The runs that build share one kept build (--cache DIR, default a
temporary directory): -O0 (-DCMAKE_BUILD_TYPE=Debug), the maple regression
tests matching --tests, so each case costs an incremental build of
lib/maple_tree.c and a few tests.  The injected bug is the revert of the
upstream fix that maple/regression/empty_area_rev_lower_bound.c guards.
"""
import base64
import difflib
import email.header
import os
import quopri
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KSIM = os.path.join(ROOT, "scripts", "ksim")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from ksimlib import compiled, patchset  # noqa: E402

# The upstream fix's check in mas_rev_awalk(); the bug is its old form.
FIXED = "if (unlikely((mas->index > max) || (size - 1 > max - mas->index)))"
BUGGY = "if (unlikely(mas->index > max))"
# The tests the building cases run: they reach mas_rev_awalk(), not mtree_alloc_range().
TESTS = "^regression/maple/empty_area_rev_gap_straddles_min"
MAPLE = "lib/maple_tree.c"
FORK = "kernel/fork.c"


# ---------------------------------------------------------------- writing series
def udiff(path, old, new):
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        f"a/{path}", f"b/{path}"))


def edit_in(text, func, pick, how):
    """Change the first line of function `func` for which pick(line) holds."""
    f = next(f for f in compiled.functions(text) if f.name == func)
    lines = text.split("\n")
    for i in range(f.body, f.end):
        if pick(lines[i - 1]):
            lines[i - 1] = how(lines[i - 1])
            return "\n".join(lines)
    raise AssertionError(f"no line to change in {func}()")


def note(tag):
    """Append a comment to the first `if (` line: a changed line of code."""
    return lambda text, func: edit_in(text, func, lambda l: "if (" in l,
                                      lambda l: l + f" /* {tag} == checked */")


class Series:
    """Successive versions of kernel files -> patches (subject, diff)."""
    def __init__(self, ksrc):
        self.ksrc = ksrc
        self.cur = {}
        self.patches = []

    def text(self, path):
        if path not in self.cur:
            self.cur[path] = open(os.path.join(self.ksrc, path)).read()
        return self.cur[path]

    def change(self, subject, path, fn):
        old = self.text(path)
        new = fn(old)
        assert new != old, f"{subject}: no change to {path}"
        self.cur[path] = new
        self.patches.append((subject, udiff(path, old, new)))

    def already(self, subject, path, fn):
        """A patch the tree already carries: from a changed text to the tree's."""
        tree = open(os.path.join(self.ksrc, path)).read()
        self.patches.append((subject, udiff(path, fn(tree), tree)))


def mail(n, total, subject, diff, cte="8bit", base=None, thread=False):
    """One mail of a series as a list would deliver it."""
    msg = (f"{subject}, written by test_repro.py.\n\n"
           f"Signed-off-by: Test Author <author@example.org>\n---\n{diff}-- \n2.47.2\n")
    if base:
        msg = msg.replace("-- \n", f"\nbase-commit: {base}\n-- \n")
    tag = f"[PATCH {n}/{total}]" if total > 1 else "[PATCH]"
    subj = f"{tag} {subject}"
    if cte == "quoted-printable":
        body = quopri.encodestring(msg.encode()).decode()
        subj = email.header.Header(subj, "utf-8").encode()      # an encoded word, folded
    elif cte == "base64":
        body = base64.encodebytes(msg.encode()).decode()
    else:
        body = msg
    head = (f"From 000000000000000000000000000000000000000{n} Mon Sep 17 00:00:00 2001\n"
            + ("Return-Path: <author@example.org>\n"
               "Received: from mail.example.org (mail.example.org [192.0.2.1])\n"
               "\tby lists.example.org (Postfix) with ESMTPS id 4ABC\n"
               "\tfor <list@example.org>; Thu,  1 Jan 2026 00:00:00 +0000 (UTC)\n"
               "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org;\n"
               "\ts=k1; t=1767225600; bh=AAAA; h=From:To:Subject:Date;\n"
               f"Message-ID: <2026010100000{n}.1-{n}-author@example.org>\n"
               "In-Reply-To: <20260101000000.0-0-author@example.org>\n"
               "To: list@example.org\n" if thread else "")
            + "From: Test Author <author@example.org>\n"
            f"Date: Thu, 1 Jan 2026 00:00:0{n} +0000\n"
            f"Subject: {subj}\n"
            "MIME-Version: 1.0\n"
            'Content-Type: text/plain; charset="utf-8"\n'
            f"Content-Transfer-Encoding: {cte}\n\n")
    return head + body + "\n"


def write_mbox(series, f, cte="8bit", base=None, thread=False):
    n = len(series.patches)
    with open(f, "w") as out:
        for i, (s, d) in enumerate(series.patches, 1):
            enc = cte[i - 1] if isinstance(cte, list) else cte
            out.write(mail(i, n, s, d, enc, base if i == n else None, thread))
    return f


def make_series(ksrc, kind):
    s = Series(ksrc)
    if kind == "good":          # one code line of a function the tests run
        s.change("maple_tree: note the gap check", MAPLE, lambda t: note("gap")(t, "mas_rev_awalk"))
        s.change("maple_tree: comment the walk", MAPLE, lambda t: t.replace(
            "static bool mas_rev_awalk(", "/* ksim repro test */\nstatic bool mas_rev_awalk(", 1))
    elif kind == "coverage":    # a line the tests run, and a function they never call
        s.change("maple_tree: note the gap check", MAPLE, lambda t: note("gap")(t, "mas_rev_awalk"))
        s.change("maple_tree: note the alloc range check", MAPLE,
                 lambda t: note("alloc")(t, "mtree_alloc_range"))
    elif kind == "buggy":       # harmless, the bug
        s.change("maple_tree: comment the reverse gap walk", MAPLE, lambda t: t.replace(
            "static bool mas_rev_awalk(", "/* ksim repro test */\nstatic bool mas_rev_awalk(", 1))
        s.change("maple_tree: simplify the bounds check in mas_rev_awalk()", MAPLE,
                 lambda t: t.replace(FIXED, BUGGY, 1))
    elif kind == "buildfail":   # patch 1 calls what the tree does not have; 2, 3 harmless
        s.change("maple_tree: drop leftovers in the reverse walk", MAPLE,
                 lambda t: edit_in(t, "mas_rev_awalk", lambda l: l.strip() == "{" or l.endswith("{"),
                                   lambda l: l + "\n\tmas_ksim_drop_leftovers(mas);"))
        s.change("maple_tree: note the gap check", MAPLE, lambda t: note("gap")(t, "mas_rev_awalk"))
        s.change("maple_tree: document the header", "include/linux/maple_tree.h",
                 lambda t: t.replace("#define _LINUX_MAPLE_TREE_H",
                                     "#define _LINUX_MAPLE_TREE_H\n/* ksim repro test */", 1))
    elif kind == "shimlacks":   # calls a function the tree declares, the shim does not
        s.change("maple_tree: expedite the grace period", MAPLE,
                 lambda t: edit_in(t, "mas_rev_awalk", lambda l: l.endswith("{"),
                                   lambda l: l + "\n\tstart_poll_synchronize_rcu_expedited();"))
    elif kind == "uncompiled":  # kernel/fork.c's clone path, and a driver: ksim takes none of it
        s.change("fork: note the clone3 check", FORK, lambda t: note("clone3")(t, "clone3_args_valid"))
        s.change("fork: note the copy_process check", FORK, lambda t: note("copy")(t, "copy_process"))
        # A file outside the directories ksim copies: only its hunk header names the function.
        s.patches.append(("driver core: note the error", "--- a/drivers/base/core.c\n"
                          "+++ b/drivers/base/core.c\n"
                          "@@ -3500,7 +3500,7 @@ int device_add(struct device *dev)\n"
                          " \tstruct device *parent;\n \tstruct kobject *kobj;\n"
                          "-\tint error = -EINVAL;\n+\tint error = -EINVAL; /* checked */\n"
                          " \n \tdev = get_device(dev);\n"))
    elif kind == "already":     # all three are in the tree
        for n, fn in enumerate(("mas_rev_awalk", "mtree_alloc_range", "mas_empty_area_rev"), 1):
            s.already(f"maple_tree: change {n}, which the tree has", MAPLE,
                      lambda t, fn=fn: note("old")(t, fn))
    elif kind == "mixed":       # patch 1 is new, patch 2 is in the tree
        s.change("maple_tree: note the gap check", MAPLE, lambda t: note("gap")(t, "mas_rev_awalk"))
        s.already("maple_tree: a change the tree has", MAPLE,
                  lambda t: note("old")(t, "mtree_alloc_range"))
    elif kind == "noapply":     # patch 2's second hunk is against text the tree lacks
        s.change("maple_tree: comment the reverse gap walk", MAPLE, lambda t: t.replace(
            "static bool mas_rev_awalk(", "/* ksim repro test */\nstatic bool mas_rev_awalk(", 1))
        base = s.text(MAPLE)
        fake = base.replace(FIXED, "if (unlikely(mas->index > max + 0))", 1)
        new = fake.replace("/* ksim repro test */", "/* ksim repro test, two */", 1) \
            .replace("if (unlikely(mas->index > max + 0))", BUGGY, 1)
        s.patches.append(("maple_tree: a patch against another tree", udiff(MAPLE, fake, new)))
    return s


# ---------------------------------------------------------------- running
TREE = None     # KSRC the series are written against
CACHE = None    # the kept builds the cases share
TMP = None      # the test's temporary directory


RUNS = [0]


def repro(args, timeout=900, cache=True):
    t0 = time.monotonic()
    if "--ksrc" not in args:
        args = args + ["--ksrc", TREE]
    if cache:
        args = args + ["--cache", CACHE]
    if "--workdir" not in args:     # what a failure keeps stays in the test's directory
        RUNS[0] += 1
        args = args + ["--workdir", os.path.join(TMP, f"run-{RUNS[0]}")]
    r = subprocess.run([sys.executable, KSIM, "repro", "--cmake-arg=-DCMAKE_BUILD_TYPE=Debug",
                        "--seed", "7"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                       cwd=ROOT)
    print(r.stdout)
    print(f"# (exit {r.returncode}, {time.monotonic() - t0:.0f}s)")
    return r.returncode, r.stdout


failures = 0


def check(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what, flush=True)
    if not cond:
        failures += 1


def verdict(out):
    m = re.search(r"^VERDICT: (.*)$", out, re.M)
    return m.group(1) if m else ""


def git_repo(ksrc, d, files):
    os.makedirs(d)
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
        shutil.copyfile(os.path.join(ksrc, f), os.path.join(d, f))
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-C", d] + argv, check=True, env=env)
    return env


def head(d):
    return subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                          text=True).stdout.strip()


# ---------------------------------------------------------------- cases
def case_parse(ksrc, tmp):
    """Inputs as developers have them; no tree is needed."""
    s = make_series(ksrc, "buggy")
    mbox = write_mbox(s, os.path.join(tmp, "parse.mbox"))
    ps = patchset.read_series([mbox]).patches
    check(len(ps) == 2 and ps[1].subject == "maple_tree: simplify the bounds check in mas_rev_awalk()",
          "mbox: 2 patches, subject without [PATCH n/m]")
    check([f.path for f in ps[1].files] == [MAPLE] and
          len(ps[1].files[0].hunks) == 1 and "-- " not in ps[1].files[0].text.splitlines(),
          "files, one hunk, the signature not in the diff")
    # Quoted-printable and base64 bodies, a thread's headers, an encoded subject.
    c = make_series(ksrc, "coverage")
    enc = write_mbox(c, os.path.join(tmp, "enc.mbox"), cte=["quoted-printable", "base64"],
                     thread=True)
    raw = open(enc).read()
    check("=3D=3D checked" in raw and "=\n" in raw, "the QP mail has =3D and soft line breaks")
    pe = patchset.read_series([enc]).patches
    check([p.subject for p in pe] == [sub for sub, _ in c.patches], "QP/base64 mails: subjects")
    check([p.files[0].text for p in pe] == [d for _, d in c.patches],
          "QP/base64 mails: the diffs decode to the bytes written")
    # A thread in arrival order, with a reply: numbered order, the reply ignored.
    d = os.path.join(tmp, "thread.mbox")
    parts = [mail(i, 2, sub, diff, thread=True) for i, (sub, diff) in enumerate(s.patches, 1)]
    reply = parts[0].replace("Subject: [PATCH 1/2]", "Subject: Re: [PATCH 1/2]")
    open(d, "w").write(parts[1] + reply + parts[0])
    pt = patchset.read_series([d]).patches
    check([p.subject for p in pt] == [p.subject for p in ps], "thread: patch order, reply ignored")
    # b4 am's output directory: the .mbx and the cover letter's base-commit.
    b4 = os.path.join(tmp, "b4")
    os.makedirs(b4)
    write_mbox(s, os.path.join(b4, "v2_20260101_author_maple_tree_bounds.mbx"))
    open(os.path.join(b4, "v2_20260101_author_maple_tree_bounds.cover"), "w").write(
        "From: Test Author <author@example.org>\nSubject: [PATCH 0/3] maple_tree: bounds\n\n"
        "cover\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567\n")
    sb = patchset.read_series([b4])
    check(len(sb.patches) == 2 and sb.base_commit == "0123456789abcdef0123456789abcdef01234567",
          "b4 am directory: 2 patches and the base-commit")
    # A directory of format-patch files, the cover letter skipped.
    fp = os.path.join(tmp, "fp")
    os.makedirs(fp)
    open(os.path.join(fp, "0000-cover-letter.patch"), "w").write(
        "From: a <a@b>\nSubject: [PATCH 0/3] cover\n\nno diff here\n")
    for i, (sub, diff) in enumerate(s.patches, 1):
        open(os.path.join(fp, f"{i:04d}-x.patch"), "w").write(mail(i, 2, sub, diff))
    check(len(patchset.read_series([fp]).patches) == 2, "format-patch directory, cover skipped")
    rc, out = repro(["--series", "<20260101000000.1-1-author@example.org>"], cache=False)
    check(rc == 2 and len(out.strip().splitlines()) == 1 and "offline" in out and "b4 am" in out,
          "a Message-ID: one line, offline, how to fetch with b4")
    rc, out = repro(["--series", "https://lore.kernel.org/all/20260101.1-1-a@example.org/"],
                    cache=False)
    check(rc == 2 and "b4 am" in out and "20260101.1-1-a@example.org" in out, "a lore URL: same")
    rc, out = repro(["--series", os.path.join(tmp, "missing.mbox")], cache=False)
    check(rc == 2 and len(out.strip().splitlines()) == 1, "missing series: one line, exit 2")


def case_noapply(ksrc, tmp):
    """A series that does not apply stops before anything is configured."""
    mbox = write_mbox(make_series(ksrc, "noapply"), os.path.join(tmp, "noapply.mbox"))
    w = os.path.join(tmp, "w-noapply")
    rc, out = repro(["--series", mbox, "--workdir", w])
    check(rc == 2 and re.search(r'DOES NOT APPLY: patch 2/2 "maple_tree: a patch against another '
                                r'tree" does not apply: lib/maple_tree.c hunk #2 \(@@ -\d+,\d+ '
                                r'\+\d+,\d+ @@\) FAILED', out) is not None,
          "DOES NOT APPLY names patch 2/2 and hunk #2, exit 2")
    check("configured" not in out and not os.path.exists(w), "stops before configuring; nothing left")


def case_already(ksrc, tmp):
    """Patches that reverse-apply are in the tree already."""
    mbox = write_mbox(make_series(ksrc, "already"), os.path.join(tmp, "already.mbox"))
    rc, out = repro(["--series", mbox, "--ab"])
    check(rc == 2 and verdict(out).startswith("ALREADY APPLIED: all 3 patch(es)"),
          "ALREADY APPLIED, exit 2 (--ab: before building the base)")
    check("patch 2/3 appears to be in the tree already" in out and "configured" not in out,
          "names each patch; nothing configured or built")
    mbox = write_mbox(make_series(ksrc, "mixed"), os.path.join(tmp, "mixed.mbox"))
    rc, out = repro(["--series", mbox])
    check(rc == 2 and verdict(out).startswith("PARTLY APPLIED ALREADY: patch 2/2"),
          "one of two in the tree: PARTLY APPLIED ALREADY naming patch 2/2")


def case_git(ksrc, tmp):
    """A git KSRC: git worktree + git am, base-commit: against HEAD, --base,
    --range.  A two-file repository is enough: these stop before building."""
    g = os.path.join(tmp, "gitk")
    env = git_repo(ksrc, g, ["Makefile", MAPLE])
    base = head(g)
    s = make_series(ksrc, "good")
    # HEAD moves on: the line the series changes is changed there too.
    t = open(os.path.join(g, MAPLE)).read()
    open(os.path.join(g, MAPLE), "w").write(note("moved on")(t, "mas_rev_awalk"))
    subprocess.run(["git", "-C", g, "commit", "-qam", "moved on"], check=True, env=env)
    mbox = write_mbox(s, os.path.join(tmp, "git.mbox"), base=base)
    w = os.path.join(tmp, "w-git")
    rc, out = repro(["--series", mbox, "--ksrc", g, "--workdir", w])
    check(rc == 2 and "(git worktree" in out and re.search(
        r"DOES NOT APPLY: patch 1/2 \"maple_tree: note the gap check\" does not apply: "
        r"lib/maple_tree.c hunk #1", out) is not None, "git am: DOES NOT APPLY names patch 1/2")
    check(f"base-commit: {base[:12]}" in out and f"--base {base[:12]} tests it on its base" in out,
          "the base-commit differs from HEAD: --base offered")
    rc, out = repro(["--series", mbox, "--ksrc", g, "--base", base[:12]])
    check("applied patch 2/2" in out, "--base: the series applies on its base")
    wl = subprocess.run(["git", "-C", g, "worktree", "list"], stdout=subprocess.PIPE, text=True)
    check(not os.path.exists(w), "the run's work directory is removed")
    # --range: the commits of a range, on their merge-base.
    r = patchset.read_range(g, "HEAD~1..HEAD")
    check(len(r.patches) == 1 and r.patches[0].subject == "moved on" and r.range_base == base,
          "--range HEAD~1..HEAD: one commit, based on HEAD~1")
    rc, out = repro(["--range", "nosuch..HEAD", "--ksrc", g], cache=False)
    check(rc == 2 and "nosuch is not a commit" in out, "--range with a bad revision: one line")
    print(f"# git worktrees after the runs: {len(wl.stdout.splitlines())}")


def case_uncompiled(ksrc, tmp):
    """Only functions ksim does not compile: NOT COVERED, nothing built."""
    mbox = write_mbox(make_series(ksrc, "uncompiled"), os.path.join(tmp, "uncompiled.mbox"))
    rc, out = repro(["--series", mbox])
    v = verdict(out)
    check(rc == 5 and v.startswith("NOT COVERED: the series changes 3 function(s), none compiled "
                                   "by ksim"), "NOT COVERED, exit 5")
    check("clone3_args_valid() (kernel/fork.c)" in v and "copy_process() (kernel/fork.c)" in v
          and "device_add() (drivers/base/core.c)" in v, "the verdict lists the functions")
    check(re.search(r"device_add\(\)\s+drivers/base/core.c: not compiled by ksim \(the file is "
                    r"outside the directories ksim copies\)", out) is not None,
          "a file ksim does not copy: its function from the hunk header")
    check("nothing was built or run" in v and "[state" not in out, "nothing built or run")
    check(re.search(r"copy_process\(\)\s+kernel/fork.c: not compiled by ksim", out) is not None
          and "not code" not in out, "'not compiled by ksim', never 'not code'")


def case_good(ksrc, tmp):
    """A good series, mailed quoted-printable and base64: CLEAN with coverage."""
    mbox = write_mbox(make_series(ksrc, "good"), os.path.join(tmp, "good.mbox"),
                      cte=["quoted-printable", "base64"], thread=True)
    w = os.path.join(tmp, "w-good")
    rc, out = repro(["--series", mbox, "--tests", TESTS, "--workdir", w])
    check(rc == 0 and verdict(out).startswith("CLEAN: all 2 selected test(s) pass; patch coverage: "
                                              "1 of 1 changed function(s) compiled by ksim, 1 of 1 "
                                              "executed, 1 of 1 changed line(s) executed"),
          "CLEAN names its coverage, exit 0")
    check("tests: " in out and "of component(s) maple" in out, "suites from functions: maple")
    check(not os.path.exists(w), "a clean run removes its work directory")
    check("ksim repro test" not in open(os.path.join(ksrc, MAPLE)).read(), "the source is untouched")


def case_coverage(ksrc, tmp):
    """A reached line and a function the tests never call: PARTLY COVERED."""
    mbox = write_mbox(make_series(ksrc, "coverage"), os.path.join(tmp, "coverage.mbox"))
    rc, out = repro(["--series", mbox, "--tests", TESTS])
    v = verdict(out)
    check(rc == 4 and v.startswith("PARTLY COVERED: all 2 selected test(s) pass; patch coverage: "
                                   "2 of 2 changed function(s) compiled by ksim, 1 of 2 executed, "
                                   "1 of 2 changed line(s) executed"), "PARTLY COVERED, exit 4")
    check("not executed: mtree_alloc_range() (lib/maple_tree.c)" in v, "names the function not run")
    check(re.search(r"mtree_alloc_range\(\)\s+lib/maple_tree.c: compiled .*not executed; 0 of 1 "
                    r"changed line\(s\) executed; never reached: lib/maple_tree.c:\d+", out)
          is not None, "the line never reached, file:line")


def case_buildfail(ksrc, tmp):
    """Patch 1 of 3 breaks the build: bisected, and blamed on the series."""
    mbox = write_mbox(make_series(ksrc, "buildfail"), os.path.join(tmp, "buildfail.mbox"))
    w = os.path.join(tmp, "w-buildfail")
    rc, out = repro(["--series", mbox, "--tests", TESTS, "--workdir", w])
    check(rc == 3 and verdict(out).startswith('BUILD FAILS with patch 1/3 "maple_tree: drop '
                                              'leftovers in the reverse walk"'),
          "BUILD FAILS names patch 1/3, exit 3")
    check("patch 1/3 calls mas_ksim_drop_leftovers(), which this tree does not define" in out,
          "the patched tree lacks it, not the shim")
    check("shim lacks" not in out.split("VERDICT")[1] and
          re.search(r"lib/maple_tree.c:\d+:\d+: error: .*mas_ksim_drop_leftovers.*"
                    r"is added by patch 1/3\]", out) is not None,
          "the shim is not blamed; the compiler's error, on the line patch 1/3 adds")
    check(os.path.isdir(w) and os.path.exists(os.path.join(w, "bisect-1.log")) and
          not os.path.exists(os.path.join(w, "tree")), "kept: the logs, not a tree")
    # A function the tree declares but the shim does not have: the shim's
    # gap (the diagnosis alone, on ksim-diagnose's line; no build needed).
    from ksimlib import repro as R
    ps = patchset.read_series([write_mbox(make_series(ksrc, "shimlacks"),
                                          os.path.join(tmp, "shimlacks.mbox"))]).patches
    tree = types.SimpleNamespace(dir=ksrc)     # diagnose() only reads the tree
    line = (f"ksim: {MAPLE} (kernel x) needs 'start_poll_synchronize_rcu_expedited', which the "
            f"shim lacks [undeclared function]")
    d = R.diagnose(tree, [line], ps, 1)
    check(len(d) == 1 and re.match(r"the shim lacks start_poll_synchronize_rcu_expedited\(\): the "
                                   r"patched tree declares it in include/linux/rcutree.h:\d+; "
                                   r"ksim's shim/include/linux/rcutree.h needs it \(patch 1/1 "
                                   r"starts using it\)", d[0]) is not None,
          "a function the tree declares: the shim lacks it, and which header")


def case_bisect(ksrc, tmp):
    """--bisect: the first bad patch is patch 2 of 2; the base passes."""
    text = open(os.path.join(ksrc, MAPLE)).read()
    if FIXED not in text:
        print("ok - # SKIP this tree lacks the fix the series reverts")
        return
    mbox = write_mbox(make_series(ksrc, "buggy"), os.path.join(tmp, "bisect.mbox"))
    rc, out = repro(["--series", mbox, "--bisect", "--tests", TESTS + "$"])
    row = re.search(r"^\s+regression/maple/empty_area_rev_gap_straddles_min\s+(.*)$", out, re.M)
    check(row is not None and row.group(1).split() == ["pass", "pass", "FAIL"],
          "states base,+1,+2 = pass,pass,FAIL")
    check(rc == 1 and 'first bad: patch 2/2 "maple_tree: simplify the bounds check' in out
          and "1 FAILURE(S) with the series; patch coverage: 1 of 1 changed function(s)" in out,
          "FAILURE bisected to patch 2/2, with its coverage")
    check(re.search(r"maple_regression -t '?empty_area_rev_gap_straddles_min'? --seed 7", out)
          is not None, "the binary's replay command")


CASES = {"parse": case_parse, "noapply": case_noapply, "already": case_already, "git": case_git,
         "uncompiled": case_uncompiled, "good": case_good, "coverage": case_coverage,
         "buildfail": case_buildfail, "bisect": case_bisect}


def main():
    argv = sys.argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    global TREE, CACHE, TMP
    ksrc = TREE = os.path.abspath(argv.pop(0))
    if argv[:1] == ["--write"]:
        os.makedirs(argv[1], exist_ok=True)
        for kind in ("good", "coverage", "buggy", "buildfail", "shimlacks", "uncompiled",
                     "already", "mixed", "noapply"):
            print(write_mbox(make_series(ksrc, kind), os.path.join(argv[1], kind + ".mbox")))
        return 0
    cache = None
    if argv[:1] == ["--cache"]:
        cache = os.path.abspath(argv[1])
        argv = argv[2:]
    names = argv or list(CASES)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ksim-repro-test-") as tmp:
        TMP = tmp
        CACHE = cache or os.path.join(tmp, "cache")
        for n in names:
            print(f"# case {n}", flush=True)
            CASES[n](ksrc, tmp)
    print(f"# {failures} failure(s), {time.monotonic() - t0:.0f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
