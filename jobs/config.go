package jobs

import (
	"flag"
	"runtime"
	"time"
)

// The job service's configuration: Config, its defaults, and the flags of
// `xflex serve` that fill it.

// DefaultStore is the --store default: a SQLite file in the working
// directory.
const DefaultStore = "sqlite:xflex.db"

// Config configures the job service. Zero values take the defaults below.
type Config struct {
	// Store is "sqlite:PATH" or a postgres:// (postgresql://) URL.
	Store string
	// Retention is how long a finished job and its result are kept.
	Retention time.Duration
	// Workers is how many solves this replica runs at once.
	Workers int
	// MaxRunningPerClient caps a tenant's simultaneously running solves
	// (a scenario's variants count one each); further solves wait. (The
	// name predates tenants: jobs were then counted per X-Client-Id.)
	MaxRunningPerClient int
	// MaxQueuedPerClient caps a tenant's waiting jobs: a submission is
	// refused with 429 when the tenant already has MaxRunningPerClient +
	// MaxQueuedPerClient jobs queued or running.
	MaxQueuedPerClient int
	// MaxBytesPerTenant caps the bytes a tenant's jobs keep in the store
	// (inputs, scenario variants and results) until retention removes
	// them: a submission that would pass it is refused with 429.
	MaxBytesPerTenant int64
	// MaxQueued caps every tenant's jobs queued or running together: a
	// submission beyond it is refused with 429.
	MaxQueued int
	// MaxVariants caps a scenario's variants (the base not counted).
	MaxVariants int
	// HeartbeatTimeout is how long a running solve's worker may go without
	// renewing its heartbeat (it does so every progressEvery) before the
	// job is taken as abandoned by a dead process and requeued.
	HeartbeatTimeout time.Duration
	// RescueGrace is added to the longest possible solve (the runner's
	// maximum budget) for River's own rescuer, the backstop for a River
	// job whose process died before it claimed its xflex_job row.
	RescueGrace time.Duration
	// PollInterval is how often idle workers look for new jobs and running
	// jobs look for cancellation requests from other replicas.
	PollInterval time.Duration
	// MemoryBytes is the memory budget of this replica's job solves
	// together: each reserves its problem's estimate before it starts and
	// waits, running, while that is not free (jobMemory, docs/MEMORY.md).
	MemoryBytes int64
	// StoreMinFree is the free space a SQLite store's file system must
	// have for /readyz to say ready (storefault.go).
	StoreMinFree int64
	// AllowEmptyStore lets a SQLite store path name an existing 0-byte
	// file, initialised as a new store; otherwise it is refused.
	AllowEmptyStore bool
}

// Defaults.
const (
	DefaultRetention           = 24 * time.Hour
	DefaultMaxRunningPerClient = 4
	DefaultMaxQueuedPerClient  = 100
	// DefaultMaxBytesPerTenant is 8 of the largest submissions
	// (maxScenarioBytes), or some hundred typical ones with their results:
	// one tenant cannot fill the store's disk (issue 16 saw 813 MB from
	// one caller rotating X-Client-Id).
	DefaultMaxBytesPerTenant = 512 << 20
	// DefaultMaxQueued lets ten tenants fill their default queues.
	DefaultMaxQueued    = 10 * (DefaultMaxRunningPerClient + DefaultMaxQueuedPerClient)
	DefaultMaxVariants  = 32
	DefaultRescueGrace  = 30 * time.Second
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMemoryBytes is the HTTP API's default in-flight budget
	// (httpapi.Config.MaxInflightBytes); `xflex serve` passes its
	// --max-inflight-bytes instead when --job-memory-bytes is 0.
	DefaultMemoryBytes = 512 << 20
	// DefaultHeartbeatTimeout is 40 missed heartbeats: far above a busy
	// store's write latency, so a live worker is not taken for dead, and
	// with the rescue interval (a fifth of it) well inside the 30 s after
	// its budget within which a crashed job must be requeued (issue 15).
	DefaultHeartbeatTimeout = 10 * time.Second
	// minHeartbeatTimeout keeps a timeout several heartbeats long.
	minHeartbeatTimeout = 4 * progressEvery
	// noBudgetCapRescue is the rescue delay when the runner has no maximum
	// budget: the schema's largest budget_ms (one day).
	noBudgetCapRescue = 24 * time.Hour
)

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	if c.Store == "" {
		c.Store = DefaultStore
	}
	orDefault(&c.Retention, DefaultRetention)
	orDefault(&c.Workers, runtime.NumCPU())
	orDefault(&c.MaxRunningPerClient, DefaultMaxRunningPerClient)
	orDefault(&c.MaxQueuedPerClient, DefaultMaxQueuedPerClient)
	orDefault(&c.MaxBytesPerTenant, DefaultMaxBytesPerTenant)
	orDefault(&c.MaxQueued, DefaultMaxQueued)
	orDefault(&c.MaxVariants, DefaultMaxVariants)
	orDefault(&c.RescueGrace, DefaultRescueGrace)
	orDefault(&c.HeartbeatTimeout, DefaultHeartbeatTimeout)
	orDefault(&c.PollInterval, DefaultPollInterval)
	orDefault(&c.MemoryBytes, DefaultMemoryBytes)
	orDefault(&c.StoreMinFree, DefaultStoreMinFree)
	return c
}

// orDefault sets *v to def when it is zero or negative (unset).
func orDefault[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Flags registers the job flags of `xflex serve` (--store and the --job-*
// knobs) on fs and returns the Config they fill.
func Flags(fs *flag.FlagSet) *Config {
	c := &Config{}
	fs.StringVar(&c.Store, "store", DefaultStore, "job store: sqlite:PATH or a postgres:// URL")
	fs.DurationVar(&c.Retention, "job-retention", DefaultRetention, "how long finished jobs and results are kept")
	fs.IntVar(&c.Workers, "job-workers", 0, "simultaneous job solves on this replica (0: number of CPUs)")
	fs.IntVar(&c.MaxRunningPerClient, "job-tenant-running", DefaultMaxRunningPerClient, "running solves per tenant")
	fs.IntVar(&c.MaxQueuedPerClient, "job-tenant-queue", DefaultMaxQueuedPerClient, "queued jobs per tenant beyond the running ones (429 beyond)")
	// The names from before tenants, kept so existing command lines work.
	fs.IntVar(&c.MaxRunningPerClient, "job-client-running", DefaultMaxRunningPerClient, "old name of --job-tenant-running")
	fs.IntVar(&c.MaxQueuedPerClient, "job-client-queue", DefaultMaxQueuedPerClient, "old name of --job-tenant-queue")
	fs.Int64Var(&c.MaxBytesPerTenant, "job-tenant-bytes", DefaultMaxBytesPerTenant, "bytes of inputs and results a tenant's jobs may keep in the store (429 beyond)")
	fs.IntVar(&c.MaxQueued, "job-queue", DefaultMaxQueued, "jobs queued or running across all tenants (429 beyond)")
	fs.IntVar(&c.MaxVariants, "job-max-variants", DefaultMaxVariants, "variants per scenario job")
	fs.DurationVar(&c.HeartbeatTimeout, "job-heartbeat-timeout", DefaultHeartbeatTimeout, "a running job whose worker has not renewed its heartbeat for this long is requeued (its process died)")
	fs.DurationVar(&c.RescueGrace, "job-rescue-grace", DefaultRescueGrace, "added to --max-budget before River requeues a job fetched by a process that died before starting it")
	fs.DurationVar(&c.PollInterval, "job-poll", DefaultPollInterval, "how often workers poll for jobs and cancellations")
	fs.Int64Var(&c.MemoryBytes, "job-memory-bytes", 0, "memory budget of this replica's job solves together; each reserves its estimate before it starts and waits while that is not free (0: the value of --max-inflight-bytes; docs/MEMORY.md)")
	storeFlags(fs, c)
	return c
}
