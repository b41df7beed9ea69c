package schemas

// The memo. Resource, job and machine names repeat tens of thousands of
// times in one request ("cpu" in every demand vector), and the name schema
// has a pattern. A node that has a pattern or a format memoises its whole
// verdict per distinct string in a table owned by one call (fastState.memo,
// one map per such node): a string's verdict against a node depends on
// nothing else, so a repeated name costs one map lookup. Numbers repeat
// too (machine attributes, 2.1 million of them in a 100,000-machine CMMF
// request, each tried against the three branches of the scalar anyOf), so
// a node with allOf, anyOf, oneOf or if memoises its verdict per distinct
// number text the same way (fastState.nums). Nothing is shared
// between calls: compiled fastNodes are immutable after compilation, no
// state is global, and Set stays safe for concurrent use.

// evalKey is eval of an object key: it consults the memo before boxing
// the key into an interface (which allocates).
func (st *fastState) evalKey(n *fastNode, k string) verdict {
	for n.pureRef && !n.unsupported {
		n = n.ref
	}
	if n.memoStrings && !n.unsupported && n.always == 0 {
		if r, ok := st.memo[n.memoIdx][k]; ok {
			return r
		}
	}
	return st.eval(n, k)
}

// evalMemo is evalNode of a string or a number, whose text is s, through
// the node's table in tables (st.memo or st.nums). A verdict that set the
// unsure flag the first time needs not set it again: the flag stays set
// for the whole call.
func (st *fastState) evalMemo(tables []map[string]verdict, n *fastNode, s string, v any) verdict {
	m := tables[n.memoIdx]
	if r, ok := m[s]; ok {
		return r
	}
	r := st.evalNode(n, v)
	if m == nil {
		m = map[string]verdict{}
		tables[n.memoIdx] = m
	}
	m[s] = r
	return r
}
