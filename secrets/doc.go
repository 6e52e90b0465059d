// Package secrets keeps the API key (and any other secret the app needs) out of plain
// configuration files: in the desktop's Secret Service (GNOME Keyring, KWallet, KeePassXC…)
// through github.com/zalando/go-keyring, and where no Secret Service answers — a bare window
// manager, a headless box, a container — in a file only the person can read (0600, in a 0700
// directory), which Where names so that Settings can say so.
//
// The package never logs a secret, never puts one in an error, and never writes one anywhere
// but the store it reports. It imports nothing of ours; the ui package reaches it only
// through the small interface it defines (ui.KeyStore), wired in cmd/phoenix-desktop.
package secrets
