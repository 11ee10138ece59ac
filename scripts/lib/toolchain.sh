# shellcheck shell=bash
# Sourced (not run) by scripts/install.sh, start.sh and test.sh: puts the pinned pnpm on PATH
# through corepack and sets the environment every pnpm/turbo call of the hub needs.

# corepack 0.34–0.36 ship npm signing keys older than the ones newer pnpm releases are signed
# with, so fetching pnpm fails with "No compatible signature found in package metadata".
# Skipping the key check is safe enough here because the version is pinned in package.json's
# `packageManager` (adding its `+sha512.<hash>` there makes corepack verify the download by
# hash instead, even with this setting).
export COREPACK_INTEGRITY_KEYS=0
# Non-interactive CI (no stdin) must never stop at "download pnpm? [Y/n]".
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0
export TURBO_TELEMETRY_DISABLED=1

hub_log() { printf '%s: %s\n' "${HUB_SCRIPT:-hub}" "$*" >&2; }

# Turbo runs package scripts with the `pnpm` binary from PATH, so `corepack pnpm` alone is not
# enough: the shim has to exist.
hub_ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && pnpm --version >/dev/null 2>&1; then
    return 0
  fi
  if ! command -v corepack >/dev/null 2>&1; then
    hub_log "corepack is missing: install Node.js 20.19 or newer (it ships corepack), then run this again"
    return 1
  fi
  if ! corepack enable pnpm >/dev/null 2>&1; then
    # Not allowed to write beside node (not root): put the shim in a user directory instead.
    local shim_dir="${XDG_DATA_HOME:-$HOME/.local/share}/automation-hub/bin"
    mkdir -p "$shim_dir"
    corepack enable pnpm --install-directory "$shim_dir"
    export PATH="$shim_dir:$PATH"
  fi
  if ! pnpm --version >/dev/null; then
    hub_log "pnpm (through corepack) does not run; see the error above"
    return 1
  fi
}
