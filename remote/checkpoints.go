package remote

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"os"
	"path/filepath"
	"sync"

	"github.com/phoenix-desktop/phoenix/checkpoint"
)

// Checkpoints of a remote conversation: the shadow repository (package checkpoint) lives on
// the remote machine, beside the project it snapshots, and the agent runs the same checkpoint
// code there as the app runs for a local project. The app keeps what it keeps for a local
// conversation — each checkpoint's snapshot ids and the files it changed — and asks the agent
// for every snapshot, comparison, diff and restore; the contents of remote files cross the
// wire only as the diffs the person is shown (and the one file of a hunk revert).
//
// Every request names its conversation and folder, so the agent opens the repository on first
// use and a new agent after a reconnection carries on with the same repository on disk: the
// app side holds no state of it.

// checkpointService is the name of the agent's net/rpc service for checkpoints.
const checkpointService = "Checkpoints"

// The operations of CheckpointArgs.Op.
const (
	opSnapshot    = "snapshot"
	opChanges     = "changes"
	opDiff        = "diff"
	opCompose     = "compose"
	opRestore     = "restore"
	opDiffTrees   = "difftrees"
	opReadFile    = "readfile"
	opWithFile    = "withfile"
	opProjectHead = "projecthead"
	opRemove      = "remove"
)

// CheckpointArgs is one operation on a conversation's shadow repository on the remote side.
type CheckpointArgs struct {
	Conversation string
	// Cwd is the conversation's working directory there: the repository's work tree.
	Cwd string
	Op  string
	// The operation's arguments, named as checkpoint.Repo's methods name them.
	From, To, Expect, Tree, Base, Path, Objects string
	Paths                                       []string
	Overlays                                    []checkpoint.Overlay
	File                                        checkpoint.File
}

// CheckpointReply is an operation's answer. A failure is in Err (net/rpc drops the reply of a
// call that fails), with Sentinel naming the checkpoint package's error it wraps, if any.
type CheckpointReply struct {
	Tree    string
	Objects string
	Changes []checkpoint.Change
	Text    string
	File    checkpoint.File

	Err      string
	Sentinel string
}

// sentinels are the checkpoint package's errors the app tells apart (a restore whose files
// moved, a repository closed by a delete, …): they cross the wire by name.
var sentinels = map[string]error{
	"moved":       checkpoint.ErrMoved,
	"closed":      checkpoint.ErrClosed,
	"too-large":   checkpoint.ErrTooLarge,
	"not-git":     checkpoint.ErrNotGit,
	"unavailable": checkpoint.ErrUnavailable,
}

// remoteError is an error the agent's checkpoint code returned, with the sentinel it wraps.
type remoteError struct {
	dest, text string
	sentinel   error
}

func (e *remoteError) Error() string { return "on " + e.dest + ": " + e.text }
func (e *remoteError) Unwrap() error { return e.sentinel }

// checkpointAgent is the agent's side: one open repository per conversation.
type checkpointAgent struct {
	a *agent

	mu    sync.Mutex
	repos map[string]*checkpoint.Repo
}

// convIDOK reports whether a conversation id may name a folder on the remote side: a letter
// or digit, then at most 127 letters, digits, '.', '_' or '-'. Checked by hand, not by the
// regular expression it stands for: compiling that one's counted repetition ({0,127}) cost
// every start of the app, headless or not, 2,100 allocations and half a millisecond of
// package initialisation (issue 39).
func convIDOK(id string) bool {
	if id == "" || len(id) > 128 || !asciiAlnum(id[0]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !asciiAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// checkpointRoot is the remote user's folder of shadow repositories, one folder per
// conversation: data that must outlive the agent's process and a reconnection.
func checkpointRoot() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "phoenix-desktop", "remote-checkpoints"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the remote user has no home folder for checkpoints: %w", err)
	}
	return filepath.Join(home, ".local", "share", "phoenix-desktop", "remote-checkpoints"), nil
}

// repo opens, on first use, the conversation's repository for the folder cwd.
func (c *checkpointAgent) repo(ctx context.Context, conv, cwd string) (*checkpoint.Repo, error) {
	if !convIDOK(conv) {
		return nil, fmt.Errorf("the conversation id %q cannot name a checkpoint folder", conv)
	}
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("the project folder %q is not an absolute path", cwd)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.repos[conv]; ok && r.WorkTree() == cwd {
		return r, nil
	} else if ok {
		r.Close()
		delete(c.repos, conv)
	}
	root, err := checkpointRoot()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(root, conv), 0o700); err != nil {
		return nil, fmt.Errorf("could not make the checkpoint folder on the remote machine: %w", err)
	}
	r, err := checkpoint.Open(ctx, filepath.Join(root, conv, "shadow.git"), cwd, checkpoint.WithExcluded(root))
	if err != nil {
		return nil, err
	}
	// The change detector answers a snapshot of an unchanged tree without git, as for a
	// local conversation; it lives as long as this agent (one connection).
	r.SetWatching(true)
	if c.repos == nil {
		c.repos = map[string]*checkpoint.Repo{}
	}
	c.repos[conv] = r
	return r, nil
}

// remove closes the conversation's repository and deletes its folder (the conversation was
// deleted).
func (c *checkpointAgent) remove(conv string) error {
	if !convIDOK(conv) {
		return fmt.Errorf("the conversation id %q cannot name a checkpoint folder", conv)
	}
	c.mu.Lock()
	if r, ok := c.repos[conv]; ok {
		r.Close()
		delete(c.repos, conv)
	}
	c.mu.Unlock()
	root, err := checkpointRoot()
	if err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(root, conv))
}

// closeAll stops every repository's change detector (the agent is ending).
func (c *checkpointAgent) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, r := range c.repos {
		r.Close()
		delete(c.repos, id)
	}
}

// Checkpoints is the agent's net/rpc service for checkpoints.
type Checkpoints struct{ c *checkpointAgent }

// Do runs one operation on a conversation's repository.
func (s *Checkpoints) Do(args CheckpointArgs, reply *CheckpointReply) error {
	ctx := s.c.a.ctx
	err := s.do(ctx, args, reply)
	if err != nil {
		reply.Err = err.Error()
		for name, sentinel := range sentinels {
			if errors.Is(err, sentinel) {
				reply.Sentinel = name
			}
		}
	}
	return nil
}

func (s *Checkpoints) do(ctx context.Context, args CheckpointArgs, reply *CheckpointReply) error {
	if args.Op == opRemove {
		return s.c.remove(args.Conversation)
	}
	if args.Op == opProjectHead {
		var err error
		reply.Tree, reply.Objects, err = checkpoint.ProjectHead(ctx, args.Cwd)
		return err
	}
	r, err := s.c.repo(ctx, args.Conversation, args.Cwd)
	if err != nil {
		return err
	}
	switch args.Op {
	case opSnapshot:
		reply.Tree, err = r.Snapshot(ctx)
	case opChanges:
		reply.Changes, err = r.Changes(ctx, args.From, args.To)
	case opDiff:
		reply.Text, err = r.Diff(ctx, args.From, args.To, args.Paths)
	case opCompose:
		reply.Tree, err = r.Compose(ctx, args.Base, args.Overlays)
	case opRestore:
		reply.Tree, err = r.Restore(ctx, args.Expect, args.Tree, args.Paths)
	case opDiffTrees:
		reply.Text, err = r.DiffTrees(ctx, args.Objects, args.From, args.To)
	case opReadFile:
		reply.File, err = r.ReadFile(ctx, args.Objects, args.Tree, args.Path)
	case opWithFile:
		reply.Tree, err = r.WithFile(ctx, args.Base, args.Path, args.File)
	default:
		err = fmt.Errorf("the remote agent knows no checkpoint operation %q", args.Op)
	}
	return err
}

// checkpoint runs one operation on the agent.
func (c *Client) checkpoint(ctx context.Context, args CheckpointArgs) (CheckpointReply, error) {
	var reply CheckpointReply
	call := c.rpc.Go(checkpointService+".Do", args, &reply, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
	case <-ctx.Done():
		return reply, ctx.Err()
	}
	if call.Error != nil {
		var serverErr rpc.ServerError
		if errors.As(call.Error, &serverErr) {
			return reply, fmt.Errorf("on %s: %s", c.opts.Destination, string(serverErr))
		}
		c.markLost()
		return reply, fmt.Errorf("%w: %w", ErrConnectionLost, call.Error)
	}
	if reply.Err != "" {
		return reply, &remoteError{dest: c.opts.Destination, text: reply.Err, sentinel: sentinels[reply.Sentinel]}
	}
	return reply, nil
}

// Ready connects now if the session is not connected, report hearing the states as Run's
// does: a call that checkpoints connects before its snapshot, where the person should see
// "Connecting to host…" too. The error says, in the person's words, that nothing ran.
func (s *Session) Ready(ctx context.Context, report func(Status)) error {
	_, err := s.client(ctx, report)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("cancelled while connecting to %s; nothing ran there", s.opts.Destination)
	case errors.Is(err, ErrSessionClosed):
		return fmt.Errorf("the connection to %s is closed; nothing ran there", s.opts.Destination)
	}
	return fmt.Errorf("could not reach %s, so nothing ran there: %w", s.opts.Destination, err)
}

// checkpoint runs one operation on the host's agent, connecting first when needed.
func (s *Session) checkpoint(ctx context.Context, args CheckpointArgs) (CheckpointReply, error) {
	c, err := s.client(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return CheckpointReply{}, ctx.Err()
		}
		return CheckpointReply{}, fmt.Errorf("could not reach %s for its checkpoints: %w", s.opts.Destination, err)
	}
	reply, err := c.checkpoint(ctx, args)
	if errors.Is(err, ErrConnectionLost) {
		s.lost(c, err)
		err = fmt.Errorf("the connection to %s was lost during a checkpoint; try again once it is back: %w", s.opts.Destination, err)
	}
	return reply, err
}

// ShadowRepo is a remote conversation's shadow repository as the app uses it: the methods of
// checkpoint.Repo that the conversation's checkpoints, Undo, Rewind and Changes view call,
// each one request to the agent.
type ShadowRepo struct {
	s         *Session
	conv, dir string
}

// Checkpoints returns the shadow repository, on the host, of conversation conv whose project
// is the folder dir there. Nothing connects until its first operation.
func (s *Session) Checkpoints(conv, dir string) *ShadowRepo {
	return &ShadowRepo{s: s, conv: conv, dir: dir}
}

func (r *ShadowRepo) do(ctx context.Context, args CheckpointArgs) (CheckpointReply, error) {
	args.Conversation, args.Cwd = r.conv, r.dir
	return r.s.checkpoint(ctx, args)
}

// Snapshot records the project's files as they are now and returns the snapshot's id.
func (r *ShadowRepo) Snapshot(ctx context.Context) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opSnapshot})
	return rep.Tree, err
}

// Changes lists the files that differ between two snapshots.
func (r *ShadowRepo) Changes(ctx context.Context, from, to string) ([]checkpoint.Change, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opChanges, From: from, To: to})
	return rep.Changes, err
}

// Diff is the unified diff of paths between two snapshots.
func (r *ShadowRepo) Diff(ctx context.Context, from, to string, paths []string) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opDiff, From: from, To: to, Paths: paths})
	return rep.Text, err
}

// Compose returns base with the overlays' files (checkpoint.Repo.Compose).
func (r *ShadowRepo) Compose(ctx context.Context, base string, overlays []checkpoint.Overlay) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opCompose, Base: base, Overlays: overlays})
	return rep.Tree, err
}

// Restore writes paths as tree holds them into the project there, if its files are still
// expect (checkpoint.ErrMoved otherwise), and returns the snapshot after.
func (r *ShadowRepo) Restore(ctx context.Context, expect, tree string, paths []string) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opRestore, Expect: expect, Tree: tree, Paths: paths})
	return rep.Tree, err
}

// DiffTrees is the whole diff between two trees; objects as checkpoint.Repo.DiffTrees.
func (r *ShadowRepo) DiffTrees(ctx context.Context, objects, from, to string) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opDiffTrees, Objects: objects, From: from, To: to})
	return rep.Text, err
}

// ReadFile returns path as tree holds it (a hunk revert reads the one file it writes).
func (r *ShadowRepo) ReadFile(ctx context.Context, objects, tree, path string) (checkpoint.File, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opReadFile, Objects: objects, Tree: tree, Path: path})
	return rep.File, err
}

// WithFile returns base with path replaced by f.
func (r *ShadowRepo) WithFile(ctx context.Context, base, path string, f checkpoint.File) (string, error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opWithFile, Base: base, Path: path, File: f})
	return rep.Tree, err
}

// ProjectHead is the HEAD commit's tree of the project's own git repository there, and its
// object folder there (checkpoint.ProjectHead).
func (r *ShadowRepo) ProjectHead(ctx context.Context) (tree, objects string, err error) {
	rep, err := r.do(ctx, CheckpointArgs{Op: opProjectHead})
	return rep.Tree, rep.Objects, err
}

// Remove deletes the conversation's repository on the host (the conversation was deleted).
func (r *ShadowRepo) Remove(ctx context.Context) error {
	_, err := r.do(ctx, CheckpointArgs{Op: opRemove})
	return err
}
