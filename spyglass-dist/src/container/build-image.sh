#!/usr/bin/env bash
# Builds the container image of a Spyglass release from Debian's packages only (no image is pulled
# from a registry): mmdebstrap makes a Debian root filesystem with Java 17, a user spyglass and the
# release unpacked in /opt/spyglass, and podman builds the Containerfile beside this script
# FROM scratch over it.
#
# Usage: spyglass-dist/src/container/build-image.sh [ARCHIVE]
#   ARCHIVE  the release archive (default: spyglass-dist/target/spyglass-*.tar.gz, made by
#            mvn -B -ntp package -DskipTests)
# Environment:
#   SPYGLASS_IMAGE           the image's name (default: localhost/spyglass:VERSION)
#   SPYGLASS_DEBIAN_SUITE    the Debian release of the image (default: bookworm)
#   SPYGLASS_DEBIAN_MIRROR   a Debian mirror, or a sources.list line or file (default: mmdebstrap's,
#                            with the release's updates and security mirrors)
#   SPYGLASS_APT_CACHE       a folder that keeps the downloaded packages for the next build
#                            (default: spyglass-dist/target/container/apt-cache)
#   SPYGLASS_STORAGE_DRIVER  podman's storage driver (default: vfs, which works where overlay
#                            does not, e.g. inside another container)
# Needs root (mmdebstrap makes device files and owners, podman stores the image for root), and
# mmdebstrap and podman: as root on Debian or Ubuntu, this script installs those that are missing.
# Exit status: 0 built; 1 failed; 2 this machine cannot build images (the reason is printed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="$(cd "$here/../.." && pwd)"

cannot() {
  echo "build-image: cannot build the image here: $*" >&2
  exit 2
}

archive="${1:-}"
if [ -z "$archive" ]; then
  archive="$(ls -t "$dist"/target/spyglass-*.tar.gz 2> /dev/null | head -n 1 || true)"
  [ -n "$archive" ] || {
    echo "build-image: no release archive in $dist/target: run 'mvn -B -ntp package -DskipTests' first, or give its path" >&2
    exit 1
  }
fi
[ -f "$archive" ] || {
  echo "build-image: $archive: no such file" >&2
  exit 1
}
release="$(basename "$archive" .tar.gz)"
version="${release#spyglass-}"
image="${SPYGLASS_IMAGE:-localhost/spyglass:$version}"
suite="${SPYGLASS_DEBIAN_SUITE:-bookworm}"
driver="${SPYGLASS_STORAGE_DRIVER:-vfs}"
cache="${SPYGLASS_APT_CACHE:-$dist/target/container/apt-cache}"

[ "$(id -u)" = 0 ] || cannot "it needs root (mmdebstrap and podman as root); run it with sudo"
missing=()
command -v mmdebstrap > /dev/null || missing+=(mmdebstrap)
command -v podman > /dev/null || missing+=(podman)
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get > /dev/null || cannot "${missing[*]} missing, and no apt-get to install them"
  echo "build-image: installing ${missing[*]}" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 ||
    cannot "apt-get install ${missing[*]} failed"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/spyglass-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"

tar -xzf "$archive" -C "$work"
mv "$work/$release" "$work/spyglass"

echo "build-image: the root filesystem: Debian $suite with Java 17 and Spyglass (mmdebstrap; a few minutes, less with the packages kept in $cache)" >&2
mirrors=()
[ -z "${SPYGLASS_DEBIAN_MIRROR:-}" ] || mirrors=("$SPYGLASS_DEBIAN_MIRROR")
# Man pages, documentation (but the copyright files) and translations are left out; update-alternatives
# still wants man1. The packages are taken from and kept in $cache, and none stays in the image.
# Spyglass goes to /opt/spyglass (root's, read-only to the user spyglass), the health check to
# /usr/local/bin; then cds-archive.sh runs it once inside the root filesystem to write the
# class-data sharing archive that makes it start faster.
mmdebstrap --variant=minbase --include=openjdk-17-jre-headless \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --essential-hook='mkdir -p "$1/usr/share/man/man1"' \
  --skip=download/empty --skip=essential/unlink \
  --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
  --setup-hook="sync-in $cache /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb "$1"/var/cache/apt/archives/partial/*' \
  --customize-hook='echo "spyglass:x:10001:10001:Spyglass:/var/lib/spyglass:/usr/sbin/nologin" >> "$1/etc/passwd"' \
  --customize-hook='echo "spyglass:x:10001:" >> "$1/etc/group"' \
  --customize-hook='install -d -o 10001 -g 10001 -m 0750 "$1/var/lib/spyglass"' \
  --customize-hook='install -d -m 0755 "$1/etc/spyglass"' \
  --customize-hook="copy-in $work/spyglass /opt" \
  --customize-hook="upload $here/healthcheck /usr/local/bin/spyglass-healthcheck" \
  --customize-hook='chmod 0755 "$1/usr/local/bin/spyglass-healthcheck"' \
  --customize-hook="bash $here/cds-archive.sh \"\$1\"" \
  "$suite" "$work/rootfs.tar" ${mirrors[@]+"${mirrors[@]}"} > "$work/mmdebstrap.log" 2>&1 || {
  tail -n 30 "$work/mmdebstrap.log" >&2
  echo "build-image: mmdebstrap failed (its last lines are above)" >&2
  exit 1
}
cp "$here/Containerfile" "$work/"

echo "build-image: podman build -t $image (storage driver $driver)" >&2
# docker format: the OCI format has no HEALTHCHECK
podman --storage-driver "$driver" build --format docker --build-arg "VERSION=$version" \
  -t "$image" -f "$work/Containerfile" "$work" >&2
echo "$image"
