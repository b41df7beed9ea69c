package schemas

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// documented reports whether a schema file's every field must be
// described: every response, the jobs documents and common.json (meta and
// the problem document). Any file added later with such a name is held to
// it too.
func documented(name string) bool {
	return strings.HasSuffix(name, ".response.json") || strings.HasPrefix(name, "jobs.") || name == "common.json"
}

// TestResponsesDescribed: every property of every response schema (and of
// the jobs documents and common.json) has a description, directly or on
// the $defs entry it references, and every required field is declared as
// a property, so no field of an answer goes undocumented.
func TestResponsesDescribed(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]map[string]any{}
	for _, name := range set.Names() {
		raw, _ := set.Raw(name)
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		files[name] = doc
	}
	checked := 0
	for _, name := range set.Names() {
		if !documented(name) {
			continue
		}
		checked++
		var missing []string
		undescribed(files, name, files[name], "", nil, &missing)
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s: %s", name, m)
		}
	}
	if checked < 10 {
		t.Errorf("checked only %d files", checked)
	}
}

// undescribed appends to out every property under node (of the schema
// file named file) without a description and every required field that is
// not a declared property, each as its JSON pointer in the file. outer
// are the properties of the schema a branch (oneOf, if, ...) belongs to,
// which describe the fields the branch constrains.
func undescribed(files map[string]map[string]any, file string, node any, ptr string, outer map[string]any, out *[]string) {
	s, ok := node.(map[string]any)
	if !ok {
		return
	}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if !described(files, file, p) && !described(files, file, outer[name]) {
			*out = append(*out, fmt.Sprintf("%s/properties/%s has no description", ptr, name))
		}
	}
	if req, ok := s["required"].([]any); ok && s["type"] != nil { // not a constraint-only branch
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				*out = append(*out, fmt.Sprintf("%s: required field %q is not a described property", ptr, r))
			}
		}
	}
	for _, kw := range []string{"properties", "$defs"} {
		m, _ := s[kw].(map[string]any)
		for k, v := range m {
			undescribed(files, file, v, ptr+"/"+kw+"/"+k, nil, out)
		}
	}
	for _, kw := range []string{"items", "additionalProperties"} {
		undescribed(files, file, s[kw], ptr+"/"+kw, nil, out)
	}
	for _, kw := range []string{"not", "if", "then", "else"} {
		undescribed(files, file, s[kw], ptr+"/"+kw, props, out)
	}
	for _, kw := range []string{"oneOf", "anyOf", "allOf", "prefixItems"} {
		list, _ := s[kw].([]any)
		for i, v := range list {
			undescribed(files, file, v, fmt.Sprintf("%s/%s/%d", ptr, kw, i), props, out)
		}
	}
}

// described reports whether a property schema has a description, or
// references (by $ref, to a file or one of its $defs) a schema that has.
func described(files map[string]map[string]any, file string, p any) bool {
	s, ok := p.(map[string]any)
	if !ok {
		return false
	}
	if d, ok := s["description"].(string); ok && d != "" {
		return true
	}
	ref, ok := s["$ref"].(string)
	if !ok {
		return false
	}
	target, frag, _ := strings.Cut(strings.TrimPrefix(ref, BaseURL), "#")
	if target == "" {
		target = file
	}
	var node any = files[target]
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, _ := node.(map[string]any)
		node = m[tok]
	}
	return described(files, target, node)
}
