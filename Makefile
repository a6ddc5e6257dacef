# Fathom: the two set-up commands of the README, and helpers.
# `make demo` and `make test` install what is missing on Debian/Ubuntu, then build and run.

SWIFT ?= swift
APT_PACKAGES = libmpfr-dev libgmp-dev libpng-dev zlib1g-dev pkg-config libopenexr-dev ffmpeg libmicrohttpd-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: native deps docs-deps browser-deps explore demo test docs static-libs portable-coverage api-check api-baseline examples coverage format lint test-asan test-tsan build release bench verify portable fuzz fuzz-build fuzz-cli clean slurm-check

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "error: the Swift toolchain (6.0 or later) is not on PATH: see https://www.swift.org/install/linux/"; exit 1; }

release: deps
	$(SWIFT) build -c release

build: deps
	$(SWIFT) build

# The e1000 benchmark location (radius 2e-1000, 32,000 iterations): 8-9 s on two cores at load 6.
demo: release
	.build/release/fathom render --preset e1000 --size 960x540 --gradient Documentation/gradients/classic.txt --output fathom.png

# The explorer (Documentation/Explorer.md): prints the URL to open; runs until Ctrl-C.
explore: release
	.build/release/fathom explore

# Release mode: the double-double and MPFR checks run ~30x faster than in debug, which
# more than pays for the optimised build. The CLI tests run the built `fathom` executable.
# The DocC site is built and opened in headless Chromium too (`make docs`, about 15 s).
# In CI (CI set, as .ci/run sets it) the test also runs the Slurm check below, about 90 s.
test: deps docs-deps browser-deps lint
	SWIFT=$(SWIFT) Scripts/dependency-check.sh
	$(SWIFT) build -c release
	SWIFT=$(SWIFT) Scripts/api-check.sh
	$(SWIFT) test -c release
	Scripts/browser-test.sh .build/release/fathom
	SWIFT=$(SWIFT) Scripts/examples-check.sh
	SWIFT=$(SWIFT) Scripts/docs.sh
	Scripts/docs-check.sh
	@if [ -n "$$CI" ]; then $(SUDO) Scripts/slurm-check.sh; fi

# The public API against its committed baseline (API/, swift-api-digester's dumps): additions
# pass, removals and signature changes fail (`make test` runs it). `make api-baseline` rewrites
# the baseline after a deliberate breaking change (CHANGELOG.md records it).
api-check: release
	SWIFT=$(SWIFT) Scripts/api-check.sh

api-baseline: release
	SWIFT=$(SWIFT) Scripts/api-check.sh baseline

# The DocC documentation as a static site in .build/docs/site (Scripts/docs.sh: the toolchain's
# swift-symbolgraph-extract and docc; fails on any DocC warning or undocumented public symbol),
# then opened in headless Chromium (Scripts/docs-check.sh; Debian's chromium, installed here
# when missing).
docs: release docs-deps
	SWIFT=$(SWIFT) Scripts/docs.sh
	Scripts/docs-check.sh

# Debian's chromium, which the documentation's check opens the site in.
docs-deps:
	@dpkg -s chromium >/dev/null 2>&1 || { echo "installing: chromium"; $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }

# The explorer's browser test: chromium (docs-deps), its driver, and Python's venv for Selenium.
BROWSER_PACKAGES = chromium chromium-driver python3-venv
browser-deps:
	@missing=""; for p in $(BROWSER_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Line coverage per module (swift test --enable-code-coverage in .build/coverage, llvm-cov from
# the toolchain): Scripts/coverage.sh; the numbers are in Documentation/Testing.md.
coverage: deps
	SWIFT=$(SWIFT) Scripts/coverage.sh

# Examples/: a package of three small tools that depends on Fathom by path (Examples/README.md),
# built and run on the repository's files (`make test` runs it).
examples: release
	SWIFT=$(SWIFT) Scripts/examples-check.sh

# A zoom-out on a real single-node Slurm (as root: it installs Slurm and munge when missing and
# starts their daemons from a temporary folder): Scripts/slurm-check.sh.
slurm-check: release
	Scripts/slurm-check.sh

# swift-format, which ships with the toolchain (`swift format`, 6.x); its settings are in
# .swift-format (line length 120). `make format` rewrites the Swift sources in place; `make lint`
# fails on any finding (--strict), and `make test` runs it first. Generated files opt out with
# `swift-format-ignore-file` in their header.
FORMAT_PATHS = Package.swift Sources Tests Benchmarks Fuzz Plugins Examples/Package.swift Examples/Sources Examples/StandIns

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format $(FORMAT_PATHS)

lint:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(FORMAT_PATHS)

# The test suite under Address Sanitizer and Thread Sanitizer, each in its own build folder
# (the normal .build/release stays as it is). Release mode, as `make test`: the sanitizers
# instrument every memory access of the optimised code just the same, and the suite's MPFR and
# double-double checks stay within minutes (a debug build runs them about 30x slower, before
# the sanitizers' own cost). Durations in Documentation/Reliability.md, "Sanitizers".
# halt_on_error: the first report fails the run. Leak suppressions (toolchain libraries only,
# each with its reason) in Scripts/lsan-suppressions.txt; race suppressions (Synchronization's
# Mutex, which TSan cannot see, in the types that keep their state in one) in
# Scripts/tsan-suppressions.txt.
test-asan: deps
	ASAN_OPTIONS=halt_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Scripts/lsan-suppressions.txt \
		$(SWIFT) test -c release --sanitize=address --build-path .build/asan

test-tsan: deps
	TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/Scripts/tsan-suppressions.txt \
		$(SWIFT) test -c release --sanitize=thread --build-path .build/tsan

# A build for this machine's CPU (AVX2 and FMA: haswell and later), into its own folder: the
# flags are the builder's, on the command line, so the manifest holds no unsafe flag
# (Package.swift). FATHOM_FMA turns on FractalNumerics' one-FMA two-product. Documentation/Benchmarks.md
# compares it with the portable build: `.build/native/release/fathom-bench`.
NATIVE_FLAGS = -Xswiftc -target-cpu -Xswiftc haswell -Xcc -march=haswell -Xswiftc -DFATHOM_FMA
native: deps
	$(SWIFT) build -c release --build-path .build/native $(NATIVE_FLAGS)

verify: release
	.build/release/fathom verify ../shared/oracle/*.json

bench: release
	.build/release/fathom-bench

# A `fathom` for Linux GPU machines without a Swift toolchain (Documentation/GPU.md): the
# Swift runtime and Foundation, MPFR, GMP, libpng and zlib linked statically; it needs only
# glibc >= 2.34 and libstdc++. A pkg-config file for MPFR in .build/static-libs puts that folder,
# which holds only the static archives, first on the linker's path. CUDA is opened at run time.
# Only the two products: every executable linked here needs GlibcCompat.c's __wrap_hypot, and the
# package's build tool (embed-kernels) has none (built for the plugin, it links dynamically).
STATIC_LIBS = $(CURDIR)/.build/static-libs
MULTIARCH := $(shell gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
# Builds the two products into the build folder $(1), with the extra flags $(2), and copies them to $(3).
portable_build = for p in fathom fathom-bench; do \
		PKG_CONFIG_PATH=$(STATIC_LIBS) $(SWIFT) build -c release --static-swift-stdlib $(2) --build-path $(1) \
			--product $$p -Xlinker --wrap=hypot -Xlinker --wrap=hypotf || exit 1; done; \
	mkdir -p $(3) && cp $(1)/release/fathom $(1)/release/fathom-bench $(3)/

static-libs: deps
	@mkdir -p $(STATIC_LIBS)
	@for l in mpfr gmp png16 z; do \
		a=/usr/lib/$(MULTIARCH)/lib$$l.a; [ -f $$a ] || { echo "error: $$a is missing"; exit 1; }; \
		ln -sf $$a $(STATIC_LIBS)/lib$$l.a; done
	@printf 'Name: mpfr\nDescription: MPFR, static\nVersion: 4\nCflags:\nLibs: -L$(STATIC_LIBS) -lmpfr -lgmp\n' > $(STATIC_LIBS)/mpfr.pc

portable: static-libs
	$(call portable_build,.build/portable,,dist)
	@echo "dist/fathom and dist/fathom-bench need:"; ldd dist/fathom | awk '{print "  " $$1}'
	@echo "newest glibc symbol version: $$(objdump -T dist/fathom | grep -o 'GLIBC_[0-9.]*' | sort -V | tail -1)"

# The same two binaries instrumented for line coverage (.build/portable-cov, dist/coverage/): run
# on a GPU machine by Scripts/gpu-coverage.sh, their profiles join `make coverage`'s
# (Documentation/Testing.md, "On a GPU machine").
portable-coverage: static-libs
	$(call portable_build,.build/portable-cov,--enable-code-coverage,dist/coverage)

# libFuzzer targets for the file readers (Fuzz/, Documentation/Reliability.md): built with the
# fuzzer and address sanitizers into .build/fuzz, each run FUZZ_SECONDS on a copy of its seed
# corpus; fails if any crashes or hangs. `make fuzz FUZZ_SECONDS=720` is the hour's campaign;
# FUZZ_TARGETS picks some of location kfr png gradient orbit.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= location kfr png gradient orbit
fuzz-build: deps
	$(SWIFT) build -c release --package-path Fuzz --build-path .build/fuzz -Xswiftc -sanitize=fuzzer,address

# The command line's fuzzer (Scripts/cli-fuzz.py, Python 3, Documentation/Reliability.md, "The
# command line"): random argument vectors against the release build's fathom for FUZZ_SECONDS;
# findings in .build/fuzz-runs/cli; fails on any finding. `make fuzz` runs it after the libFuzzer
# targets, each run whatever the other found; the target fails if either did.
FUZZ_CLI = FATHOM=.build/release/fathom Scripts/cli-fuzz.py --seconds $(FUZZ_SECONDS)
fuzz-cli: release
	$(FUZZ_CLI)

fuzz: fuzz-build release
	@status=0; \
	echo "Scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)"; Scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS) || status=1; \
	echo "$(FUZZ_CLI)"; $(FUZZ_CLI) || status=1; \
	exit $$status

clean:
	rm -rf .build
