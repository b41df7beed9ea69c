// Package robust holds the cross-problem robustness sweep: every problem the
// service registers is run on its example requests with numeric fields
// pushed to extreme but schema-valid values (the schema's own bounds and
// stress values such as 5e-324, 1e-300, 1e15 and 2^53-1), alone and scaled
// together by kind. A panic, an internal error, a response that cannot be
// encoded (NaN or ±Inf), one that violates the response schema, or one
// whose picture (Accept: image/svg+xml) fails or is not well-formed XML is
// a finding; a 4xx error with a pointer or reason is the expected answer to an
// input the solver cannot honour.
//
// Beside it runs the bad-input sweep of issue 15 (badinput_test.go): every
// number of every example set to 0, -0, 1e-400, 5e-324, 1e15, 1e308 and
// -1, every string to "", 1 MiB and invalid UTF-8, whatever the schema
// says, through the HTTP handler and the Runner: no 500, no panic.
//
// The package has no code of its own: the sweep is a test, and the minimal
// requests that broke a solver are kept in testdata/ and in the owning
// package's tests.
package robust
