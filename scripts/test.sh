#!/usr/bin/env bash
# Runs the whole xflex test suite, installing what it needs first:
#   ./scripts/test.sh            everything (go vet, go test ./..., the pure-Go LP path)
# Extra arguments go to `go test` (e.g. -run CMMF -v).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --test
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; fi

# A throwaway PostgreSQL for the job-store tests (jobs/, cmd/xflex), stopped
# on exit. With CI=true those tests fail rather than skip without it.
if [ -z "${XFLEX_TEST_POSTGRES_URL:-}" ]; then
  eval "$(./scripts/postgres-test.sh start)"
  trap './scripts/postgres-test.sh stop' EXIT
fi

echo "== go vet ./..."
go vet ./...
echo "== go test ./..."
go test -count=1 -timeout 15m "$@" ./...
echo "== go test ./lp/... without cgo (pure-Go backend)"
CGO_ENABLED=0 go test -count=1 -timeout 10m ./lp/...
