#!/usr/bin/env bash
# Layering and size rules, run from the source root (ctest: lint.layering):
#  1. the core names no plugin: no file under core/ mentions a frontend,
#     pass, backend, launcher or plugin property by name, so everything
#     that transforms or emits code stays a plugin (docs/architecture.md);
#  2. no source file is over 800 lines (split by responsibility instead).
# Prints every offending line / file and fails when there is one.
set -uo pipefail
cd "${1:-.}"
status=0

plugin_names='pre[_-]?broadcast|atomic[_-]accumulat[a-z]*|accumulated|pallas[a-z_]*|helion[a-z_]*|emit_pipeline|fori_loop|unroll|tpu|vmem|triton|mosaic|numpy[a-z_]*|op[_-]stats'
if matches=$(grep -rniwE "$plugin_names" core); then
  echo "core/ names a plugin (frontend, pass, backend, launcher or property):"
  echo "$matches"
  status=1
fi

max_lines=800
while IFS= read -r -d '' file; do
  lines=$(wc -l < "$file")
  if (( lines > max_lines )); then
    echo "$file: $lines lines (at most $max_lines; split it by responsibility)"
    status=1
  fi
done < <(find core tools plugins backends sdk tests bench scripts python \
           -path tests/conformance/snapshots -prune -o \
           -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.py' \
                      -o -name '*.cmake' -o -name '*.sh' \) -print0)
exit $status
