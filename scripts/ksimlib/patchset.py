"""A patch series as developers have it -> [Patch] (scripts/ksimlib/repro.py).

Inputs: an mbox (git format-patch --stdout, a lore thread, `b4 am`'s .mbx),
a `b4 am` output directory (*.mbx, the *.cover letter read for its
base-commit), a directory of .patch/.diff/.eml files, single raw mails with
full headers, bare unified diffs, and a git range of a git KSRC
(`git format-patch` of it).  Mail bodies are decoded the way a mail client
does (quoted-printable, base64, charsets, MIME attachments), so the diff
is the bytes the author sent, not `=3D` for `=`.

A thread's replies ("Re: ...") and cover letter carry no patch of the
series; patches numbered [PATCH n/m] are put in that order, and a thread
holding two versions of the series is an error (one line).
"""
import email
import email.header
import email.policy
import os
import re
import subprocess

# Read and write patch text byte for byte, whatever its encoding.
ENC = dict(encoding="utf-8", errors="surrogateescape")


class SeriesError(Exception):
    """One line about the input, exit status 2."""


class FileDiff:
    def __init__(self, path, text, new=False, old_path=None, deleted=False):
        self.path, self.text, self.new, self.deleted = path, text, new, deleted
        self.old_path = old_path or path
        self.hunks = re.findall(r"^@@ [^\n]*", text, re.M)


class Patch:
    def __init__(self, subject, text, headers, files, body=""):
        self.subject, self.text, self.headers, self.files = subject, text, headers, files
        self.body = body            # the decoded mail body (message and diff)
        self.index = 0
        self.total = 0
        self.number = None          # (n, m) from [PATCH vV n/m]
        self.version = 1

    @property
    def label(self):
        return f"patch {self.index}/{self.total} \"{self.subject}\""

    @property
    def short(self):
        return f"patch {self.index}/{self.total}"

    def added_text(self):
        """The lines the patch adds, without their '+'."""
        return "\n".join(l[1:] for fd in self.files for l in fd.text.splitlines()
                         if l.startswith("+") and not l.startswith("+++"))


MSGID = re.compile(r"^<?[^\s<>@/]+@[^\s<>@/]+>?$")
URL = re.compile(r"^(https?|ftp)://", re.I)


def offline_hint(arg):
    """The one line for a Message-ID or URL given as the series."""
    mid = re.sub(r"^.*/(?=[^/]+@[^/]+)", "", arg.rstrip("/")) if URL.match(arg) else arg
    mid = mid.strip("<>")
    fetch = f"b4 am -o . '{mid}'" if "@" in mid else f"b4 am -o . '{arg}'"
    return (f"--series {arg}: ksim works offline and does not fetch mail; fetch the series "
            f"with `{fetch}` (pip install b4) and pass the .mbx file or the directory")


def _strip_path(p):
    p = p.split("\t")[0].strip()
    if p == "/dev/null":
        return None
    if p.startswith('"') and p.endswith('"'):
        p = p[1:-1]
    return p.split("/", 1)[1] if "/" in p else p


def split_files(diff):
    """Split a diff into per-file sections (git or plain unified diffs)."""
    lines = diff.splitlines(keepends=True)
    if any(l.startswith("diff --git ") for l in lines):
        starts = [i for i, l in enumerate(lines) if l.startswith("diff --git ")]
    else:
        starts = [i for i, l in enumerate(lines) if l.startswith("--- ")
                  and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")]
    files = []
    for n, s in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        sec = lines[s:end]
        # Trailing mail signature ("-- \n2.39.2", base-commit:) is not part of the diff.
        for j, l in enumerate(sec):
            if l in ("-- \n", "--\n") or l.startswith("base-commit: "):
                sec = sec[:j]
                break
        text = "".join(sec)
        old = re.search(r"^--- (\S+)", text, re.M)
        new = re.search(r"^\+\+\+ (\S+)", text, re.M)
        git = re.match(r"diff --git a/(\S+) b/(\S+)", text)
        oldp = (old and _strip_path(old.group(1))) if old else (git and git.group(1))
        newp = (new and _strip_path(new.group(1))) if new else (git and git.group(2))
        path = newp or oldp
        if not path:
            continue
        files.append(FileDiff(path, text, old_path=oldp,
                              new=bool(old and _strip_path(old.group(1)) is None)
                              or "\nnew file mode" in text[:300],
                              deleted=bool(new and _strip_path(new.group(1)) is None)
                              or "\ndeleted file mode" in text[:300]))
    return files


def _decode_header(h):
    try:
        return str(email.header.make_header(email.header.decode_header(h or "")))
    except (UnicodeDecodeError, LookupError, email.errors.HeaderParseError):
        return h or ""


def _payload_text(part):
    raw = part.get_payload(decode=True)
    if raw is None:
        return ""
    cs = part.get_content_charset() or "utf-8"
    try:
        return raw.decode(cs, errors="surrogateescape")
    except LookupError:
        return raw.decode("utf-8", errors="surrogateescape")


def _body(msg):
    """The mail's text: the first text part plus any attachment holding a diff."""
    texts = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        name = part.get_filename() or ""
        if ctype.startswith("text/") or name.endswith((".patch", ".diff")):
            t = _payload_text(part)
            if not texts or re.search(r"^(diff --git |--- \S)", t, re.M):
                texts.append(t)
    return "\n".join(texts)


HEADERS_START = re.compile(r"^(From [^\n]*\n)?[A-Za-z0-9-]+:[ \t]")


def parse_message(raw, fallback_subject):
    """One mail (or a bare diff) -> Patch; None for a mail with no diff
    (a cover letter, a reply without one)."""
    if HEADERS_START.match(raw):
        msg = email.message_from_string(raw, policy=email.policy.compat32)
        headers = {k.lower(): _decode_header(v) for k, v in msg.items()}
        body = _body(msg)
    else:
        headers, body = {}, raw
    subject = " ".join(headers.get("subject", "").split()) or fallback_subject
    files = split_files(body)
    if not files:
        return None
    # A clean mail for `git am`: the decoded body under the headers it needs.
    text = "".join(f"{k}: {headers[k.lower()]}\n" for k in ("From", "Date", "Subject")
                   if k.lower() in headers) + "\n" + body
    p = Patch(re.sub(r"^\s*(\[[^\]]*\]\s*)+", "", subject).strip(), text, headers, files, body)
    m = re.match(r"^\s*\[([^\]]*)\]", subject)
    if m:
        tag = m.group(1)
        nm = re.search(r"\b(\d+)/(\d+)\b", tag)
        if nm:
            p.number = (int(nm.group(1)), int(nm.group(2)))
        vm = re.search(r"\bv(\d+)\b", tag, re.I)
        if vm:
            p.version = int(vm.group(1))
    return p


_MBOX_FROM = re.compile(r"^From [^\n]*\n(?=[A-Za-z0-9-]+:[ \t])", re.M)


def split_mbox(text):
    """An mbox (or one mail) -> the mails' texts."""
    if not _MBOX_FROM.search(text):
        return [text]
    # mboxrd escapes body lines starting with "From " as ">From ".
    return [re.sub(r"^>(>*From )", r"\1", m, flags=re.M)
            for m in _MBOX_FROM.split(text) if m.strip()]


EXTS = (".patch", ".diff", ".mbox", ".mbx", ".eml", ".mail")


def _inputs(paths):
    """(files to read for patches, files to read only for base-commit)."""
    files, extra = [], []
    for p in paths:
        if os.path.isdir(p):
            names = sorted(os.listdir(p))
            mbx = [n for n in names if n.endswith(".mbx")]
            pick = mbx or [n for n in names if n.endswith(EXTS)]
            files += [os.path.join(p, n) for n in pick]
            extra += [os.path.join(p, n) for n in names if n.endswith(".cover")]
            if not pick:
                raise SeriesError(f"--series {p}: no patches in this directory (expected *.mbx "
                                  f"from b4 am, or *.patch/*.diff/*.mbox/*.eml files)")
        elif os.path.isfile(p):
            files.append(p)
        elif URL.match(p) or MSGID.match(p):
            raise SeriesError(offline_hint(p))
        else:
            raise SeriesError(f"--series {p}: no such file or directory")
    return files, extra


def base_commits(texts):
    return sorted({m for t in texts for m in re.findall(r"^base-commit: ([0-9a-f]{7,40})\s*$",
                                                        t, re.M)})


class Series:
    def __init__(self, patches, base_commit=None, origin=""):
        self.patches = patches
        self.base_commit = base_commit      # the series' base-commit: trailer
        self.origin = origin                # what it was read from (for messages)
        self.range_base = None              # --range: the commit the range starts from


def read_series(paths):
    """--series PATH... -> Series (its patches numbered 1..n)."""
    files, extra = _inputs(paths)
    patches, texts = [], []
    for f in files:
        text = open(f, **ENC).read()
        texts.append(text)
        for m in split_mbox(text):
            p = parse_message(m, os.path.basename(f))
            if p is None:
                continue
            if re.match(r"^\s*(re|aw|fwd?):", p.headers.get("subject", ""), re.I):
                continue        # a reply quoting or suggesting a diff: not the series
            patches.append(p)
    texts += [open(f, **ENC).read() for f in extra]
    if not patches:
        raise SeriesError(f"--series {' '.join(paths)}: no patches found (expected an mbox, "
                          f"b4 am's .mbx or directory, .patch/.diff files or mails)")
    return _finish(patches, texts, " ".join(paths))


def _finish(patches, texts, origin):
    versions = sorted({p.version for p in patches if p.number})
    if len(versions) > 1:
        raise SeriesError(f"--series {origin}: holds versions {', '.join(f'v{v}' for v in versions)}"
                          f" of the series; keep one (b4 am -v N)")
    nums = [p.number for p in patches]
    if all(nums) and len(patches) > 1:
        seen = [n for n, _ in nums]
        if len(set(seen)) != len(seen):
            raise SeriesError(f"--series {origin}: patch numbers repeat "
                              f"({', '.join(f'{n}/{m}' for n, m in nums)})")
        patches.sort(key=lambda p: p.number[0])
    for i, p in enumerate(patches, 1):
        p.index, p.total = i, len(patches)
    bases = base_commits(texts)
    return Series(patches, bases[0] if len(bases) == 1 else None, origin)


def git(tree, *argv, check=True, strip=True):
    r = subprocess.run(["git", "-C", tree] + list(argv), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, **ENC)
    if check and r.returncode:
        err = r.stderr.strip().splitlines()
        raise SeriesError(f"git {' '.join(argv)}: {err[-1] if err else 'failed'}")
    if r.returncode:
        return None
    return r.stdout.strip() if strip else r.stdout


def read_range(ksrc, rng):
    """--range A..B of a git KSRC -> Series based on merge-base(A, B)."""
    if git(ksrc, "rev-parse", "--is-inside-work-tree", check=False) != "true":
        raise SeriesError(f"--range {rng}: {ksrc} is not a git tree (--range needs a git KSRC)")
    a, sep, b = rng.partition("..")
    if not sep or not a or b.startswith(".") or re.search(r"\s", rng):
        raise SeriesError(f"--range {rng}: expected A..B (e.g. v7.3..HEAD)")
    b = b or "HEAD"
    for r in (a, b):
        if git(ksrc, "rev-parse", "--verify", "-q", r + "^{commit}", check=False) is None:
            raise SeriesError(f"--range {rng}: {r} is not a commit of {ksrc}")
    base = git(ksrc, "merge-base", a, b)
    if git(ksrc, "rev-list", "--merges", f"{a}..{b}"):
        raise SeriesError(f"--range {rng}: the range holds merge commits; give a linear range")
    text = git(ksrc, "format-patch", "--stdout", "--no-signature", f"{a}..{b}", strip=False) or ""
    patches = [p for p in (parse_message(m, "") for m in split_mbox(text)) if p]
    if not patches:
        raise SeriesError(f"--range {rng}: no commits with changes in {a}..{b}")
    for p in patches:
        p.number = None     # format-patch numbers are not asked for here: keep git's order
    s = _finish(patches, [], rng)
    s.range_base = base
    s.base_commit = base
    return s
