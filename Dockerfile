# fileconv with every engine: `docker run -p 3000:3000 -v fileconv-data:/data IMAGE` serves the
# API and the web page; `IMAGE worker` runs a worker, `IMAGE serve --no-worker` an API node,
# `IMAGE convert ...` / `IMAGE doctor` the other commands.
#
#   docker build -t fileconv .                      (or: podman build; npm run image does it here)
#   docker build --build-arg VARIANT=slim -t fileconv:slim .   (no calibre, no Chromium)
#
# BASE is any Debian 12 with Node and npm in /usr/local (the public node image's layout);
# scripts/image/base.sh makes one from Debian's archive and the npm registry for machines that
# reach no container registry.
ARG BASE=docker.io/library/node:24-bookworm-slim

# ---- build: compiles fileconv and installs it with its engines' npm packages in /opt/fileconv
FROM ${BASE} AS build
# better-sqlite3 compiles against Node's headers where no prebuilt binary can be downloaded.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# The engines' packages first, pinned from the lock: this layer changes only with the lock.
WORKDIR /opt/fileconv
COPY package-lock.json /src/
COPY scripts/image/runtime-package.mjs scripts/image/npm.sh /src/scripts/image/
RUN --mount=type=secret,id=ca node /src/scripts/image/runtime-package.mjs > package.json \
 && /src/scripts/image/npm.sh install --omit=dev --no-package-lock

# The build's own tools (the lock's dev dependencies; no install scripts: nothing native is built).
WORKDIR /src
COPY package.json ./
RUN --mount=type=secret,id=ca scripts/image/npm.sh ci --ignore-scripts
COPY . .
RUN --mount=type=secret,id=ca npm run build \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && cd /opt/fileconv \
 && /src/scripts/image/npm.sh install --omit=dev --no-package-lock /tmp/fileconv-*.tgz \
 && cp /src/scripts/image/healthcheck.mjs /opt/fileconv/healthcheck.mjs \
 && cd node_modules/better-sqlite3 \
 && mv build/Release/better_sqlite3.node /tmp/ && rm -rf build deps src \
 && mkdir -p build/Release && mv /tmp/better_sqlite3.node build/Release/

# ---- runtime: Debian's engines, fileconv from the build stage, a non-root user and /data
FROM ${BASE}
ARG VARIANT=full
# The engines `fileconv doctor` names, with the fonts documents ask for (Carlito and Caladea
# stand in for Calibri and Cambria, Liberation for Arial, Times and Courier, with the same
# metrics, so a Word document keeps its line breaks), and tini as PID 1: it forwards SIGTERM and
# reaps the LibreOffice, Chromium and calibre children a conversion leaves.
# test/image/dockerfile.test.ts holds this list to the packages doctor names.
# dpkg leaves out what a server never reads: documentation, manual pages and translations of the
# tools' messages.
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
      'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
      > /etc/dpkg/dpkg.cfg.d/fileconv-excludes
RUN set -eu; \
    engines="ffmpeg ghostscript qpdf imagemagick librsvg2-bin poppler-utils libjxl-tools libraw-bin \
      libheif-examples libarchive-tools tesseract-ocr tesseract-ocr-eng \
      python3-fonttools python3-brotli python3-munkres \
      libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
      libreoffice-draw-nogui libreoffice-base-drivers python3-uno"; \
    fonts="fontconfig fonts-dejavu-core fonts-liberation2 fonts-crosextra-carlito \
      fonts-crosextra-caladea fonts-droid-fallback fonts-lohit-deva"; \
    heavy="chromium calibre"; \
    case "$VARIANT" in full) ;; slim) heavy="" ;; *) echo "VARIANT is full or slim" >&2; exit 1 ;; esac; \
    apt-get update; \
    apt-get install -y --no-install-recommends $engines $fonts $heavy tini; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb; \
    # SymPy: python3-fonttools depends on it for one module (symfont) fileconv never loads: 130 MB.
    rm -rf /usr/lib/python3/dist-packages/sympy /usr/lib/python3/dist-packages/mpmath

RUN useradd --uid 10001 --user-group --create-home --home-dir /home/fileconv fileconv \
 && mkdir /data && chown fileconv:fileconv /data
COPY --from=build /opt/fileconv /opt/fileconv
RUN ln -s /opt/fileconv/node_modules/fileconv/bin/fileconv.js /usr/local/bin/fileconv

# MALLOC_MMAP_THRESHOLD_: as `npm start` sets it (freed buffers go back to the system).
ENV FILECONV_DATA=/data NODE_ENV=production MALLOC_MMAP_THRESHOLD_=131072
VOLUME /data
WORKDIR /data
USER fileconv
EXPOSE 3000
# /api/ready on a server (PORT or 3000); a worker, which serves no HTTP, is healthy while it runs.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/opt/fileconv/healthcheck.mjs"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "fileconv"]
CMD ["serve"]
