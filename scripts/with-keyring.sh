#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring, so keytar
# (libsecret) has a Secret Service on headless machines. Usage: scripts/with-keyring.sh CMD...
set -euo pipefail
exec dbus-run-session -- bash -c 'echo -n "ci-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' _ "$@"
