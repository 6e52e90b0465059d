package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/hostexec"
)

// fakeTools answers toolchain commands from a table keyed by the command line; a command not
// in it is not installed.
type fakeTools map[string]string

func (f fakeTools) run(_ context.Context, path string, args ...string) ([]byte, error) {
	line := strings.Join(append([]string{filepath.Base(path)}, args...), " ")
	out, ok := f[line]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, exec.ErrNotFound)
	}
	if rest, failed := strings.CutPrefix(out, "FAIL:"); failed {
		return nil, errors.New(rest)
	}
	return []byte(out), nil
}

// lookPath finds the fake commands in /usr/bin.
func (f fakeTools) lookPath(name string) (string, error) {
	for line := range f {
		if strings.HasPrefix(line, name+" ") {
			return "/usr/bin/" + name, nil
		}
	}
	return "", exec.ErrNotFound
}

func testEnv(t *testing.T, tools fakeTools) toolEnv {
	t.Helper()
	root := t.TempDir()
	return toolEnv{
		run:      tools.run,
		lookPath: tools.lookPath,
		project:  filepath.Join(root, "project"),
		root:     root,
		cargoDir: filepath.Join(root, "home", ".cargo"),
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return slices.Compact(s) }

func checkHosts(t *testing.T, what string, got []string, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("%s = %q, want %q", what, sorted(got), sorted(want))
	}
}

const goEnvCmd = "go env -json GOPROXY GOSUMDB"

func TestGoRegistries(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, fakeTools{goEnvCmd: `{"GOPROXY": "https://goproxy.corp.example:8443/mod,proxy.golang.org|direct", "GOSUMDB": "sum.corp.example+033de0ae+Ac4zctda0e5eza https://sumdb.corp.example/sum"}`})
	got, err := goRegistries(ctx, env)
	checkHosts(t, "corporate proxy", got, err, "goproxy.corp.example:8443", "proxy.golang.org", "sumdb.corp.example")

	env = testEnv(t, fakeTools{goEnvCmd: `{"GOPROXY": "https://proxy.golang.org,direct", "GOSUMDB": "sum.golang.org"}`})
	got, err = goRegistries(ctx, env)
	checkHosts(t, "go's defaults", got, err, "proxy.golang.org", "sum.golang.org")

	env = testEnv(t, fakeTools{goEnvCmd: `{"GOPROXY": "off", "GOSUMDB": "off"}`})
	got, err = goRegistries(ctx, env)
	checkHosts(t, "off", got, err)

	env = testEnv(t, fakeTools{goEnvCmd: `{"GOPROXY": "direct", "GOSUMDB": "sum.golang.org+033de0ae"}`})
	got, err = goRegistries(ctx, env)
	checkHosts(t, "direct with a keyed sumdb", got, err, "sum.golang.org")

	got, err = goRegistries(ctx, testEnv(t, fakeTools{}))
	checkHosts(t, "go not installed", got, err)

	if _, err := goRegistries(ctx, testEnv(t, fakeTools{goEnvCmd: "FAIL:go: GOPROXY list is not the empty string"})); err == nil {
		t.Error("a failing go env is not reported")
	}
}

const npmCmd = "npm config list --json"

func TestNpmRegistries(t *testing.T) {
	env := testEnv(t, fakeTools{npmCmd: `{
		"registry": "https://npm.corp.example/api/npm/",
		"@corp:registry": "https://npm.corp.example:8443/",
		"@other:registry": "http://127.0.0.1:4873",
		"//npm.corp.example/:_authToken": "(protected)",
		"replace-registry-host": "npmjs",
		"fund": false,
		"cache": "/home/someone/.npm"
	}`})
	got, err := npmRegistries(context.Background(), env)
	checkHosts(t, "npm", got, err, "npm.corp.example", "npm.corp.example:8443", "127.0.0.1:4873")

	got, err = npmRegistries(context.Background(), testEnv(t, fakeTools{}))
	checkHosts(t, "npm not installed", got, err)
}

const (
	pipListCmd    = "python3 -I -m pip config list"
	pipDefaultCmd = "python3 -I -c from pip._internal.models.index import PyPI; print(PyPI.simple_url); print('https://' + PyPI.file_storage_domain)"
)

func TestPipRegistries(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, fakeTools{
		pipListCmd: "global.index-url='https://pypi.corp.example/simple'\n" +
			"install.extra-index-url='https://extra1.example/simple https://extra2.example:8080/simple'\n" +
			":env:.find-links='/opt/wheels'\nglobal.cert='/etc/ssl/certs/ca.crt'\n",
		pipDefaultCmd: "FAIL:the default must not be asked for when an index is set",
	})
	got, err := pipRegistries(ctx, env)
	checkHosts(t, "pip with an index", got, err, "pypi.corp.example", "extra1.example", "extra2.example:8080")

	env = testEnv(t, fakeTools{
		pipListCmd:    ":env:.extra-index-url='https://extra.example/simple'\n",
		pipDefaultCmd: "https://index.default.example/simple\nhttps://files.default.example\n",
	})
	got, err = pipRegistries(ctx, env)
	checkHosts(t, "pip's own default", got, err, "extra.example", "index.default.example", "files.default.example")

	env = testEnv(t, fakeTools{pipListCmd: "FAIL:/usr/bin/python3: No module named pip"})
	got, err = pipRegistries(ctx, env)
	checkHosts(t, "no pip", got, err)

	env = testEnv(t, fakeTools{pipListCmd: "", pipDefaultCmd: "FAIL:ModuleNotFoundError: No module named 'pip._internal.models'"})
	if _, err := pipRegistries(ctx, env); err == nil || !strings.Contains(err.Error(), "default index") {
		t.Errorf("a pip whose default cannot be read: %v", err)
	}
}

func TestAptRegistries(t *testing.T) {
	env := testEnv(t, nil)
	apt := filepath.Join(env.root, "etc", "apt")
	writeFile(t, filepath.Join(apt, "sources.list"), `# a comment
deb http://deb.debian.org/debian bookworm main
deb-src [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] https://mirror.corp.example:8443/debian bookworm main # trailing
deb [ trusted=yes ] mirror+http://mirrors.example/list.txt bookworm main
deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb file:/srv/repo ./
#deb http://commented.example/debian bookworm main
`)
	writeFile(t, filepath.Join(apt, "sources.list.d", "extra.list"), "deb https://download.docker.com/linux/debian bookworm stable\n")
	writeFile(t, filepath.Join(apt, "sources.list.d", "ignored.list.disabled"), "deb https://disabled.example/ x main\n")
	writeFile(t, filepath.Join(apt, "sources.list.d", "debian.sources"), `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb deb-src
URIs: https://a.example/debian
  https://b.example/debian
Suites: bookworm
Enabled: yes

Types: deb
URIs: https://off.example/debian
Enabled: no
Suites: bookworm
`)
	got, err := aptRegistries(context.Background(), env)
	checkHosts(t, "apt", got, err, "deb.debian.org", "mirror.corp.example:8443", "mirrors.example",
		"download.docker.com", "a.example", "b.example")

	got, err = aptRegistries(context.Background(), testEnv(t, nil))
	checkHosts(t, "no apt", got, err)
}

func TestCargoRegistries(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, nil)
	env.lookPath = func(string) (string, error) { return "/usr/bin/cargo", nil }
	got, err := cargoRegistries(ctx, env)
	checkHosts(t, "cargo's defaults", got, err, cargoDefaultRegistries...)

	writeFile(t, filepath.Join(env.cargoDir, "config.toml"), `
[registries.corp]
index = "sparse+https://cargo.corp.example/index/"
[registries.git-one]
index = "ssh://git@git.corp.example:2222/index.git"
`)
	got, err = cargoRegistries(ctx, env)
	checkHosts(t, "named registries", got, err, append([]string{"cargo.corp.example", "git.corp.example:2222"}, cargoDefaultRegistries...)...)

	// A project's own configuration is the agent's to write: it is never read.
	writeFile(t, filepath.Join(env.project, ".cargo", "config.toml"), `
[registries.x]
index = "sparse+http://evil.test/"
`)
	got, err = cargoRegistries(ctx, env)
	checkHosts(t, "a project's .cargo/config.toml", got, err, append([]string{"cargo.corp.example", "git.corp.example:2222"}, cargoDefaultRegistries...)...)

	// The person's configuration replaces crates.io: its defaults are not added.
	writeFile(t, filepath.Join(env.cargoDir, "config.toml"), `
[registries.corp]
index = "sparse+https://cargo.corp.example/index/"
[registries.git-one]
index = "ssh://git@git.corp.example:2222/index.git"
[source.crates-io]
replace-with = "mirror"
[source.mirror]
registry = "sparse+https://crates-mirror.example/"
[source.vendored]
directory = "vendor"
`)
	got, err = cargoRegistries(ctx, env)
	checkHosts(t, "replaced crates.io", got, err, "cargo.corp.example", "git.corp.example:2222", "crates-mirror.example")

	env = testEnv(t, nil)
	got, err = cargoRegistries(ctx, env)
	checkHosts(t, "no cargo", got, err)

	env = testEnv(t, nil)
	writeFile(t, filepath.Join(env.cargoDir, "config"), "[registries.x\nindex=")
	if _, err := cargoRegistries(ctx, env); err == nil {
		t.Error("a damaged config is not reported")
	}
}

func TestRegistryHostsJoinsReadersAndErrors(t *testing.T) {
	env := testEnv(t, fakeTools{
		goEnvCmd:   `{"GOPROXY": "https://proxy.golang.org,direct", "GOSUMDB": "sum.golang.org"}`,
		npmCmd:     "FAIL:npm ERR! broken",
		pipListCmd: "global.index-url='https://proxy.golang.org/pypi'\n",
	})
	got, err := registryHostsIn(context.Background(), env)
	if !slices.Equal(got, []string{"proxy.golang.org", "sum.golang.org"}) {
		t.Errorf("hosts = %q", got)
	}
	if err == nil || !strings.Contains(err.Error(), "npm") {
		t.Errorf("the npm failure is not reported: %v", err)
	}
}

// The real readers on this machine: whatever its toolchains say, what `go env` names is in the
// list, and every entry is one the rules accept.
func TestRegistryHostsOnThisMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go, npm and pip")
	}
	got, err := RegistryHosts(context.Background(), t.TempDir())
	if err != nil {
		t.Logf("not all registries could be read: %v", err)
	}
	for _, h := range got {
		if _, err := parsePattern(h); err != nil {
			t.Errorf("entry %q: %v", h, err)
		}
	}
	if _, lerr := exec.LookPath("go"); lerr == nil {
		out, err := exec.Command("go", "env", "GOPROXY").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
			if h, ok := urlEntry(e); ok && !slices.Contains(got, h) {
				t.Errorf("GOPROXY's %s is not among %q", h, got)
			}
		}
	}
	t.Logf("registries on this machine: %q", got)
}

// A Project-mode command writes its working tree, so everything there is the agent's: the
// switch must neither read the tree's configuration nor run anything from it. The tree is
// planted with what the package managers and Python would pick up from a working directory,
// an import path or PATH; the real readers run; no planted host may come back and no planted
// program may have run (each would leave a marker file outside the tree).
func TestRegistriesNeverReadOrRunTheProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go, npm and pip")
	}
	project := t.TempDir()
	markers := t.TempDir()
	ran := func(name string) string { return filepath.Join(markers, name) }
	script := func(name string) string {
		return fmt.Sprintf("#!/bin/sh\necho ran > %q\necho '{\"registry\": \"http://evil-npm-bin.test/\"}'\n", ran(name))
	}
	py := func(name string) string {
		return fmt.Sprintf("open(%q, 'w').write('ran')\nprint('global.index-url=\\'http://evil-pip-code.test/\\'')\n", ran(name))
	}
	writeFile(t, filepath.Join(project, ".npmrc"), "registry=http://evil-npmrc.test:8080/\n@x:registry=http://evil-scope.test/\n")
	writeFile(t, filepath.Join(project, "package.json"), `{"name": "x", "version": "1.0.0"}`)
	writeFile(t, filepath.Join(project, ".cargo", "config.toml"), "[registries.x]\nindex = \"sparse+http://evil-cargo.test/\"\n")
	writeFile(t, filepath.Join(project, "pip.conf"), "[global]\nindex-url = http://evil-pipconf.test/simple\n")
	writeFile(t, filepath.Join(project, "pip.py"), py("pip.py"))
	writeFile(t, filepath.Join(project, "pip", "__init__.py"), py("pip-package"))
	writeFile(t, filepath.Join(project, "sitecustomize.py"), py("sitecustomize.py"))
	writeFile(t, filepath.Join(project, "usercustomize.py"), py("usercustomize.py"))
	writeFile(t, filepath.Join(project, ".pythonrc"), py(".pythonrc"))
	check := func(t *testing.T) {
		got, err := RegistryHosts(context.Background(), project)
		t.Logf("hosts %q, errors: %v", got, err)
		for _, h := range got {
			if strings.Contains(h, "evil") {
				t.Errorf("a host planted in the project was allowed: %s", h)
			}
		}
		entries, _ := os.ReadDir(markers)
		for _, e := range entries {
			t.Errorf("the project's %s ran outside the sandbox", e.Name())
		}
	}
	// The app started from the project's folder, with Python told to read its start-up file.
	t.Run("working directory", func(t *testing.T) {
		t.Chdir(project)
		t.Setenv("PYTHONSTARTUP", filepath.Join(project, ".pythonrc"))
		check(t)
	})
	// The tree's tool folder ahead on PATH, as direnv or PATH=./node_modules/.bin:$PATH leave
	// it when the app is started from the project: those programs are passed over, by name.
	t.Run("PATH", func(t *testing.T) {
		for _, name := range []string{"npm", "go", "python3", "cargo"} {
			p := filepath.Join(project, "node_modules", ".bin", name)
			writeFile(t, p, script(name))
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("PATH", filepath.Join(project, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		check(t)
		_, err := RegistryHosts(context.Background(), project)
		for _, name := range []string{"npm", "go", "python3"} {
			if err == nil || !strings.Contains(err.Error(), "the "+name+" found on PATH") || !errors.Is(err, hostexec.ErrInTree) {
				t.Errorf("the error does not name the project's %s: %v", name, err)
			}
		}
	})
}

// The words of the switch name the person's configuration only, and every reader has them.
func TestRegistrySourcesNameEveryReader(t *testing.T) {
	src := RegistrySources()
	if len(src) != len(registryReaders) {
		t.Fatalf("%d sources for %d readers", len(src), len(registryReaders))
	}
	for i, s := range src {
		if !strings.HasPrefix(s, registryReaders[i].name+": ") || strings.Contains(strings.ToLower(s), "project's") {
			t.Errorf("source line %q", s)
		}
	}
}
