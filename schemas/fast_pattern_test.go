package schemas

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestRuneRunMatchesRegexp: the rune loop answers as package regexp on
// the schemas' patterns and a few more of the shape, for random strings
// with control characters, multibyte runes and invalid UTF-8.
func TestRuneRunMatchesRegexp(t *testing.T) {
	shaped := []string{`^[^\x00-\x1f]+$`, `^[0-9a-f]{64}$`, `^[a-z]*$`, `^x?$`, `^[0-9]{2,3}$`, `^[^a-c]{0,4}$`, `^é+$`, `^[\p{Greek}]+$`}
	other := []string{`^[0-9]+(/[0-9]+)?$`, `^(?i)[a-f]+$`, `[a-z]+`, `^[a-z]+`, `^ab+$`, `(?m)^[a-z]+$`}
	alphabet := []string{"a", "b", "c", "x", "f", "0", "9", "/", "é", "λ", "日", "😀", "\x00", "\x1f", "\x20", "\n", "\x7f", "\xff", "\xe6\x97", "A"}
	rng := rand.New(rand.NewPCG(5, 6))
	strs := []string{"", strings.Repeat("0a", 32), strings.Repeat("0a", 31) + "0", strings.Repeat("0a", 32) + "b", strings.Repeat("0A", 32)}
	for i := 0; i < 4000; i++ {
		var b strings.Builder
		for j := rng.IntN(8); j > 0; j-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		strs = append(strs, b.String())
	}
	for _, p := range shaped {
		re := regexp.MustCompile(p)
		run := compileRuneRun(re)
		if run == nil {
			t.Errorf("%s: not recognised as a rune run", p)
			continue
		}
		for _, s := range strs {
			if got, want := run.match(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: rune run %v, regexp %v", p, s, got, want)
			}
		}
	}
	for _, p := range other {
		if compileRuneRun(regexp.MustCompile(p)) != nil {
			t.Errorf("%s: recognised as a rune run; it is not one", p)
		}
	}
}
