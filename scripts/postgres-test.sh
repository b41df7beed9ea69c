#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the job-store tests and prints the
# URL to export, e.g.
#   eval "$(./scripts/postgres-test.sh start)"   # sets XFLEX_TEST_POSTGRES_URL
#   ./scripts/postgres-test.sh stop
# The cluster lives in ${XFLEX_PG_DIR:-/tmp/xflex-pg} and listens on
# 127.0.0.1:${XFLEX_PG_PORT:-55432} with trust authentication (tests only).
# Needs Debian's postgresql package (server binaries under
# /usr/lib/postgresql/VERSION/bin); run as root it runs the server as the
# postgres user, which initdb requires.
set -euo pipefail

DIR="${XFLEX_PG_DIR:-/tmp/xflex-pg}"
PORT="${XFLEX_PG_PORT:-55432}"

bindir() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$d" ]; then
    echo "postgres-test: no PostgreSQL server binaries (install the postgresql package)" >&2
    exit 1
  fi
  echo "$d"
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

cmd="${1:-start}"
BIN="$(bindir)"
case "$cmd" in
  start)
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
      rm -rf "$DIR"
      mkdir -p "$DIR"
      if [ "$(id -u)" = 0 ]; then chown postgres: "$DIR"; fi
      as_pg "'$BIN/initdb' -D '$DIR/data' -U postgres -A trust --no-sync -E UTF8" >"$DIR.initdb.log" 2>&1 ||
        { cat "$DIR.initdb.log" >&2; exit 1; }
    fi
    if ! as_pg "'$BIN/pg_ctl' -D '$DIR/data' status" >/dev/null 2>&1; then
      as_pg "'$BIN/pg_ctl' -D '$DIR/data' -l '$DIR/server.log' -w -t 60 \
        -o \"-c listen_addresses=127.0.0.1 -p $PORT -k '$DIR' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200\" start" >&2 ||
        { cat "$DIR/server.log" >&2; exit 1; }
    fi
    echo "export XFLEX_TEST_POSTGRES_URL='postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable'"
    ;;
  stop)
    as_pg "'$BIN/pg_ctl' -D '$DIR/data' -m fast stop" >&2 || true
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
