package vecpack

import (
	"fmt"
	"math"
)

// Rule is a pluggable greedy placement rule: when a bin is being filled,
// the item type with the largest Score (on normalised vectors, among the
// types that fit) is placed next; ties go to the earlier type in the
// instance's tie-break order (normalised size sum descending, then index).
//
// A Static rule's score does not depend on the free capacity (first-fit
// decreasing keys): the packer then places as many copies of the chosen
// type as fit in one step, which gives the same packing faster.
type Rule struct {
	Name   string
	Static bool
	Score  func(demand, free []float64) float64
}

// Names of the built-in rules, as accepted by RuleByName.
const (
	RuleFFDSum     = "ffd_sum"
	RuleFFDProduct = "ffd_product"
	RuleAlignment  = "alignment"
	RuleL2         = "l2"
)

// FFDSum is first-fit decreasing by the sum of normalised coordinates.
func FFDSum() Rule {
	return Rule{Name: RuleFFDSum, Static: true, Score: func(d, _ []float64) float64 { return SizeSum(d) }}
}

// FFDProduct is first-fit decreasing by the product of normalised
// coordinates (ties, e.g. among items with a zero coordinate, fall back to
// the sum order).
func FFDProduct() Rule {
	return Rule{Name: RuleFFDProduct, Static: true, Score: func(d, _ []float64) float64 { return SizeProduct(d) }}
}

// DotProduct is Tetris's alignment score: demand·free.
func DotProduct() Rule {
	return Rule{Name: RuleAlignment, Score: Alignment}
}

// L2 is best fit by the Euclidean norm of the capacity left afterwards.
func L2() Rule {
	return Rule{Name: RuleL2, Score: L2Residual}
}

// Rules returns the built-in rules in a fixed order.
func Rules() []Rule { return []Rule{FFDSum(), FFDProduct(), DotProduct(), L2()} }

// RuleByName returns a built-in rule.
func RuleByName(name string) (Rule, error) {
	for _, r := range Rules() {
		if r.Name == name {
			return r, nil
		}
	}
	return Rule{}, fmt.Errorf("vecpack: unknown rule %q", name)
}

// score wraps Rule.Score so a NaN never wins.
func (r Rule) score(d, f []float64) float64 {
	s := r.Score(d, f)
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	return s
}
