package remotetest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Gopls puts a copy of this machine's gopls where the test user can run it (the app side's
// is in root's home) and returns its path and the environment it needs there (go on PATH,
// no toolchain download): a language server's command and env for the remote side. It skips
// where gopls is not installed, and fails in CI, which installs it (scripts/setup.sh).
func (s *Server) Gopls(t testing.TB) (string, map[string]string) {
	t.Helper()
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("gopls is not installed; scripts/setup.sh installs it")
		}
		t.Skip("gopls is not installed; bash scripts/setup.sh installs it")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	dir, err := os.MkdirTemp(s.Home, "bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copyFile(t, gopls, filepath.Join(dir, "gopls"), 0o755)
	for _, p := range []string{dir, filepath.Join(dir, "gopls")} {
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "gopls"), map[string]string{"PATH": filepath.Dir(goBin) + ":/usr/bin:/bin", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
}

// GoProject makes a fresh project folder in the remote user's home holding a small Go
// module of that user's, for gopls to serve: main.go declares n on line 6 ("\tvar n int = 1")
// and uses it on line 7 ("\tfmt.Println(n)", n at column 14).
func (s *Server) GoProject(t testing.TB) string {
	t.Helper()
	proj := s.ProjectDir(t)
	for name, text := range map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = 1\n\tfmt.Println(n)\n}\n",
	} {
		p := filepath.Join(proj, name)
		WriteFile(t, p, text)
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	return proj
}

func copyFile(t testing.TB, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
