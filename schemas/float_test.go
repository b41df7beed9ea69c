package schemas

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFloatOfSmallIntegers checks floatOf's integer shortcut against the
// general reading (parseNumber, then strconv.ParseFloat) bit for bit,
// signed zero included, on integers at and past the shortcut's 15 digits,
// on texts that are no JSON number, and on random number texts.
func TestFloatOfSmallIntegers(t *testing.T) {
	texts := append([]string{
		"0", "-0", "7", "-7", "00", "-00", "01", "-01", "", "-", "--1", "+1", " 1", "1 ", "1a", "0x10",
		"999999999999999", "-999999999999999", "1000000000000000", "9007199254740993", "12345678901234567890",
		"100000000000000", "1.0", "1e2", "-0.0",
	}, handNumbers...)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		switch i % 3 {
		case 0:
			texts = append(texts, randomNumberText(rng))
		case 1:
			texts = append(texts, strconv.FormatInt(rng.Int64N(1e16)-5e15, 10))
		default:
			texts = append(texts, strconv.FormatInt(rng.Int64()>>rng.IntN(63), 10))
		}
	}
	for _, s := range texts {
		f, ok := floatOf(s)
		want, wantOK := generalFloat(s)
		if ok != wantOK || math.Float64bits(f) != math.Float64bits(want) {
			t.Errorf("floatOf(%q) = %v, %v; the general reading gives %v, %v", s, f, ok, want, wantOK)
		}
	}
}

// generalFloat is floatOf without the integer shortcut.
func generalFloat(s string) (float64, bool) {
	if !parseNumber(s).ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
