#!/usr/bin/env bash
# Generates the hub's secrets once into an env file that docker compose reads (.env by default):
#   bash scripts/generate-secrets.sh [ENV_FILE]
# POSTGRES_PASSWORD, HUB_JWT_SECRET, HUB_METRICS_TOKEN, HUB_WEBHOOK_ENCRYPTION_KEY and
# HUB_ADMIN_PASSWORD are random;
# HUB_ADMIN_EMAIL is taken from the environment or defaults to admin@hub.local. A variable the file
# already holds is kept, so running it again never rotates a secret (rotating the database
# password or the JWT secret by hand means: change the database user's password / accept that
# every issued token stops working). The file is created with mode 600; no secret is printed.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env_file="${1:-$repo_root/.env}"

# Hex from the kernel's CSPRNG: URL-safe (POSTGRES_PASSWORD goes into DATABASE_URL) and needs no openssl.
random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

umask 077
touch "$env_file"
chmod 600 "$env_file"

added=()
add_if_missing() {
  local name="$1" value="$2"
  if grep -q "^${name}=" "$env_file"; then return; fi
  # Make sure the new line does not join a last line that lacks its newline.
  if [[ -s "$env_file" && "$(tail -c1 "$env_file")" != "" ]]; then printf '\n' >>"$env_file"; fi
  printf '%s=%s\n' "$name" "$value" >>"$env_file"
  added+=("$name")
}

add_if_missing POSTGRES_PASSWORD "$(random_hex 24)"
add_if_missing HUB_JWT_SECRET "$(random_hex 48)"
add_if_missing HUB_METRICS_TOKEN "$(random_hex 32)"
# 32 bytes as 64 hex characters; losing it makes every webhook's secret unreadable (rotate them all).
add_if_missing HUB_WEBHOOK_ENCRYPTION_KEY "$(random_hex 32)"
add_if_missing HUB_ADMIN_EMAIL "${HUB_ADMIN_EMAIL:-admin@hub.local}"
add_if_missing HUB_ADMIN_PASSWORD "$(random_hex 18)"

if ((${#added[@]} == 0)); then
  echo "generate-secrets: $env_file already holds every secret; nothing changed" >&2
else
  echo "generate-secrets: wrote ${added[*]} to $env_file (mode 600)" >&2
fi
echo "generate-secrets: the first admin is $(grep '^HUB_ADMIN_EMAIL=' "$env_file" | cut -d= -f2-); its password is HUB_ADMIN_PASSWORD in $env_file" >&2
