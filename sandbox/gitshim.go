//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The words half of the rule that no repository is made in the tree (gitwall.go): the first
// git on a Project command's PATH is gitShim, which refuses what would make one, saying why,
// and runs the real git for everything else. It lies in the command's temp dir, which the
// command may change: it is a courtesy to a command that means well, not a wall.

// gitShimDir is the directory in a temp dir that holds the shim.
const gitShimDir = ".phoenix-bin"

// gitShim is the script; %TREE% is replaced by the tree, shell-quoted. It reads git's own
// options only as far as needed to find where a repository would go: -C, and the target of
// init, clone and worktree add (the options of theirs that take a separate value are
// skipped). Any submodule checkout (add, update) in the tree is refused: it makes a
// repository below the work tree by definition.
const gitShim = `#!/bin/bash
# Phoenix Desktop, Project mode: git, except that what would make a git repository inside the
# project is refused. The sandbox removes any repository a command makes there anyway.
tree=%TREE%
shim_dir=$(cd -- "${BASH_SOURCE[0]%/*}" && pwd -P)
IFS=: read -r -a parts <<<"$PATH"
PATH=
for p in "${parts[@]}"; do
	[ "$p" = "$shim_dir" ] || PATH=${PATH:+$PATH:}$p
done
export PATH
refuse() {
	echo "git $1: refused: $2 is inside the project, and Project mode does not let a command make a git repository there (its hooks and configuration would run programs the next time the person uses git in it; a repository made anyway is removed when the command ends). Make it under \$TMPDIR, or ask the person to run this in Unrestricted mode." >&2
	exit 128
}
inside() {
	local p
	p=$(realpath -m -- "$1" 2>/dev/null) || return 1
	[ "$p" = "$tree" ] || [[ "$p" == "$tree"/* ]]
}
at() {
	case "$1" in
	/*) printf '%s' "$1" ;;
	*) printf '%s/%s' "$dir" "$1" ;;
	esac
}
args=("$@")
n=${#args[@]}
dir=$PWD
i=0
while [ "$i" -lt "$n" ]; do
	case "${args[i]}" in
	-C) i=$((i + 1)); dir=$(at "${args[i]}") ;;
	-c | --git-dir | --work-tree | --namespace | --super-prefix | --config-env | --list-cmds) i=$((i + 1)) ;;
	-*) ;;
	*) break ;;
	esac
	i=$((i + 1))
done
cmd=${args[i]}
i=$((i + 1))
# target NAMES_OF_VALUE_OPTIONS: the first operand after the subcommand, or nothing.
target() {
	local j=$i skip=" $1 "
	while [ "$j" -lt "$n" ]; do
		case "${args[j]}" in
		--) j=$((j + 1)); break ;;
		--*=*) ;;
		-*) [[ "$skip" == *" ${args[j]} "* ]] && j=$((j + 1)) ;;
		*) break ;;
		esac
		j=$((j + 1))
	done
	operands=("${args[@]:j}")
}
case "$cmd" in
init)
	target "-b --initial-branch --template --separate-git-dir --object-format --ref-format"
	t=$dir
	[ "${#operands[@]}" -gt 0 ] && t=$(at "${operands[0]}")
	inside "$t" && refuse init "$t"
	;;
clone)
	target "-o --origin -b --branch -u --upload-pack --reference --reference-if-able --separate-git-dir --depth --shallow-since --shallow-exclude -c --config --server-option --filter -j --jobs --template --bundle-uri --ref-format --revision"
	t=$dir/$(basename -- "${operands[0]%/}" .git)
	[ "${#operands[@]}" -gt 1 ] && t=$(at "${operands[1]}")
	inside "$t" && refuse clone "$t"
	;;
worktree)
	if [ "${args[i]}" = add ]; then
		i=$((i + 1))
		target "-b -B --reason"
		t=$dir
		[ "${#operands[@]}" -gt 0 ] && t=$(at "${operands[0]}")
		inside "$t" && refuse "worktree add" "$t"
	fi
	;;
submodule)
	for a in "${args[@]:i}"; do
		case "$a" in
		-*) continue ;;
		add | update) inside "$dir" && refuse "submodule $a" "the submodule's checkout" ;;
		esac
		break
	done
	;;
esac
exec git "$@"
`

// withGitShim writes the shim for tree into tempDir and puts it first on env's PATH. A shim
// that cannot be written is left out: the command runs with the real git, and the wall still
// removes what it makes.
func withGitShim(env []string, tempDir, tree string) []string {
	dir := filepath.Join(tempDir, gitShimDir)
	if !shimInPlace.holds(dir, tree) {
		script := []byte(strings.Replace(gitShim, "%TREE%", shellQuote(tree), 1))
		p := filepath.Join(dir, "git")
		if old, err := os.ReadFile(p); err != nil || !bytes.Equal(old, script) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return env
			}
			_ = os.Remove(p)
			if err := os.WriteFile(p, script, 0o700); err != nil {
				return env
			}
		}
		shimInPlace.note(dir, tree)
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return withVars(env, map[string]string{"PATH": dir + ":" + path})
}

// shimInPlace remembers the shim the supervisor last wrote or read back whole, by the
// identity of its file, so that the next command of the same conversation and tree looks
// at it with one stat instead of rendering the script and reading the file to compare
// (most of what the shim cost a Project command's start). Any change a command makes to the
// file — written, truncated, renamed over, removed, its mode changed — moves its change
// time or replaces its inode, and the next command writes it again. The shim is a courtesy
// (see above), not a wall, so a change within one tick of the file system's clock that
// kept the size would at worst leave a command's own edit in place for its next command.
var shimInPlace shimRecord

type shimRecord struct {
	mu        sync.Mutex
	dir, tree string
	stamp     shimStamp
}

type shimStamp struct {
	dev, ino, size uint64
	mode           uint32
	ctime          unix.StatxTimestamp
}

func shimStampOf(p string) (shimStamp, bool) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_SIZE|unix.STATX_MODE|unix.STATX_CTIME, &st); err != nil {
		return shimStamp{}, false
	}
	return shimStamp{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino, size: st.Size, mode: uint32(st.Mode), ctime: st.Ctime}, true
}

// holds reports whether the shim in dir is the one for tree that was last written or read.
func (r *shimRecord) holds(dir, tree string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dir != dir || r.tree != tree {
		return false
	}
	now, ok := shimStampOf(filepath.Join(dir, "git"))
	return ok && now == r.stamp
}

// note records the shim in dir, for tree, as it is now.
func (r *shimRecord) note(dir, tree string) {
	stamp, ok := shimStampOf(filepath.Join(dir, "git"))
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.dir, r.tree = "", ""
		return
	}
	r.dir, r.tree, r.stamp = dir, tree, stamp
}

// shellQuote quotes s as one word for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
