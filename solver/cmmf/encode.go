package cmmf

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/xflex/xflex/internal/jsonenc"
	"github.com/xflex/xflex/solver"
)

// AppendJSON implements solver.JSONAppender with solver.AppendGoJSON: 100,000
// users answer with 18 to 33 MB, which json.Marshal took 0.7 s to write.
// TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) { return solver.AppendGoJSON(dst, r) }

// MarshalJSON writes a as the JSON object from name to amount that a
// map[string]float64 with its entries encodes as; a NaN or infinite
// amount is an error.
func (a Amounts) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	dst := make([]byte, 0, 24*len(a)+2)
	dst = append(dst, '{')
	var err error
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonenc.String(dst, e.Name), ':')
		if dst, err = jsonenc.Float(dst, e.Amount); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// UnmarshalJSON reads the JSON object MarshalJSON writes (a picture reads
// answers back), in any key order.
func (a *Amounts) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*a = nil
		return nil
	}
	*a = make(Amounts, 0, len(m))
	for k, v := range m {
		*a = append(*a, Amount{k, v})
	}
	slices.SortFunc(*a, func(x, y Amount) int { return strings.Compare(x.Name, y.Name) })
	return nil
}
