#!/usr/bin/env bash
# Everything CI checks: PostgreSQL and Redis (started if needed), dependencies, then typecheck,
# lint and every test suite (plus the benchmark smoke run once the workspace has one).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HUB_SCRIPT="test"
source scripts/lib/toolchain.sh

hub_ensure_pnpm
bash scripts/ensure-services.sh
bash scripts/install.sh

step() {
  hub_log "▶ pnpm $*"
  pnpm "$@"
}

# --continue: one run reports every failing package, not only the first; turbo still exits non-zero.
step typecheck --continue
step lint --continue
step test --continue
if node -e 'process.exit(require("./package.json").scripts?.["bench:smoke"] ? 0 : 1)'; then
  step bench:smoke
else
  hub_log "no bench:smoke script yet: skipping the benchmark smoke run"
fi
hub_log "all checks passed"
