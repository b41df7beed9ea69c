package cmmf

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/xflex/xflex/internal/jsonenc"
	"github.com/xflex/xflex/solver"
)

// AppendJSON implements solver.JSONAppender: json.Marshal's bytes, the
// users written here and the rest by solver.AppendGoJSON. 50,000 users
// split over 1,000 types answer with 57 MB, nearly all of it the users'
// allocations; through goccy/go-json each user's Amounts.MarshalJSON
// output was copied and re-scanned (0.11 s of 0.45 at that scale).
// TestAppendJSONMatchesMarshal and every response solvertest checks
// compare the two encodings.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if r == nil || r.Users == nil {
		return solver.AppendGoJSON(dst, r)
	}
	dst = append(slices.Grow(dst, answerSize(r)), `{"divisible":`...)
	dst = append(jsonenc.Bool(dst, r.Divisible), `,"users":`...)
	dst, err := appendUsers(dst, r.Users)
	if err != nil {
		return dst, err
	}
	// The other members as goccy writes them after `"users":null`.
	rest := *r
	rest.Users = nil
	n := len(dst)
	if dst, err = solver.AppendGoJSON(dst, &rest); err != nil {
		return dst, err
	}
	skip := len(`{"divisible":,"users":null`) + len(strconv.FormatBool(r.Divisible))
	return append(dst[:n], dst[n+skip:]...), nil
}

// answerSize is a little more than r's JSON at the 10x scale, so that dst
// grows once: per user 64 bytes and its name, per amount 24 and the
// name, and 128 more for the rest (baselines, leximin, rounds: 100
// there).
func answerSize(r *Result) int {
	size := 0
	for _, u := range r.Users {
		size += 64 + 128 + len(u.Name)
		for _, e := range u.Allocation {
			size += 24 + len(e.Name)
		}
	}
	return size
}

// appendUsers appends users as the JSON array json.Marshal writes.
func appendUsers(dst []byte, users []UserResult) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, u := range users {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonenc.String(append(dst, `{"name":`...), u.Name), `,"total":`...)
		if dst, err = jsonenc.Float(dst, u.Total); err != nil {
			return dst, err
		}
		if dst, err = jsonenc.Float(append(dst, `,"share":`...), u.Share); err != nil {
			return dst, err
		}
		if dst, err = u.Allocation.appendJSON(append(dst, `,"allocation":`...)); err != nil {
			return dst, err
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// MarshalJSON writes a as the JSON object from name to amount that a
// map[string]float64 with its entries encodes as; a NaN or infinite
// amount is an error.
func (a Amounts) MarshalJSON() ([]byte, error) { return a.appendJSON(make([]byte, 0, 24*len(a)+2)) }

func (a Amounts) appendJSON(dst []byte) ([]byte, error) {
	if a == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '{')
	var err error
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonenc.String(dst, e.Name), ':')
		if dst, err = jsonenc.Float(dst, e.Amount); err != nil {
			return dst, err
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
