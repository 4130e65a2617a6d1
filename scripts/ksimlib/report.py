"""ksim report: the findings table (docs/findings.toml) and a report per finding.

  ksim report --list                  the table: id, kind, status per tree, subject
  ksim report ID [--tree T]           run ID's reproducer on tree T (default: the
                                      newest tree where it is present and built),
                                      print the report, write ksim-out/report/ID.txt
  ksim report --verify [--tree T...]  run every reproducer on each tree with a build
                                      and compare with the table's status
  ksim report ID --patch DIR          the fix as a git format-patch series against the
                                      newest tree with it (and a test for the
                                      kernel's own suite where ksim has one),
                                      checked with the tree's checkpatch.pl --strict
                                      (exit 1 on an error; warnings are listed)

A tree's build is the one `make` gives it (build/default for the default
kernel, build/default-<tree> otherwise; `--build DIR` for one tree).  Exit
status: 0, 1 (--verify: a disagreement), 2 (bad id or option).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import textwrap

from ksimlib import findings

ROOT = findings.ROOT
OUT = os.path.join(ROOT, "ksim-out", "report")


def default_tree():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim-kernel"), "--default"],
                       stdout=subprocess.PIPE, text=True)
    return findings.tree_of(r.stdout.strip()) or findings.TREES[-1]


def build_dir(tree, preset="default"):
    tag = "" if tree == default_tree() else f"-{tree}"
    return os.path.join(ROOT, "build", preset + tag)


def cache_value(build, key):
    try:
        text = open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8").read()
    except OSError:
        return None
    m = re.search(rf"^{key}(?::[A-Z]+)?=(.*)$", text, re.M)
    return m.group(1) if m else None


def tree_info(build):
    """(kernel version, KSRC) of a configured build, or (None, None)."""
    return cache_value(build, "KSIM_KVERSION_RESOLVED"), cache_value(build, "KSIM_KSRC_RESOLVED")


# ---------------------------------------------------------------- the table

def cmd_list(fs):
    trees = findings.TREES
    short = {"present": "present", "gone": "gone", "n/a": "n/a", "unseen": "unseen"}
    w = max(len(f["id"]) for f in fs)
    print(f"{'id':<{w}}  {'kind':<8}  " + "  ".join(f"{t:<7}" for t in trees) + "  subject")
    for f in fs:
        print(f"{f['id']:<{w}}  {f['kind']:<8}  "
              + "  ".join(f"{short[f['status'][t]]:<7}" for t in trees) + f"  {f['subject']}")
    print(f"\n{len(fs)} findings; kinds: " + "; ".join(f"{k} = {v}" for k, v in findings.KINDS.items()))
    print("status: present = the reproducer fails on that tree, gone = it passes, n/a = it does "
          "not reach that code there, unseen = timing-dependent, never observed there")
    return 0


# ---------------------------------------------------------- running a test

def test_command(build, name):
    """(argv, cwd) of CTest test NAME in BUILD, without the ksim-xfail wrapper."""
    r = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1", "-R", f"^{re.escape(name)}$"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode:
        return None, None
    tests = json.loads(r.stdout).get("tests", [])
    if not tests:
        return None, None
    t = tests[0]
    cmd = t["command"]
    if any(c.endswith("ksim-xfail") for c in cmd) and "--" in cmd:
        cmd = cmd[cmd.index("--") + 1:]
    cwd = next((p["value"] for p in t.get("properties", []) if p["name"] == "WORKING_DIRECTORY"), None)
    return cmd, cwd


_runs = {}


def run_test(build, name, timeout=600):
    """(returncode, output, argv) of one run of CTest test NAME (once per build and test)."""
    if (build, name) not in _runs:
        _runs[(build, name)] = _run_test(build, name, timeout)
    return _runs[(build, name)]


def _run_test(build, name, timeout):
    cmd, cwd = test_command(build, name)
    if cmd is None:
        return None, None, None
    try:
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout)
        return r.returncode, r.stdout, cmd
    except subprocess.TimeoutExpired as e:
        return -1, (e.stdout or "") + "\n(timed out)\n", cmd


FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+) (\S+?):(\d+)")


def trim(output, ksrc):
    """The failure: problem lines and stack frames in kernel files (and the
    reproducer's own frames), paths relative to the tree or to ksim."""
    keep, ours = [], 0
    for line in output.splitlines():
        if line.startswith(("TAP version", "1..", "ok ", "# ", "    ---", "    ...")):
            continue
        m = FRAME.match(line)
        if m:
            path = m.group(2)
            if ksrc and path.startswith(ksrc.rstrip("/") + "/"):
                keep.append(f"    {m.group(1)} {path[len(ksrc.rstrip('/')) + 1:]}:{m.group(3)}")
            elif path.startswith(ROOT + "/") and not re.search(r"/(shim|fuzz/lib)/", path) \
                    and ours < 2:
                ours += 1
                keep.append(f"    {m.group(1)} ksim/{path[len(ROOT) + 1:]}:{m.group(3)} (reproducer)")
            continue
        if re.match(r"^\s*#\d+ 0x", line) or not line.strip():
            continue
        if ksrc:
            line = line.replace(ksrc.rstrip("/") + "/", "")
        keep.append(line.replace(ROOT + "/", "ksim/"))
    return keep[:60]


# ------------------------------------------------------------- source text

def c_function(path, name):
    """The text of C function NAME in PATH (from its comment/signature to the closing brace)."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None, None
    start = None
    for i, l in enumerate(lines):
        if re.match(rf"^(KSIM_TEST\({re.escape(name)}\b|.*\b{re.escape(name)}\s*\()", l) \
                and not l.rstrip().endswith(";") and not l.startswith((" ", "\t", "#", "/", "*")):
            start = i
            break
    if start is None:
        return None, None
    head = start
    while head > 0 and (lines[head - 1].startswith((" *", "/*", "static", "noinline")) or
                        lines[head - 1].strip() == "*/"):
        head -= 1
    depth, seen = 0, False
    for j in range(start, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        seen = seen or "{" in lines[j]
        if seen and depth == 0:
            return "\n".join(lines[head:j + 1]), start + 1
    return None, None


def definition_line(ksrc, relpath, func):
    """file:line of FUNC's definition in the tree (the line that names it at column 0 or after a type)."""
    path = os.path.join(ksrc, relpath)
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None
    pat = re.compile(rf"^[a-z_][^;=(]*\b{re.escape(func)}\(")
    for i, l in enumerate(lines):
        if pat.match(l) and not l.rstrip().endswith(";"):
            return f"{relpath}:{i + 1}"
    return None


def where_lines(f, ksrc):
    """Definitions (file:line in this tree) of the functions the 'where' field names."""
    out = []
    if not ksrc:
        return out
    for part in re.split(r";\s*", f["where"]):
        m = re.match(r"([\w./-]+\.c)\b", part)
        if not m:
            continue
        rel = m.group(1)
        for fn in dict.fromkeys(re.findall(r"(\w+)\(\)", part)):
            loc = definition_line(ksrc, rel, fn)
            if loc:
                out.append(f"{fn}() at {loc}")
    return out


def reproducer_source(f, build=None):
    """(path, text) of the reproducer when it is our C test: a regression file
    whole (it is the self-contained program), else the test's function.  The
    folder is that of the component that registered the test (the build's
    ksim-manifest.json); without a configured build, the test name's first
    part."""
    import glob
    from ksimlib import manifest
    m = re.match(r"(?:regression/)?([\w-]+)/(\w+)$", findings.reproducer(f))
    if not m:
        return None, None
    comp, name = m.groups()
    if build:
        try:
            c = manifest.load(build).component_of_test(findings.reproducer(f))
            comp = c["dir"] if c else None
        except manifest.ManifestError:
            pass
    if comp is None:
        return None, None
    for src in sorted(glob.glob(os.path.join(ROOT, comp, "regression", "*.c"))):
        text, _ = c_function(src, name)
        if text:
            return os.path.relpath(src, ROOT), open(src, encoding="utf-8").read().rstrip()
    for src in sorted(glob.glob(os.path.join(ROOT, comp, "*.c"))):
        text, _ = c_function(src, name)
        if text and f"KSIM_TEST({name})" in text:
            return os.path.relpath(src, ROOT), text
    return None, None


def kernel_style(f):
    """(our file, the text of the finding's kernel-style check), the check
    preceded by its helpers: the file's functions named CHECK_* (a callback)."""
    if not f.get("kernel_test"):
        return None, None
    rel, fn = f["kernel_test"].split(":")
    path = os.path.join(ROOT, rel)
    text, _ = c_function(path, fn)
    if text:
        helpers = re.findall(rf"^static [^\n(]*\b({re.escape(fn)}_\w+)\(", open(path).read(), re.M)
        text = "\n\n".join([c_function(path, h)[0].strip() for h in helpers] + [text.strip()]) + "\n"
    return rel, text


# ---------------------------------------------------------------- a report

def pick_tree(f, want):
    if want:
        return want
    present = [t for t in findings.TREES if f["status"][t] == "present"]
    built = [t for t in reversed(present) if os.path.exists(os.path.join(build_dir(t), "CTestTestfile.cmake"))]
    if built:
        return built[0]
    return present[-1] if present else default_tree()


def cmd_report(f, args):
    tree = pick_tree(f, args.tree)
    build = args.build or build_dir(tree)
    kver, ksrc = tree_info(build)
    repro = findings.reproducer(f, tree)
    w = textwrap.TextWrapper(width=76)
    out = [f"Subject: {f['subject']}", ""]
    out.append(f"Kind: {findings.KINDS[f['kind']]} ({f['id']})")
    out.append("Trees (each established by running the reproducer, `scripts/ksim report --verify`):")
    for t in findings.TREES:
        out.append(f"  {t:<5} {f['status'][t]}")
    if f.get("fix"):
        out.append("Fix: " + f["fix"])
    if f.get("stable"):
        out.append("Stable: " + findings.STABLE[f["stable"]])
    out += ["", *w.fill(" ".join(f["summary"].split())).splitlines(), ""]
    out.append("Where: " + f["where"])
    locs = where_lines(f, ksrc)
    if locs:
        out.append(f"{'The code' if f['kind'] == 'doc' else 'Suspected cause'}, in {kver or tree}:")
        out += [f"  {l}" for l in locs]
    out += ["", "Reach:", *["  " + l for l in w.fill(f["reach"]).splitlines()], ""]

    label = f"{kver or tree}"
    if not os.path.exists(os.path.join(build, "CTestTestfile.cmake")):
        out.append(f"What happens: not run (no build in {os.path.relpath(build, ROOT)}; "
                   f"`KVER={tree} make build` makes one)")
    elif args.no_run:
        out.append("What happens: not run (--no-run)")
    else:
        rc, output, cmd = run_test(build, repro)
        if rc is None:
            out.append(f"What happens: {repro} is not a test of {os.path.relpath(build, ROOT)}")
        else:
            verdict = "fails" if rc else "passes (this run)"
            out.append(f"What happens on {label} ({repro} {verdict}):")
            out += ["  " + l for l in trim(output, ksrc)] or ["  (no output)"]
            out.append("")
            kv = "" if tree == default_tree() else f"KVER={tree} "
            out.append("Build and run it (from the ksim checkout):")
            out.append(f"  {kv}make build && "
                       + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd))
    out.append(f"  ctest --test-dir {os.path.relpath(build, ROOT)} -R '^{repro}$' -V")
    src, text = reproducer_source(f, build)
    if text and src.split("/")[1:2] == ["regression"]:
        out += ["", f"Reproducer ({src}, a self-contained program against ksim's shim and the "
                "tree's own source):", "", text]
    elif text:
        out += ["", f"Reproducer (the test in {src}):", "", text]
    elif repro.startswith("fuzz-known/"):
        inp = repro[len("fuzz-known/"):]
        out += ["", f"Reproducer: the fuzz input fuzz/known/{inp}; its decoded operations "
                f"(`{os.path.relpath(build, ROOT)}/fuzz/fuzz_{inp.split('/')[0]}_replay -v "
                f"fuzz/known/{inp}`):"]
        rbin = os.path.join(build, "fuzz", f"fuzz_{inp.split('/')[0]}_replay")
        if os.path.exists(rbin):
            r = subprocess.run([rbin, "-v", "-q", os.path.join("fuzz", "known", inp)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
            ops, on = [], False
            for l in r.stdout.splitlines():
                if l.startswith("# fuzz/known/"):
                    on = True
                elif on and (l.startswith(("ksim", "==", "/", "ok ", "not ok")) or "runtime error" in l):
                    break
                elif on and not re.match(r"^\s*#\d+ 0x", l):
                    ops.append(l)
            out += ["  " + l for l in ops[:40]] + (["  ..."] if len(ops) > 40 else [])
    if f.get("candidate_fix"):
        out += ["", "Candidate fix (ours, not upstream):"]
        out += ["  " + l for l in w.fill(" ".join(f["candidate_fix"].split())).splitlines()]
    rel, ktext = kernel_style(f)
    if ktext:
        ks = kernel_suite(f)
        out += ["", f"The same as a kernel-style test for {ks.file if ks else 'the kernel'} ({rel}, "
                "compiled and run by ksim):", "", ktext]
    out.append("")
    text = "\n".join(out)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, f"{f['id']}.txt")
    open(path, "w").write(text)
    print(text)
    print(f"(written to {os.path.relpath(path, ROOT)})", file=sys.stderr)
    return 0


# ------------------------------------------------------------------ verify

def signature_of(f, output, tree=None):
    """The finding's signature this output shows (on TREE: one listed for that tree), or None."""
    present = [t for t in findings.TREES if f["status"][t] == "present"]
    for x in f["xfail"]:
        if tree and tree not in x.get("trees", present):
            continue
        parts = x["match"][len("trace:"):] if x["match"].startswith("trace:") else x["match"]
        if all(p in output for p in parts.split(" && ")):
            return x["match"]
    return None


def cmd_verify(fs, trees, args):
    """Run each finding's reproducer on each tree that has a build; compare."""
    bad = 0
    rows = []
    for t in trees:
        build = args.build or build_dir(t)
        if not os.path.exists(os.path.join(build, "CTestTestfile.cmake")):
            print(f"ksim report: {t}: no build in {os.path.relpath(build, ROOT)} (`KVER={t} make build`), skipped",
                  flush=True)
            continue
        r = subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            print(f"ksim report: {t}: build failed in {os.path.relpath(build, ROOT)}")
            bad += 1
            continue
        kver, _ = tree_info(build)
        for f in fs:
            want = f["status"][t]
            sometimes = bool(f["xfail"]) and all(x.get("sometimes") for x in f["xfail"])
            repro = findings.reproducer(f, t)
            if repro.startswith("stress/"):
                got = "timing"
            else:
                rc, output, _ = run_test(build, repro)
                if rc is None:
                    got = "not built"
                elif rc == 0:
                    got = "timing" if sometimes and want != "gone" else "gone"
                elif signature_of(f, output, t):
                    got = "present"
                else:
                    # A reproducer several findings share (a kernel-suite part),
                    # or one another finding lists for this tree, may fail with
                    # that one's signature.
                    other = next((g["id"] for g in findings.load() if g is not f
                                  and (findings.reproducer(g, t) == repro
                                       or any(repro.endswith("/" + x["part"]) for x in g["xfail"]))
                                  and signature_of(g, output, t)), None)
                    got = f"other: {other}" if other else "fails differently"
            ok = (got == want or got == "timing" or (want in ("n/a", "unseen") and got == "gone")
                  or (got.startswith("other: ") and (want != "present" or sometimes))
                  or (want == "n/a" and got == "not built"))
            bad += not ok
            rows.append((f["id"], t, kver or t, want, got, ok))
            print(f"  {t:<5} {f['id']:<36} table {want:<8} run {got:<9} {'ok' if ok else 'DISAGREES'}",
                  flush=True)
    print(f"\nksim report --verify: {len(rows)} checks, {bad} disagreement(s)"
          + ("" if not bad else ": fix docs/findings.toml or the reproducer"))
    print("('timing': the reproducer is a stress run, or a timing-dependent one that passed this run;"
          " 'fails differently': it fails without any of the finding's signatures)")
    return 1 if bad else 0


# ---------------------------------------------------------------- --patch

# Where the kernel's own test suites take a finding's kernel-style test
# (kernel_test "FILE:FUNCTION"): by our file and the function's prefix, the
# kernel file, the line before which the function goes, the text before
# which the file's entry point calls it, the call, the subject prefix of the
# test patch, and the tools/testing/radix-tree binary that runs the file
# (its make variables, the name in its "NAME: N of M tests passed" line).
KernelSuite = collections.namedtuple("KernelSuite", "file anchor call_before call subject target make_vars name "
                                                   "ctest")
KERNEL_SUITES = {
    "maple/regression/kernel_style.c": [
        ("check_nomem_", KernelSuite("tools/testing/radix-tree/maple.c",
                                     "/* callback function used for check_nomem_writer_race() */\n",
                                     "\tmt_init_flags(&tree, MT_FLAGS_ALLOC_RANGE);\n\tcheck_prealloc(&tree);\n",
                                     "\tmt_init_flags(&tree, MT_FLAGS_USE_RCU);\n\t{fn}(&tree);\n"
                                     "\tmtree_destroy(&tree);\n\n",
                                     "radix tree test suite", "maple", (), "maple_tree", "regression/maple/")),
        ("check_", KernelSuite("lib/test_maple_tree.c", "static DEFINE_MTREE(tree);\n",
                               "#if defined(BENCH)\nskip:\n#endif\n",
                               "\tmt_init_flags(&tree, 0);\n\t{fn}(&tree);\n\tmtree_destroy(&tree);\n\n",
                               "test_maple_tree", "maple", (), "maple_tree", "regression/maple/")),
    ],
    "xarray/regression/kernel_style.c": [
        ("ida_check_", KernelSuite("lib/test_ida.c", "static DEFINE_IDA(ida);\n",
                                   "\n\tprintk(\"IDA: %u of %u tests passed\\n\"", "\t{fn}(&ida);\n",
                                   "test_ida", "idr-test", ("SHIFT=6",), "IDA", "regression/xarray/")),
        ("iter_", KernelSuite("tools/testing/radix-tree/main.c",
                              "static void single_thread_tests(bool long_run)\n",
                              "\n\t/* Free any remaining preallocated nodes */\n", "\t{fn}();\n",
                              "radix tree test suite", "main", ("SHIFT=6",), "XArray", "regression/xarray/")),
        ("check_", KernelSuite("lib/test_xarray.c", "static DEFINE_XARRAY(array);\n",
                               "\n\tprintk(\"XArray: %u of %u tests passed\\n\"", "\t{fn}(&array);\n",
                               "test_xarray", "xarray", ("SHIFT=6",), "XArray", "regression/xarray/")),
    ],
    # No harness upstream without a BPF kernel (a VM): target None.
    "qptrie/selftests/kernel_style.c": [
        ("test_", KernelSuite("tools/testing/selftests/bpf/test_maps.c",
                              "static void test_hashmap_walk(unsigned int task, void *data)\n",
                              "\ttest_hashmap_walk(0, NULL);\n", "\t{fn}(0, NULL);\n",
                              "selftests/bpf", None, (), None, "bpf-selftests/")),
    ],
}
# Why a finding with a fix gets no test patch: by finding, then by component.
NO_TEST = {
    "ida-alloc-nomem-leak": "the kernel's harness cannot reach the path: tools/lib/slab.c's kmalloc() "
                            "fails every GFP_NOWAIT allocation, and the leak needs the GFP_NOWAIT bitmap "
                            "to succeed and the GFP_NOWAIT node to fail; lib/test_ida.c in a kernel would "
                            "need fault injection (failslab) to get there",
    "mm-mmap-fixed-abort-commit-leak": "tools/testing/vma builds __mmap_setup() (mm/vma.c) but stubs "
                                       "vm_acct_memory() as a no-op (include/stubs.h): a leaked charge is "
                                       "invisible there",
    "mm-mremap-uffd-merge-drops-neighbour": "tools/testing/vma builds copy_vma() (mm/vma.c) but its struct "
                                            "vm_userfaultfd_ctx is empty and is_mergeable_vm_userfaultfd_ctx() "
                                            "returns true (include/stubs.h): the uffd context that decides "
                                            "the merge does not exist there",
}
NO_SUITE = {
    "mm-sim": "tools/testing/vma builds mm/vma.c (and on 7.x mm/vma_init.c, mm/vma_exec.c), not "
              "mm/mremap.c, mm/mmap.c or kernel/fork.c, and its allocations cannot be made to fail; the "
              "closest the kernel has is tools/testing/selftests/mm (mremap_test.c: a real kernel, no "
              "allocation failures, no view of the commit charge)",
    "bpf": "the kernel's test for this code is tools/testing/selftests/bpf (test_maps.c, map_tests/), "
           "which needs a BPF-enabled kernel upstream (ksim runs it: label bpf-selftests); "
           "ksim has no test_maps.c-style test for this finding",
}


def kernel_suite(f):
    """The KernelSuite that takes F's kernel-style test, or None."""
    if not f.get("kernel_test"):
        return None
    rel, fn = f["kernel_test"].split(":")
    return next((s for pre, s in KERNEL_SUITES.get(rel, ()) if fn.startswith(pre)), None)


# checkpatch.pl warnings that the suite's own conventions explain.
EXPLAINED = {
    "Do not crash the kernel unless": "{macro} is {file}'s own assertion, used by every check there "
                                      "(it counts and reports, it does not crash)",
    "Unnecessary parentheses around": "the changed line keeps the style of the line it replaces",
    "Comparison to NULL could be written": "MT_BUG_ON() prints its condition with %u: a pointer "
                                           "needs the comparison (the file's own checks write it so)",
}
# Each suite's assertion macro, for EXPLAINED.
SUITE_MACRO = {"lib/test_maple_tree.c": "MT_BUG_ON()", "lib/test_xarray.c": "XA_BUG_ON()",
               "lib/test_ida.c": "IDA_BUG_ON()", "tools/testing/radix-tree/main.c": "assert()",
               "tools/testing/radix-tree/maple.c": "MT_BUG_ON()",
               "tools/testing/selftests/bpf/test_maps.c": "assert()"}


def _tree_source(tree):
    """(path, version) of a supported tree (fetched like `make` does)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ksim-kernel"), "--kver", tree,
                        "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "ksim-kernel failed"
    path, kver = r.stdout.strip().split("\t")
    return path, kver


def _identity():
    """The patch author: git's author identity for this checkout's user."""
    def cfg(env, k):
        if os.environ.get(env):
            return os.environ[env]
        r = subprocess.run(["git", "-C", ROOT, "config", k], stdout=subprocess.PIPE, text=True)
        return r.stdout.strip()
    return cfg("GIT_AUTHOR_NAME", "user.name"), cfg("GIT_AUTHOR_EMAIL", "user.email")


def _para(text, width=72):
    return textwrap.fill(" ".join(text.split()), width=width, break_on_hyphens=False,
                         break_long_words=False)


def fix_message(f, kver):
    """The fix's commit message: what goes wrong, how it is reached, the fix."""
    body = [_para(f["summary"]), "", _para("How it is reached: " + f["reach"])]
    if f["kind"] == "backport":
        body += ["", _para(f"Upstream: {f['fix']}. This is the same change, for trees without it"
                           + (f" ({findings.STABLE[f['stable']]})." if f.get("stable") else "."))]
    elif f["kind"] == "doc":
        body += ["", _para("The behaviour may be intended (" + f.get("fix", "see the kernel-doc")
                           + "); this is the code alternative to documenting it.")]
    body += ["", _para(f"Found and checked with ksim, a userspace test bed that builds the "
                       f"unmodified {kver} source: the reproducer {findings.reproducer(f, findings.tree_of(kver))} fails on the "
                       f"pristine tree and passes with this change (`ksim fixes --verify`).")]
    return "\n".join(body)


def cmd_patch(f, args):
    """Write F's fix (and, where the kernel's own suite can take it, its
    kernel-style test) as a `git format-patch` series against the newest
    tree it is present on; check each with the tree's checkpatch.pl."""
    from ksimlib import fixes
    if f["kind"] not in fixes.FIXABLE:
        print(f"ksim report: {f['id']} is of kind '{f['kind']}' (not a kernel bug): no patch", file=sys.stderr)
        return 2
    trees = [t for t in findings.TREES if fixes.edits_for(f, t)]
    if args.tree:
        if args.tree not in trees:
            print(f"ksim report: {f['id']} has no fix for tree {args.tree} (it has for: "
                  f"{', '.join(trees) or 'none'})", file=sys.stderr)
            return 2
        tree = args.tree
    elif trees:
        tree = trees[-1]
    else:
        print(f"ksim report: {f['id']} carries no fix (fix_edits)", file=sys.stderr)
        return 2
    owner = fixes.owner(f)
    subject = owner.get("fix_subject") if owner is not f else f.get("fix_subject")
    if not subject:
        print(f"ksim report: {f['id']} has no fix_subject in docs/findings.toml", file=sys.stderr)
        return 2
    ksrc, kver = _tree_source(tree)
    if not ksrc:
        print(f"ksim report: tree {tree}: {kver}", file=sys.stderr)
        return 2
    texts, applied, errors = fixes.fixed_files([f], ksrc, kver)
    if errors or not texts:
        print(f"ksim report: {f['id']}: the fix does not apply to {kver}: {'; '.join(errors)}", file=sys.stderr)
        return 1
    name, email = _identity()
    if not name or not email:
        print("ksim report: --patch signs off with your git identity: set git config user.name "
              "and user.email (or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)", file=sys.stderr)
        return 2
    out = os.path.abspath(args.patch)
    os.makedirs(out, exist_ok=True)
    import tempfile
    with tempfile.TemporaryDirectory(prefix="ksim-patch-") as repo:
        env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
                   GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)

        def git(*a, **kw):
            return subprocess.run(["git", "-C", repo, *a], env=env, check=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)

        def put(rel, text):
            os.makedirs(os.path.dirname(os.path.join(repo, rel)), exist_ok=True)
            with open(os.path.join(repo, rel), "w", encoding="utf-8") as fp:
                fp.write(text)

        git("init", "-q")
        suite = kernel_suite(f)
        files = sorted(texts) + ([suite.file] if suite else [])
        for rel in files:
            put(rel, open(os.path.join(ksrc, rel), encoding="utf-8").read())
        git("add", "-A")
        git("commit", "-q", "-m", f"{kver}")
        base = git("rev-parse", "HEAD").stdout.strip()
        for rel, text in texts.items():
            put(rel, text)
        git("add", "-A")
        msg = f"{subject}\n\n{fix_message(owner if owner is not f else f, kver)}\n\nSigned-off-by: {name} <{email}>\n"
        git("commit", "-q", "-F", "-", input=msg)
        notes = []
        if suite:
            _, fn = f["kernel_test"].split(":")
            _, text = kernel_style(f)
            # Our finding ids mean nothing in the kernel's file.
            for g in findings.load():
                text = text.replace(f" ({g['id']})", "")
                text = re.sub(rf"^( \* ){re.escape(g['id'])}: (.)", lambda m: m.group(1) + m.group(2).upper(),
                              text, flags=re.M)
            cur = open(os.path.join(repo, suite.file), encoding="utf-8").read()
            if text and suite.anchor in cur and suite.call_before in cur:
                # The check goes before the suite's tree (or entry point),
                # which calls it last (maple: after the benchmarks' skip
                # label, which a benchmark build does not reach).
                cur = cur.replace(suite.anchor, text.strip() + "\n\n" + suite.anchor, 1)
                cur = cur.replace(suite.call_before, suite.call.format(fn=fn) + suite.call_before, 1)
                put(suite.file, cur)
                git("add", "-A")
                tsub = f"{suite.subject}: add {fn}()"
                hang = ("Without the fix the check does not return (the loop it tests spins with the "
                        "lock held). " if f["id"] == "xarray-store-range-ulong-max" else "")
                where = (f"in ksim and in tools/testing/radix-tree (make "
                         f"{' '.join(suite.make_vars + (suite.target,))})"
                         if getattr(args, "harness", False) and suite.target else "in ksim")
                tmsg = (f"{tsub}\n\n" + _para(f"A regression test for \"{subject}\": "
                        + " ".join(f["summary"].split())) + "\n\n"
                        + _para(hang + f"It fails without that change and passes with it, {where}.")
                        + f"\n\nSigned-off-by: {name} <{email}>\n")
                git("commit", "-q", "-F", "-", input=tmsg)
            else:
                notes.append(f"no test patch: {suite.file} of {kver} has no place for it")
        else:
            notes.append("no test patch: " + (NO_TEST.get(f["id"]) or NO_SUITE.get(
                f["component"], "no kernel-style test for this finding (kernel_test)")))
        for old in os.listdir(out):
            if old.endswith(".patch"):
                os.unlink(os.path.join(out, old))
        git("format-patch", "-q", "-o", out, "--no-signature", base)
    patches = sorted(p for p in os.listdir(out) if p.endswith(".patch"))
    print(f"ksim report: {f['id']}: {len(patches)} patch(es) against {kver} in {os.path.relpath(out)}")
    bad = 0
    cp = os.path.join(ksrc, "scripts", "checkpatch.pl")
    for p in patches:
        # --no-tree: ksim's copy of a Debian tree lacks the top-level files
        # checkpatch.pl looks for; it reads its data files beside itself.
        r = subprocess.run(["perl", cp, "--strict", "--no-tree", "--no-color", os.path.join(out, p)],
                           cwd=ksrc, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        summ = [l for l in r.stdout.splitlines() if l.startswith("total:")]
        print(f"  {p}: checkpatch.pl --strict: {summ[-1] if summ else r.stdout.strip()[-200:]}")
        for l in r.stdout.splitlines():
            if l.startswith(("ERROR:", "WARNING:", "CHECK:")):
                why = next((v for k, v in EXPLAINED.items() if k in l), None)
                if why and "{macro}" in why:
                    ks = kernel_suite(f)
                    why = why.format(macro=SUITE_MACRO.get(ks.file, "the check macro") if ks else
                                     "the check macro", file=ks.file if ks else "the suite")
                print(f"    {l}" + (f"\n      ({why})" if why else ""))
        m = re.search(r"total: (\d+) errors", summ[-1]) if summ else None
        bad += not m or m.group(1) != "0"
    if getattr(args, "harness", False):
        if len(patches) == 2 and kernel_suite(f) and not kernel_suite(f).target:
            notes.append(f"--harness: {kernel_suite(f).file} runs upstream only on a BPF-enabled kernel "
                         "(a VM): not run here; ksim runs it (label bpf-selftests: the ksim repro --ab lines)")
        elif len(patches) == 2 and kernel_suite(f):
            bad += harness_check(f, kernel_suite(f), ksrc, kver, [os.path.join(out, p) for p in patches])
        else:
            notes.append("--harness: no test patch, nothing to run in the kernel's harness")
        bad += repro_check(f, ksrc, kver, os.path.join(out, patches[0]))
    notes.append("no Fixes: tag (the introducing commit is not identified offline) and no "
                 "Cc: stable (a maintainer's call: see the finding's reach and trees)")
    for n in notes:
        print(f"  {n}")
    return 1 if bad else 0


def harness_check(f, suite, ksrc, kver, patches):
    """The kernel's own harness (the tools/testing/radix-tree binary that
    runs SUITE's file, built as `make bench-maple-suite` builds it, in
    ksim-out/patch-harness/<binary>/) with the test patch and the fix, then
    with the test patch alone: the first must pass, the second fail (a check
    that does not return fails at 5x the passing run's time, at least 60 s).
    Returns 1 when they do not."""
    from ksimlib import bench_maple_suite as bms
    import time
    wd = os.path.join(ROOT, "ksim-out", "patch-harness", suite.target)
    os.makedirs(wd, exist_ok=True)
    try:
        binary, info = bms.build_kernel_harness(ksrc, wd, target=suite.target, make_vars=suite.make_vars)
    except bms.BenchError as e:
        print(f"  kernel harness: does not build on {kver}: {e}")
        return 1
    copy = os.path.join(wd, "linux-" + info["version"])
    hdir = os.path.dirname(binary)
    env = bms.make_env(bms.extra_cflags(ksrc))
    fix, test = patches
    steps = (("test and fix", [test, fix], "pass"), ("test patch alone", [test], "fail"))
    bad, timeout = 0, 1800
    name = f"tools/testing/radix-tree {suite.target}"
    for what, ps, want in steps:
        applied = []
        try:
            for p in ps:
                r = subprocess.run(["patch", "-p1", "-s", "-d", copy, "-i", p],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if r.returncode:
                    print(f"  kernel harness, {what}: {os.path.basename(p)} does not apply: {r.stdout.strip()}")
                    bad = 1
                    break
                applied.append(p)
            else:
                m = subprocess.run(["make", "-C", hdir, f"-j{os.cpu_count() or 1}", *suite.make_vars,
                                    suite.target], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if m.returncode:
                    print(f"  kernel harness, {what}: does not build: {bms.first_error(m.stdout)}")
                    bad = 1
                    continue
                t0 = time.monotonic()
                try:
                    r = subprocess.run([binary], cwd=hdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, errors="replace", timeout=timeout)
                    outp, rc = r.stdout, r.returncode
                except subprocess.TimeoutExpired as e:
                    outp, rc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
                        else (e.stdout or ""), None
                took = time.monotonic() - t0
                log = os.path.join(wd, f"{f['id']}-{what.replace(' ', '-')}.log")
                with open(log, "w", errors="replace") as lf:
                    lf.write(outp)
                if want == "pass":
                    timeout = max(60, int(5 * took))
                counts = re.findall(rf"^{suite.name}: (\d+) of (\d+) tests passed", outp, re.M)
                bugs = sorted(set(re.findall(r"^BUG at (\w+):(\d+)", outp, re.M)))
                sani = bms.FAILURE_RE.search(outp)
                passed = rc == 0 and counts and counts[-1][0] == counts[-1][1] and not sani
                got = "pass" if passed else "fail"
                detail = (f"{counts[-1][0]} of {counts[-1][1]} checks passed" if counts else
                          f"no result after {timeout} s: killed" if rc is None else f"exit {rc}") + \
                    (f", BUG at {', '.join(b[0] + ':' + b[1] for b in bugs[:3])}" if bugs else "") + \
                    (f", {sani.group(1)[:100]}" if sani else "")
                ok = got == want
                bad |= not ok
                print(f"  kernel harness ({name}, {kver}), {what}: {got} "
                      f"({detail}; {took:.0f} s) {'as expected' if ok else 'NOT AS EXPECTED'}; output "
                      f"{os.path.relpath(log)}", flush=True)
        finally:
            for p in reversed(applied):
                subprocess.run(["patch", "-p1", "-R", "-s", "-d", copy, "-i", p],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"    (the harness: cd {os.path.relpath(hdir)} && make {' '.join(suite.make_vars + (suite.target,))} "
          f"&& ./{suite.target}; the patches apply with patch -p1 -d {os.path.relpath(copy)})")
    return bad


def repro_check(f, ksrc, kver, fix):
    """ksim's side of --harness: `ksim repro --ab` of the fix patch, with
    the finding's reproducer and kernel-style tests selected: each must be
    reported FIXED (failing without the fix, passing with it).  Returns 1
    when one is not."""
    ks = kernel_suite(f)
    names = [findings.reproducer(f, findings.tree_of(kver))] + [f"{ks.ctest}{x['part']}" for x in f["xfail"]
                                 if ks and x.get("note") == "the kernel-style check"]
    names = list(dict.fromkeys(names))     # an entry per tree may name a test twice
    regex = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    argv = [sys.executable, os.path.join(ROOT, "scripts", "ksim"), "repro", "--series", fix, "--ksrc",
            ksrc, "--ab", "--tests", regex, "--seed", "1"]
    r = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    fixed = set(re.findall(r"^FIXED  (\S+)", r.stdout, re.M))
    verdict = next((l for l in r.stdout.splitlines() if l.startswith("VERDICT:")), f"no verdict (exit {r.returncode})")
    bad = 0
    still = set(re.findall(r"^STILL FAILS  (\S+)", r.stdout, re.M))
    for n in names:
        # A failure that depends on addresses (every entry of the test
        # `sometimes`) may not show on the pristine side of one run: no flip
        # to see, no disagreement either.
        mine = [x for x in f["xfail"] if n == x["part"] or n.endswith("/" + x["part"])]
        sometimes = bool(mine) and all(x.get("sometimes") for x in mine)
        ok = n in fixed
        if ok:
            what = "fails without the fix, passes with it: as expected"
        elif sometimes and n not in still:
            what = ("passed on both sides this run: its failure depends on addresses (the finding "
                    "lists it as sometimes), so this run shows no flip")
        else:
            what = "NOT reported FIXED" + (" (still fails with the fix)" if n in still else "")
            bad = 1
        print(f"  ksim repro --ab ({kver}), {n}: {what}")
    print(f"    ({verdict}; the command: scripts/ksim repro --series {os.path.relpath(fix)} "
          f"--ksrc {ksrc} --ab --tests '{regex}' --seed 1)")
    return bad


def main(argv):
    ap = argparse.ArgumentParser(prog="ksim report", description=__doc__.splitlines()[0])
    ap.add_argument("id", nargs="?")
    ap.add_argument("--list", action="store_true", help="print the findings table")
    ap.add_argument("--verify", action="store_true", help="run every reproducer on each built tree")
    ap.add_argument("--tree", help=f"kernel tree ({', '.join(findings.TREES)})")
    ap.add_argument("--build", help="use this build directory")
    ap.add_argument("--no-run", action="store_true", help="do not run the reproducer")
    ap.add_argument("--patch", metavar="DIR", help="write the finding's fix (and its kernel-suite "
                    "test where there is one) as a git format-patch series in DIR, checkpatch'd")
    ap.add_argument("--harness", action="store_true", help="with --patch: run the kernel's own "
                    "harness with the test patch alone (must fail) and with both (must pass)")
    args = ap.parse_args(argv)
    try:
        fs = findings.load()
    except findings.TableError as e:
        print(f"ksim report: {e}", file=sys.stderr)
        return 2
    if args.tree and args.tree not in findings.TREES:
        print(f"ksim report: unknown tree '{args.tree}' (one of {', '.join(findings.TREES)})", file=sys.stderr)
        return 2
    if args.list:
        return cmd_list(fs)
    if args.verify:
        chosen = [f for f in fs if not args.id or f["id"] == args.id]
        if not chosen:
            print(f"ksim report: no finding '{args.id}' (`scripts/ksim report --list`)", file=sys.stderr)
            return 2
        return cmd_verify(chosen, [args.tree] if args.tree else list(findings.TREES), args)
    if not args.id:
        print("ksim report: give a finding id, --list or --verify", file=sys.stderr)
        return 2
    f = findings.by_id(args.id)
    if not f:
        print(f"ksim report: no finding '{args.id}' (`scripts/ksim report --list`)", file=sys.stderr)
        return 2
    if args.patch:
        return cmd_patch(f, args)
    return cmd_report(f, args)
