package schemas

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
