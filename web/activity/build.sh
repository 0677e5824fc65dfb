#!/usr/bin/env bash
# Build the Discord Activity's script: web/static/activity.js.
#
#   web/activity/build.sh [--force]
#
# Installs the pinned packages of this folder (npm ci, from package-lock.json) and
# bundles src/main.js with Discord's Embedded App SDK into one minified file with
# esbuild (no source map, nothing loaded from another origin). It does the work only
# when something it reads changed since the last build (a stamp of the sources, the
# lock and this script, kept in node_modules), so ./dev run and ./dev test may call it
# every time: a build that is current costs a few milliseconds. --force builds anyway.
#
# Without Node.js and npm it says in one line that the Activity is unavailable and
# exits 0: the bot runs without it (/activity/ then says so). A failed install or
# bundle is said the same way, with npm's or esbuild's own words on stderr.
#
# Several test processes may call it at once: one builds, the others wait for it (a
# lock file), and the bundle is written whole (a temporary file beside node_modules,
# renamed into web/static).
set -uo pipefail
cd "$(dirname "$0")"

OUTPUT=../static/activity.js
STAMP=node_modules/.activity-build
INSTALLED=node_modules/.activity-installed
force=${1:-}

unavailable() {
    echo "The Discord Activity is unavailable: $1; the bot runs without it."
    exit 0
}

hash_of() {
    # file names and contents, in a fixed order
    for file in "$@"; do printf '%s\0' "$file"; cat "$file"; printf '\0'; done | sha256sum | cut -d' ' -f1
}

inputs() {
    hash_of package.json package-lock.json build.sh $(find src -name '*.js' | LC_ALL=C sort)
}

current() {
    [ -f "$OUTPUT" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(inputs)" ]
}

exec 9>.build.lock
flock 9  # another process's build: wait for it

if [ "$force" != --force ] && current; then
    exit 0
fi
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
    || unavailable "Node.js and npm are not installed (install Node.js 18 or newer)"

started=$(date +%s.%N)
installed=$(hash_of package.json package-lock.json)
if [ "$force" = --force ] || [ ! -x node_modules/.bin/esbuild ] || [ ! -f "$INSTALLED" ] \
    || [ "$(cat "$INSTALLED")" != "$installed" ]; then
    # --ignore-scripts: esbuild's binary comes in its platform's package; its install
    # script only checks it
    if ! out=$(npm ci --ignore-scripts --no-audit --no-fund --loglevel=error 2>&1); then
        echo "$out" >&2
        unavailable "npm ci failed (see above)"
    fi
    echo "$installed" >"$INSTALLED"
fi

partial="node_modules/.activity.js.$$.tmp"  # renamed into static/ whole: a server reading the folder never sees half a file
if ! out=$(node_modules/.bin/esbuild src/main.js --bundle --minify --format=iife \
    --target=es2020 --platform=browser --charset=utf8 --legal-comments=eof \
    --log-level=warning "--outfile=$partial" 2>&1); then
    echo "$out" >&2
    rm -f "$partial"
    unavailable "esbuild could not bundle the script (see above)"
fi
mv -f "$partial" "$OUTPUT"
inputs >"$STAMP"
size=$(wc -c <"$OUTPUT")
took=$(echo "$(date +%s.%N) - $started" | bc 2>/dev/null || echo "?")
printf "Built the Activity's script: %d KB in %.1f s.\n" $((size / 1024)) "$took" 2>/dev/null \
    || echo "Built the Activity's script: $((size / 1024)) KB."
