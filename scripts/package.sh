#!/usr/bin/env bash
# Builds the Linux packages in dist/:
#   - phoenix-desktop_VERSION_ARCH.deb (scripts/package-deb.sh, with nfpm); install it with
#       sudo apt install ./dist/phoenix-desktop_*.deb
#   - "Phoenix Desktop.tar.xz", a bundle made by the fyne packaging tool: the binary, a
#     .desktop entry and the icon named in FyneApp.toml. Install it with
#       tar -xJf "dist/Phoenix Desktop.tar.xz" && sudo make -C phoenix-desktop install
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/env.sh
command -v fyne >/dev/null 2>&1 || go install fyne.io/fyne/v2/cmd/fyne@v2.7.1
go build -trimpath -o bin/phoenix-desktop ./cmd/phoenix-desktop
mkdir -p dist
version=$(sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
fyne package --os linux --exe bin/phoenix-desktop --name "Phoenix Desktop" \
  --icon assets/icon.png --appID dev.phoenixdesktop.app --appVersion "$version" --release
mv "Phoenix Desktop.tar.xz" dist/
echo "dist/Phoenix Desktop.tar.xz"
bash scripts/package-deb.sh
