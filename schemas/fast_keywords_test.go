package schemas

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"sort"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestFastCoversSchemaFields keeps fastKeywords in step with the library:
// every exported field of jsonschema.Schema has exactly one row, and every
// row's field exists.
func TestFastCoversSchemaFields(t *testing.T) {
	typ := reflect.TypeOf(jsonschema.Schema{})
	rows := map[string]int{}
	for _, kw := range fastKeywords {
		if kw.field == "" {
			continue
		}
		rows[kw.field]++
		if _, ok := typ.FieldByName(kw.field); !ok {
			t.Errorf("fastKeywords row %q names field %s, which jsonschema.Schema lacks", kw.name, kw.field)
		}
	}
	var unknown []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		if rows[f.Name] != 1 {
			unknown = append(unknown, fmt.Sprintf("%s (%d rows)", f.Name, rows[f.Name]))
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("jsonschema.Schema fields without exactly one fastKeywords row: %v", unknown)
	}
}

// TestFastSupportedFollowsTable: a node with one field of a keywordFallback
// row set is unsupported, and a node with a field of any other row set is
// not; the extension field admits integerLiteral alone.
func TestFastSupportedFollowsTable(t *testing.T) {
	for _, kw := range fastKeywords {
		if kw.field == "" || kw.field == "Extensions" {
			continue
		}
		s := &jsonschema.Schema{}
		setField(t, reflect.ValueOf(s).Elem().FieldByName(kw.field))
		if got, want := fastSupported(s), kw.support != keywordFallback; got != want {
			t.Errorf("%s (%s): fastSupported %v, table says support %d", kw.name, kw.field, got, kw.support)
		}
	}
	ok := &jsonschema.Schema{Extensions: map[string]jsonschema.ExtSchema{integerLiteral: integerLiteralSchema{}}}
	other := &jsonschema.Schema{Extensions: map[string]jsonschema.ExtSchema{"other": integerLiteralSchema{}}}
	if !fastSupported(ok) || fastSupported(other) {
		t.Errorf("extensions: integerLiteral supported %v (want true), another %v (want false)", fastSupported(ok), fastSupported(other))
	}
}

// setField gives a zero field a non-zero value of its type.
func setField(t *testing.T, f reflect.Value) {
	t.Helper()
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(true)
	case reflect.String:
		f.SetString("x")
	case reflect.Int:
		f.SetInt(1)
	case reflect.Pointer:
		f.Set(reflect.New(f.Type().Elem()))
	case reflect.Slice:
		f.Set(reflect.MakeSlice(f.Type(), 1, 1))
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		m.SetMapIndex(reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem())
		f.Set(m)
	case reflect.Interface:
		f.Set(reflect.ValueOf(&jsonschema.Schema{}))
	default:
		t.Fatalf("field %s of kind %s: setField does not know it", f.Type(), f.Kind())
	}
}

// TestShippedSchemaKeywordsInTable fails when a shipped schema writes a
// keyword that fastKeywords does not list as evaluated or as an
// annotation: the fast path would fall back to the library on every
// document of that schema (or, for a keyword the table lacks, nobody has
// checked what it does).
func TestShippedSchemaKeywordsInTable(t *testing.T) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		raw, err := files.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		bad, err := keywordsOutsideTable(raw)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		for _, b := range bad {
			t.Errorf("%s: %s", e.Name(), b)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d shipped schemas read", n)
	}
}

// TestKeywordsOutsideTable shows the walk behind
// TestShippedSchemaKeywordsInTable finds a fallback keyword and an unknown
// one at any depth, and passes annotations and subschema maps.
func TestKeywordsOutsideTable(t *testing.T) {
	raw := `{"$id":"x","title":"t","$defs":{"d":{"type":"number","multipleOf":2}},
		"properties":{"a":{"anyOf":[{"frobnicate":1},true]},"enum":{"type":"string"}},
		"items":{"prefixItems":[{}]}, "examples":[{"multipleOf":1}]}`
	got, err := keywordsOutsideTable([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/$defs/d/multipleOf: falls back to the library (the library divides exact rationals; float64 division would disagree)",
		"/items/prefixItems: falls back to the library (left to the library: no shipped schema needs it)",
		"/properties/a/anyOf/0/frobnicate: not in fastKeywords",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// keywordsOutsideTable walks a schema document through every subschema
// position fastKeywords describes and lists, sorted, each keyword that
// has no row or only a keywordFallback row, with its JSON pointer.
func keywordsOutsideTable(raw []byte) ([]string, error) {
	rows := map[string]fastKeyword{}
	for _, kw := range fastKeywords {
		if kw.name != "" {
			rows[kw.name] = kw
		}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var bad []string
	var walk func(ptr string, s any)
	walk = func(ptr string, s any) {
		obj, ok := s.(map[string]any)
		if !ok {
			return // a boolean schema
		}
		for k, v := range obj {
			at := ptr + "/" + k
			kw, ok := rows[k]
			switch {
			case !ok:
				bad = append(bad, at+": not in fastKeywords")
				continue
			case kw.support == keywordFallback:
				bad = append(bad, at+": falls back to the library ("+kw.rule+")")
			}
			switch kw.children {
			case childSchema:
				walk(at, v)
			case childList:
				list, _ := v.([]any)
				for i, x := range list {
					walk(fmt.Sprintf("%s/%d", at, i), x)
				}
			case childMap:
				m, _ := v.(map[string]any)
				for name, x := range m {
					walk(at+"/"+name, x)
				}
			}
		}
	}
	walk("", doc)
	sort.Strings(bad)
	return bad, nil
}
