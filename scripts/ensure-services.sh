#!/usr/bin/env bash
# Makes PostgreSQL and Redis answer on this machine for the quick start and the tests, when
# DATABASE_URL / REDIS_URL are unset or point at localhost (a remote server is the user's to run).
# Installs the servers with apt-get when they are missing and starts them when they are not
# answering. Idempotent: when both already answer it only checks, in well under a second.
# With --test-tools (scripts/test.sh) it also makes sure of the programs the tests call: kubectl,
# which renders deploy/kubernetes (Debian's kubernetes-client, installed when missing), and promtool,
# which checks deploy/prometheus/alerts.yml (Debian's prometheus package ships it; the server it also
# installs is stopped and disabled: the tests start their own when they need one).
set -euo pipefail
WITH_TEST_TOOLS=false
[[ ${1:-} == --test-tools ]] && WITH_TEST_TOOLS=true

HUB_SCRIPT=ensure-services
log() { printf '%s: %s\n' "$HUB_SCRIPT" "$*" >&2; }
fail() {
  log "$*"
  exit 1
}

# ---- where the servers should be -------------------------------------------------------------

# Prints "host port" of a URL when it names this machine; fails otherwise.
local_endpoint() {
  local url=$1 default_port=$2 rest host port
  rest=${url#*://}
  rest=${rest#*@}
  rest=${rest%%[/?#]*}
  if [[ $rest == \[* ]]; then
    host=${rest%%]*}
    host=${host#[}
    port=${rest#*]}
    port=${port#:}
  else
    host=${rest%%:*}
    port=${rest#"$host"}
    port=${port#:}
  fi
  case "$host" in
    localhost | 127.0.0.1 | ::1) ;;
    *) return 1 ;;
  esac
  [[ $host == localhost ]] && host=127.0.0.1
  printf '%s %s\n' "$host" "${port:-$default_port}"
}

PG_MANAGED=false
REDIS_MANAGED=false
if [[ -z ${DATABASE_URL:-} ]]; then
  PG_MANAGED=true PG_HOST=127.0.0.1 PG_PORT=5432
elif endpoint=$(local_endpoint "$DATABASE_URL" 5432); then
  PG_MANAGED=true
  read -r PG_HOST PG_PORT <<<"$endpoint"
fi
if [[ -z ${REDIS_URL:-} ]]; then
  REDIS_MANAGED=true REDIS_HOST=127.0.0.1 REDIS_PORT=6379
elif endpoint=$(local_endpoint "$REDIS_URL" 6379); then
  REDIS_MANAGED=true
  read -r REDIS_HOST REDIS_PORT <<<"$endpoint"
fi

# ---- privileges ------------------------------------------------------------------------------

can_be_root() {
  [[ $EUID -eq 0 ]] && return 0
  command -v sudo >/dev/null 2>&1 || return 1
  # With a terminal sudo may ask for a password; without one (CI) it must not hang.
  [[ -t 0 ]] || sudo -n true 2>/dev/null
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

APT_UPDATED=false
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    fail "cannot install $* here (no apt-get). Install PostgreSQL 15+ and Redis 7+ yourself and start them on 127.0.0.1, or set DATABASE_URL and REDIS_URL to servers you run; then run this again."
  fi
  if ! can_be_root; then
    fail "cannot install $* (not root, and sudo is unavailable). Run: sudo apt-get update && sudo apt-get install -y $*; then run this again."
  fi
  if [[ $APT_UPDATED == false ]]; then
    # An install interrupted earlier (a run killed mid-way) leaves dpkg asking for this before any other.
    as_root env DEBIAN_FRONTEND=noninteractive dpkg --configure -a
    log "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=true
  fi
  log "apt-get install -y $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

wait_until() {
  local what=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.3
  done
  log "$what is answering"
}

# ---- PostgreSQL ------------------------------------------------------------------------------

pg_answers() {
  pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2
}

# The default DATABASE_URL (postgres://postgres@127.0.0.1:5432/...) carries no password.
pg_accepts_postgres_without_password() {
  PGCONNECT_TIMEOUT=3 psql -X -w -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1
}

# Highest PostgreSQL version with a cluster configured (Debian layout: /etc/postgresql/<version>).
# shellcheck disable=SC2012 # version directories are plain numbers such as 15
pg_cluster_version() {
  ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1
}

# Highest PostgreSQL version whose server (not only the client) is installed.
pg_server_version() {
  local server
  # shellcheck disable=SC2012 # paths are /usr/lib/postgresql/<number>/bin/postgres
  server=$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -n 1)
  [[ -n $server ]] && command -v pg_ctlcluster >/dev/null 2>&1 || return 1
  server=${server#/usr/lib/postgresql/}
  printf '%s\n' "${server%%/*}"
}

ensure_postgres() {
  if ! command -v pg_isready >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
    apt_install postgresql
  fi
  if ! pg_answers; then
    pg_server_version >/dev/null || apt_install postgresql
    local version
    version=$(pg_cluster_version)
    if [[ -z $version ]]; then
      version=$(pg_server_version)
      can_be_root || fail "PostgreSQL $version has no cluster yet. Run: sudo pg_createcluster $version main; then run this again."
      log "pg_createcluster $version main"
      as_root pg_createcluster "$version" main >/dev/null
    fi
    can_be_root || fail "PostgreSQL is not answering on $PG_HOST:$PG_PORT. Run: sudo pg_ctlcluster --skip-systemctl-redirect $version main start (or set DATABASE_URL to a PostgreSQL that runs); then run this again."
    log "starting PostgreSQL $version (cluster main)"
    # The cluster may be online already but on another port or address: starting fails then,
    # and the wait below says what is wrong.
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>&1 | sed "s/^/$HUB_SCRIPT: /" >&2 || true
    wait_until "PostgreSQL on $PG_HOST:$PG_PORT" 30 pg_answers ||
      fail "PostgreSQL did not answer on $PG_HOST:$PG_PORT within 30 s; see /var/log/postgresql/ (pg_lsclusters shows each cluster's port)"
  fi
  # A URL with a password: the user chose the credentials, and the apps report a bad login clearly.
  [[ ${DATABASE_URL:-} =~ ://[^/@]*:[^/@]*@ ]] && return 0
  pg_accepts_postgres_without_password && return 0
  local version hba
  version=$(pg_cluster_version)
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  if [[ -z $version ]] || ! can_be_root; then
    fail "PostgreSQL asks user postgres for a password on $PG_HOST:$PG_PORT. Either set DATABASE_URL=postgres://USER:PASSWORD@127.0.0.1:$PG_PORT/automation_hub, or allow local trust (as root: add 'host all postgres 127.0.0.1/32 trust' and 'host all postgres ::1/128 trust' at the top of pg_hba.conf, then reload)."
  fi
  log "allowing passwordless TCP logins of user postgres from 127.0.0.1 and ::1 in $hba (development machine)"
  # pg_hba is first-match, so the trust lines go first.
  as_root sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload
  wait_until "PostgreSQL login as postgres" 10 pg_accepts_postgres_without_password ||
    fail "PostgreSQL still refuses user postgres without a password; check $hba"
}

# ---- Redis -----------------------------------------------------------------------------------

redis_answers() {
  [[ $(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]
}

ensure_redis() {
  if ! command -v redis-cli >/dev/null 2>&1 || { ! redis_answers && ! command -v redis-server >/dev/null 2>&1; }; then
    apt_install redis-server
  fi
  redis_answers && return 0
  # Redis needs no privileges: as root it keeps the Debian locations, otherwise a user directory.
  local dir logfile
  if [[ $EUID -eq 0 ]]; then
    dir=/var/lib/redis
    logfile=/var/log/redis/hub-dev.log
  else
    dir="${XDG_STATE_HOME:-$HOME/.local/state}/automation-hub/redis"
    logfile="$dir/redis.log"
  fi
  mkdir -p "$dir" "$(dirname "$logfile")"
  log "starting Redis on $REDIS_HOST:$REDIS_PORT (no persistence; log $logfile)"
  # "-::1": also bind IPv6 loopback when the machine has it, without failing when it does not.
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" \
    --save "" --appendonly no --dir "$dir" --logfile "$logfile"
  wait_until "Redis on $REDIS_HOST:$REDIS_PORT" 15 redis_answers ||
    fail "Redis did not answer on $REDIS_HOST:$REDIS_PORT within 15 s; see $logfile"
}

# ---- programs the tests call -----------------------------------------------------------------

ensure_kubectl() {
  # KUBECTL names another kubectl (deploy/test/kubernetes-objects.ts renders with it).
  [[ -n ${KUBECTL:-} ]] && return 0
  command -v kubectl >/dev/null 2>&1 && return 0
  if ! command -v apt-get >/dev/null 2>&1 || ! can_be_root; then
    fail "the tests render deploy/kubernetes with kubectl, which is missing: install it (Debian/Ubuntu: apt-get install kubernetes-client), or set KUBECTL to one; then run this again."
  fi
  apt_install kubernetes-client
}

ensure_promtool() {
  # PROMTOOL names another promtool (deploy/test/monitoring.ts checks with it).
  [[ -n ${PROMTOOL:-} ]] && return 0
  command -v promtool >/dev/null 2>&1 && return 0
  if ! command -v apt-get >/dev/null 2>&1 || ! can_be_root; then
    fail "the tests check deploy/prometheus/alerts.yml with promtool, which is missing: install it (Debian/Ubuntu: apt-get install prometheus), or set PROMTOOL to one; then run this again."
  fi
  apt_install prometheus
  # The package starts a Prometheus server of its own where an init system runs: not wanted here.
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
  elif command -v service >/dev/null 2>&1; then
    as_root service prometheus stop >/dev/null 2>&1 || true
  fi
}

# ---- main ------------------------------------------------------------------------------------

if [[ $PG_MANAGED == true ]]; then
  ensure_postgres
else
  log "DATABASE_URL points at another machine: not managing PostgreSQL"
fi
if [[ $REDIS_MANAGED == true ]]; then
  ensure_redis
else
  log "REDIS_URL points at another machine: not managing Redis"
fi
if [[ $WITH_TEST_TOOLS == true ]]; then
  ensure_kubectl
  ensure_promtool
fi
