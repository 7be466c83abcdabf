package configs

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// yamlOf writes an override document; values that read as YAML scalars
// (true, 12) keep their type, as they would in a file.
func yamlOf(doc map[string]any) []byte {
	out, _ := yaml.Marshal(convert(doc))
	return out
}

func convert(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = convert(e)
		}
		return m
	case string:
		if x == "true" || x == "false" {
			b, _ := strconv.ParseBool(x)
			return b
		}
		if n, err := strconv.Atoi(x); err == nil {
			return n
		}
		return x
	}
	return v
}
