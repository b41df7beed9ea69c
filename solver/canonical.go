package solver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"

	"github.com/xflex/xflex/internal/jsondoc"
	"github.com/xflex/xflex/internal/jsonenc"
)

// CanonicalHash is the hex SHA-256 of the canonical form of a decoded JSON
// document: object keys sorted, no insignificant white space, numbers as
// written. budget_ms is left out at the top level because it changes how
// long the solver may run, not the instance.
//
// The canonical form is byte for byte what encoding/json's Marshal writes
// for the decoded document (sorted keys, its string escaping), so hashes
// are stable across this implementation and the earlier one that called
// Marshal; it is streamed into the hash in chunks instead of built in
// memory, which took 32 ms for a 1.6 MB request (TestCanonicalMatchesMarshal
// checks the equality).
func CanonicalHash(doc any) (string, error) {
	c := canonical{h: sha256.New(), b: make([]byte, 0, canonicalChunk+canonicalSlack)}
	if err := c.write(doc, true); err != nil {
		return "", err
	}
	c.h.Write(c.b)
	return hex.EncodeToString(c.h.Sum(nil)), nil
}

// decodeHashed is DecodeAny and, when the parser could take it in the
// same pass (jsondoc.DecodeCanonical), CanonicalHash of the document; sum
// is "" when it could not (a document nested too deeply for the fast
// parser), and the caller hashes the document. On a 100,000-machine CMMF
// request (22.5 MB) CanonicalHash took 0.3 s, most of it sorting the
// keys of maps that iterate in random order; in the parse they come in
// the order written, usually sorted already.
func decodeHashed(raw []byte) (doc any, sum string, err error) {
	h := sha256.New()
	doc, hashed, err := jsondoc.DecodeCanonical(raw, "budget_ms", h)
	if err != nil || !hashed {
		return doc, "", err
	}
	return doc, hex.EncodeToString(h.Sum(nil)), nil
}

// canonicalChunk is how much canonical JSON is collected before it goes to
// the hash: large enough that the hash's per-call cost vanishes, small
// enough to stay in cache. canonicalSlack is room for the value being
// appended when the chunk fills (most are short; longer ones reallocate).
const (
	canonicalChunk = 64 << 10
	canonicalSlack = 4 << 10
)

// canonical appends the canonical form of a document to b, handing b to
// the hash whenever it passes canonicalChunk.
type canonical struct {
	h hash.Hash
	b []byte
}

// write appends v as encoding/json's Marshal would (strings through
// jsonenc.String, the same escaping); top drops budget_ms from a
// top-level object.
func (c *canonical) write(v any, top bool) error {
	if len(c.b) >= canonicalChunk {
		c.h.Write(c.b)
		c.b = c.b[:0]
	}
	switch x := v.(type) {
	case nil:
		c.b = append(c.b, "null"...)
	case bool:
		c.b = jsonenc.Bool(c.b, x)
	case json.Number:
		if x == "" {
			c.b = append(c.b, '0')
		} else {
			c.b = append(c.b, x...)
		}
	case string:
		c.b = jsonenc.String(c.b, x)
	case []any:
		c.b = append(c.b, '[')
		for i, e := range x {
			if i > 0 {
				c.b = append(c.b, ',')
			}
			if err := c.write(e, false); err != nil {
				return err
			}
		}
		c.b = append(c.b, ']')
	case map[string]any:
		var small [canonicalSmallMap]string
		keys := small[:0]
		if len(x) > canonicalSmallMap {
			keys = make([]string, 0, len(x))
		}
		for k := range x {
			if top && k == "budget_ms" {
				continue
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		c.b = append(c.b, '{')
		for i, k := range keys {
			if i > 0 {
				c.b = append(c.b, ',')
			}
			c.b = jsonenc.String(c.b, k)
			c.b = append(c.b, ':')
			if err := c.write(x[k], false); err != nil {
				return err
			}
		}
		c.b = append(c.b, '}')
	default:
		return fmt.Errorf("canonical JSON: unexpected %T", v)
	}
	return nil
}

// canonicalSmallMap is the object size up to which keys are sorted in a
// stack array (request objects have a handful of members).
const canonicalSmallMap = 16
