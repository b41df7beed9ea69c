#!/usr/bin/env bash
# Builds xflex and starts the HTTP service, installing what it needs first:
#   ./scripts/serve.sh                      listens on 127.0.0.1:8080
#   ./scripts/serve.sh --addr 0.0.0.0:9000 --auth-file tokens   any `xflex serve` flags
#   (a non-loopback --addr needs --auth-file, see README "Running it for several teams")
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; fi
mkdir -p bin
go build -trimpath -o bin/xflex ./cmd/xflex
exec ./bin/xflex serve "$@"
