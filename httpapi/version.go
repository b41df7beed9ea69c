package httpapi

import "github.com/xflex/xflex/lp"

func lpBackends() []string { return lp.Backends() }
