#!/usr/bin/env bash
# The include rules of docs/architecture.md, checked on src/: each layer includes only itself and
# the layers below it, so data flows down and nothing below calls back up.
#   api/      -> api/ recipes/ core/ numerics/
#   recipes/  -> recipes/ core/ numerics/
#   cpu/      -> cpu/ core/ numerics/
#   cuda/     -> cuda/ core/ numerics/
#   core/     -> core/ numerics/
#   numerics/ -> numerics/ only (its own headers, by bare name)
# lowp/*.h (the public header) and system headers (<...>) are allowed everywhere.
#
# usage: scripts/check-layers.sh [SRC_DIR]   (default: src next to this script); exit 1 on a breach
set -u

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
SRC="${1:-$(dirname "$SELF")/../src}"
[[ -d "$SRC" ]] || { echo "check-layers: no directory $SRC" >&2; exit 2; }

declare -A ALLOWED=(
  [api]="api recipes core numerics"
  [recipes]="recipes core numerics"
  [cpu]="cpu core numerics"
  [cuda]="cuda core numerics"
  [core]="core numerics"
)

bad=0
checked=0
while IFS= read -r -d '' file; do
  rel="${file#"$SRC"/}"
  layer="${rel%%/*}"
  [[ "$rel" == */* ]] || continue  # src/CMakeLists.txt
  while IFS= read -r line; do
    inc="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$line")"
    checked=$((checked + 1))
    target="${inc%%/*}"
    if [[ "$inc" != */* ]]; then
      # A bare name: only numerics/ includes its own headers so (they are included as numerics/X).
      [[ "$layer" == numerics ]] && continue
      echo "$rel: #include \"$inc\": include it by its path under src/ (layer/name)"
      bad=$((bad + 1))
      continue
    fi
    [[ "$target" == lowp ]] && continue
    if [[ "$layer" == numerics ]]; then
      echo "$rel: #include \"$inc\": numerics/ includes only its own headers"
      bad=$((bad + 1))
      continue
    fi
    allowed=" ${ALLOWED[$layer]:-} "
    if [[ "$allowed" != *" $target "* ]]; then
      echo "$rel: #include \"$inc\": $layer/ may include only ${ALLOWED[$layer]:-nothing} (docs/architecture.md)"
      bad=$((bad + 1))
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
done < <(find "$SRC" -type f \( -name '*.h' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cu' \) -print0)

echo "check-layers: $checked includes checked, $bad breaking the rules"
[[ $bad -eq 0 ]]
