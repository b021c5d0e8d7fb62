#!/usr/bin/env bash
# The README's first command on a fresh machine: a copy of the repository (what a clone holds), then
# `npm install` with Electron's download left to itself and libsecret's development files out of
# pkg-config's sight (so keytar cannot build), then `npm start`, which must serve the demo.
# Run by `npm test` as its last step; cheap with npm's cache warm.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d -t md-fresh-XXXXXX)"
host_pid=""
cleanup() {
  if [ -n "$host_pid" ]; then kill -TERM "-$host_pid" 2>/dev/null || kill -TERM "$host_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

say() { echo "fresh install: $*"; }

# What a clone holds: tracked and new, unignored files (no node_modules, no out/).
(cd "$root" && git ls-files -z --cached --others --exclude-standard) | (cd "$root" && while IFS= read -r -d '' file; do
  if [ -e "$file" ]; then mkdir -p "$work/repo/$(dirname "$file")" && cp -p "$file" "$work/repo/$file"; fi
done)
mkdir -p "$work/no-pkgconfig" "$work/data"

cd "$work/repo"
unset ELECTRON_SKIP_BINARY_DOWNLOAD MERCHANT_API_KEY MERCHANT_ID MERCHANT_DESK_WEB_TOKEN
export PKG_CONFIG_LIBDIR="$work/no-pkgconfig" PKG_CONFIG_PATH="$work/no-pkgconfig"
started=$(date +%s)
if ! npm install --no-audit --no-fund >"$work/install.log" 2>&1; then
  tail -40 "$work/install.log"
  say "FAILED: npm install exited non-zero"
  exit 1
fi
say "npm install exited 0 in $(( $(date +%s) - started )) s"
grep '^postinstall:' "$work/install.log" || true

started=$(date +%s)
MERCHANT_DESK_DATA_DIR="$work/data" setsid npm start -- --port 0 --no-open >"$work/start.log" 2>&1 &
host_pid=$!
url=""
for _ in $(seq 1 240); do
  url="$(sed -n 's/^Merchant Desk web host: \(http[^ ]*\)$/\1/p' "$work/start.log" | head -1)"
  [ -n "$url" ] && break
  if ! kill -0 "$host_pid" 2>/dev/null; then break; fi
  sleep 0.5
done
if [ -z "$url" ]; then
  tail -40 "$work/start.log"
  say "FAILED: npm start printed no web host URL within 2 minutes"
  exit 1
fi
page="$(curl -fsS -L -c "$work/cookies" -b "$work/cookies" --max-time 20 "$url")"
if ! grep -q '<div id="root">' <<<"$page"; then
  say "FAILED: the web host's page is not the app"
  exit 1
fi
for _ in $(seq 1 120); do
  grep -qE 'demo sandbox.* at http' "$work/start.log" && break
  sleep 0.5
done
if ! grep -qE 'demo sandbox.* at http' "$work/start.log"; then
  tail -40 "$work/start.log"
  say "FAILED: the demo sandbox did not start"
  exit 1
fi
say "npm start served the demo in $(( $(date +%s) - started )) s"
grep -m1 -E '^(Electron binary not available|API keys are|OS keychain unavailable)' "$work/start.log" || true
say "ok"
