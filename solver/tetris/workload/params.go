package workload

import (
	"fmt"
	"math"
	"strconv"
)

// Params reads the string parameters of the Tetris generators
// (`xflex gen tetris-assign --machines 20 ...`). Every parameter is a finite
// non-negative number; the first one that is not is kept as the error, so a
// generator reads all it needs and checks Err once.
type Params struct {
	params map[string]string
	err    error
}

// NewParams wraps a generator's parameter map.
func NewParams(params map[string]string) *Params { return &Params{params: params} }

// Num is parameter k, or def when it is absent.
func (p *Params) Num(k string, def float64) float64 {
	s, ok := p.params[k]
	if !ok {
		return def
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) { // !(v >= 0) also refuses NaN
		if p.err == nil {
			p.err = fmt.Errorf("param %s: want a non-negative number, got %q", k, s)
		}
		return 0
	}
	return v
}

// Err is the first malformed parameter met by Num, or nil.
func (p *Params) Err() error { return p.err }
