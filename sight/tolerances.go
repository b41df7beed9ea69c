package sight

// The numeric thresholds of package sight, each with the reason for its
// value.
const (
	// tickRoundOff is the share of a tick step (or of an axis span) that
	// counts as round-off: k·step accumulates error, so the tick at the end
	// of a range may land a few ulps past it and must still be drawn, and
	// a tick a few ulps from zero is labelled 0.
	tickRoundOff = 1e-9

	// minBarSpan keeps the merged Gantt bar's slot average finite when a
	// bar has no length; any real duration is far longer.
	minBarSpan = 1e-300
)
