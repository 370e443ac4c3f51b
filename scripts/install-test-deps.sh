#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, idempotently.
# kubectl: the pinned client the integration tests drive (kubectl.1.30) ships with the machine image;
# fail early and clearly if it is missing rather than half-way through the suite.
set -euo pipefail
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.30
if [ ! -x "$KUBECTL" ]; then
  echo "install-test-deps: $KUBECTL is missing; the integration tests drive this pinned kubectl" >&2
  exit 1
fi
