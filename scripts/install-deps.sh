#!/usr/bin/env bash
# Installs what xflex needs to build and test on Debian/Ubuntu: a C and C++ toolchain
# and pkg-config for cgo, COIN-OR CLP/CBC (the LP/MIP backend), and a Go
# toolchain new enough for go.mod. Uses sudo when not root. Idempotent: it
# installs only what is missing.
#   install-deps.sh          what building and serving need
#   install-deps.sh --test   plus a PostgreSQL server for the job-store tests and
#                            headless Chromium (with a font) for the web page's
#                            browser test (httpapi/ui), and Node.js with the npm tools
#                            that check the OpenAPI document (scripts/openapi-tools:
#                            redocly, openapi-typescript, tsc; client/tools_test.go)
set -euo pipefail

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

need_apt=()
pkgs=(coinor-libcbc-dev coinor-libclp-dev pkg-config gcc g++ libc6-dev git ca-certificates)
[ "$want_test" = 1 ] && pkgs+=(postgresql chromium fonts-dejavu-core curl)
# Node.js and npm from apt only when no node is on the PATH (a newer one,
# e.g. from NodeSource, is kept).
if [ "$want_test" = 1 ] && ! command -v node >/dev/null 2>&1; then pkgs+=(nodejs npm); fi
for pkg in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    need_apt+=("$pkg")
  fi
done

# Go: use the one on PATH or /usr/local/go; otherwise Debian's golang-go,
# which (Go >= 1.21) fetches the toolchain go.mod asks for by itself.
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    need_apt+=(golang-go)
  fi
fi

# How long to wait for another install (a second shell, unattended-upgrades
# on a fresh machine) to release apt's or dpkg's lock, in seconds.
lock_wait=600

# apt_get runs apt-get as root; when another process holds apt's or dpkg's
# lock it says so and retries every 3 s for up to $lock_wait s instead of
# failing at once. A loop rather than apt's -o DPkg::Lock::Timeout, which
# covers dpkg's lock only: `apt-get update` still fails at once on the
# package lists' lock (apt 2.6.1, measured).
apt_get() {
  local err deadline=$((SECONDS + lock_wait)) said=0
  err=$(mktemp)
  until $SUDO env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>"$err"; do
    if ! grep -q "Could not get lock" "$err" || [ "$SECONDS" -ge "$deadline" ]; then
      cat "$err" >&2
      rm -f "$err"
      return 1
    fi
    if [ "$said" = 0 ]; then
      echo "install-deps: waiting for another package install to finish ($(grep -m1 -o 'Could not get lock.*' "$err"); up to $((lock_wait / 60)) min)" >&2
      said=1
    fi
    sleep 3
  done
  cat "$err" >&2
  rm -f "$err"
}

if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "install-deps: installing ${need_apt[*]}" >&2
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if ! pkg-config --exists cbc clp; then
  echo "install-deps: pkg-config cannot find cbc/clp after installing coinor-libcbc-dev" >&2
  exit 1
fi
go version >&2

# The npm tools of the OpenAPI checks, at the versions package-lock.json pins.
if [ "$want_test" = 1 ] && [ ! -x "$(dirname "$0")/openapi-tools/node_modules/.bin/redocly" ]; then
  echo "install-deps: installing the OpenAPI check tools (npm ci in scripts/openapi-tools)" >&2
  (cd "$(dirname "$0")/openapi-tools" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
