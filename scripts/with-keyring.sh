#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring, so keytar
# (libsecret) has a Secret Service on headless machines. Usage: scripts/with-keyring.sh CMD...
# The command starts once the keyring has answered a real store/read round trip (a brand-new keyring
# on a busy machine can be slow to give its first answer); if it never does, one line says so and it fails.
set -euo pipefail
ready="$(cd "$(dirname "$0")" && pwd)/lib/keyringReady.mjs"
exec dbus-run-session -- bash -c '
  set -e
  echo -n "ci-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  # The daemon takes its bus name a moment after it forks; a client before that would start another, locked one.
  for _ in $(seq 300); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
      string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
    sleep 0.1
  done
  node "$0"
  exec "$@"' "$ready" "$@"
