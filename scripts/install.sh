#!/usr/bin/env bash
# Installs the workspace's dependencies exactly as locked, with the pnpm that package.json pins.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HUB_SCRIPT="install"
source scripts/lib/toolchain.sh

hub_ensure_pnpm
pnpm install --frozen-lockfile
