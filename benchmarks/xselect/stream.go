package xselect

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/xflex/xflex/solver"
	xs "github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/vecpack"
)

// StreamConfig is one realtime-stream comparison (the paper's §3 closing
// experiment): the same stream of container requests served from
// X-Select's pre-packed containers and by online best-fit placement of
// each request into the same nodes (the DRF scheduler's placement step).
type StreamConfig struct {
	Nodes, Apps, Shapes, Resources int
	// Load is the offered load: mean concurrent demand over cluster
	// capacity in the bottleneck resource.
	Load float64
	// Requests is the stream length.
	Requests int
	Seed     int64
}

// StreamResult counts successful requests (served at arrival; no queue).
type StreamResult struct {
	Config   StreamConfig
	Lambda   float64
	Requests int
	XFlex    int // served from a pre-packed container (own, then borrowed)
	XFlexOwn int // of which from the application's own containers
	DRF      int // placed by online best fit
}

// Ratio is X-Flex successes over DRF successes.
func (r StreamResult) Ratio() float64 {
	if r.DRF == 0 {
		return math.Inf(1)
	}
	return float64(r.XFlex) / float64(r.DRF)
}

type departure struct {
	at   float64
	node int // DRF: node; X-Flex: container index
	size []float64
}

type depHeap []departure

func (h depHeap) Len() int           { return len(h) }
func (h depHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h depHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *depHeap) Push(x any)        { *h = append(*h, x.(departure)) }
func (h *depHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// RunStream generates a cluster and forecast, packs it with X-Select, and
// replays one random stream against both systems. Requests follow the
// forecast exactly (application and shape drawn in proportion to the mix
// counts; Poisson arrivals; exponential durations with mean 1), which is
// the paper's "factoring out" of forecast error.
func RunStream(ctx context.Context, cfg StreamConfig) (StreamResult, error) {
	req := xs.GenerateWith(cfg.Seed, xs.GenParams{Nodes: cfg.Nodes, Resources: cfg.Resources, Apps: cfg.Apps, Shapes: cfg.Shapes, Types: 3, MaxCount: 20})
	res, _, err := xs.SolveVariant(ctx, req, solver.Options{Budget: 10 * time.Second, Start: time.Now(), Seed: cfg.Seed}, xs.Variant{})
	if err != nil {
		return StreamResult{}, err
	}
	out := StreamResult{Config: cfg, Lambda: res.Lambda, Requests: cfg.Requests}
	st := &stream{req: req}
	if !st.forecast() {
		return out, fmt.Errorf("stream: empty forecast")
	}
	st.draw(cfg)
	out.XFlex, out.XFlexOwn = st.replayXFlex(res)
	out.DRF = st.replayBestFit()
	return out, nil
}

// streamKind is a request's application and shape.
type streamKind struct{ app, shape int }

// arrival is one request of the stream.
type arrival struct {
	at, dur float64
	k       streamKind
}

// stream is one replay: the request, the forecast as a discrete
// distribution over (app, shape), the cluster's capacity and the drawn
// arrivals.
type stream struct {
	req      *xs.Request
	kinds    []streamKind
	weight   []float64
	total    float64
	capacity []float64
	arrivals []arrival
}

// forecast reads the distribution of requests and the cluster's capacity;
// it reports false when the forecast is empty.
func (st *stream) forecast() bool {
	req := st.req
	for a, app := range req.Apps {
		for s, sh := range req.Shapes {
			if c := app.Mix[sh.Name]; c > 0 {
				st.kinds = append(st.kinds, streamKind{a, s})
				st.weight = append(st.weight, float64(c))
				st.total += float64(c)
			}
		}
	}
	st.capacity = make([]float64, len(req.Resources))
	for _, n := range req.Nodes {
		for r := range st.capacity {
			st.capacity[r] += n.Capacity[r]
		}
	}
	return len(st.kinds) > 0
}

// draw draws the arrivals: Poisson at the rate that offers cfg.Load of the
// bottleneck resource, kinds in proportion to the forecast.
func (st *stream) draw(cfg StreamConfig) {
	mean := make([]float64, len(st.capacity))
	for i, k := range st.kinds {
		for r, x := range st.req.Shapes[k.shape].Size {
			mean[r] += st.weight[i] / st.total * x
		}
	}
	rate := math.Inf(1)
	for r := range mean {
		if mean[r] > 0 {
			rate = math.Min(rate, cfg.Load*st.capacity[r]/mean[r])
		}
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x73747265616d))
	st.arrivals = make([]arrival, cfg.Requests)
	now := 0.0
	for i := range st.arrivals {
		now += rng.ExpFloat64() / rate
		u := rng.Float64() * st.total
		j := 0
		for j < len(st.kinds)-1 && u >= st.weight[j] {
			u -= st.weight[j]
			j++
		}
		st.arrivals[i] = arrival{at: now, dur: rng.ExpFloat64(), k: st.kinds[j]}
	}
}

// xflexPool is X-Flex's pre-packed containers, by kind those idle.
type xflexPool struct {
	st    *stream
	conts []streamKind // each container's app and shape
	idle  map[streamKind][]int
	dx    depHeap
}

// replayXFlex serves the stream from the pre-packed containers of res: own
// first, then borrowed (the smallest fitting container); Garbo
// applications neither lend nor borrow. It returns the requests served,
// and of those the ones served by their own application's containers.
func (st *stream) replayXFlex(res *xs.Result) (served, own int) {
	appIdx, shapeIdx := map[string]int{}, map[string]int{}
	for i, s := range st.req.Shapes {
		shapeIdx[s.Name] = i
	}
	for i, a := range st.req.Apps {
		appIdx[a.Name] = i
	}
	p := &xflexPool{st: st, idle: map[streamKind][]int{}}
	for _, nr := range res.Nodes {
		for _, c := range nr.Containers {
			p.conts = append(p.conts, streamKind{appIdx[c.App], shapeIdx[c.Shape]})
		}
	}
	for i, k := range p.conts {
		p.idle[k] = append(p.idle[k], i)
	}
	for _, a := range st.arrivals {
		p.release(a.at)
		if p.take(a.k, a) {
			served++
			own++
		} else if !st.req.Apps[a.k.app].Garbo && p.borrow(a) {
			served++
		}
	}
	return served, own
}

// release returns the containers of the requests departed by t.
func (p *xflexPool) release(t float64) {
	for p.dx.Len() > 0 && p.dx[0].at <= t {
		d := heap.Pop(&p.dx).(departure)
		k := p.conts[d.node]
		p.idle[k] = append(p.idle[k], d.node)
	}
}

// take serves arrival a from an idle container of kind k, if any.
func (p *xflexPool) take(k streamKind, a arrival) bool {
	l := p.idle[k]
	if len(l) == 0 {
		return false
	}
	i := l[len(l)-1]
	p.idle[k] = l[:len(l)-1]
	heap.Push(&p.dx, departure{at: a.at + a.dur, node: i})
	return true
}

// borrow serves arrival a from the smallest idle container of another
// kind that fits its shape (ties by app, shape), not of a Garbo app.
func (p *xflexPool) borrow(a arrival) bool {
	req := p.st.req
	best, bestSize := streamKind{-1, -1}, math.Inf(1)
	for k, l := range p.idle {
		if len(l) == 0 || req.Apps[k.app].Garbo || !p.st.within(a.k.shape, k.shape) {
			continue
		}
		sz := p.st.norm(k.shape)
		if sz < bestSize || (sz == bestSize && (k.app < best.app || k.app == best.app && k.shape < best.shape)) {
			best, bestSize = k, sz
		}
	}
	return best.app >= 0 && p.take(best, a)
}

// within reports whether shape small is nowhere larger than shape big.
func (st *stream) within(small, big int) bool {
	for r, x := range st.req.Shapes[small].Size {
		if x > st.req.Shapes[big].Size[r] {
			return false
		}
	}
	return true
}

// norm is shape s's size normalised by the cluster's capacity, summed.
func (st *stream) norm(s int) float64 {
	v := 0.0
	for r, x := range st.req.Shapes[s].Size {
		v += x / st.capacity[r]
	}
	return v
}

// replayBestFit serves the stream by online best fit: each request's shape
// goes to the node where it leaves the least normalised free capacity;
// ties by node index. It returns the requests served.
func (st *stream) replayBestFit() int {
	req := st.req
	free := make([][]float64, len(req.Nodes))
	for n, node := range req.Nodes {
		free[n] = append([]float64(nil), node.Capacity...)
		if node.Reserved != nil {
			for r := range free[n] {
				free[n][r] -= node.Reserved[r]
			}
		}
	}
	served := 0
	var dd depHeap
	for _, a := range st.arrivals {
		for dd.Len() > 0 && dd[0].at <= a.at {
			d := heap.Pop(&dd).(departure)
			for r, x := range d.size {
				free[d.node][r] += x
			}
		}
		size := req.Shapes[a.k.shape].Size
		best := st.bestFit(free, size)
		if best < 0 {
			continue
		}
		for r, x := range size {
			free[best][r] -= x
		}
		served++
		heap.Push(&dd, departure{at: a.at + a.dur, node: best, size: size})
	}
	return served
}

// bestFit is the node where size leaves the least normalised free
// capacity (ties by index), or -1 when it fits none.
func (st *stream) bestFit(free [][]float64, size []float64) int {
	best, bestLeft := -1, math.Inf(1)
	for n := range free {
		if !vecpack.Fits(size, free[n]) {
			continue
		}
		left := 0.0
		for r, x := range size {
			left += (free[n][r] - x) / st.capacity[r]
		}
		if left < bestLeft {
			best, bestLeft = n, left
		}
	}
	return best
}
