#!/usr/bin/env bash
# Installs what the service, or the service and its tests, need on a fresh Debian machine
# with Node.js 20, 22 or 24:
#   setup.sh start   redis-server when missing, the production npm packages
#   setup.sh test    the same, every npm package (the instrumentation libraries the tests
#                    drive, the test runner), and Chromium for the reference page's test
# Packages already installed are kept: only a missing or outdated install, or one without
# the dev packages when the tests need them, runs npm.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
if [ "$mode" != start ] && [ "$mode" != test ]; then
  echo "usage: scripts/setup.sh start|test" >&2
  exit 2
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! command -v redis-server >/dev/null 2>&1; then
  echo "setup: installing redis-server (apt-get)" >&2
  apt_install redis-server
fi

# The reference page's test renders it in Debian's headless Chromium; the service never
# runs a browser, so start leaves it out.
if [ "$mode" = test ] && [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing chromium (apt-get), for the reference page's test" >&2
  apt_install chromium
fi

# Installs a project's npm packages when its node_modules is missing, older than its lock
# file, or lacks the dev packages a full install ("all") would have. npm's own record
# (node_modules/.package-lock.json) does not say whether dev packages were left out, so
# the kind of the last install is kept beside it.
install_npm_packages() {
  local dir="$1" want="$2"
  local marker="$dir/node_modules/.aos-install"
  local installed
  installed="$(cat "$marker" 2>/dev/null || true)"
  # A full install serves start too: pruning its dev packages would only make the next
  # `npm test` install them again.
  if [ "$installed" = all ]; then want=all; fi
  if [ -n "$installed" ] && [ ! "$dir/package-lock.json" -nt "$marker" ] && [ "$installed" = "$want" ]; then
    return
  fi
  echo "setup: installing npm packages in ${dir} ($want)" >&2
  # `npm install` rather than `npm ci`: this npm writes lock files without other
  # platforms' optional packages (chdb's per-platform engines), which `npm ci` then
  # refuses; `npm install` follows the lock file as it is and leaves it unchanged.
  if [ "$want" = all ]; then
    npm install --prefix "$dir" --no-audit --no-fund --include=dev
  else
    npm install --prefix "$dir" --no-audit --no-fund --omit=dev
  fi
  echo "$want" > "$marker"
}

if [ "$mode" = test ]; then
  install_npm_packages . all
  # The instrumentation libraries that declare Node >= 22 (Mastra, the AI SDK), in a project
  # of their own: npm keeps a dev package in an --omit=dev install when a production
  # package names it as an optional peer (chdb names Mastra and the AI SDK), so in the
  # service's own tree they would be installed, and warned about, for start as well.
  install_npm_packages test/traces/libraries all
  # Mastra 0.24, which cannot share a tree with the Mastra 1.x above.
  install_npm_packages test/traces/libraries-mastra-0.24 all
else
  install_npm_packages . production
fi
