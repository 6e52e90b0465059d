package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/search"
)

// The measurements of a long life with the app: search over a large history, the commit path
// with and without the index, and memory over many conversations.

// vocabulary is a deterministic set of word-like strings whose frequencies follow a Zipf law,
// like words in real conversations: a few very common, most rare.
type vocabulary struct {
	words []string
	zipf  *rand.Zipf
}

func newVocabulary(seed uint64, size int) *vocabulary {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vi", "zo", "pe", "su", "do", "ga", "hi", "ja", "we", "xo"}
	seen := map[string]bool{}
	words := make([]string, 0, size)
	for len(words) < size {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &vocabulary{words: words, zipf: rand.NewZipf(r, 1.1, 1, uint64(size-1))}
}

func (v *vocabulary) sentence(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(parts, " ")
}

// fillVaried writes conversations whose messages are drawn from the vocabulary, a hundred
// messages a commit.
func fillVaried(store *persistence.Store, cwd string, v *vocabulary, convs, msgsEach int) error {
	for i := range convs {
		c, err := domain.NewConversation(domain.NewConversationParams{
			ID: fmt.Sprintf("search-%05d", i), Title: v.sentence(4), Cwd: cwd, Model: domain.DemoModel, CreatedAt: time.Now()})
		if err != nil {
			return err
		}
		if c, err = store.Create(c); err != nil {
			return err
		}
		for done := 0; done < msgsEach; {
			n := min(100, msgsEach-done)
			batch := make([]domain.Message, n)
			for j := range batch {
				seq := c.NextSeq + uint64(j)
				kind := domain.KindUser
				if seq%2 == 1 {
					kind = domain.KindAssistant
				}
				batch[j] = domain.Message{Seq: seq, Kind: kind, Text: v.sentence(25) + "\n" + v.sentence(25)}
			}
			c.NextSeq += uint64(n)
			if c, _, err = store.Commit(c, batch); err != nil {
				return err
			}
			done += n
		}
	}
	return nil
}

// searchCorpus is a store of varied conversations and its index, built once and shared by
// the search rows.
type searchCorpus struct {
	dir   string
	store *persistence.Store
	index *search.Index
	vocab *vocabulary
	build time.Duration
	msgs  int
}

func (c *searchCorpus) close() {
	if c.index != nil {
		_ = c.index.Close()
	}
	if c.store != nil {
		_ = c.store.Close()
	}
	_ = os.RemoveAll(c.dir)
}

func newSearchCorpus(ctx context.Context, o Options) (*searchCorpus, error) {
	convs := 1000
	if o.Quick {
		convs = 30
	}
	c := &searchCorpus{vocab: newVocabulary(15, 20000), msgs: convs * 100}
	var err error
	if c.dir, err = os.MkdirTemp("", "phoenix-bench-search-"); err != nil {
		return nil, err
	}
	if c.store, err = persistence.Open(filepath.Join(c.dir, "data"), persistence.Options{Logger: quietLogger()}); err != nil {
		c.close()
		return nil, err
	}
	if err := fillVaried(c.store, c.dir, c.vocab, convs, 100); err != nil {
		c.close()
		return nil, err
	}
	start := time.Now()
	if c.index, err = search.Open(filepath.Join(c.dir, "index"), c.store, search.Options{Logger: quietLogger()}); err != nil {
		c.close()
		return nil, err
	}
	if err := c.index.WaitSynced(ctx); err != nil {
		c.close()
		return nil, err
	}
	c.build = time.Since(start)
	return c, nil
}

// searchRows measures the index build and queries over one corpus.
func searchRows(ctx context.Context, o Options) ([]Row, error) {
	c, err := newSearchCorpus(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.close()
	build := summarise(fmt.Sprintf("search: index build (%s messages, from the store)", thousands(c.msgs)), "s", 0,
		[]float64{c.build.Seconds()})
	build.Note = "what the first start after an upgrade, or after deleting the index, does in the background; search works meanwhile and says it is incomplete"

	// Queries a person would type: two words of middling frequency (each in a few hundred to
	// a few thousand messages), and one common word alone.
	r := rand.New(rand.NewPCG(7, 7))
	var two, common []float64
	for i := 0; i < samplesOf(o, 40, 4); i++ {
		q := c.vocab.words[50+r.IntN(150)] + " " + c.vocab.words[200+r.IntN(800)]
		start := time.Now()
		if _, err := c.index.Search(search.Query{Text: q}); err != nil {
			return nil, err
		}
		two = append(two, ms(time.Since(start)))
		start = time.Now()
		if _, err := c.index.Search(search.Query{Text: c.vocab.words[5+r.IntN(10)]}); err != nil {
			return nil, err
		}
		common = append(common, ms(time.Since(start)))
	}
	q2 := summarise("search: two-word query (1,000 conversations × 100 messages)", "ms", 50, two)
	q2.Note = "ranked AND query over the whole history, the 50 best hits with their lines read from the store"
	q1 := summarise("search: one very common word", "ms", 0, common)
	q1.Note = "a word in about a tenth of all messages: the worst case of this index (every posting is read)"
	return []Row{build, q2, q1}, nil
}

// commitRows measures the store's commit alone and with the index told of each commit, as the
// runtime does on the committing actor's goroutine, while the index catches up in the
// background. The samples alternate between the two, so both see the same machine.
func commitRows(ctx context.Context, o Options) ([]Row, error) {
	dir, err := os.MkdirTemp("", "phoenix-bench-commit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := persistence.Open(filepath.Join(dir, "data"), persistence.Options{Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	index, err := search.Open(filepath.Join(dir, "index"), store, search.Options{Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	defer index.Close()
	v := newVocabulary(16, 5000)
	convs := make([]domain.Conversation, 2)
	for i := range convs {
		c, err := domain.NewConversation(domain.NewConversationParams{ID: fmt.Sprintf("commit-%d", i), Title: "commit",
			Cwd: dir, Model: domain.DemoModel, CreatedAt: time.Now()})
		if err != nil {
			return nil, err
		}
		if convs[i], err = store.Create(c); err != nil {
			return nil, err
		}
	}
	var without, with, diff []float64
	commit := func(i int, notify bool) (float64, error) {
		c := convs[i]
		msg := domain.Message{Seq: c.NextSeq, Kind: domain.KindAssistant, Text: v.sentence(60)}
		c.NextSeq++
		start := time.Now()
		next, _, err := store.Commit(c, []domain.Message{msg})
		if notify {
			index.Notify(c.ID)
		}
		took := ms(time.Since(start))
		convs[i] = next
		return took, err
	}
	for i := 0; i < samplesOf(o, 300, 10); i++ {
		a, err := commit(0, false)
		if err != nil {
			return nil, err
		}
		b, err := commit(1, true)
		if err != nil {
			return nil, err
		}
		without, with, diff = append(without, a), append(with, b), append(diff, b-a)
	}
	r1 := summarise("commit of one agent message, no search index", "ms", 0, without)
	r2 := summarise("commit of one agent message, search index told", "ms", 0, with)
	r2.Note = "the same commit followed by Notify, as the runtime's event handler does; the index reads the message from the store on its own goroutine"
	r3 := differenceRow("search indexing on the commit path (paired difference)", 1, diff, "each sample: a commit with Notify minus the commit before it without; negative values are noise")
	return []Row{r1, r2, r3}, nil
}

// heapRows opens (sends a message to) conversations one after another and compares the live
// heap after 10 with the live heap after all of them: passivation must keep it flat. The
// same run without passivation shows what it saves.
func heapRows(ctx context.Context, o Options) ([]Row, error) {
	with, err := heapRatio(ctx, o, actors.Passivation{})
	if err != nil {
		return nil, err
	}
	without, err := heapRatio(ctx, o, actors.Passivation{IdleAfter: -1, MaxResident: -1})
	if err != nil {
		return nil, err
	}
	r1 := summarise("heap after opening 1,000 conversations ÷ after 10", "×", 2, with[:1])
	r1.Note = fmt.Sprintf("live heap after a turn in each of 1,000 stored conversations (%d messages each) one after another, over the same after the first 10; passivation keeps at most %d conversation actors in memory. Most of the heap after 10 is the store's and the index's caches, hence the growth rows",
		heapHistory, actors.DefaultPassivation.MaxResident)
	r2 := summarise("heap growth from 10 to 1,000 conversations", "MiB", 0, with[1:])
	r3 := summarise("the same growth without passivation (for comparison)", "MiB", 0, without[1:])
	return []Row{r1, r2, r3}, nil
}

// heapHistory is the length of each conversation the heap rows open.
const heapHistory = 100

// heapRatio opens the conversations under a given passivation (the zero value is the app's)
// and returns the heap after all over the heap after 10, and the growth in MiB.
func heapRatio(ctx context.Context, o Options, p actors.Passivation) ([]float64, error) {
	e, err := rig.Start(rig.Options{DemoServer: true, Runtime: func(c *actors.Config) { c.Passivation = p }})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	total := 1000
	if o.Quick {
		total = 40
	}
	if _, err := fillStore(e.Store, e.Cwd, total, heapHistory); err != nil {
		return nil, err
	}
	live := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var at10 uint64
	for i := range total {
		id := fmt.Sprintf("bench-%05d", i)
		if _, err := e.Turn(ctx, id, "echo: opened", 2*time.Minute); err != nil {
			return nil, fmt.Errorf("conversation %d: %w", i, err)
		}
		if i == 9 {
			at10 = live()
		}
	}
	atAll := live()
	resident, err := e.Runtime.Resident(ctx)
	if err != nil {
		return nil, err
	}
	if max := actors.DefaultPassivation.MaxResident; p == (actors.Passivation{}) && resident > max {
		return nil, fmt.Errorf("%d conversation actors in memory, more than the cap of %d", resident, max)
	}
	return []float64{float64(atAll) / float64(at10), (float64(atAll) - float64(at10)) / (1 << 20)}, nil
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
