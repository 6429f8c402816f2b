#!/usr/bin/env bash
# `npm run image`: builds localhost/fileconv:latest from the Dockerfile with podman (docker when
# podman is absent). The base is the public node:24-bookworm-slim when a registry answers, else
# one made here from Debian's archive and the npm registry (scripts/image/base.sh), kept in
# podman's store for the next build.
#
#   npm run image                      the full image
#   npm run image -- --build-arg VARIANT=slim --tag localhost/fileconv:slim
#   FILECONV_IMAGE_BASE=my/base:tag npm run image
#
# podman on this kind of machine: cgroups are hybrid, so runc (crun refuses); rlimits cannot be
# raised, so the build's containers get the limits the machine allows; the build's network is the
# host's. --format docker: the OCI format has no HEALTHCHECK.
set -euo pipefail
cd "$(dirname "$0")/../.."

PUBLIC_BASE="docker.io/library/node:24-bookworm-slim"
tag=(--tag localhost/fileconv:latest)
for arg in "$@"; do [ "$arg" = --tag ] && tag=(); done

# The CA bundle npm trusts here (a proxy that re-signs TLS needs its CA inside the build too): a
# build secret, read by scripts/image/npm.sh, never stored in the image.
ca="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
case "$ca" in "" | null | undefined) ca=/dev/null ;; esac

if command -v podman >/dev/null; then
  base="${FILECONV_IMAGE_BASE:-}"
  if [ -z "$base" ]; then
    if podman image exists "$PUBLIC_BASE" || podman pull -q "$PUBLIC_BASE" >/dev/null 2>&1; then
      base="$PUBLIC_BASE"
    else
      echo "image: no registry answers; making the base from Debian's archive and the npm registry" >&2
      base="$(scripts/image/base.sh)"
    fi
  fi
  echo "image: base $base" >&2
  exec podman build --runtime runc --network host --format docker \
    --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 \
    --secret "id=ca,src=$ca" --build-arg "BASE=$base" "${tag[@]}" "$@" .
elif command -v docker >/dev/null; then
  exec docker build --secret "id=ca,src=$ca" ${FILECONV_IMAGE_BASE:+--build-arg "BASE=$FILECONV_IMAGE_BASE"} \
    "${tag[@]}" "$@" .
else
  echo "image: needs podman (apt-get install podman) or docker" >&2
  exit 1
fi
