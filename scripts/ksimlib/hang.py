"""Hangs that are the sanitizer's, not the code's.

A stress program that hangs prints every thread's stack (gdb, from its
watchdog: shim/ksim/stress.c).  A thread whose innermost frame is the
sanitizer runtime's own futex wait (__sanitizer::FutexWait, under its
Mutex/Semaphore) waits for a lock of the runtime, which the runtime holds
only inside its own calls and never while running the program's code: a
thread there for the watchdog's whole limit (30 s and more) is a deadlock of
the runtime itself, provided no thread spins (the watchdog's CPU sample):
a thread looping in the program's code can hold up another's sanitizer call
for a moment, never for the program's lifetime.  Seen twice under clang
14's ThreadSanitizer in stress/maple-fault-yield: every thread at 0% CPU,
the writers in __tsan::SlotLock or TraceSwitchPartImpl.  The second hang's
stacks show the cause, ksim's own: the report hook shim/ksim/tsan.c gave
the runtime (__tsan::OnReport, called from ReportRace() with runtime locks
held) was instrumented, its function-entry hook blocked in
TraceSwitchPartImpl() inside that report, and the other threads queued on
the runtime's locks.  The first hang's full stacks were lost; its picture
was the same.  Why TraceSwitchPartImpl() waited is read from the runtime's
code, not traced.
The hook is uninstrumented now (CTest shim/tsan-hook-uninstrumented).  Any
other such hang still says nothing about the tree: run_once_more() runs it
again, and a second one is no verdict, never a pass or the tree's failure.
"""
import re

THREAD = re.compile(r"^Thread \d+ \(.*?LWP (\d+)\)", re.M)
FRAME = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+?)(?:\(|\s)", re.M)
RUNTIME_WAIT = ("__sanitizer::FutexWait", "__sanitizer::Semaphore::Wait")
RUNTIME = ("__sanitizer::", "__tsan::", "__asan::")
# shim/ksim/stress.c thread_states()
SPINNING = re.compile(r"^\s*thread LWP \d+: \w+, (\d+)% of a CPU", re.M)


def runtime_deadlock(text):
    """A description of the first thread of a hang report that waits inside
    the sanitizer runtime ("LWP N: __sanitizer::FutexWait < ... <
    __tsan::SlotLock"), or None."""
    if "a hang" not in text or any(int(p) >= 50 for p in SPINNING.findall(text)):
        return None
    heads = list(THREAD.finditer(text))
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        frames = [m.group(2) for m in FRAME.finditer(text, h.end(), end)]
        if not frames or frames[0] not in RUNTIME_WAIT:
            continue
        inner = []
        for f in frames:
            if not f.startswith(RUNTIME):
                break
            inner.append(f)
        return f"LWP {h.group(1)}: {' < '.join(inner[:4])}" + (" < ..." if len(inner) > 4 else "")
    return None


def note(what, desc):
    return (f"{what} hung inside the sanitizer runtime ({desc}): a deadlock on the runtime's "
            f"own locks, not of the kernel code under test")


def run_once_more(run, what, say):
    """(returncode, output, stuck): run() -> (returncode, output), once
    more after a runtime deadlock; stuck is the second one's description
    (no verdict), else falsy.  @say prints a line, @what names the run."""
    rc, out = run()
    stuck = rc and runtime_deadlock(out)
    if not stuck:
        return rc, out, None
    say(f"{note(what, stuck)}; running it again")
    rc, out = run()
    stuck = rc and runtime_deadlock(out)
    if stuck:
        say(f"NO VERDICT: {note(what + ' again', stuck)}; what it checked is not covered")
    return rc, out, stuck or None
