package sight

import (
	"cmp"
	"slices"
)

// TopN returns the n names of largest weight, largest first, ties in name
// order, and whether names were left out: a view colours these and draws
// the rest as one grey "other" group (and says so). n <= 0 keeps them all.
func TopN(weights map[string]float64, n int) (top []string, cut bool) {
	names := make([]string, 0, len(weights))
	for k := range weights {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(weights[b], weights[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if n <= 0 || len(names) <= n {
		return names, false
	}
	return names[:n], true
}

// Legend draws one swatch and label per name, in rows from (x, y), each
// rowH units high; colours[i] is names[i]'s colour. Its swatches carry
// class "legend". It returns the y below the last row.
func (d *Doc) Legend(x, y, rowH float64, names, colours []string) float64 {
	for i, n := range names {
		d.Rect(x, y+float64(i)*rowH, rowH*0.8, rowH*0.8, Style{Class: "legend", Fill: colours[i]})
		d.Text(x+rowH, y+float64(i)*rowH+rowH*0.7, n, Style{Fill: Ink, Size: max(rowH*0.75, MinText)})
	}
	return y + float64(len(names))*rowH
}
