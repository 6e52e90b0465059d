# Sourced by the scripts: the environment Go and Fyne need.
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
# A UTF-8 locale for the tools the scripts run (Fyne itself is quiet under any locale, C.UTF-8
# included: third_party/go-locale). LC_ALL is set only where the locale exists
# (scripts/setup.sh generates it), or every shell would warn.
export LANG=en_US.UTF-8
if locale -a 2>/dev/null | grep -qiE '^en_US\.utf-?8$'; then export LC_ALL=en_US.UTF-8; fi
export CGO_ENABLED=1
if ! go version 2>/dev/null | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])'; then
  export GOTOOLCHAIN=go1.26.8
fi
