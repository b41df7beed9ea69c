package sight

// Palette is the Okabe–Ito palette, safe for the common colour-vision
// deficiencies, in the order categories take it (Okabe and Ito, "Color
// Universal Design", 2008).
var Palette = []string{"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}

// Other is the colour of everything outside the named categories: an
// aggregated "other" group, idle or unknown.
const Other = "#999999"

// Colour is the colour of category i (0-based): Palette[i] for the first
// len(Palette) categories, Other past them and for a negative i. A view
// with more categories names the first ones and groups the rest (TopN).
func Colour(i int) string {
	if i < 0 || i >= len(Palette) {
		return Other
	}
	return Palette[i]
}

// Text colours: Ink for labels and axes, Faint for grid lines and empty
// capacity.
const (
	Ink   = "#222222"
	Faint = "#DDDDDD"
)
