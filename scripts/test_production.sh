#!/usr/bin/env bash
# The DEBUG=0 leg (issue 29 finding D): production's settings, tested as production runs them.
#
# The suite runs with DEBUG=1 (guandan_tourney/test_settings.py); production runs with DEBUG=0,
# which changes what is served: the manifest storage's hashed static names after collectstatic,
# whitenoise serving them, secure cookies. /sw.js answered 500 there while every test passed.
# This leg collects the static files into a fresh STATIC_ROOT and runs, with DEBUG=0:
#   tests/web/test_production_static.py  /sw.js, the web manifest, every static file any page
#                                    names, no page >= 500
#   tests/browser/test_offline_production.py  the offline sheet's worker installs (Chromium)
#   tests/browser/test_offline_sheet.py  the offline sheet's flows (issue 16) on production's files
#   tests/browser/test_shared_phone.py   logging out on a shared phone leaves nothing offline
# Arguments are passed to pytest. `make test-production` runs it; `make test` and .ci/run too.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

STATIC_ROOT="$(mktemp -d)"
trap 'rm -rf "$STATIC_ROOT"' EXIT
export STATIC_ROOT
export DEBUG=0
export SECRET_KEY="$($PY -c 'import secrets; print(secrets.token_urlsafe(60))')"
export ALLOWED_HOSTS="localhost,127.0.0.1,testserver"
# Production's cookies and headers (HTTPS unset means on: secure cookies, HSTS) behind a proxy
# that does the TLS; the test servers speak plain http on localhost, so no redirect to https.
# (HTTPS must not be in the environment: the test server's wsgiref copies it into every request
# as CGI's HTTPS=1, and every request would claim to be https.)
unset HTTPS DATABASE_URL REDIS_URL THROTTLE_STORE
export SECURE_SSL_REDIRECT=0

started=$(date +%s)
$PY manage.py collectstatic --noinput -v0
$PY -m pytest -p no:cacheprovider -q tests/web/test_production_static.py \
  tests/browser/test_offline_production.py tests/browser/test_offline_sheet.py \
  tests/browser/test_shared_phone.py "$@"
echo "DEBUG=0 leg: $(( $(date +%s) - started )) s"
