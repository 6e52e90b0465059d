#!/usr/bin/env bash
# Recopies the chroma definitions that ui/markdown/syntax embeds (its code languages and
# its two code styles, with chroma's licence) from the chroma module that go.mod names, so
# that they match the engine again after chroma is upgraded. TestCopiesMatchTheModule in
# ui/markdown/syntax fails until this has run.
#
#   scripts/update-syntax.sh                 recopy every file under ui/markdown/syntax/chroma
#   scripts/update-syntax.sh lexers/embedded/dart.xml ...
#                                            also copy these files of the module (a language more)
#
# The Go and Markdown lexers are Go code in chroma, copied by hand into lexer_go.go and
# lexer_markdown.go: the test compares their functions with the module's and says what to
# port; this script does not touch them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

mod=$(go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)
if [[ -z "$mod" || ! -d "$mod" ]]; then
  go mod download github.com/alecthomas/chroma/v2
  mod=$(go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)
fi
dst=ui/markdown/syntax/chroma

for rel in "$@"; do
  if [[ ! -f "$mod/$rel" ]]; then
    echo "update-syntax: the chroma module ($mod) has no $rel; name a file such as lexers/embedded/dart.xml" >&2
    exit 1
  fi
  mkdir -p "$dst/$(dirname "$rel")"
  cp "$mod/$rel" "$dst/$rel"
done

gone=0
while IFS= read -r -d '' f; do
  rel=${f#"$dst/"}
  if [[ -f "$mod/$rel" ]]; then
    cp "$mod/$rel" "$f"
  else
    echo "update-syntax: chroma no longer has $rel: remove $f (and its language from the tests) or find where it went" >&2
    gone=1
  fi
done < <(find "$dst" -type f -print0)
# The module cache is read-only; the copies are ordinary files of the repository.
chmod -R u+w,a+r "$dst"

echo "update-syntax: copied $(find "$dst" -type f | wc -l) files from $mod"
echo "update-syntax: now run: go test ./ui/markdown/... (the golden runs say whether the colours changed)"
exit $gone
