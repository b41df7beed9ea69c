// Package xsize is the X-Size problem of X-Flex (Wolf et al., "The X-Flex
// Cross-Platform Scheduler: Who's the Fairest of Them All?", Middleware
// 2014, §2.2), served at POST /v1/xsize and `xflex solve xsize`: from a weighted profile of resource requests choose K container
// shapes so that every request fits one and the total normalized size of
// the shapes the requests use is least. The algorithms live in package
// ptas; this package validates and normalizes the request, runs the PTAS
// (or the exact max-fit DP) under the budget, and reports the shapes in the
// caller's units with a proven lower bound and the guarantee reached.
package xsize
