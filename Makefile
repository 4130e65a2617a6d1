# ksim: thin wrapper over CMake presets.  Every target bootstraps what is
# missing (packages, kernel source, configure) on first use.
#
#   make test                 build (ASan+UBSan) and run the tests through CTest
#   make stress [DURATION=s]  every stress program under TSan (STRESS_PRESET=default: ASan)
#   make bench                all benchmarks (bench-maple-suite, bench-xarray-suite, bench-vma-suite, bench-bpf)
#   make bench-repro [RUNS=3] ksim repro's time to a verdict, cold and warm
#   make fuzz-<target>        an AFL++ campaign
#   make corpus [TARGETS=mm] [DURATION=s]  refresh fuzz/corpus/ from campaigns on every tree
#   KSRC=/path/to/linux make test   test your own kernel tree
#   KVER=6.1 make test              Debian's linux-source-6.1 (6.1, 6.12, 7.2, 7.3; default: the newest)
#   make matrix [MATRIX="7.3 6.1"] [KSRC="dir ..."]   make test's tiers on several kernels, one table
#   make coverage [FUZZ=maple]  kernel-file coverage of the deterministic tests (HTML + table)
#   make coverage-compare       the kernel's own maple and vma harnesses vs ksim, same coverage

PRESET   ?= default
JOBS     ?= $(shell nproc)
DURATION ?= 120
# One build tree per preset and kernel, so switching trees never mixes objects;
# the default kernel (the newest supported) builds in build/<preset>.
SUPPORTED   := $(shell python3 scripts/ksim-kernel --supported 2>/dev/null)
DEFAULT_KVER := $(shell python3 scripts/ksim-kernel --default 2>/dev/null)
KTAG     := $(if $(KSRC),-$(notdir $(abspath $(KSRC))),$(if $(filter-out $(DEFAULT_KVER),$(KVER)),-$(KVER)))
BUILD     = build/$(PRESET)$(KTAG)
CMAKE_ARGS := $(strip $(if $(KSRC),-DKSRC=$(abspath $(KSRC))) $(if $(KVER),-DKVER=$(KVER)))

.PHONY: all bootstrap bootstrap-bench configure build test stress corpus bench bench-maple-suite bench-xarray-suite bench-vma-suite bench-mm-fork bench-bpf matrix clean help coverage coverage-compare

all: build

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# BOOTSTRAP=--test: make test's configure, while the background install runs.
bootstrap:
	@scripts/ksim-bootstrap $(BOOTSTRAP)

bootstrap-bench:
	@scripts/ksim-bootstrap --bench

configure: bootstrap
	@mkdir -p build
	@scripts/ksim-kernel >/dev/null
	@if [ ! -f $(BUILD)/build.ninja ] || [ -n "$(CMAKE_ARGS)" ]; then \
		cmake --preset $(PRESET) -B $(BUILD) $(CMAKE_ARGS) >$(BUILD).configure.log 2>&1 \
		|| { mkdir -p build; cat $(BUILD).configure.log; exit 1; }; \
		grep 'ksim:' $(BUILD).configure.log || true; \
	fi

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The tests, then the short stress tier again under ThreadSanitizer (the
# default tree is ASan+UBSan), with the TSan-only tests (label tsan: the
# KCSAN annotations): the TSan RCU model is checked on every run.  Not the
# tests of ksim's own repro and mutate commands (label repro: they build
# scratch trees, 73-78 s of test time, and test ksim, not the tree): CI runs them,
# as does `ctest --test-dir build/default -L repro`.
# A failure no finding's signature explains is replayed on the same tree
# with the findings' known fixes applied (KSIM_ATTRIBUTION=1, scripts/ksim-xfail):
# one they remove is attributed to its finding, listed after the run.
# Each phase is timed (scripts/ksim-phase: wall and CPU), the table printed at the end.
# Setup: what the phase table and the kernel fetch need (python3, xz) before
# anything; then the packages of the ASan build and the kernel source side
# by side (the kernel's apt state is private, no lock is shared); the rest
# (clang, llvm, AFL++, gdb, git, patch, perl) installs in the background
# while the ASan tier builds, and the tests wait for it.
SETUP = scripts/ksim-kernel --check >/dev/null || exit 2; \
	scripts/ksim-bootstrap --test & b=$$!; scripts/ksim-kernel >/dev/null; k=$$?; wait $$b || exit 1; exit $$k
TSAN_BUILD = build/tsan$(KTAG)
KSIM_RUN = KSIM_ATTRIBUTION=1
PHASES = build/phases$(KTAG).txt
P = scripts/ksim-phase $(PHASES)
CTEST = $(KSIM_RUN) ctest -j $(JOBS) --output-on-failure --timeout 900
test:
	@scripts/ksim-bootstrap --base
	@mkdir -p build && $(P) --start
	@$(P) "setup: packages, kernel source" -- sh -c '$(SETUP)' || { $(P) --report; exit 1; }
	@$(P) "ASan configure" -- $(MAKE) --no-print-directory BOOTSTRAP=--test configure || { $(P) --report; exit 1; }
	@$(P) "ASan build" -- cmake --build $(BUILD) -j $(JOBS) || { $(P) --report; exit 1; }
	@$(P) "setup: the packages installed beside the build" -- scripts/ksim-bootstrap --wait || { $(P) --report; exit 1; }
	@t=$$(date +%s); $(P) "ASan tests" -- sh -c '$(CTEST) --test-dir $(BUILD) -LE "^repro$$"'; \
		rc=$$?; python3 scripts/ksim fixes --build $(BUILD) --summary $$t; \
		[ $$rc = 0 ] || { $(P) --report; exit 1; }
	@$(P) "TSan configure" -- $(MAKE) --no-print-directory PRESET=tsan configure || { $(P) --report; exit 1; }
	@$(P) "TSan build" -- cmake --build $(TSAN_BUILD) --target stress-programs tsan-tests -j $(JOBS) \
		|| { $(P) --report; exit 1; }
	@t=$$(date +%s); $(P) "TSan tests" -- sh -c "$(CTEST) --test-dir $(TSAN_BUILD) -L '^(stress-short|tsan)\$$'"; \
		rc=$$?; python3 scripts/ksim fixes --build $(TSAN_BUILD) --summary $$t; \
		$(P) --report; exit $$rc

# Every stress program under ThreadSanitizer (STRESS_PRESET=default: ASan+UBSan).
STRESS_PRESET ?= tsan
stress:
	@$(MAKE) --no-print-directory PRESET=$(STRESS_PRESET) configure
	@cmake --build build/$(STRESS_PRESET)$(KTAG) --target stress-programs -j $(JOBS)
	@$(KSIM_RUN) scripts/ksim stress --build build/$(STRESS_PRESET)$(KTAG) --duration $(DURATION)

bench: bench-maple-suite bench-xarray-suite bench-vma-suite bench-mm-fork bench-bpf

# BPF map benchmarks (qptrie/bench): release build, no sanitizers.
bench-bpf: bootstrap-bench
	@$(MAKE) --no-print-directory PRESET=release configure
	@cmake --build build/release$(KTAG) --target bench-bpf-programs -j $(JOBS)
	@scripts/ksim bench-bpf --build build/release$(KTAG)

bench-maple-suite: build
	@scripts/ksim bench-maple-suite --build $(BUILD)

bench-xarray-suite: build
	@scripts/ksim bench-xarray-suite --build $(BUILD)

# tools/testing/vma against mm-sim's vma_suite (7.2 and newer trees).
bench-vma-suite: build
	@scripts/ksim bench-vma-suite --build $(BUILD)

# ksim repro's time to a verdict for a one-patch lib/maple_tree.c series:
# cold (new cache), warm, warm --ab, and the tests alone (RUNS=3).
.PHONY: bench-repro
bench-repro: bootstrap
	@scripts/ksim bench-repro -j $(JOBS) $(if $(KSRC),--ksrc $(abspath $(KSRC))) $(if $(KVER),--kver $(KVER)) $(if $(RUNS),--runs $(RUNS))

# mm-sim fork throughput: release builds of both kernel trees, one run.
bench-mm-fork: bootstrap-bench
	@$(MAKE) --no-print-directory PRESET=release KVER=6.1 configure
	@$(MAKE) --no-print-directory PRESET=release KVER=6.12 configure
	@cmake --build build/release-6.1 --target mm_sim_bench -j $(JOBS)
	@cmake --build build/release-6.12 --target mm_sim_bench -j $(JOBS)
	@scripts/ksim bench-mm-fork --build61 build/release-6.1 --build612 build/release-6.12

# Every supported kernel by default, both tiers of make test (MATRIX_TSAN=0:
# ASan only); MATRIX_LABELS="unit|maple-suite" narrows the ASan tier's tests.
MATRIX ?= $(SUPPORTED)
MATRIX_TSAN ?= 1
matrix: bootstrap
	@scripts/ksim matrix --preset $(PRESET) -j $(JOBS) --kver "$(MATRIX)" $(if $(KSRC),--ksrc "$(KSRC)") $(if $(MATRIX_LABELS),-L "$(MATRIX_LABELS)") $(if $(filter 1,$(MATRIX_TSAN)),--tsan)

# Kernel-file coverage (clang source-based, preset coverage): the
# deterministic tiers, report under ksim-out/coverage/<kernel>/.  FUZZ=maple
# also replays the queue of the latest `make fuzz-maple` campaign.
coverage:
	@$(MAKE) --no-print-directory PRESET=coverage configure
	@scripts/ksim coverage --build build/coverage$(KTAG) -j $(JOBS) $(if $(FUZZ),--fuzz $(FUZZ))

# The kernel's tools/testing maple and vma harnesses against ksim, same
# instrumentation and tree (reuses the profiles of a previous `make coverage`).
coverage-compare:
	@$(MAKE) --no-print-directory PRESET=coverage configure
	@scripts/ksim coverage --build build/coverage$(KTAG) -j $(JOBS) --compare --reuse

# The committed corpora: campaigns on every supported tree, pooled,
# afl-cmin'd, kept where they replay cleanly on all (scripts/ksimlib/fuzz.py).
corpus: bootstrap
	@for v in $(SUPPORTED); do $(MAKE) --no-print-directory KVER=$$v build || exit 1; done
	@scripts/ksim corpus $(TARGETS) --duration $(DURATION) --jobs $(JOBS)

fuzz-%: bootstrap
	@scripts/ksim fuzz $* --duration $(DURATION) --jobs $(JOBS) --build build/afl$(KTAG) $(if $(KSRC),--ksrc $(abspath $(KSRC)))

clean:
	rm -rf build
