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
	src := strings.Join(fm, "\n")
	var parsed map[string]any
	if err := yaml.Unmarshal([]byte(src), &parsed); err == nil {
		for k, v := range parsed {
			switch v := v.(type) {
			case string:
				meta[strings.ToLower(k)] = v
			case nil:
			case []any:
				parts := make([]string, 0, len(v))
				for _, p := range v {
					if s, ok := p.(string); ok {
						parts = append(parts, s)
					}
				}
				meta[strings.ToLower(k)] = strings.Join(parts, ", ")
			default:
				if b, err := yaml.Marshal(v); err == nil {
					meta[strings.ToLower(k)] = strings.TrimSpace(string(b))
				}
			}
		}
		return meta, body
	}
	// Front matter that is not strict YAML (an unquoted description holding ": ", which
	// other agents accept) is read line by line as "key: value".
	for _, line := range fm {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		meta[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return meta, body
}

// oneLine folds a description to one line for menus and the prompt.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
