//go:build cgo && linux

package lp

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// maxSignal is the highest signal number on Linux (SIGRTMAX).
const maxSignal = 64

// signalHandler reads the handler installed for sig (rt_sigaction with a
// nil new action; the struct is the kernel's, whose handler comes first).
// It reports false for numbers the kernel rejects.
func signalHandler(sig int) (uintptr, bool) {
	var old struct{ handler, flags, restorer, mask uintptr }
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0,
		uintptr(unsafe.Pointer(&old)), unsafe.Sizeof(old.mask), 0, 0)
	return old.handler, errno == 0
}

// signalHandlers reads the handler of every signal (index: signal number).
func signalHandlers() [maxSignal + 1]uintptr {
	var h [maxSignal + 1]uintptr
	for sig := 1; sig <= maxSignal; sig++ {
		h[sig], _ = signalHandler(sig)
	}
	return h
}

// TestCoinLeavesSignalHandlers: no solve may touch a signal handler of the
// process, neither while it runs (a SIGINT would never reach Go) nor after
// (CLP's SIGINT handler, restored by overlapping CLP solves in the wrong
// order, stayed installed and `xflex serve` ignored Ctrl-C). It solves, from
// four goroutines at once as the server does, through every way into COIN-OR
// that lp uses: cold LPs (CLP's initialSolve and, for the infeasible and
// unbounded ones, its dual and primal simplex), MIPs (CBC, with and without
// its preprocessing, and CLP on their relaxations) and Incremental re-solves
// (initialSolve, then primal from the kept basis). Meanwhile it reads every
// signal's handler in a loop, and at the end demands the handlers it began
// with. Before clpInitialSolve and cbcSolve, a run saw CLP's handler in
// place in tens of thousands of reads and left it installed.
func TestCoinLeavesSignalHandlers(t *testing.T) {
	// Notify makes sure Go's own handler is SIGINT's (a process started
	// with SIGINT ignored keeps it ignored until then).
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	want := signalHandlers()

	var stop atomic.Bool
	var changed atomic.Int64
	var first struct {
		sync.Once
		sig     int
		handler uintptr
	}
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for !stop.Load() {
			for sig := 1; sig <= maxSignal; sig++ {
				if h, ok := signalHandler(sig); ok && h != want[sig] {
					changed.Add(1)
					first.Do(func() { first.sig, first.handler = sig, h })
				}
			}
		}
	})
	const workers, rounds = 4, 3
	var solvers sync.WaitGroup
	for w := range workers {
		solvers.Go(func() { solveEveryCoinWay(t, uint64(w), rounds) })
	}
	solvers.Wait()
	stop.Store(true)
	watcher.Wait()

	if n := changed.Load(); n > 0 {
		t.Errorf("signal %d had handler %#x instead of %#x during the solves (%d reads saw a changed handler)",
			first.sig, first.handler, want[first.sig], n)
	}
	if got := signalHandlers(); got != want {
		for sig := 1; sig <= maxSignal; sig++ {
			if got[sig] != want[sig] {
				t.Errorf("signal %d: handler %#x after the solves, %#x before", sig, got[sig], want[sig])
			}
		}
	}
}

// solveEveryCoinWay solves random LPs and MIPs and grows Incremental LPs
// with the coin backend (see TestCoinLeavesSignalHandlers).
func solveEveryCoinWay(t *testing.T, seed uint64, rounds int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 31))
	opts := Options{Backend: BackendCoin}
	for range rounds {
		for k := 0; k < 40; k++ {
			if _, err := Solve(ctx, randomLP(rng, 12, k%4 == 0), opts); err != nil {
				t.Error(err)
				return
			}
		}
		for _, m := range []*Model{knapsack(), assignment(), randomPureMIP(rng)} {
			if _, err := Solve(ctx, m, opts); err != nil {
				t.Error(err)
				return
			}
		}
		m, col := randomGrowingLP(rng)
		inc, err := NewIncremental(m, opts)
		if err != nil {
			t.Error(err)
			return
		}
		for range 4 {
			lo, up, cost, rows, coef := col()
			inc.AddCol("", lo, up, cost, rows, coef)
			if _, err := inc.Solve(ctx); err != nil {
				t.Error(err)
			}
		}
		inc.Close()
	}
}

// TestCoinSolvesOnlyWithoutInterrupts keeps the two doors into COIN-OR's
// initialSolve that switch its interrupt handling off the only ones: the
// package's Go code may not call the C functions that run initialSolve
// with CLP's default options (which install a SIGINT handler), and calls
// Clp_initialSolveWithOptions only in clpInitialSolve.
func TestCoinSolvesOnlyWithoutInterrupts(t *testing.T) {
	forbidden := map[string]string{
		"Clp_initialSolve":               "clpInitialSolve",
		"Clp_initialDualSolve":           "clpInitialSolve",
		"Clp_initialPrimalSolve":         "clpInitialSolve",
		"Clp_initialBarrierSolve":        "clpInitialSolve",
		"Clp_initialBarrierNoCrossSolve": "clpInitialSolve",
		"Cbc_solve":                      "cbcSolve",
		"Clp_initialSolveWithOptions":    "clpInitialSolve",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "C" {
					return true
				}
				use, bad := forbidden[sel.Sel.Name]
				switch {
				case !bad:
				case sel.Sel.Name == "Clp_initialSolveWithOptions" && fn.Name.Name == "clpInitialSolve":
					calls++
				default:
					t.Errorf("%s: %s calls C.%s; use %s (solves may not install signal handlers)",
						fset.Position(sel.Pos()), fn.Name.Name, sel.Sel.Name, use)
				}
				return true
			})
		}
	}
	if calls != 1 {
		t.Errorf("clpInitialSolve calls C.Clp_initialSolveWithOptions %d times, want 1", calls)
	}
}
