#!/usr/bin/env bash
# conformance.sh — check the running service against its own OpenAPI description.
#
# Usage: scripts/conformance.sh [EXAMPLES_PER_OPERATION]
#
# Builds the service, starts it on a demo library with an API key and
# --no-local-access, validates the served /api/v1/openapi.json as OpenAPI 3.1
# (openapi-spec-validator), then runs schemathesis with every default check, a fixed
# seed and EXAMPLES_PER_OPERATION (default 100) generated cases per operation, over
# every /api/v1/ operation, POST routes included. Exits non-zero when anything fails.
#
# The rate limits are raised for the run: the point is the description, not the
# limiter (whose 429 answers are documented and tested elsewhere).
#
# Needs python3 with venv; the pinned tools are installed in target/conformance-venv.
set -euo pipefail
cd "$(dirname "$0")/.."

examples="${1:-100}"
venv=target/conformance-venv
if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet schemathesis==4.32.5 openapi-spec-validator==0.9.0
fi

cargo build --quiet
bin=target/debug/ludotheque
work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$bin" demo-library "$work/library" >/dev/null
# Commands other than serve and demo-library never create a data folder.
mkdir -p "$work/data"
key="$("$bin" --data "$work/data" --library "$work/library" apikey create conformance | awk '/ldq_/ {print $1}')"
"$bin" --data "$work/data" --library "$work/library" serve --listen 127.0.0.1:0 \
    --no-local-access --key-rate 100000 --key-burst 100000 \
    --auth-failures-per-minute 100000 >"$work/out" 2>"$work/log" &
server=$!
for _ in $(seq 100); do
    grep -q '^listening on ' "$work/out" 2>/dev/null && break
    sleep 0.1
done
base="$(sed -n 's/^listening on //p' "$work/out")"
[ -n "$base" ] || { cat "$work/log"; exit 1; }

curl -fsS "$base/api/v1/openapi.json" -o "$work/openapi.json"
"$venv/bin/openapi-spec-validator" "$work/openapi.json"

"$venv/bin/schemathesis" run "$base/api/v1/openapi.json" \
    --header "X-Api-Key: $key" \
    --seed 20261122 \
    --max-examples "$examples" \
    --workers 1 \
    --report junit --report-dir "$work/report"
