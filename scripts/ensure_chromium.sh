#!/usr/bin/env bash
# Makes sure the Debian packages the tests drive are installed: Chromium for the Playwright
# browser tests, fonts for Chinese screenshots, poppler (pdftoppm) to render a score sheet and
# zbar (zbarimg) to scan its QR code back. Prints a visible reason and exits 0 when they cannot be
# installed, so those tests skip (each looks for its tool itself); CI runs as root and installs.
set -u
if [ -x /usr/bin/chromium ] && command -v pdftoppm >/dev/null && command -v zbarimg >/dev/null && command -v xgettext >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != "0" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "browser/PDF-image tests will be SKIPPED: chromium, poppler or zbar is missing and we are not root to apt-get install them" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" != "0" ] && SUDO="sudo -n"
echo "Installing Debian's chromium, poppler-utils and zbar-tools for the tests (apt-get)..." >&2
if ! ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk poppler-utils poppler-data zbar-tools gettext >/dev/null); then
  echo "browser/PDF-image tests will be SKIPPED: apt-get could not install chromium, poppler-utils or zbar-tools" >&2
fi
exit 0
