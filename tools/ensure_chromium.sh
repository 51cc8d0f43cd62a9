#!/usr/bin/env bash
# Make Debian's Chromium present for the browser tests: the HTML report's (tests/report/test_html_report.py)
# and the live page's (tests/ui, driven over the DevTools protocol by tests/ui/browser.py).
# Called by the README's test command, which CI (.ci/run) runs verbatim on a fresh machine as root.
# Does nothing when /usr/bin/chromium is already there; otherwise installs the `chromium` package with
# apt-get (about a minute on this machine, measured in the README). It never skips: when it cannot install,
# it fails and says why, and so does the test command.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure_chromium: /usr/bin/chromium is missing and there is no apt-get to install it; install Chromium so that /usr/bin/chromium runs" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "ensure_chromium: /usr/bin/chromium is missing; run as root (or with sudo): apt-get install -y chromium" >&2
    exit 1
  fi
fi
echo "ensure_chromium: installing Debian's chromium (for the HTML report's browser test)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends chromium >&2
/usr/bin/chromium --version >&2
