//go:build !cgo

package lp

func coinAvailable() bool { return false }

func coinBackend() Backend { return nil }
