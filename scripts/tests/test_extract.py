#!/usr/bin/env python3
"""Unit test of scripts/ksim-extract on a small fake kernel tree: verbatim
text, forward declarations, @N, defining macros (SYSCALL_DEFINEn), lines
conditional on probed features, alternative shapes, and the one-line loud
failures (missing, changed shape, ambiguous, a version or an unknown feature
as a condition)."""
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ksim-extract")

SRC = """\
static int helper(int x)
{
	return x + 1;	/* } a brace in a comment */
}

#ifdef A
static inline void twice(void) { }
#else
static inline void twice(void)
{
	char c = '{';
}
#endif

SYSCALL_DEFINE2(frob, int, a,
		unsigned long, b)
{
	return helper(a) + b;
}

SYSCALL_DEFINE1(declared_only, int, a);
"""


def run(tree, manifest):
    with open(os.path.join(tree, "m.txt"), "w") as f:
        f.write(manifest)
    out = os.path.join(tree, "out.c")
    if os.path.exists(out):
        os.unlink(out)
    feats = os.path.join(tree, "features.h")
    with open(feats, "w") as f:
        f.write("#define KSIM_KVERSION \"9.9.1\"\n#define KSIM_HAVE_YES 1\n#define KSIM_HAVE_NO 0\n")
    p = subprocess.run([sys.executable, TOOL, "--ksrc", tree, "--kver", "9.9.1", "--features", feats,
                        "--out", out, os.path.join(tree, "m.txt")], capture_output=True, text=True)
    text = open(out).read() if os.path.exists(out) else None
    return p.returncode, p.stderr, text


def main():
    fails = 0

    def expect(cond, what):
        nonlocal fails
        if not cond:
            print(f"FAIL: {what}")
            fails += 1

    with tempfile.TemporaryDirectory() as tree:
        os.makedirs(os.path.join(tree, "mm"))
        with open(os.path.join(tree, "mm", "a.c"), "w") as f:
            f.write(SRC)
        rc, err, text = run(tree, "mm/a.c helper | static int helper ( int x )\n"
                                  "mm/a.c twice @2 | static inline void twice ( void )\n"
                                  "[KSIM_HAVE_YES] mm/a.c SYSCALL_DEFINE2(frob) | SYSCALL_DEFINE2 ( frob , int , a , unsigned long , b )\n"
                                  "[KSIM_HAVE_NO] mm/a.c nothere | void nothere ( void )\n"
                                  "[!KSIM_HAVE_YES] mm/a.c nothere | void nothere ( void )\n"
                                  "[KSIM_HAVE_YES, !KSIM_HAVE_NO] mm/a.c helper | static long helper ( int x ) | static int helper ( int x )\n"
                                  "[KSIM_HAVE_YES,KSIM_HAVE_NO] mm/a.c nothere | void nothere ( void )\n"
                                  "mm/a.c REGION(twice) | #ifdef A ... #else +5\n")
        expect(rc == 0, f"good manifest: rc {rc}, {err}")
        expect(text and "return x + 1;\t/* } a brace in a comment */\n}" in text, "helper verbatim")
        expect(text and "char c = '{';\n}" in text, "twice @2 verbatim")
        expect(text and text.count("static int helper(int x)\n{") == 2,
               "[KSIM_HAVE_YES, !KSIM_HAVE_NO] line kept, its second shape accepted")
        expect(text and "nothere" not in text, "lines whose conditions fail are skipped")
        expect(text and '#line 6 "' in text and "#ifdef A\nstatic inline void twice(void) { }\n#else" in text
               and text.index("static int helper(int x);") < text.index("#ifdef A")
               < text.index("static int helper(int x)\n{"),
               "REGION verbatim, after the declarations, before the bodies")
        expect(text and "SYSCALL_DEFINE2(frob, int, a,\n\t\tunsigned long, b)\n{\n\treturn helper(a) + b;\n}" in text,
               "SYSCALL_DEFINE2 body verbatim")
        expect(text and "SYSCALL_DEFINE2(frob, int, a,\n\t\tunsigned long, b);" in text, "SYSCALL_DEFINE2 declared")
        expect(text and '#line 15 "' in text, "#line into the kernel file")
        for manifest, needle in [
            ("mm/a.c gone | void gone ( void )\n", "mm/a.c: gone() not found"),
            ("mm/a.c helper | static long helper ( int x )\n", "helper() changed shape"),
            ("mm/a.c twice | static inline void twice ( void )\n", "defined 2 times"),
            ("mm/a.c SYSCALL_DEFINE1(declared_only) | x\n", "SYSCALL_DEFINE1(declared_only) not found"),
            ("mm/a.c SYSCALL_DEFINE2(frob) | SYSCALL_DEFINE2 ( frob , int , a )\n", "changed shape"),
            ("mm/b.c x | void x ( void )\n", "mm/b.c is missing"),
            ("mm/a.c helper | static long helper ( int x ) | static int helper ( char x )\n",
             "helper() changed shape"),
            ("mm/a.c REGION(r) | #ifdef B ... #endif\n", "region r: first line not found"),
            ("mm/a.c REGION(r) | #ifdef A ... #endif B\n", "region r: last line not found"),
            ("[9.9] mm/a.c helper | static int helper ( int x )\n", "versions never compared"),
            ("[KSIM_HAVE_MAYBE] mm/a.c helper | static int helper ( int x )\n",
             "KSIM_HAVE_MAYBE is not a feature"),
        ]:
            rc, err, text = run(tree, manifest)
            expect(rc == 2 and text is None, f"{needle}: rc {rc}, output written {text is not None}")
            expect(needle in err and ("kernel 9.9.1" in err or "m.txt:1:" in err)
                   and len(err.strip().splitlines()) <= 3,
                   f"error line for {needle!r}: {err!r}")
    print("ksim-extract unit test:", "ok" if not fails else f"{fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
