#!/usr/bin/env bash
# Builds dist/phoenix-desktop_VERSION_ARCH.deb with nfpm (packaging/nfpm.yaml): the binary,
# its desktop entry and icon, the libraries it needs as Depends and what the sandbox and the
# tools use as Recommends. The version comes from FyneApp.toml; the binary carries the git
# revision it was built from (phoenix-desktop --version). Prints the path of the package.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
# v2.44.0: from v2.46 on, nfpm needs modules under go.digitalxero.dev that the Go module proxy
# does not serve (403).
NFPM_VERSION=v2.44.0
if ! { command -v nfpm >/dev/null 2>&1 && go version -m "$(command -v nfpm)" | grep -q "nfpm/v2[[:space:]]*$NFPM_VERSION"; }; then
  go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION" >&2
fi
version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
[ -n "$version" ] || { echo "package-deb: no Version in FyneApp.toml" >&2; exit 1; }
mkdir -p bin dist
# Not -trimpath: it would rebuild every package (Fyne's cgo GL takes minutes) instead of
# reusing the build the tests and the smoke test just made.
# The toolchain stamps the git revision into the build info in a plain clone; the linked
# values stand in where it cannot (a git worktree, GOFLAGS=-buildvcs=false).
rev=$(git rev-parse HEAD 2>/dev/null || true)
modified=false
if [ -n "$rev" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then modified=true; fi
go build -ldflags "-s -w -X main.linkedRevision=$rev -X main.linkedModified=$modified" \
  -o bin/phoenix-desktop ./cmd/phoenix-desktop >&2
# The remote agent built alone and static: /usr/lib/phoenix-desktop/phoenix-remote-agent, which
# the app copies to a remote project's machine (that machine needs no desktop library).
CGO_ENABLED=0 go build -ldflags "-s -w" -o bin/phoenix-remote-agent ./cmd/phoenix-remote-agent >&2
export PHOENIX_VERSION="$version" PHOENIX_ARCH="$(go env GOARCH)"
deb="dist/phoenix-desktop_${version}_${PHOENIX_ARCH}.deb"
rm -f "$deb"
nfpm package --config packaging/nfpm.yaml --packager deb --target "$deb" >&2
echo "$deb"
