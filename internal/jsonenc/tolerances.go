package jsonenc

// The thresholds of package jsonenc.
const (
	// expBelow and expFrom are where encoding/json switches a float64 to
	// exponent form (a magnitude below 1e-6 or from 1e21 on); Float copies
	// them to write the same bytes.
	expBelow = 1e-6
	expFrom  = 1e21
)
