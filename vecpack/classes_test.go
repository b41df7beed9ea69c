package vecpack

import "testing"

// TestClassesKeyDistinctRows: types sharing one allowed row, or having
// none, add that row once to a bin's class key (the key was bins × types,
// 0.2 s per instance at 20,000 bins and 2,000 types), and the classes
// stay those of every type's bit: equal capacity and equal allowed bits.
func TestClassesKeyDistinctRows(t *testing.T) {
	const bins = 12
	rowA, rowB := make([]bool, bins), make([]bool, bins)
	caps := make([][]float64, bins)
	for b := range bins {
		rowA[b] = b%2 == 0
		rowB[b] = b%3 == 0
		caps[b] = []float64{float64(4 + b%4)}
	}
	same := append([]bool(nil), rowA...) // equal to rowA, its own array
	types := []ItemType{
		{Count: 1, Size: []float64{1}, Allowed: rowA},
		{Count: 1, Size: []float64{1}, Allowed: rowA},
		{Count: 1, Size: []float64{1}},
		{Count: 1, Size: []float64{1}, Allowed: rowB},
		{Count: 1, Size: []float64{1}, Allowed: same},
		{Count: 1, Size: []float64{1}, Allowed: rowB},
	}
	if rows := distinctRows(types); len(rows) != 3 {
		t.Fatalf("%d rows in the key, want 3 (rowA, rowB and its copy)", len(rows))
	}
	in := &Instance{Caps: caps, Types: types}
	if err := in.Prepare(); err != nil {
		t.Fatal(err)
	}
	for b := range bins {
		for c := range bins {
			want := caps[b][0] == caps[c][0]
			for _, it := range types {
				want = want && (it.Allowed == nil || it.Allowed[b] == it.Allowed[c])
			}
			if got := in.class[b] == in.class[c]; got != want {
				t.Fatalf("bins %d and %d: same class %v, want %v", b, c, got, want)
			}
		}
	}
}
