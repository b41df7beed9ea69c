#!/usr/bin/env bash
# Builds xflex and starts the HTTP service, installing what it needs first:
#   ./scripts/serve.sh                      listens on 127.0.0.1:8080
#   ./scripts/serve.sh --addr 0.0.0.0:9000 --auth-file tokens   any `xflex serve` flags
#   (a non-loopback --addr needs --auth-file, see docs/operating.md, Tenants and tokens)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; fi
mkdir -p bin
# Say what the silent steps are doing: the first build downloads the Go
# modules and compiles them, with cgo for CLP/CBC (measured: 753 s with
# an empty build cache on 2 cores shared by ~10 busy processes, load 21;
# minutes on any small machine); later builds reuse Go's cache.
if [ -x bin/xflex ]; then
  echo "serve: building bin/xflex..." >&2
else
  echo "serve: building bin/xflex (the first build downloads and compiles the dependencies: a few minutes)..." >&2
fi
start=$SECONDS
go build -trimpath -o bin/xflex ./cmd/xflex
echo "serve: built in $((SECONDS - start)) s; starting xflex serve $*" >&2
exec ./bin/xflex serve "$@"
