#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the Playwright browser tests.
# Prints a visible reason and exits 0 when it cannot be installed, so the tests skip (they look
# for /usr/bin/chromium themselves); CI runs as root and installs it.
set -u
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "browser tests will be SKIPPED: /usr/bin/chromium is missing and we are not root to apt-get install it" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" != "0" ] && SUDO="sudo -n"
echo "Installing Debian's chromium for the browser tests (apt-get)..." >&2
if ! ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk poppler-utils >/dev/null); then
  echo "browser tests will be SKIPPED: apt-get could not install chromium" >&2
fi
exit 0
