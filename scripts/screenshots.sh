#!/usr/bin/env bash
# Screenshots of every page in headless Debian Chromium, saved to artifacts/browser/ for reviewers.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pytest -q tests/browser/test_browser.py
ls -1 artifacts/browser/*.png
