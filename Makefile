# ksim: thin wrapper over CMake presets.  Every target bootstraps what is
# missing (packages, kernel source, configure) on first use.
#
#   make test                 build (ASan+UBSan) and run the tests through CTest
#   make stress [DURATION=s]  the threaded kernel tests, round after round
#   make bench                all benchmarks (bench-maple-suite, ...)
#   make fuzz-<target>        an AFL++ campaign
#   KSRC=/path/to/linux make test   test your own kernel tree
#   KVER=6.1 make test              Debian's linux-source-6.1 instead of 6.12

PRESET   ?= default
JOBS     ?= $(shell nproc)
DURATION ?= 120
# One build tree per preset and kernel, so switching trees never mixes objects.
KTAG     := $(if $(KSRC),-$(notdir $(abspath $(KSRC))),$(if $(KVER),-$(KVER)))
BUILD     = build/$(PRESET)$(KTAG)
CMAKE_ARGS := $(if $(KSRC),-DKSRC=$(abspath $(KSRC))) $(if $(KVER),-DKVER=$(KVER))

.PHONY: all bootstrap configure build test stress bench bench-maple-suite bench-mm-fork clean help

all: build

help:
	@sed -n '1,12p' Makefile | sed 's/^# \{0,1\}//'

bootstrap:
	@scripts/ksim-bootstrap

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

test: build
	@ctest --test-dir $(BUILD) -j $(JOBS) --output-on-failure --timeout 900

# Stress runs under ASan until the shim's RCU happens-before model for
# ThreadSanitizer lands (stress/README.md); STRESS_PRESET=tsan to try TSan.
STRESS_PRESET ?= default
stress:
	@$(MAKE) --no-print-directory PRESET=$(STRESS_PRESET) build
	@scripts/ksim stress --build build/$(STRESS_PRESET)$(KTAG) --duration $(DURATION)

bench: bench-maple-suite bench-mm-fork

bench-maple-suite: build
	@scripts/ksim bench-maple-suite --build $(BUILD)

# mm-sim fork throughput: release builds of both kernel trees, one run.
bench-mm-fork:
	@$(MAKE) --no-print-directory PRESET=release KVER=6.1 configure
	@$(MAKE) --no-print-directory PRESET=release KVER=6.12 configure
	@cmake --build build/release-6.1 --target mm_sim_bench -j $(JOBS)
	@cmake --build build/release-6.12 --target mm_sim_bench -j $(JOBS)
	@scripts/ksim bench-mm-fork --build61 build/release-6.1 --build612 build/release-6.12

fuzz-%:
	@scripts/ksim fuzz $*

clean:
	rm -rf build
