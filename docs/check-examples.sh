#!/usr/bin/env bash
# Validates every query of the ```sql blocks of docs/bql.md with `spyglass validate`.
# Usage: docs/check-examples.sh [path/to/bql.md]
# SPYGLASS may name another command to run (default: ./spyglass at the repository root).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
doc="${1:-$root/docs/bql.md}"
spyglass="${SPYGLASS:-$root/spyglass}"

# One query per block: the block's lines joined with spaces, NUL-separated.
queries="$(mktemp)"
trap 'rm -f "$queries"' EXIT
awk '
  /^```sql[[:space:]]*$/ { inside = 1; q = ""; next }
  /^```/ && inside { inside = 0; gsub(/^[[:space:]]+|[[:space:]]+$/, "", q); if (q != "") printf "%s%c", q, 0; next }
  inside { q = q " " $0 }
' "$doc" > "$queries"

total=0
failed=0
while IFS= read -r -d '' query; do
  total=$((total + 1))
  if out="$("$spyglass" validate "$query" 2>&1)"; then
    :
  else
    failed=$((failed + 1))
    echo "FAIL: $query"
    echo "$out" | sed 's/^/  /'
  fi
done < "$queries"

echo "$((total - failed)) of $total queries valid"
[ "$total" -gt 0 ] && [ "$failed" -eq 0 ]
