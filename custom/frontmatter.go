package custom

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// splitFrontMatter separates a Markdown file's YAML front matter ("---" lines around it, at
// the very start) from its body. Files without one have an empty map.
func splitFrontMatter(text string) (meta map[string]string, body string) {
	text = strings.TrimPrefix(text, "\ufeff")
	meta = map[string]string{}
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimSpace(first) != "---" {
		return meta, text
	}
	var fm []string
	for {
		line, after, more := strings.Cut(rest, "\n")
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			body = after
			break
		}
		if !more {
			// No closing line: not front matter after all.
			return map[string]string{}, text
		}
		fm = append(fm, line)
		rest = after
	}
	// Each "key: value" line as written: front matter that is not strict YAML (an unquoted
	// description holding ": ", which other agents accept) is read this way, and so is a
	// value YAML reads as something other than text (argument-hint: [name] is a list to YAML
	// and a hint to the person).
	raw := map[string]string{}
	for _, line := range fm {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		raw[strings.ToLower(strings.TrimSpace(k))] = v
	}
	var parsed map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(fm, "\n")), &parsed); err != nil {
		return raw, body
	}
	for k, v := range parsed {
		k = strings.ToLower(k)
		switch v := v.(type) {
		case string:
			meta[k] = v
		case nil:
		default:
			if r := raw[k]; r != "" {
				meta[k] = r
			} else if b, err := yaml.Marshal(v); err == nil {
				meta[k] = strings.TrimSpace(string(b))
			}
		}
	}
	return meta, body
}

// oneLine folds a description to one line for menus and the prompt.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
