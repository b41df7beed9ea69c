package schemas

import (
	"regexp"
	"regexp/syntax"
)

// runeRun is a pattern of the shape ^C{min,max}$ where C is one character
// class (the name pattern ^[^\x00-\x1f]+$ and the hash pattern
// ^[0-9a-f]{64}$ are of this shape). Such a pattern matches a string
// exactly when the string has between min and max runes and every rune is
// in C, where runes are decoded as package regexp decodes them (an invalid
// UTF-8 byte is one utf8.RuneError), so a loop over the string gives the
// regexp's answer without running its machine.
type runeRun struct {
	ranges   []rune // sorted inclusive pairs lo, hi, as syntax.Regexp.Rune
	min, max int    // max -1: unbounded
}

// compileRuneRun recognises re as a runeRun, parsing its text with the
// flags regexp.Compile uses (syntax.Perl). It returns nil for any other
// shape, case folding included; the caller then keeps the regexp.
func compileRuneRun(re *regexp.Regexp) *runeRun {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || p.Op != syntax.OpConcat || len(p.Sub) != 3 ||
		p.Sub[0].Op != syntax.OpBeginText || p.Sub[2].Op != syntax.OpEndText {
		return nil
	}
	rep := p.Sub[1]
	r := &runeRun{}
	switch rep.Op {
	case syntax.OpPlus:
		r.min, r.max = 1, -1
	case syntax.OpStar:
		r.min, r.max = 0, -1
	case syntax.OpQuest:
		r.min, r.max = 0, 1
	case syntax.OpRepeat:
		r.min, r.max = rep.Min, rep.Max
	default:
		return nil
	}
	if len(rep.Sub) != 1 || rep.Flags&syntax.FoldCase != 0 {
		return nil
	}
	class := rep.Sub[0]
	if class.Flags&syntax.FoldCase != 0 {
		return nil
	}
	switch {
	case class.Op == syntax.OpCharClass && len(class.Rune)%2 == 0:
		r.ranges = class.Rune
	case class.Op == syntax.OpLiteral && len(class.Rune) == 1:
		r.ranges = []rune{class.Rune[0], class.Rune[0]}
	default:
		return nil
	}
	return r
}

// match reports whether s matches the pattern.
func (r *runeRun) match(s string) bool {
	n := 0
	for _, c := range s {
		if !r.in(c) {
			return false
		}
		n++
		if r.max >= 0 && n > r.max {
			return false
		}
	}
	return n >= r.min
}

func (r *runeRun) in(c rune) bool {
	for i := 0; i+1 < len(r.ranges); i += 2 {
		if c < r.ranges[i] {
			return false
		}
		if c <= r.ranges[i+1] {
			return true
		}
	}
	return false
}
