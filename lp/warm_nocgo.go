//go:build !cgo

package lp

// newWarmCoin is never called without cgo (the coin backend does not
// exist); it returns nil, which means cold solves.
func newWarmCoin() warmEngine { return nil }
