#!/usr/bin/env bash
# Makes the headless browser of the console's tests (apps/console/test) available: Debian's
# `chromium` package, driven by playwright-core through its executablePath (browser builds from
# elsewhere are not downloaded). Installs it with apt-get when it is missing; quick and changes
# nothing when it is there. CHROMIUM_PATH names another browser binary instead.
set -euo pipefail

HUB_SCRIPT=ensure-browser
log() { printf '%s: %s\n' "$HUB_SCRIPT" "$*" >&2; }

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [[ -x $CHROMIUM ]]; then
  exit 0
fi
if [[ -n ${CHROMIUM_PATH:-} ]]; then
  log "CHROMIUM_PATH=$CHROMIUM is not an executable file"
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  log "no $CHROMIUM and no apt-get to install it: install Chromium and set CHROMIUM_PATH to its binary, then run this again"
  exit 1
fi
if [[ $EUID -eq 0 ]]; then
  as_root() { "$@"; }
elif command -v sudo >/dev/null 2>&1 && { [[ -t 0 ]] || sudo -n true 2>/dev/null; }; then
  as_root() { sudo "$@"; }
else
  log "cannot install chromium (not root, and sudo is unavailable). Run: sudo apt-get update && sudo apt-get install -y chromium; then run this again"
  exit 1
fi

log "apt-get install -y chromium (the console's browser tests run in it)"
# An install interrupted earlier (a run killed mid-way) leaves dpkg asking for this before any other.
as_root env DEBIAN_FRONTEND=noninteractive dpkg --configure -a
as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
[[ -x $CHROMIUM ]] || {
  log "chromium was installed but $CHROMIUM is missing: set CHROMIUM_PATH to its binary"
  exit 1
}
log "chromium is installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
