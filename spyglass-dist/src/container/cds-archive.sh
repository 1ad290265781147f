#!/usr/bin/env bash
# Writes /opt/spyglass/lib/spyglass.jsa in the image's root filesystem ROOT: a class-data sharing
# archive of the classes that spyglass serve loads until it has answered a query, dumped by the
# image's own JVM (an archive fits only the JVM that wrote it and the same jars). bin/spyglass uses
# it when it is there and fits; it halves the CPU time to the first answer.
# build-image.sh runs it from mmdebstrap's customize hook (ROOT has /proc and /dev mounted).
# Usage: cds-archive.sh ROOT
set -euo pipefail
root="$1"
archive=/opt/spyglass/lib/spyglass.jsa
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# the image's PATH only; no JAVA_HOME of this machine. SPYGLASS_CDS=record: bin/spyglass serve
# has its JVM write the archive as it exits, and lib/spyglass.jsa.fits (not in the background)
rm -f "$root$archive" "$root$archive.fits"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SPYGLASS_CDS=record \
  chroot "$root" /opt/spyglass/bin/spyglass serve --port 0 --data /tmp/spyglass-cds > "$log" 2>&1 &
pid=$!
port=
for _ in $(seq 1 600); do
  port="$(sed -n 's|^Spyglass is serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")"
  [ -n "$port" ] && break
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.2
done
if [ -z "$port" ]; then
  cat "$log" >&2
  echo "cds-archive: spyglass serve did not start in the image's root filesystem" >&2
  kill "$pid" 2> /dev/null || true
  exit 1
fi
# one query through the API, to its end (bash alone: the build machine may have no curl)
body='{"query": "SELECT device, COUNT(*) AS n FROM STREAM(300, TIME) GROUP BY device"}'
exec 3<> "/dev/tcp/127.0.0.1/$port"
printf 'POST /api/query HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
  "$port" "${#body}" "$body" >&3
status="$(head -n 1 <&3)"
cat <&3 > /dev/null
exec 3<&-
kill -TERM "$pid"
wait "$pid" || true
case $status in
  'HTTP/1.1 200 '*) ;;
  *)
    cat "$log" >&2
    echo "cds-archive: the query was answered $status" >&2
    exit 1
    ;;
esac
rm -rf "$root/tmp/spyglass-cds" "$root"/tmp/hsperfdata_* "$root"/tmp/sqlite-*
[ -s "$root$archive" ] && [ -s "$root$archive.fits" ] || {
  cat "$log" >&2
  echo "cds-archive: no $archive was written" >&2
  exit 1
}
chmod 0444 "$root$archive" "$root$archive.fits"
echo "cds-archive: $archive, $(du -h "$root$archive" | cut -f1)" >&2
