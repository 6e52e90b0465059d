package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// pngBomb is a valid PNG signature and header claiming width×height pixels (RGBA), followed
// by a tiny data chunk: a few dozen bytes that would decode to gigabytes.
func pngBomb(width, height uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		b.Write(n[:])
		b.WriteString(typ)
		b.Write(data)
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		binary.BigEndian.PutUint32(n[:], crc.Sum32())
		b.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], width)
	binary.BigEndian.PutUint32(ihdr[4:], height)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits per channel, RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// modelNotFound is what OpenAI answers for a model name it does not serve.
func modelNotFound(model string) fakellm.Reply {
	r := fakellm.Failure(http.StatusNotFound, "The model `"+model+"` does not exist or you do not have access to it.")
	r.ErrorCode = "model_not_found"
	return r
}

// mustSay fails unless text contains every one of the phrases (case-insensitively): the
// error must say what is wrong.
func mustSay(t *testing.T, text string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		if !strings.Contains(strings.ToLower(text), strings.ToLower(p)) {
			t.Fatalf("%q does not say %q", text, p)
		}
	}
}

// stillUsable sends "echo: ok" and checks the turn succeeds: the conversation was not left
// stuck, read-only or broken by what went before.
func (r *rig) stillUsable(t *testing.T, id string) {
	t.Helper()
	end, err := r.turn(id, "echo: ok")
	if err != nil {
		t.Fatalf("the conversation is no longer usable: %v", err)
	}
	if _, ok := end.State.(domain.Idle); !ok {
		t.Fatalf("a following turn ended %+v, want Idle", end.State)
	}
	msgs := r.mustHistory(id)
	if last, _ := lastOf(msgs, domain.KindAssistant); last.Text != "ok" {
		t.Fatalf("a following turn answered %q, want %q", last.Text, "ok")
	}
}

// TestBadInputRuntime sends bad input through the runtime API, as the UI's handlers do:
// each gets a clear error (or is handled) and the conversation stays usable.
func TestBadInputRuntime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("empty and blank messages", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"", "  \n\t "} {
			err := r.rt.Send(ctx, c.ID, text, nil)
			if !errors.Is(err, domain.ErrEmptyMessage) {
				t.Fatalf("send %q: %v, want %v", text, err, domain.ErrEmptyMessage)
			}
			mustSay(t, err.Error(), "empty")
		}
		if msgs := r.mustHistory(c.ID); len(msgs) != 0 {
			t.Fatalf("a rejected message was committed: %+v", msgs)
		}
		r.stillUsable(t, c.ID)
	})

	t.Run("1 MB message, model with a large window", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{ContextWindow: 2_000_000})
		if err != nil {
			t.Fatal(err)
		}
		text := "echo: received\n" + strings.Repeat("0123456789abcdef", 1<<16)
		end := r.mustTurn(c.ID, text)
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("ended %+v, want Idle", end.State)
		}
		msgs := r.mustHistory(c.ID)
		if msgs[0].Text != text {
			t.Fatalf("the stored message has %d bytes, want the %d sent", len(msgs[0].Text), len(text))
		}
		r.stillUsable(t, c.ID)
	})

	// A message larger than the model's whole context window cannot be answered. The
	// issue asks for a clear error and a conversation that stays usable.
	t.Run("1 MB message, larger than the model's window", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{}) // the demo model: 100,000 tokens
		if err != nil {
			t.Fatal(err)
		}
		text := "echo: received\n" + strings.Repeat("0123456789abcdef", 1<<16)
		if err := r.rt.Send(ctx, c.ID, text, nil); err != nil {
			mustSay(t, err.Error(), "context window")
			r.stillUsable(t, c.ID)
			return
		}
		end, err := r.restOf(c.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("regression: a single message of about %d tokens, more than the %d-token window, was accepted "+
				"and left the conversation %s (%+v); it should be refused with a clear error before it is "+
				"committed, so that the conversation stays usable", len(text)/4, c.Window(), end.State.Kind(), end.State)
		}
		r.stillUsable(t, c.ID)
	})

	t.Run("invalid UTF-8", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{})
		if err != nil {
			t.Fatal(err)
		}
		text := "echo: caf\xe9 \xff\xfe done"
		if err := r.rt.Send(ctx, c.ID, text, nil); err != nil {
			mustSay(t, err.Error(), "UTF-8")
			r.stillUsable(t, c.ID)
			return
		}
		end, err := r.restOf(c.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("ended %+v, want Idle", end.State)
		}
		msgs := r.mustHistory(c.ID)
		for _, m := range msgs {
			if !utf8.ValidString(m.Text) {
				t.Fatalf("message %d holds invalid UTF-8: %q", m.Seq, m.Text)
			}
		}
		t.Logf("accepted; stored as %q, answered %q", msgs[0].Text, msgs[1].Text)
		r.stillUsable(t, c.ID)
	})

	t.Run("working directory vanished: bash and search", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, dir := vanishedCwd(t, r)
		end := r.mustTurn(c.ID, "bash: ls\nsearch: needle")
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("ended %+v, want Idle", end.State)
		}
		res := toolResults(r.mustHistory(c.ID))
		if len(res) != 2 {
			t.Fatalf("results %+v", res)
		}
		for _, tr := range res {
			if tr.Outcome != domain.OutcomeError {
				t.Fatalf("%s in a vanished directory: %s %q", tr.Name, tr.Outcome, tr.Content)
			}
			mustSay(t, tr.Content, dir, "no such file or directory")
		}
		mustSay(t, res[0].Content, "working directory")
		r.stillUsable(t, c.ID)
	})

	// patch with a relative path joins it to the working directory and creates missing
	// parents; it must not re-create a working directory that was deleted (or whose disk was
	// unmounted), but say it is gone, as bash does.
	t.Run("working directory vanished: patch", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, dir := vanishedCwd(t, r)
		r.mustTurn(c.ID, "patch: notes.txt <<< hello")
		res := toolResults(r.mustHistory(c.ID))
		if len(res) != 1 {
			t.Fatalf("results %+v", res)
		}
		if _, err := os.Stat(dir); err == nil || res[0].Outcome != domain.OutcomeError {
			t.Errorf("regression: patch in a vanished working directory answered %s %q and re-created %s (exists: %v); "+
				"it should fail like bash: \"The working directory ... is not available\"", res[0].Outcome, res[0].Content, dir, err == nil)
		}
		r.stillUsable(t, c.ID)
	})

	images := []struct {
		name    string
		data    []byte
		is      error
		phrases []string
	}{
		// Never touched, so the 200 MB cost no memory: refused by its length alone.
		{"huge.png", make([]byte, 200<<20), imaging.ErrTooLarge, []string{"huge.png", "too large", "50 MB"}},
		{"bomb.png", pngBomb(30000, 30000), imaging.ErrTooLarge, []string{"bomb.png", "30000x30000", "too large"}},
		{"notes.txt", []byte("Meeting notes: not a picture at all.\n"), imaging.ErrNotImage, []string{"notes.txt", "not a supported image"}},
	}
	for _, img := range images {
		t.Run("image "+img.name, func(t *testing.T) {
			t.Parallel()
			r := mustRig(t, rigOptions{})
			c, err := r.create(actors.NewConversation{})
			if err != nil {
				t.Fatal(err)
			}
			err = r.rt.Send(ctx, c.ID, "what is in this picture?", []actors.Attachment{{Name: img.name, Data: img.data}})
			if !errors.Is(err, img.is) {
				t.Fatalf("send: %v, want %v", err, img.is)
			}
			mustSay(t, err.Error(), img.phrases...)
			if msgs := r.mustHistory(c.ID); len(msgs) != 0 {
				t.Fatalf("a rejected message was committed: %+v", msgs)
			}
			r.stillUsable(t, c.ID)
		})
	}

	t.Run("model the provider rejects", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{Model: "gpt-nonexistent"})
		if err != nil {
			t.Fatal(err)
		}
		r.srv.Enqueue(modelNotFound("gpt-nonexistent"))
		end := r.mustTurn(c.ID, "echo: hello")
		st, ok := end.State.(domain.Error)
		if !ok || st.ErrKind != domain.ErrorInvalidRequest {
			t.Fatalf("ended %+v, want Error(invalid_request)", end.State)
		}
		mustSay(t, st.Message, "check the model name", "gpt-nonexistent", "does not exist")
		if n := len(r.srv.Requests()); n != 1 {
			t.Fatalf("the server saw %d requests; a rejected model must not be retried", n)
		}
		r.stillUsable(t, c.ID)
	})

	t.Run("unknown tool and arguments that are not JSON", func(t *testing.T) {
		t.Parallel()
		r := mustRig(t, rigOptions{})
		c, err := r.create(actors.NewConversation{})
		if err != nil {
			t.Fatal(err)
		}
		r.srv.Enqueue(fakellm.Calls(fakellm.Call("c1", "nope", "{}"), fakellm.Call("c2", domain.ToolBash, "{not json")))
		end := r.mustTurn(c.ID, "run them")
		if _, ok := end.State.(domain.Idle); !ok {
			t.Fatalf("ended %+v, want Idle", end.State)
		}
		res := toolResults(r.mustHistory(c.ID))
		if len(res) != 2 || res[0].Outcome != domain.OutcomeError || res[1].Outcome != domain.OutcomeError {
			t.Fatalf("results %+v, want two errors", res)
		}
		mustSay(t, res[0].Content, `unknown tool "nope"`, "available tools are", domain.ToolBash)
		mustSay(t, res[1].Content, "arguments of bash are not a valid JSON object")
		r.stillUsable(t, c.ID)
	})
}

// --- through the CLI ----------------------------------------------------------------------

// cliRig is a data directory and a working directory for the CLI, and a fake server in the
// test process for the runs that script the provider (passed with --base-url).
type cliRig struct {
	t       *testing.T
	dataDir string
	cwd     string
	srv     *fakellm.Server
}

func newCLIRig(t *testing.T) *cliRig {
	t.Helper()
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &cliRig{t: t, dataDir: t.TempDir(), cwd: t.TempDir(), srv: srv}
}

// chat runs "chat" on the data directory with the demo model.
func (c *cliRig) chat(args ...string) cliResult {
	c.t.Helper()
	return runCLI(c.t, cleanEnv(), append([]string{"chat", "--demo", "--data-dir", c.dataDir}, args...)...)
}

// testKey is the API key given to the CLI. It is long, as real keys are: the client masks
// the key wherever it appears in an error message, and a one-letter key would mask that
// letter everywhere (see "short API key" below).
const testKey = "sk-e2e-0123456789abcdef"

// chatVia runs "chat" against the test's fake server.
func (c *cliRig) chatVia(args ...string) cliResult {
	c.t.Helper()
	return runCLI(c.t, cleanEnv("PHOENIX_API_KEY="+testKey),
		append([]string{"chat", "--base-url", c.srv.URL(), "--data-dir", c.dataDir}, args...)...)
}

// conversation creates a conversation with a first successful turn.
func (c *cliRig) conversation(extra ...string) string {
	c.t.Helper()
	id, res := newCLIConversation(c.t, cleanEnv(), c.dataDir, append(append([]string{"--demo", "--cwd", c.cwd}, extra...), "echo: hello")...)
	if res.code != 0 {
		c.t.Fatalf("first turn: %s", res)
	}
	return id
}

func (c *cliRig) show(id string) (domain.Conversation, []domain.Message) {
	c.t.Helper()
	res := runCLI(c.t, cleanEnv(), "show", id, "--data-dir", c.dataDir, "--json")
	if res.code != 0 {
		c.t.Fatalf("show %s: %s", id, res)
	}
	var v struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &v); err != nil {
		c.t.Fatalf("show --json %s: %v", id, err)
	}
	if err := domain.ValidateHistory(v.Messages, false); err != nil {
		c.t.Fatalf("history of %s not valid for the API: %v", id, err)
	}
	return v.Conversation, v.Messages
}

// stillUsable runs a following turn ("echo: ok") and checks it succeeds.
func (c *cliRig) stillUsable(id string, viaServer bool) {
	c.t.Helper()
	run := c.chat
	if viaServer {
		run = c.chatVia
	}
	res := run("--continue", id, "echo: ok")
	if res.code != 0 {
		c.t.Fatalf("the conversation is no longer usable: %s", res)
	}
	conv, msgs := c.show(id)
	if _, ok := conv.State.(domain.Idle); !ok {
		c.t.Fatalf("after a following turn: %+v", conv.State)
	}
	if last, _ := lastOf(msgs, domain.KindAssistant); last.Text != "ok" {
		c.t.Fatalf("a following turn answered %q", last.Text)
	}
}

func (c *cliRig) count() int {
	c.t.Helper()
	return len(listIDs(c.t, c.dataDir))
}

// failsSaying checks a CLI run failed with an error that says what is wrong.
func failsSaying(t *testing.T, res cliResult, phrases ...string) {
	t.Helper()
	if res.code == 0 {
		t.Fatalf("the run succeeded, want an error:\n%s", res)
	}
	mustSay(t, res.stderr, append([]string{"phoenix-desktop:"}, phrases...)...)
}

// TestBadInputCLI sends bad input through the headless CLI.
func TestBadInputCLI(t *testing.T) {
	t.Parallel()
	cliBinary(t)

	t.Run("empty message", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		id := c.conversation()
		failsSaying(t, c.chat("--continue", id, ""), "message is empty")
		c.stillUsable(id, false)
	})

	t.Run("1 MB message", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		id := c.conversation()
		big := "echo: received\n" + strings.Repeat("0123456789abcdef", 1<<16)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res := runCLIStdin(ctx, t, cleanEnv(), big, "chat", "--demo", "--data-dir", c.dataDir, "--continue", id, "-")
		if res.code != 0 {
			mustSay(t, res.stderr, "context window")
		}
		conv, _ := c.show(id)
		if conv.State.Kind() == domain.StateContextExhausted {
			t.Fatalf("regression: a 1 MB message (about 262,000 tokens) sent to the demo model (100,000-token window) "+
				"was accepted and left the conversation exhausted, no longer usable:\n%s", tail(res.String(), 2000))
		}
		c.stillUsable(id, false)
	})

	t.Run("invalid UTF-8", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		id := c.conversation()
		res := c.chat("--continue", id, "echo: caf\xe9 \xff\xfe done")
		if res.code != 0 {
			mustSay(t, res.stderr, "UTF-8")
		} else {
			_, msgs := c.show(id)
			for _, m := range msgs {
				if !utf8.ValidString(m.Text) {
					t.Fatalf("message %d holds invalid UTF-8: %q", m.Seq, m.Text)
				}
			}
		}
		c.stillUsable(id, false)
	})

	t.Run("working directory that does not exist", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		missing := filepath.Join(c.cwd, "missing")
		failsSaying(t, c.chat("--cwd", missing, "echo: hi"), missing, "not an existing directory")
		if n := c.count(); n != 0 {
			t.Fatalf("%d conversations were created", n)
		}
	})

	t.Run("working directory that vanished", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		id := c.conversation("--unrestricted")
		if err := os.RemoveAll(c.cwd); err != nil {
			t.Fatal(err)
		}
		res := c.chat("--continue", id, "bash: ls")
		if res.code != 0 {
			t.Fatalf("a tool error must not fail the turn: %s", res)
		}
		mustSay(t, res.stdout, "working directory", c.cwd, "is not available")
		c.stillUsable(id, false)
	})

	sparse := func(t *testing.T, size int64) string {
		path := filepath.Join(t.TempDir(), "huge.png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write := func(t *testing.T, name string, data []byte) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	imageCases := []struct {
		name    string
		file    func(t *testing.T) string
		phrases []string
	}{
		{"200 MB image (sparse file)", func(t *testing.T) string { return sparse(t, 200<<20) }, []string{"huge.png", "200 MB", "limit"}},
		{"PNG with a 30000x30000 header", func(t *testing.T) string { return write(t, "bomb.png", pngBomb(30000, 30000)) },
			[]string{"bomb.png", "30000x30000", "too large"}},
		{"file that is not an image", func(t *testing.T) string { return write(t, "notes.txt", []byte("not a picture\n")) },
			[]string{"notes.txt", "not a supported image"}},
	}
	for _, ic := range imageCases {
		t.Run(ic.name, func(t *testing.T) {
			t.Parallel()
			c := newCLIRig(t)
			id := c.conversation()
			_, before := c.show(id)
			failsSaying(t, c.chat("--continue", id, "--image", ic.file(t), "what is this?"), ic.phrases...)
			if _, after := c.show(id); len(after) != len(before) {
				t.Fatalf("the rejected message was committed: %d messages, were %d", len(after), len(before))
			}
			c.stillUsable(id, false)
		})
	}

	// A rejected first message must not leave an empty conversation in the list.
	t.Run("rejected first message leaves no conversation", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		notImage := write(t, "notes.txt", []byte("not a picture\n"))
		for _, args := range [][]string{
			{"--cwd", c.cwd, ""},
			{"--cwd", c.cwd, "--image", notImage, "look"},
			{"--cwd", c.cwd, "--image", sparse(t, 200<<20), "look"},
		} {
			res := c.chat(args...)
			if res.code == 0 {
				t.Fatalf("chat %q succeeded", args)
			}
			if ids := listIDs(t, c.dataDir); len(ids) != 0 {
				t.Fatalf("regression: chat %q failed (%s) but left %d empty conversation(s) behind: %v; "+
					"the prompt and images should be checked before the conversation is created",
					args, strings.TrimSpace(res.stderr), len(ids), sortedIDs(ids))
			}
		}
	})

	t.Run("model the provider rejects", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		c.srv.Enqueue(modelNotFound("gpt-nonexistent"))
		before := listIDs(t, c.dataDir)
		res := c.chatVia("--cwd", c.cwd, "--model", "gpt-nonexistent", "echo: hello")
		failsSaying(t, res, "invalid_request", "check the model name", "gpt-nonexistent", "does not exist")
		id := newID(t, before, listIDs(t, c.dataDir))
		c.stillUsable(id, true)
	})

	// The client masks the API key wherever it appears in an error message, so that a
	// provider echoing it cannot leak it. With a short key (local servers accept anything,
	// and "x" is a common placeholder) that masks every occurrence of those letters.
	t.Run("short API key does not garble error messages", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		c.srv.Enqueue(modelNotFound("gpt-nonexistent"))
		res := runCLI(t, cleanEnv("PHOENIX_API_KEY=x"), "chat", "--base-url", c.srv.URL(), "--data-dir", c.dataDir,
			"--cwd", c.cwd, "--model", "gpt-nonexistent", "echo: hello")
		if res.code == 0 {
			t.Fatalf("the run succeeded: %s", res)
		}
		if !strings.Contains(res.stderr, "gpt-nonexistent` does not exist") {
			t.Fatalf("regression: with PHOENIX_API_KEY=x the provider's error is garbled (every \"x\" masked as \"****\"); "+
				"keys too short to be secret should not be masked:\n%s", res.stderr)
		}
	})

	t.Run("base URL that is not a server", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		before := listIDs(t, c.dataDir)
		res := runCLI(t, cleanEnv("PHOENIX_API_KEY=x"), "chat", "--data-dir", c.dataDir, "--cwd", c.cwd,
			"--base-url", "http://127.0.0.1:1/v1", "--model", "gpt-4o", "echo: hello")
		failsSaying(t, res, "network", "could not be reached", "base URL", "3 attempts")
		id := newID(t, before, listIDs(t, c.dataDir))
		// Pointed at a working server, the same conversation carries on.
		c.stillUsable(id, true)
	})

	// ResolveConfig leaves the model empty for a base URL no preset knows, "so that the app
	// asks for one"; the CLI must then say so rather than send some other name.
	t.Run("base URL without a model", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		res := runCLI(t, cleanEnv("PHOENIX_API_KEY=x"), "chat", "--data-dir", c.dataDir, "--cwd", c.cwd,
			"--base-url", "http://127.0.0.1:1/v1", "echo: hello")
		if res.code == 0 || !strings.Contains(strings.ToLower(res.stderr), "no model") {
			t.Fatalf("regression: with --base-url of an unknown provider and no model, the CLI did not say a model is "+
				"needed; it created a conversation with the demo model's name and sent it to that URL (%q):\n%s",
				firstLine(res.stdout), res)
		}
		if n := c.count(); n != 0 {
			t.Fatalf("%d conversations were created", n)
		}
	})

	t.Run("unknown tool and arguments that are not JSON", func(t *testing.T) {
		t.Parallel()
		c := newCLIRig(t)
		id := c.conversation()
		c.srv.Enqueue(fakellm.Calls(fakellm.Call("c1", "nope", "{}"), fakellm.Call("c2", domain.ToolBash, "{not json")))
		res := c.chatVia("--continue", id, "run them")
		if res.code != 0 {
			t.Fatalf("tool errors must not fail the turn: %s", res)
		}
		mustSay(t, res.stdout, `unknown tool "nope"`, "arguments of bash are not a valid JSON object")
		c.stillUsable(id, true)
	})
}

// newID returns the one conversation in after that is not in before.
func newID(t *testing.T, before, after map[string]persistence.Summary) string {
	t.Helper()
	for id := range after {
		if _, ok := before[id]; !ok {
			return id
		}
	}
	t.Fatal("no conversation was created")
	return ""
}

func sortedIDs(m map[string]persistence.Summary) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// vanishedCwd creates an Unrestricted conversation in a fresh directory and then deletes
// the directory.
func vanishedCwd(t *testing.T, r *rig) (domain.Conversation, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := r.create(actors.NewConversation{Cwd: dir, Unrestricted: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return c, dir
}
