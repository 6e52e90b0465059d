// Command dailyseed writes the store scripts/daily-xvfb.sh opens: one conversation of 400
// turns ("Tell me about number N." and its reply) whose context is 85% full, so that the
// window offers Wrap up. It lives under testdata so that it is no package of the module's own
// (go build ./... and the imports table leave it out); the script runs it by its path.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dailyseed DATA-DIR")
		os.Exit(2)
	}
	if err := seed(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "dailyseed:", err)
		os.Exit(1)
	}
}

func seed(dir string) error {
	store, err := persistence.Open(dir, persistence.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := domain.NewConversation(domain.NewConversationParams{ID: "daily-numbers", Title: "Four hundred numbers",
		Cwd: os.TempDir(), Model: domain.DemoModel, CreatedAt: time.Now()})
	if err != nil {
		return err
	}
	if c, err = store.Create(c); err != nil {
		return err
	}
	for turn := 0; turn < 400; turn += 50 {
		var batch []domain.Message
		for n := turn; n < turn+50; n++ {
			seq := c.NextSeq + uint64(len(batch))
			batch = append(batch,
				domain.Message{Seq: seq, Kind: domain.KindUser, Text: fmt.Sprintf("Tell me about number %d.", n)},
				domain.Message{Seq: seq + 1, Kind: domain.KindAssistant,
					Text: fmt.Sprintf("Number %d is a number.\n\n- it is odd or even\n- it is prime or not\n\nAsk about another one.", n)})
		}
		c.NextSeq += uint64(len(batch))
		c.Usage = domain.Usage{InputTokens: c.Window() * 85 / 100}
		if c, _, err = store.Commit(c, batch); err != nil {
			return err
		}
	}
	return nil
}
