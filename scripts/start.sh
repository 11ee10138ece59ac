#!/usr/bin/env bash
# Quick start: PostgreSQL and Redis (started if needed), dependencies, then the API (:8000),
# the dispatcher and the event relay in one terminal. Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HUB_SCRIPT="start"
source scripts/lib/toolchain.sh

hub_ensure_pnpm
bash scripts/ensure-services.sh
bash scripts/install.sh
# What `pnpm start` runs, without pnpm in between: pnpm does not pass a SIGTERM on to its script,
# so the hub would outlive `kill <this pid>`.
exec node scripts/start.mjs "$@"
