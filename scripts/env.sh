# Sourced by the scripts: the environment Go and Fyne need.
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
export LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8
export CGO_ENABLED=1
if ! go version 2>/dev/null | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])'; then
  export GOTOOLCHAIN=go1.26.8
fi
