package transcript

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

func TestPlaceNamesTheHostOfARemoteProject(t *testing.T) {
	if got := Place(domain.Conversation{Cwd: "/home/me/p"}); got != "/home/me/p" {
		t.Errorf("local: %q", got)
	}
	if got := Place(domain.Conversation{Cwd: "/srv/p", Host: "me@box"}); got != "me@box:/srv/p" {
		t.Errorf("remote: %q", got)
	}
}
