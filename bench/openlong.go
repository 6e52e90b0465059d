package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/ui"
)

const openLongRowName = "open a 400-turn / 10,000-message conversation"

// The long conversation and its baseline, stored once for the whole row.
const (
	openLongConvID  = "bench-open-10000"
	openShortConvID = "bench-open-20"
	openLongTurns   = 400
	// openTurnMessages is a turn's messages: the question, twelve tool calls with their
	// results, 25 in all, so that 400 turns are 10,000 messages.
	openTurnMessages = 25
)

// openSettle is how long a window must draw nothing to be at rest: well above a frame and
// the list's deferred measuring, well below anything the window does by itself (the status
// bar's clock ticks each minute).
const openSettle = 700 * time.Millisecond

// openLongRows (issue 41 item 4) times opening the 400-turn conversation in a real window
// under Xvfb, beside a 20-message one in the same run: the app is started with the
// conversation as the one it showed last, which it opens as soon as its list is read, and
// the time runs from the window's map to the last frame it draws before coming to rest
// (the DAMAGE extension, x11damage.go). Both include the same start-up after the map (the
// list, the window's own first frame); their difference is what the conversation's length
// costs, the row with the target.
func openLongRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "draw the conversations", "open")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	dir, display := wb.dir, wb.display
	data, home := filepath.Join(dir, "data"), filepath.Join(dir, "home")
	if err := writeOpenConversations(data); err != nil {
		return nil, fmt.Errorf("store the conversations to open: %w", err)
	}
	w, err := watchDamage(display)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	env := append(appEnv(home), "DISPLAY="+display)
	var long, short, diff, longFrames, shortFrames []float64
	n := samplesOf(o, 7, 2)
	// The first pair only warms the page cache and the data directory.
	for i := -1; i < n; i++ {
		l, lf, err := openTime(ctx, w, o.App, env, home, data, openLongConvID)
		if err != nil {
			return nil, fmt.Errorf("the 400-turn conversation: %w", err)
		}
		s, sf, err := openTime(ctx, w, o.App, env, home, data, openShortConvID)
		if err != nil {
			return nil, fmt.Errorf("the 20-message conversation: %w", err)
		}
		if i < 0 {
			continue
		}
		long, short, diff = append(long, l), append(short, s), append(diff, l-s)
		longFrames, shortFrames = append(longFrames, float64(lf)), append(shortFrames, float64(sf))
	}
	r1 := summarise(openLongRowName+": window mapped → at rest", "ms", 0, long)
	r1.Note = fmt.Sprintf("the app (offline demo model) started with it as the conversation shown last; map → the last frame before %s without one (X DAMAGE), on Xvfb 1280×800", openSettle)
	r2 := summarise("open a 20-message conversation: window mapped → at rest", "ms", 0, short)
	r2.Note = "the baseline, the same for a conversation of 10 questions and answers, one after the other"
	r3 := summarise(openLongRowName+": first paint, over a 20-message one", "ms", 100, diff)
	r3.Signed = true
	r3.Note = "each sample: the long conversation's time less the short one's: what 10,000 messages add to opening (issue 41: ≤ 100 ms)"
	r4 := summarise(openLongRowName+": frames drawn after the map", "frames", 0, longFrames)
	r4.Note = "bursts of damage from the map to rest (the short one's median beside it: " + fmt.Sprint(medianOf(shortFrames)) + "); a frame of rows at estimated heights would add one"
	return []Row{r1, r2, r3, r4}, nil
}

// openTime starts the app with conv as the conversation it showed last and returns the
// milliseconds from its window's map to its last frame before rest, and the frames it drew;
// then it ends the app (stopGracefully).
func openTime(ctx context.Context, w *damageWatcher, app string, env []string, home, data, conv string) (float64, int, error) {
	prefs := filepath.Join(home, ".config", "fyne", assets.AppID, "preferences.json")
	if err := os.MkdirAll(filepath.Dir(prefs), 0o700); err != nil {
		return 0, 0, err
	}
	b, _ := json.Marshal(map[string]string{ui.PrefLastConversation: conv})
	if err := os.WriteFile(prefs, b, 0o600); err != nil {
		return 0, 0, err
	}
	cmd := exec.CommandContext(ctx, app, "--demo", "--data-dir", data)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer stopGracefully(cmd, waitProcess(cmd))
	mapped, err := w.nextWindow(30 * time.Second)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, lastLines(out.String()))
	}
	last, frames, err := w.settle(openSettle, 30*time.Second)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, lastLines(out.String()))
	}
	return float64(last.Sub(mapped).Microseconds()) / 1000, frames, nil
}

// writeOpenConversations stores the two conversations the row opens: 400 turns of a
// question, twelve read_file calls with their results (10,000 messages), and 10 questions
// with their answers (20 messages).
func writeOpenConversations(dir string) error {
	store, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		return err
	}
	defer store.Close()
	create := func(id, title string) (domain.Conversation, error) {
		c, err := domain.NewConversation(domain.NewConversationParams{ID: id, Title: title,
			Cwd: os.TempDir(), Model: domain.DemoModel, CreatedAt: time.Now()})
		if err != nil {
			return c, err
		}
		return store.Create(c)
	}
	c, err := create(openLongConvID, "Four hundred turns of tool calls")
	if err != nil {
		return err
	}
	stored := 0
	for turn := 0; turn < openLongTurns; turn += 20 {
		var batch []domain.Message
		for t := turn; t < turn+20; t++ {
			seq := c.NextSeq + uint64(len(batch))
			batch = append(batch, domain.Message{Seq: seq, Kind: domain.KindUser,
				Text: fmt.Sprintf("Question %d: where is read_text_file used in foo_bar.go?", t+1)})
			for k := 0; k < (openTurnMessages-1)/2; k++ {
				id := fmt.Sprintf("call-%d-%d", t, k)
				seq := c.NextSeq + uint64(len(batch))
				batch = append(batch,
					domain.Message{Seq: seq, Kind: domain.KindAssistant, Text: fmt.Sprintf("Reading part %d.", k+1),
						ToolCalls: []domain.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/part%d.go"}`, k)}}},
					domain.Message{Seq: seq + 1, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: id, Name: "read_file",
						Outcome: domain.OutcomeSuccess, Content: fmt.Sprintf("package pkg\n\n// Part %d reads the text.\nfunc readTextFile%d() {}\n", k, k)}})
			}
		}
		c.NextSeq += uint64(len(batch))
		stored += len(batch)
		if c, _, err = store.Commit(c, batch); err != nil {
			return err
		}
	}
	if stored != openLongTurns*openTurnMessages {
		return fmt.Errorf("stored %d messages, not %d", stored, openLongTurns*openTurnMessages)
	}
	s, err := create(openShortConvID, "Ten questions")
	if err != nil {
		return err
	}
	var batch []domain.Message
	for q := 0; q < 10; q++ {
		seq := s.NextSeq + uint64(len(batch))
		batch = append(batch,
			domain.Message{Seq: seq, Kind: domain.KindUser, Text: fmt.Sprintf("Tell me about number %d.", q)},
			domain.Message{Seq: seq + 1, Kind: domain.KindAssistant, Text: fmt.Sprintf("Number %d is a number.\n\n- it is odd or even\n- it is prime or not", q)})
	}
	s.NextSeq += uint64(len(batch))
	_, _, err = store.Commit(s, batch)
	return err
}
