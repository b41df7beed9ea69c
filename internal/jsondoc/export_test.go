package jsondoc

// Fast runs only the fast parser: ok is false where Decode would hand the
// input to the reference decoder. The tests use it to check that the fast
// parser accepts exactly what encoding/json accepts, so the benchmark
// documents and ordinary inputs never take the slow way.
var Fast = fast
