#!/usr/bin/env bash
# Everything CI checks: PostgreSQL and Redis (started if needed), the programs tests call (kubectl,
# and Chromium for the console's browser tests; installed if needed), dependencies, then
# typecheck, lint and every test suite (plus the benchmark smoke run once the workspace has one).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HUB_SCRIPT="test"
source scripts/lib/toolchain.sh

hub_ensure_pnpm
bash scripts/ensure-services.sh --test-tools
bash scripts/ensure-browser.sh
bash scripts/install.sh

step() {
  hub_log "▶ pnpm $*"
  pnpm "$@"
}

# --continue: one run reports every failing package, not only the first; turbo still exits non-zero.
step typecheck --continue
step lint --continue
step format:check

# The test run's output is kept to add up vitest's per-package counts into one closing line.
test_log=$(mktemp)
trap 'rm -f "$test_log"' EXIT
hub_log "▶ pnpm test --continue"
set +e
pnpm test --continue 2>&1 | tee "$test_log"
test_status=${PIPESTATUS[0]}
set -e
# vitest prints "Tests  12 passed | 1 failed (13)" per package (with colour codes).
test_summary=$(sed 's/\x1b\[[0-9;]*m//g' "$test_log" | awk '
  /Tests +[0-9]/ {
    for (i = 1; i <= NF; i++) {
      if ($(i + 1) ~ /^passed/) passed += $i
      if ($(i + 1) ~ /^failed/) failed += $i
      if ($(i + 1) ~ /^skipped/) skipped += $i
    }
  }
  END { printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped }')
if [ "$test_status" -ne 0 ]; then
  hub_log "tests failed"
  # Repeat vitest's failure reports at the end: CI keeps only the tail of a long run's output.
  # The reports first (at most 100 lines), then one line per failed test.
  sed 's/\x1b\[[0-9;]*m//g' "$test_log" | awk '
    /Failed (Tests|Suites) [0-9]+|Unhandled Errors/ { reporting = 1 }
    /Test Files +[0-9]/ { reporting = 0 }
    reporting && printed < 100 { print; printed++ }'
  hub_log "failed tests:"
  sed 's/\x1b\[[0-9;]*m//g' "$test_log" | grep -E ' FAIL ' | sort -u | head -40 || true
  echo "$test_summary"
  exit "$test_status"
fi
if node -e 'process.exit(require("./package.json").scripts?.["bench:smoke"] ? 0 : 1)'; then
  step bench:smoke
else
  hub_log "no bench:smoke script yet: skipping the benchmark smoke run"
fi
hub_log "all checks passed"
# The closing line: every test of every package, added up.
echo "$test_summary"
