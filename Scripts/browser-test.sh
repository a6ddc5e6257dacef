#!/usr/bin/env bash
# The explorer's browser test (Tests/Browser/test_explore.py): Debian's chromium, headless, driven
# by chromedriver through Selenium from PyPI, in a virtual environment of its own under .build.
# Usage: Scripts/browser-test.sh [FATHOM]   (default .build/release/fathom)
# FATHOM_SCREENSHOTS=DIR keeps the screenshots (Documentation/Explorer.md's come from here).
# FATHOM_HEADED=1 opens a window instead (on a machine without a screen: FATHOM_HEADED=1
# xvfb-run -a Scripts/browser-test.sh), for the timings in a headed browser.
set -euo pipefail
cd "$(dirname "$0")/.."
FATHOM=${1:-.build/release/fathom}
VENV=.build/browser-venv
SELENIUM=4.51.0
if ! "$VENV/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$SELENIUM')" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "selenium==$SELENIUM"
fi
FATHOM="$FATHOM" "$VENV/bin/python" Tests/Browser/test_explore.py
