# Fathom: the two set-up commands of the README, and helpers.
# `make demo` and `make test` install what is missing on Debian/Ubuntu, then build and run.

SWIFT ?= swift
APT_PACKAGES = libmpfr-dev libgmp-dev libpng-dev zlib1g-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps demo test build release bench verify clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "error: the Swift toolchain (6.0 or later) is not on PATH: see https://www.swift.org/install/linux/"; exit 1; }

release: deps
	$(SWIFT) build -c release

build: deps
	$(SWIFT) build

demo: release
	.build/release/fathom render --preset e14 --size 1280x720 --palette cosine --output fathom.png

# Release mode: the double-double and MPFR checks run ~30x faster than in debug, which
# more than pays for the optimised build. The CLI tests run the built `fathom` executable.
test: deps
	$(SWIFT) build -c release
	$(SWIFT) test -c release

verify: release
	.build/release/fathom verify ../shared/oracle/*.json

bench: release
	.build/release/fathom-bench

clean:
	rm -rf .build
