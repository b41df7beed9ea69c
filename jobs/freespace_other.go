//go:build !unix

package jobs

import "errors"

// freeSpace is not measured on this system: the store's write probe alone
// judges it.
func freeSpace(string) (int64, error) { return 0, errors.New("free space not measured on this system") }
