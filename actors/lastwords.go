package actors

import (
	"context"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// lastWordsLook is how many of a conversation's last messages LastWords reads back through
// for one with words (a turn of tool calls and results has few).
const lastWordsLook = 24

// LastWordsRunes is how many characters of the last message LastWords gives: more than a
// sidebar row shows, so the row's ellipsis says there is more.
const LastWordsRunes = 80

// LastWords gives, for each conversation of ids, the first words of its last message with
// words (the person's or the model's) on one line, at most LastWordsRunes characters. A
// conversation with no such message among its last lastWordsLook, or one that cannot be read,
// is left out. The sidebar tells apart conversations whose titles are equal by these words
// (issue 41); they are read from the stored messages, so nothing new is stored. It reads the
// store on the caller's goroutine, as List does.
func (r *Runtime) LastWords(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		c, err := r.cfg.Store.Get(id)
		if err != nil {
			continue // deleted meanwhile, or unreadable: the row keeps its title
		}
		for seq := c.NextSeq; seq > 0 && c.NextSeq-seq < lastWordsLook; seq-- {
			m, err := r.cfg.Store.Message(id, seq-1)
			if err != nil {
				break
			}
			if w := WordsOf(m); w != "" {
				out[id] = w
				break
			}
		}
	}
	return out, nil
}

// WordsOf is what LastWords gives for m: the first words of the person's or the model's text on
// one line, or "" for a message without words (a tool result, a notice, a reply that only
// called tools).
func WordsOf(m domain.Message) string {
	if m.Kind != domain.KindUser && m.Kind != domain.KindAssistant {
		return ""
	}
	return transcript.OneLine(m.Text, LastWordsRunes)
}
