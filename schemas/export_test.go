package schemas

import "github.com/santhosh-tekuri/jsonschema/v5"

// Exports for the external test package (package schemas_test): the fast
// verdict alone and the library path alone.

// FastVerdict is the fast path's answer for doc against schema name:
// "valid", "invalid" or "unsure" ("unsure" too for an unknown schema).
func (s *Set) FastVerdict(name string, doc any) string {
	fv := s.fast[name]
	if fv == nil {
		return verdictUnsure.String()
	}
	return fv.check(doc).String()
}

// ValidateLibrary is Validate without the fast path.
func (s *Set) ValidateLibrary(name string, doc any) []Violation {
	return s.validateLibrary(name, doc)
}

// FastVerdictCov is FastVerdict collecting keyword coverage into cov:
// cov[keyword][0] counts valid outcomes, [1] unsure, [2] invalid.
func (s *Set) FastVerdictCov(name string, doc any, cov map[string]*[3]int) string {
	fv := s.fast[name]
	if fv == nil {
		return verdictUnsure.String()
	}
	return fv.checkCov(doc, fastCoverage(cov)).String()
}

// Compiled is the library's compiled schema (nil if absent), for the
// tests' schema-driven document generator.
func (s *Set) Compiled(name string) *jsonschema.Schema { return s.compiled[name] }

// FastUnsupported counts the nodes of schema name's fast validator,
// reachable from its root, that the fast path cannot evaluate (reaching
// one makes a whole call unsure, so the library runs); -1 when name has
// no fast validator.
func (s *Set) FastUnsupported(name string) (unsupported, nodes int) {
	fv := s.fast[name]
	if fv == nil {
		return -1, 0
	}
	seen := map[*fastNode]bool{}
	var walk func(n *fastNode)
	walk = func(n *fastNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.unsupported {
			unsupported++
		}
		for _, p := range n.props {
			walk(p)
		}
		for _, c := range []*fastNode{n.propNames, n.addSchema, n.items, n.ref, n.not, n.ifN, n.thenN, n.elseN} {
			walk(c)
		}
		for _, cs := range [][]*fastNode{n.allOf, n.anyOf, n.oneOf} {
			for _, c := range cs {
				walk(c)
			}
		}
	}
	walk(fv.root)
	return unsupported, len(seen)
}
