package persistence

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A conversation in Project mode (a new value of the existing "mode" field, issue 24) is
// stored and read back as Project, in its record and in the summary the sidebar lists, after
// reopening the directory; no migration is involved (doc.go says why).
func TestProjectModeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{})
	c := newConv(t, s, "p", func(p *domain.NewConversationParams) { p.Mode = domain.ModeProject })
	if c.Mode != domain.ModeProject {
		t.Fatalf("created in %s; want project", c.Mode)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir, Options{})
	t.Cleanup(func() { _ = s.Close() })
	got, err := s.Get("p")
	if err != nil || got.Mode != domain.ModeProject {
		t.Fatalf("Get = %s, %v; want project", got.Mode, err)
	}
	list, err := s.List(false)
	if err != nil || len(list) != 1 || list[0].Mode != domain.ModeProject {
		t.Fatalf("List = %+v, %v; want one summary in project mode", list, err)
	}
}
