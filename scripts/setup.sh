#!/usr/bin/env bash
# Installs what the service and its tests need on a fresh Debian machine with Node.js 20:
# redis-server (Debian package) when missing, and the npm packages when not installed yet.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  echo "setup: installing redis-server (apt-get)" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi

# Install when node_modules is missing or older than the lock file. `npm install` rather
# than `npm ci`: this npm writes lock files without other platforms' optional packages
# (chdb's per-platform engines), which `npm ci` then refuses; `npm install` follows the
# lock file as it is and leaves it unchanged.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages" >&2
  npm install --no-audit --no-fund
fi
