package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testProject = "/home/someone/src/app"

func loadTestRules(t *testing.T) (*Rules, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "allowed-hosts.json")
	r, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	r.registryHosts = func(context.Context, string) ([]string, error) {
		return nil, errors.New("the test did not expect the registries to be read")
	}
	return r, path
}

func TestRulesEmptyListAllowsNothing(t *testing.T) {
	r, _ := loadTestRules(t)
	for _, h := range []string{"example.org", "localhost", "127.0.0.1", "::1"} {
		if r.Allowed(testProject, h, 443) {
			t.Errorf("an empty list allows %s", h)
		}
	}
	if err := r.Allow(testProject, "example.org"); err != nil {
		t.Fatal(err)
	}
	if r.Allowed("/home/someone/src/other", "example.org", 443) {
		t.Error("one project's entry allows another project's connection")
	}
	if r.Allowed("relative/path", "example.org", 443) {
		t.Error("a relative project path is allowed anything")
	}
}

func TestRulesPersistAtomicallyAndPrivately(t *testing.T) {
	r, path := loadTestRules(t)
	for _, e := range []string{"Example.org.", "*.npmjs.org:443", "0x7f000001:4873", "example.org"} {
		if err := r.Allow(testProject+"/", e); err != nil {
			t.Fatalf("Allow(%q): %v", e, err)
		}
	}
	if err := r.SetRegistries(testProject, true); err != nil {
		t.Fatal(err)
	}
	want := []string{"example.org", "*.npmjs.org:443", "127.0.0.1:4873"}
	if got := r.List(testProject); !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the rules file has mode %o, want 600", st.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".allowed-hosts-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %q", leftovers)
	}

	again, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.List(testProject); !slices.Equal(got, want) {
		t.Errorf("after reloading, List = %q, want %q", got, want)
	}
	if !again.Registries(testProject) {
		t.Error("the registries switch was not saved")
	}
	if err := again.Remove(testProject, "EXAMPLE.ORG"); err != nil {
		t.Fatal(err)
	}
	if got := again.List(testProject); !slices.Equal(got, want[1:]) {
		t.Errorf("after Remove, List = %q, want %q", got, want[1:])
	}
}

func TestRulesRefuseBadEntries(t *testing.T) {
	r, path := loadTestRules(t)
	if err := r.Allow(testProject, "*"); err == nil {
		t.Error("Allow(*) succeeded")
	}
	if err := r.Allow("relative", "example.org"); err == nil {
		t.Error("Allow for a relative project path succeeded")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused entry wrote the file: %v", err)
	}
}

// A change made by hand while the app runs is kept when the app saves its own change.
func TestRulesKeepHandEdits(t *testing.T) {
	r, path := loadTestRules(t)
	if err := r.Allow(testProject, "a.example"); err != nil {
		t.Fatal(err)
	}
	other, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Allow(testProject, "b.example"); err != nil {
		t.Fatal(err)
	}
	if err := r.Allow(testProject, "c.example"); err != nil {
		t.Fatal(err)
	}
	if got, want := r.List(testProject), []string{"a.example", "b.example", "c.example"}; !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}

func TestRulesCorruptFileIsAnErrorAndStaysAsItIs(t *testing.T) {
	cases := map[string]string{
		"not JSON":      `{"version": 1, "projects": {`,
		"two values":    `{"version": 1} {}`,
		"bad entry":     `{"version": 1, "projects": {"/p": {"hosts": ["**.example.org"]}}}`,
		"relative":      `{"version": 1, "projects": {"p": {"hosts": ["example.org"]}}}`,
		"no version":    `{"projects": {}}`,
		"newer version": `{"version": 99, "projects": {}}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "allowed-hosts.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadRules(path)
			if err == nil {
				t.Fatal("LoadRules succeeded")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move") {
				t.Errorf("the error does not name the file and what to do: %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("the file changed to %q", got)
			}
		})
	}
}

// A file damaged after it was loaded is not overwritten by the next change either.
func TestRulesDamagedAfterLoadIsNotOverwritten(t *testing.T) {
	r, path := loadTestRules(t)
	if err := r.Allow(testProject, "a.example"); err != nil {
		t.Fatal(err)
	}
	damaged := []byte(`{"version": 1, "projects": {"/p": {"hosts": ["a.example"`)
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.Allow(testProject, "b.example"); err == nil {
		t.Fatal("Allow over a damaged file succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != string(damaged) {
		t.Errorf("the damaged file was overwritten with %q", got)
	}
	if got := r.List(testProject); !slices.Equal(got, []string{"a.example"}) {
		t.Errorf("List after the failed change = %q", got)
	}
}

func TestRulesSaveFailureChangesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "allowed-hosts.json")
	r, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Allow(testProject, "a.example"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if os.Getuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	if err := r.Allow(testProject, "b.example"); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Allow in a read-only directory: %v", err)
	}
	if r.Allowed(testProject, "b.example", 443) {
		t.Error("an entry that could not be saved is allowed")
	}
}

func TestRulesConcurrentChanges(t *testing.T) {
	r, path := loadTestRules(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := r.Allow(testProject, fmt.Sprintf("h%d.example", i)); err != nil {
				t.Error(err)
			}
			_ = r.Allowed(testProject, "h0.example", 443)
			_ = r.List(testProject)
		})
	}
	wg.Wait()
	again, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.List(testProject)); n != 20 {
		t.Errorf("%d entries saved, want 20", n)
	}
}

func TestRulesRegistriesSwitch(t *testing.T) {
	r, _ := loadTestRules(t)
	var reads atomic.Int32
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	r.now = func() time.Time { return time.Unix(0, now.Load()) }
	hosts := []string{"proxy.golang.org", "npm.corp.example:8443"}
	r.registryHosts = func(_ context.Context, project string) ([]string, error) {
		reads.Add(1)
		if project != testProject {
			t.Errorf("registries read for %q", project)
		}
		return hosts, nil
	}
	if r.Allowed(testProject, "proxy.golang.org", 443) {
		t.Error("a registry is allowed while the switch is off")
	}
	if reads.Load() != 0 {
		t.Error("the registries were read while the switch is off")
	}
	if err := r.SetRegistries(testProject, true); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if !r.Allowed(testProject, "proxy.golang.org", 443) || !r.Allowed(testProject, "npm.corp.example", 8443) {
			t.Error("a registry is not allowed while the switch is on")
		}
		if r.Allowed(testProject, "npm.corp.example", 443) {
			t.Error("a registry's port is not kept")
		}
	}
	if reads.Load() != 1 {
		t.Errorf("the registries were read %d times within a minute, want once", reads.Load())
	}
	hosts = []string{"goproxy.corp.example"}
	now.Add(int64(registryTTL))
	if r.Allowed(testProject, "proxy.golang.org", 443) || !r.Allowed(testProject, "goproxy.corp.example", 443) {
		t.Error("a changed registry setting is not honoured after a minute")
	}
	if got, err := r.RegistryEntries(testProject); err != nil || !slices.Equal(got, []string{"goproxy.corp.example"}) {
		t.Errorf("RegistryEntries = %q, %v", got, err)
	}
	if err := r.SetRegistries(testProject, false); err != nil {
		t.Fatal(err)
	}
	if r.Allowed(testProject, "goproxy.corp.example", 443) {
		t.Error("a registry is allowed after the switch was turned off")
	}
}

func TestRulesListTheirProjects(t *testing.T) {
	r, path := loadTestRules(t)
	if got := r.Projects(); len(got) != 0 {
		t.Fatalf("an empty file lists %q", got)
	}
	for _, step := range []func() error{
		func() error { return r.Allow("/b/app", "example.org") },
		func() error { return r.SetRegistries("/a/app/", true) },
		func() error { return r.Allow("/c/app", "example.org") },
		func() error { return r.Remove("/c/app", "example.org") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"/a/app", "/b/app"}
	if got := r.Projects(); !slices.Equal(got, want) {
		t.Fatalf("Projects = %q, want %q (a project left with nothing is not listed)", got, want)
	}
	again, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Projects(); !slices.Equal(got, want) {
		t.Fatalf("after a reload Projects = %q", got)
	}
}
