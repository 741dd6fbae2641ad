#!/usr/bin/env bash
# chDB (the ClickHouse engine in-process, from the npm package `chdb`) for tests of the code paths that only
# newer ClickHouse servers run: the only server installable here is Debian's 18.16.
#
#   chdb.sh [install]  install the pinned chdb into the install dir when missing (silent on success)
#   chdb.sh path       install when missing, then print the install dir (WALSHADOW_CHDB_DIR for tests)
#   chdb.sh version    install when missing, then print the engine's SELECT version()
#   chdb.sh reset      delete the install dir
#
# Install dir: ${WALSHADOW_STATE_DIR:-/var/lib/walshadow-dev}/chdb, holding node_modules/chdb and its native engine
# (@chdb/lib-linux-x64-gnu: libchdb.so, ~550 MB on disk). Needs node >= 18 and npm; as root on Debian, missing
# ones are installed from Debian's `nodejs` and `npm` packages. Only linux x86_64 (glibc) is supported: the
# registry reachable here serves no other platform package.
set -euo pipefail

# Exact pins: chdb 3.4.0 pins its engine package exactly (@chdb/lib-linux-x64-gnu 26.7.3-stable.1, whose
# SELECT version() answers 26.7.2.1); the overrides pin its three small JS dependencies, which it only asks for
# by range, so two installs are the same bytes. Bump all together, after `npm view chdb versions`.
CHDB_VERSION=3.4.0
CHDB_LIB_VERSION=26.7.3-stable.1
OVERRIDES='"@clickhouse/client-common": "1.23.0", "node-addon-api": "6.1.0", "node-gyp-build": "4.8.4"'
STAMP_TEXT="chdb@$CHDB_VERSION @chdb/lib-linux-x64-gnu@$CHDB_LIB_VERSION"

STATE=${WALSHADOW_STATE_DIR:-/var/lib/walshadow-dev}
DIR=$STATE/chdb
STAMP=$DIR/.walshadow-chdb-installed

log() { printf '[chdb] %s\n' "$*" >&2; }
die() { printf '[chdb] ERROR: %s\n' "$*" >&2; exit 1; }

installed() {
  # The stamp is written only after a successful smoke query, so its presence (with the pinned versions) plus the
  # engine file means a complete install; checking files instead of running node keeps the second call ~10 ms.
  [[ -f $STAMP && $(head -n1 "$STAMP") == "$STAMP_TEXT" && -s $DIR/node_modules/@chdb/lib-linux-x64-gnu/libchdb.so ]]
}

ensure_node() {
  local major
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    [[ $(id -u) -eq 0 ]] || die "node and npm are needed: install Debian's nodejs and npm packages (or run as root)"
    log "installing Debian packages nodejs npm"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || die "apt-get update failed"
    apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends nodejs npm >/dev/null ||
      die "apt-get install nodejs npm failed"
  fi
  major=$(node -p 'process.versions.node.split(".")[0]')
  [[ $major -ge 18 ]] || die "node $(node --version) is too old: chdb $CHDB_VERSION needs node >= 18"
}

smoke() {
  # Runs from an empty temp dir: a stateless chdb query may create engine files in the current directory.
  local d out
  d=$(mktemp -d "${TMPDIR:-/tmp}/walshadow-chdb-smoke.XXXXXX")
  out=$(cd "$d" && node -e 'process.stdout.write(require(process.argv[1]).query("SELECT version()", "TabSeparated"))' \
    "$1/node_modules/chdb" 2>&1) || { rm -rf "$d"; die "chdb in $1 does not run: $out"; }
  rm -rf "$d"
  printf '%s' "$out" | tr -d '\n'
}

cmd_install() {
  installed && return 0
  [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] || die "chdb is installed for linux x86_64 only (this is $(uname -sm))"
  [[ $STATE == /* ]] || die "WALSHADOW_STATE_DIR must be an absolute path (got '$STATE')"
  ensure_node
  install -d -m 755 "$STATE"
  # One installer at a time (test.sh and a developer's shell may race); re-check once the lock is ours.
  exec 8>"$STATE/.chdb.lock"
  flock -w 900 8 || die "another chdb.sh holds $STATE/.chdb.lock"
  installed && return 0

  local tmp engine start=$SECONDS
  tmp=$(mktemp -d "$STATE/.chdb-install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cat >"$tmp/package.json" <<EOF
{
  "name": "walshadow-chdb",
  "private": true,
  "description": "written by walshadow deploy/local/chdb.sh",
  "dependencies": { "chdb": "$CHDB_VERSION" },
  "overrides": { $OVERRIDES }
}
EOF
  log "installing chdb $CHDB_VERSION into $DIR (downloads ~180 MB once; about 550 MB on disk)"
  # --ignore-scripts: chdb's only install script is a no-op (`node -e ""`); the engine comes prebuilt in the
  # optional dependency @chdb/lib-linux-x64-gnu. No lockfile: the registry here serves only the linux-x64 engine
  # package, so a lockfile listing chdb's other optional platforms could not be installed with `npm ci`.
  if ! (cd "$tmp" && npm install --no-audit --no-fund --no-package-lock --ignore-scripts --omit=dev \
      --loglevel=error >"$tmp/npm.log" 2>&1); then
    cat "$tmp/npm.log" >&2
    die "npm install chdb@$CHDB_VERSION failed"
  fi
  [[ -s $tmp/node_modules/@chdb/lib-linux-x64-gnu/libchdb.so ]] ||
    die "npm installed chdb without its engine @chdb/lib-linux-x64-gnu (optional dependency skipped?): $(cat "$tmp/npm.log")"
  engine=$(smoke "$tmp")
  printf '%s\nengine %s\n' "$STAMP_TEXT" "$engine" >"$tmp/.walshadow-chdb-installed"
  rm -f "$tmp/npm.log"
  # Swap in whole, so an interrupted install never leaves a half-populated $DIR behind.
  rm -rf "$DIR"
  mv "$tmp" "$DIR"
  chmod 755 "$DIR"
  trap - EXIT
  log "chdb $CHDB_VERSION (engine $engine) installed in $DIR in $((SECONDS - start)) s, $(du -sh "$DIR" | cut -f1)"
}

usage() {
  sed -n '2,14s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

case ${1:-install} in
  install) cmd_install ;;
  path) cmd_install && printf '%s\n' "$DIR" ;;
  version) cmd_install && sed -n 's/^engine //p' "$STAMP" ;;
  reset) rm -rf "$DIR" "$STATE/.chdb.lock" ;;
  -h | --help | help) usage ;;
  *) printf '[chdb] unknown command: %s\n' "$1" >&2; usage ;;
esac
