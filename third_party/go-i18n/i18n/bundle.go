package i18n

import (
	"fmt"
	"os"
	"sync"

	"github.com/nicksnyder/go-i18n/v2/internal/plural"

	"golang.org/x/text/language"
)

// UnmarshalFunc unmarshals data into v.
type UnmarshalFunc func(data []byte, v interface{}) error

// Bundle stores a set of messages and pluralization rules.
// Most applications only need a single bundle
// that is initialized early in the application's lifecycle.
// It is not goroutine safe to modify the bundle while Localizers
// are reading from it.
type Bundle struct {
	defaultLanguage  language.Tag
	unmarshalFuncs   map[string]UnmarshalFunc
	messageTemplates map[language.Tag]map[string]*MessageTemplate
	pluralRules      plural.Rules
	tags             []language.Tag

	// Patched (third_party/go-i18n/README.md): the message files ParseMessageFileBytes was
	// given are parsed, and the matcher of tags built, when a Localizer first reads the
	// bundle, not as they are added. mu guards both against Localizers reading at once.
	mu      sync.Mutex
	pending []pendingFile
	matcher language.Matcher // nil until first read after a tag was added
}

// pendingFile is a message file given to ParseMessageFileBytes and not parsed yet.
type pendingFile struct {
	buf  []byte
	path string
}

// artTag is the language tag used for artificial languages
// https://en.wikipedia.org/wiki/Codes_for_constructed_languages
var artTag = language.MustParse("art")

// NewBundle returns a bundle with a default language and a default set of plural rules.
func NewBundle(defaultLanguage language.Tag) *Bundle {
	b := &Bundle{
		defaultLanguage: defaultLanguage,
		pluralRules:     plural.DefaultRules(),
	}
	b.pluralRules[artTag] = b.pluralRules.Rule(language.English)
	b.addTag(defaultLanguage)
	return b
}

// RegisterUnmarshalFunc registers an UnmarshalFunc for format.
func (b *Bundle) RegisterUnmarshalFunc(format string, unmarshalFunc UnmarshalFunc) {
	if b.unmarshalFuncs == nil {
		b.unmarshalFuncs = make(map[string]UnmarshalFunc)
	}
	b.unmarshalFuncs[format] = unmarshalFunc
}

// LoadMessageFile loads the bytes from path
// and then calls ParseMessageFileBytes.
func (b *Bundle) LoadMessageFile(path string) (*MessageFile, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return b.ParseMessageFileBytes(buf, path)
}

// MustLoadMessageFile is similar to LoadMessageFile
// except it panics if an error happens.
func (b *Bundle) MustLoadMessageFile(path string) {
	if _, err := b.LoadMessageFile(path); err != nil {
		panic(err)
	}
}

// ParseMessageFileBytes parses the bytes in buf to add translations to the bundle.
//
// The format of the file is everything after the last ".".
//
// The language tag of the file is everything after the second to last "." or after the last path separator, but before the format.
//
// Patched: the file's language and format are checked now and its language is added to the
// bundle's tags, but its messages are parsed when a Localizer first reads the bundle (a file
// that does not parse then adds no messages), and the MessageFile returned holds no Messages.
func (b *Bundle) ParseMessageFileBytes(buf []byte, path string) (*MessageFile, error) {
	lang, format := parsePath(path)
	messageFile := &MessageFile{Path: path, Tag: language.Make(lang), Format: format}
	if len(buf) > 0 && b.unmarshalFuncs[format] == nil && format != "json" {
		return nil, fmt.Errorf("no unmarshaler registered for %s", format)
	}
	if b.pluralRules.Rule(messageFile.Tag) == nil {
		return nil, fmt.Errorf("no plural rule registered for %s", messageFile.Tag)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(buf) > 0 {
		b.pending = append(b.pending, pendingFile{buf: buf, path: path})
	}
	b.addMessageTag(messageFile.Tag)
	return messageFile, nil
}

// ready parses the pending message files and builds the matcher, once after each change,
// for a Localizer about to read the bundle.
func (b *Bundle) ready() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.pending {
		if mf, err := ParseMessageFileBytes(f.buf, f.path, b.unmarshalFuncs); err == nil {
			_ = b.addMessages(mf.Tag, mf.Messages...)
		}
	}
	b.pending = nil
	if b.matcher == nil {
		b.matcher = language.NewMatcher(b.tags)
	}
}

// MustParseMessageFileBytes is similar to ParseMessageFileBytes
// except it panics if an error happens.
func (b *Bundle) MustParseMessageFileBytes(buf []byte, path string) {
	if _, err := b.ParseMessageFileBytes(buf, path); err != nil {
		panic(err)
	}
}

// AddMessages adds messages for a language.
// It is useful if your messages are in a format not supported by ParseMessageFileBytes.
func (b *Bundle) AddMessages(tag language.Tag, messages ...*Message) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addMessages(tag, messages...)
}

func (b *Bundle) addMessages(tag language.Tag, messages ...*Message) error {
	pluralRule := b.pluralRules.Rule(tag)
	if pluralRule == nil {
		return fmt.Errorf("no plural rule registered for %s", tag)
	}
	b.addMessageTag(tag)
	for _, m := range messages {
		b.messageTemplates[tag][m.ID] = NewMessageTemplate(m)
	}
	return nil
}

// MustAddMessages is similar to AddMessages except it panics if an error happens.
func (b *Bundle) MustAddMessages(tag language.Tag, messages ...*Message) {
	if err := b.AddMessages(tag, messages...); err != nil {
		panic(err)
	}
}

// addMessageTag makes room for the messages of tag, adding it to the tags the first time.
func (b *Bundle) addMessageTag(tag language.Tag) {
	if b.messageTemplates == nil {
		b.messageTemplates = map[language.Tag]map[string]*MessageTemplate{}
	}
	if b.messageTemplates[tag] == nil {
		b.messageTemplates[tag] = map[string]*MessageTemplate{}
		b.addTag(tag)
	}
}

func (b *Bundle) addTag(tag language.Tag) {
	for _, t := range b.tags {
		if t == tag {
			// Tag already exists
			return
		}
	}
	b.tags = append(b.tags, tag)
	b.matcher = nil // built again on the next read (ready)
}

// LanguageTags returns the list of language tags
// of all the translations loaded into the bundle
func (b *Bundle) LanguageTags() []language.Tag {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tags
}

func (b *Bundle) getMessageTemplate(tag language.Tag, id string) *MessageTemplate {
	templates := b.messageTemplates[tag]
	if templates == nil {
		return nil
	}
	return templates[id]
}
