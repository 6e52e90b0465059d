package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A cold one-turn chat killed (SIGKILL, so the store never closes) right after the model's
// first reply, while the turn waits for its next answer, loses nothing it had stored: the
// person's message, the reply, and what the project's instructions said, which the
// conversation saves without a flush of its own (issue 39). The next command finds the
// conversation, the turn ended as interrupted, and the instructions still in use.
func TestColdChatKilledAfterTheReplyKeepsItsRecords_REQ_BED_007(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte("Answer briefly."), 0o644); err != nil {
		t.Fatal(err)
	}
	const prompt = "echo: the first reply ;; think: then wait\ndelay: 60000"
	cmd := exec.Command(os.Args[0], "chat", "--demo", "--data-dir", data, "--cwd", cwd, prompt)
	cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once the reply was printed and the next request waits (its status line after the
	// reply): the reply was committed before it was shown.
	waiting := make(chan string, 1)
	go func() {
		var seen strings.Builder
		agent, replied := false, false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			agent = agent || strings.HasPrefix(sc.Text(), "── Agent")
			replied = replied || agent && strings.Contains(sc.Text(), "the first reply")
			if replied && strings.Contains(sc.Text(), "Waiting for the model's reply") {
				waiting <- seen.String()
				break
			}
		}
		close(waiting)
	}()
	select {
	case out, ok := <-waiting:
		if !ok {
			_ = cmd.Wait()
			t.Fatal("the chat ended before its second request")
		}
		t.Logf("killed after:\n%s", out)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the chat did not reach its second request within 60 s")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	id, shown := onlyConversation(t, data)
	var user, reply bool
	for _, m := range shown.Messages {
		user = user || m.Kind == domain.KindUser && m.Text == prompt
		reply = reply || m.Kind == domain.KindAssistant && strings.Contains(m.Text, "the first reply")
	}
	if !user || !reply || shown.Conversation.State.Kind() != domain.StateIdle {
		t.Fatalf("after the kill: the message kept %v, the reply kept %v, state %s; want both, at rest:\n%+v", user, reply, shown.Conversation.State.Kind(), shown.Messages)
	}
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "echo: again")
	if code != 0 || !strings.Contains(out, "Instructions: AGENTS.md") || !strings.Contains(out, "again") {
		t.Fatalf("continuing after the kill: exit %d, want the saved instructions named:\n%s\n%s", code, out, errs)
	}
}

// chat --queue keeps printing until the queued messages were answered, in order, and ends at
// rest: a chat of its own looks at the queue when its turn rests only when something could
// have been queued (issue 39 spared a new conversation without --queue the look).
func TestChatQueueIsAnsweredBeforeTheChatEnds(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd,
		"--queue", "echo: second answer", "--queue", "echo: third answer", "echo: first answer")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	first, second, third := strings.LastIndex(out, "first answer"), strings.LastIndex(out, "second answer"), strings.LastIndex(out, "third answer")
	if first < 0 || second < first || third < second {
		t.Fatalf("the queued messages were not all answered in order:\n%s", out)
	}
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	code, out, _ = cli(t, "show", list[0].ID, "--data-dir", data, "--json")
	var shown struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Conversation.State.Kind() != domain.StateIdle {
		t.Fatalf("show: %d %s", code, out)
	}
	var users int
	for _, m := range shown.Messages {
		if m.Kind == domain.KindUser {
			users++
		}
	}
	if users != 3 {
		t.Fatalf("%d user messages stored, want the message and the two queued", users)
	}
}
