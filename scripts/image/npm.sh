#!/bin/sh
# npm inside the image build. Behind a proxy that re-signs TLS (a company's, or this machine's
# sandbox), the registry's certificate chains to a CA the base does not know: `npm run image`
# hands the host's CA bundle in as the build secret `ca` (never a layer of the image), and npm
# trusts it here. Without the secret (a plain `docker build`), npm runs as usual.
set -eu
if [ -s /run/secrets/ca ]; then
  export NODE_EXTRA_CA_CERTS=/run/secrets/ca
fi
exec npm "$@"
