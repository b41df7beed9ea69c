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
	R := len(req.Resources)
	shapeIdx := map[string]int{}
	for i, s := range req.Shapes {
		shapeIdx[s.Name] = i
	}
	appIdx := map[string]int{}
	for i, a := range req.Apps {
		appIdx[a.Name] = i
	}
	// The forecast as a discrete distribution over (app, shape).
	type kind struct{ app, shape int }
	var kinds []kind
	var weight []float64
	total := 0.0
	for a, app := range req.Apps {
		for s, sh := range req.Shapes {
			if c := app.Mix[sh.Name]; c > 0 {
				kinds = append(kinds, kind{a, s})
				weight = append(weight, float64(c))
				total += float64(c)
			}
		}
	}
	if len(kinds) == 0 {
		return out, fmt.Errorf("stream: empty forecast")
	}
	capacity := make([]float64, R)
	for _, n := range req.Nodes {
		for r := range capacity {
			capacity[r] += n.Capacity[r]
		}
	}
	mean := make([]float64, R)
	for i, k := range kinds {
		for r, x := range req.Shapes[k.shape].Size {
			mean[r] += weight[i] / total * x
		}
	}
	rate := math.Inf(1)
	for r := range mean {
		if mean[r] > 0 {
			rate = math.Min(rate, cfg.Load*capacity[r]/mean[r])
		}
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x73747265616d))
	type arrival struct {
		at, dur float64
		k       kind
	}
	stream := make([]arrival, cfg.Requests)
	now := 0.0
	for i := range stream {
		now += rng.ExpFloat64() / rate
		u := rng.Float64() * total
		j := 0
		for j < len(kinds)-1 && u >= weight[j] {
			u -= weight[j]
			j++
		}
		stream[i] = arrival{at: now, dur: rng.ExpFloat64(), k: kinds[j]}
	}

	// X-Flex: pre-packed containers, own first, then borrowed (same
	// shape, then the smallest larger container); Garbo applications
	// neither lend nor borrow.
	type container struct{ app, shape int }
	var conts []container
	for _, nr := range res.Nodes {
		for _, c := range nr.Containers {
			conts = append(conts, container{appIdx[c.App], shapeIdx[c.Shape]})
		}
	}
	idle := map[kind][]int{}
	for i, c := range conts {
		k := kind{c.app, c.shape}
		idle[k] = append(idle[k], i)
	}
	norm := func(s int) float64 {
		v := 0.0
		for r, x := range req.Shapes[s].Size {
			v += x / capacity[r]
		}
		return v
	}
	fits := func(small, big int) bool {
		for r, x := range req.Shapes[small].Size {
			if x > req.Shapes[big].Size[r] {
				return false
			}
		}
		return true
	}
	var dx depHeap
	for _, a := range stream {
		for dx.Len() > 0 && dx[0].at <= a.at {
			d := heap.Pop(&dx).(departure)
			c := conts[d.node]
			idle[kind{c.app, c.shape}] = append(idle[kind{c.app, c.shape}], d.node)
		}
		take := func(k kind) bool {
			l := idle[k]
			if len(l) == 0 {
				return false
			}
			i := l[len(l)-1]
			idle[k] = l[:len(l)-1]
			heap.Push(&dx, departure{at: a.at + a.dur, node: i})
			return true
		}
		if take(a.k) {
			out.XFlex++
			out.XFlexOwn++
			continue
		}
		garbo := req.Apps[a.k.app].Garbo
		served := false
		if !garbo {
			best, bestSize := kind{-1, -1}, math.Inf(1)
			for k, l := range idle {
				if len(l) == 0 || req.Apps[k.app].Garbo || !fits(a.k.shape, k.shape) {
					continue
				}
				sz := norm(k.shape)
				// Smallest fitting container; ties by (app, shape).
				if sz < bestSize || (sz == bestSize && (k.app < best.app || k.app == best.app && k.shape < best.shape)) {
					best, bestSize = k, sz
				}
			}
			if best.app >= 0 {
				served = take(best)
			}
		}
		if served {
			out.XFlex++
		}
	}

	// Online best fit: each request's shape goes to the node where it
	// leaves the least normalised free capacity; ties by node index.
	free := make([][]float64, len(req.Nodes))
	for n, node := range req.Nodes {
		free[n] = append([]float64(nil), node.Capacity...)
		if node.Reserved != nil {
			for r := range free[n] {
				free[n][r] -= node.Reserved[r]
			}
		}
	}
	var dd depHeap
	for _, a := range stream {
		for dd.Len() > 0 && dd[0].at <= a.at {
			d := heap.Pop(&dd).(departure)
			for r, x := range d.size {
				free[d.node][r] += x
			}
		}
		size := req.Shapes[a.k.shape].Size
		best, bestLeft := -1, math.Inf(1)
		for n := range free {
			if !vecpack.Fits(size, free[n]) {
				continue
			}
			left := 0.0
			for r, x := range size {
				left += (free[n][r] - x) / capacity[r]
			}
			if left < bestLeft {
				best, bestLeft = n, left
			}
		}
		if best < 0 {
			continue
		}
		for r, x := range size {
			free[best][r] -= x
		}
		out.DRF++
		heap.Push(&dd, departure{at: a.at + a.dur, node: best, size: size})
	}
	return out, nil
}
