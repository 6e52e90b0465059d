#!/usr/bin/env bash
# Builds the Linux packages in dist/:
#   - phoenix-desktop_VERSION_ARCH.deb (scripts/package-deb.sh, with nfpm); install it with
#       sudo apt install ./dist/phoenix-desktop_*.deb
#   - "Phoenix Desktop.tar.xz", a bundle made by the fyne packaging tool: the binary and the
#     remote agent beside it, a .desktop entry and the icon named in FyneApp.toml. Install it with
#       tar -xJf "dist/Phoenix Desktop.tar.xz" && sudo make -C phoenix-desktop install
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/env.sh
command -v fyne >/dev/null 2>&1 || go install fyne.io/fyne/v2/cmd/fyne@v2.7.1
go build -trimpath -o bin/phoenix-desktop ./cmd/phoenix-desktop
# The remote agent built alone (static, CGO_ENABLED=0): the app copies it from beside itself to
# a remote project's machine, which needs no desktop library for it. The bundle carries it.
CGO_ENABLED=0 go build -trimpath -o bin/phoenix-remote-agent ./cmd/phoenix-remote-agent
mkdir -p dist
version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
fyne package --os linux --exe bin/phoenix-desktop --name "Phoenix Desktop" \
  --icon assets/icon.png --appID dev.phoenixdesktop.app --appVersion "$version" --release
# The fyne tool bundles one program: the remote agent joins it beside the app, and each line of
# the bundle's Makefile that installs or removes bin/$(Exec) gets its twin for the agent.
bundle=$(mktemp -d)
tar -xJf "Phoenix Desktop.tar.xz" -C "$bundle"
top=$(ls "$bundle")
appbin=usr/bin
if [ -d "$bundle/$top/usr/local/bin" ]; then appbin=usr/local/bin; fi
install -m 0755 bin/phoenix-remote-agent "$bundle/$top/$appbin/phoenix-remote-agent"
awk '{ print } /bin\/\$\(Exec\)/ && !/sed/ { line = $0; gsub(/\$\(Exec\)/, "phoenix-remote-agent", line); print line }' \
  "$bundle/$top/Makefile" >"$bundle/Makefile" && mv "$bundle/Makefile" "$bundle/$top/Makefile"
tar -cJf "Phoenix Desktop.tar.xz" -C "$bundle" "$top"
rm -rf "$bundle"
mv "Phoenix Desktop.tar.xz" dist/
echo "dist/Phoenix Desktop.tar.xz"
bash scripts/package-deb.sh
