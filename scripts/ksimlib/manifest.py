"""The build's manifest (<build>/ksim-manifest.json): what CMake knows.

Every component declares itself once, with ksim_component()
(cmake/Component.cmake); configuring a build writes the manifest: the
components (folder, findings table, CTest label and tests, regression
folder, fuzz targets, stress programs, benchmarks, kernel paths) and the
repro suites.  The commands read it here instead of keeping lists of their
own.  Schema: README.md, "Adding a component".
"""
import fcntl
import hashlib
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "ksim-manifest.json"


class ManifestError(Exception):
    pass


class Manifest:
    def __init__(self, data, path):
        self.data, self.path = data, path
        self.build = data["build"]
        self.components = data["components"]
        self.suites = {s["name"]: s for s in data["suites"]}

    def component(self, name):
        return next((c for c in self.components if c["name"] == name), None)

    def fuzz_targets(self):
        """{target name: its entry (source, corpus, known, replay, binary)}."""
        return {f["name"]: dict(f, component=c["name"])
                for c in self.components for f in c["fuzz"]}

    def stress_programs(self):
        """[(program name, binary)] in declaration order."""
        return [(p["name"], p["binary"]) for c in self.components for p in c["stress"]]

    def labels(self):
        """Every CTest label of the components' tests, in declaration order."""
        out = []
        for c in self.components:
            out += [l for l in c["labels"] if l not in out]
        return out

    def component_of_test(self, test):
        """The component that registered CTest test TEST, or None."""
        return next((c for c in self.components if test in c["tests"]), None)


def load(build):
    """The manifest of a configured build directory."""
    path = os.path.join(build, NAME)
    try:
        with open(path) as f:
            return Manifest(json.load(f), path)
    except OSError:
        raise ManifestError(f"{path} missing: {build} is not a configured ksim build "
                            "(make build, or cmake --preset PRESET -B DIR)")
    except (ValueError, KeyError) as e:
        raise ManifestError(f"{path}: not a ksim manifest ({e})")


def for_tree(ksrc="", preset="default", cmake_args=()):
    """The manifest for a kernel tree before any build of it exists: a
    configure-only build directory under build/manifest/ (cmake configure
    is cheap: about 2 s; nothing is compiled).  Used by the commands that
    pick suites before they make the scratch tree they build (repro, mutate)."""
    key = hashlib.sha1("\0".join([ksrc, preset] + list(cmake_args)).encode()).hexdigest()[:10]
    bdir = os.path.join(ROOT, "build", "manifest", f"{preset}-{key}")
    argv = ["cmake", "--preset", preset, "-S", ROOT, "-B", bdir] + list(cmake_args)
    if ksrc:
        argv.append(f"-DKSRC={ksrc}")
    env = dict(os.environ)
    env.pop("KSRC", None)
    os.makedirs(os.path.dirname(bdir), exist_ok=True)
    # repro and mutate of one tree (CTest runs them side by side) configure
    # the same directory: one at a time, or cmake's half-written cache fails.
    with open(bdir + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        lines = r.stdout.splitlines()
        pick = [l for l in lines if l.startswith("ksim:")] or lines[-1:] or ["?"]
        raise ManifestError(f"configure of {bdir} failed: {pick[0].strip()[:300]}")
    return load(bdir)
