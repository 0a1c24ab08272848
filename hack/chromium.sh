#!/usr/bin/env bash
# Debian's chromium for the browser e2e tests of `kubectl catalog ui` (driven by puppeteer-core,
# which never downloads a browser). Installs it with apt-get when /usr/bin/chromium is missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
