package sample

// Long has 101 lines from func to brace.
func Long() int {
	x := 0
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	x++
	return x
}

// Branchy is cyclomatic 1 + 3 (if, for, &&) + 2 cases = 6.
func Branchy(a, b bool, n int) int {
	if a && b {
		return 1
	}
	for i := 0; i < n; i++ {
		switch i {
		case 1:
			return 2
		case 2:
			return 3
		default:
		}
	}
	return 0
}

type T struct{}

// M is a method, named with its receiver.
func (*T) M() {}
