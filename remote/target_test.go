package remote

import "testing"

func TestParseLocation(t *testing.T) {
	for _, c := range []struct {
		in       string
		ok, fail bool
		dest     string
		path     string
	}{
		{in: "me@box:/srv/p", ok: true, dest: "me@box", path: "/srv/p"},
		{in: "devbox:/home/me/work", ok: true, dest: "devbox", path: "/home/me/work"},
		{in: " me@box:/srv/p ", ok: true, dest: "me@box", path: "/srv/p"},
		{in: "/home/me/p"},
		{in: "./p"},
		{in: "~/p"},
		{in: "p"},
		{in: "dir/with:colon"},
		{in: "me@box:rel", ok: true, fail: true},
		{in: "-oProxyCommand=x:/p", ok: true, fail: true},
		{in: "me@bo x:/p", ok: true, fail: true},
		{in: ":/p", ok: true, fail: true},
	} {
		loc, ok, err := ParseLocation(c.in)
		if ok != c.ok || (err != nil) != c.fail {
			t.Errorf("%q: ok %v err %v", c.in, ok, err)
			continue
		}
		if c.ok && !c.fail && (loc.Destination != c.dest || loc.Path != c.path || loc.String() != c.dest+":"+c.path) {
			t.Errorf("%q: %+v", c.in, loc)
		}
	}
}
