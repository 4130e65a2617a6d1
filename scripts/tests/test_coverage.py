#!/usr/bin/env python3
"""`ksim coverage --without` (label unit): the three-way comparison on
hand-made coverage, no build needed.  Each side's lines and branch outcomes,
what only one side runs, the functions named, and files the label never
runs left out."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ksimlib import coverage as C  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what)
    failures += 0 if cond else 1


def cov(hits, branches=None, path="kernel/bpf/arraymap.c"):
    """A Coverage of one file: lines 1-10, functions f (1-5) and g (6-10);
    @hits the lines run, @branches {line: (true, false)} at column 1."""
    c = C.Coverage()
    fc = c.file(path)
    for line in range(1, 11):
        fc.add_line(line, 1 if line in hits else 0)
    fc.funcs[("f", 1)] = C.Func("f", 1, 5)
    fc.funcs[("g", 6)] = C.Func("g", 6, 10)
    for line, tf in (branches or {}).items():
        fc.branches[(line, 1, line, 9)] = list(tf)
    return c


rest = cov({1, 2, 3, 4}, {2: (1, 0)})
only = cov({3, 7, 8}, {2: (0, 1), 7: (1, 0)})
both = cov({1, 2, 3, 4, 7, 8}, {2: (1, 1), 7: (1, 0)})
text = C.without_text(both, rest, only, ["bpf-selftests"], ["bpf"])
row = next((l for l in text.splitlines() if l.startswith("kernel/bpf/arraymap.c")), "")
cells = row.split()
check(cells[1:3] == ["6/10", "60.0%"], f"all: 6 of 10 lines ({row})")
check(cells[3:5] == ["4/10", "40.0%"], "without the label: the rest's 4 lines")
check(cells[5:7] == ["3/10", "30.0%"], "the label alone: its 3 lines")
check(cells[7:9] == ["2", "3"], "only it: lines 7, 8; only the rest: lines 1, 2, 4")
check(cells[9:11] == ["3/4", "75.0%"], "branch outcomes of both sides: 3 of 4")
check(cells[15:17] == ["2", "1"], "outcomes only it (2:F, 7:T) and only the rest (2:T)")
check("lines only bpf-selftests runs, by function: g (2)" in text, "the label's lines named by function")
check("lines only the rest runs, by function: f (3)" in text, "the rest's lines named by function")

# A file the label never runs is not in the table, however the rest covers it.
other = cov({1, 2}, path="kernel/bpf/hashtab.c")
for c in (both, rest):
    c.files["kernel/bpf/hashtab.c"] = other.files["kernel/bpf/hashtab.c"]
text = C.without_text(both, rest, only, ["bpf-selftests"], ["bpf"])
check("hashtab.c" not in text, "a file only the rest runs is left out")
text = C.without_text(both, rest, C.Coverage(), ["bpf-selftests"], ["bpf"])
check("bpf-selftests runs no kernel .c file" in text, "a label that runs no kernel file says so")

print(f"# {failures} failure(s)")
sys.exit(1 if failures else 0)
