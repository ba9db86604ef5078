#!/usr/bin/env bash
# Runs before `npm test` (npm's pretest): installs what the suite needs beyond
# `npm install`, so that `npm install && npm test` works on a fresh machine.
#  - test/gateway: Hive Gateway for the federation test, in a folder of its own
#    (~500 MB) so that it never enters the service's dependency tree;
#  - Debian's chromium for the GraphiQL browser test.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d test/gateway/node_modules ]; then
  echo "test setup: installing test/gateway (Hive Gateway)"
  # --loglevel=error: about a hundred of its packages declare Node 22+ and npm warns (EBADENGINE) for each,
  # although the gateway runs on Node 20 (test/integration/gateway.test.ts); one line says so instead.
  npm ci --prefix test/gateway --no-audit --no-fund --loglevel=error
  echo "test setup: test/gateway installed (npm's EBADENGINE warnings left out: some of its packages declare newer Node releases and run on this one)"
fi

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test setup: installing Debian's chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test setup: /usr/bin/chromium is missing; install it (apt-get install -y chromium) for the GraphiQL test" >&2
  fi
fi
