#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, idempotently; `npm test` and .ci/run call it first.
# Debian packages: python3-kubernetes (the Python client the integration tests drive with the system
# /usr/bin/python3) and etcd-server (the etcd storage backend's tests). When all of them are installed
# this does nothing (one dpkg query); otherwise it runs `apt-get update` once and installs the missing
# ones (as root, as CI runs it; elsewhere through sudo when there is one).
# kubectl: the integration tests drive every pinned release kubectl.1.27 … kubectl.1.33 that ships
# with the Google Cloud SDK beside gcloud; fail early and clearly if one is missing rather than half-way
# through the suite (test/helpers/kubectl.ts finds them the same way).
set -euo pipefail

DEBIAN_PACKAGES=(python3-kubernetes etcd-server)

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)" != "installed" ]; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: missing ${missing[*]} and no apt-get to install them with" >&2
    exit 1
  fi
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "install-test-deps: missing ${missing[*]}; run this script as root to install them" >&2
      exit 1
    fi
    as_root=(sudo)
  fi
  echo "install-test-deps: installing ${missing[*]}" >&2
  # Wait for another apt/dpkg run (a parallel test run, unattended upgrades) instead of failing.
  "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi

KUBECTL_MINORS=(27 28 29 30 31 32 33)
if command -v gcloud >/dev/null 2>&1; then
  kubectl_dir=$(dirname "$(readlink -f "$(command -v gcloud)")")
else
  kubectl_dir=/usr/lib/google-cloud-sdk/bin
fi
missing_kubectl=()
for minor in "${KUBECTL_MINORS[@]}"; do
  if [ ! -x "$kubectl_dir/kubectl.1.$minor" ]; then
    missing_kubectl+=("kubectl.1.$minor")
  fi
done
if [ "${#missing_kubectl[@]}" -gt 0 ]; then
  echo "install-test-deps: ${missing_kubectl[*]} missing from $kubectl_dir; the integration tests drive every kubectl 1.${KUBECTL_MINORS[0]} … 1.${KUBECTL_MINORS[-1]} of the Google Cloud SDK (install its kubectl component)" >&2
  exit 1
fi
