package jobs

import (
	"context"
	"database/sql"
	"time"
)

// The replica's background loops: the janitor, which removes expired jobs,
// and the rescuer, which requeues the solves of dead workers.

// janitor removes expired jobs every interval until ctx ends.
func (s *Service) janitor(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.st.deleteExpired(ctx, s.now()); err != nil {
			if ctx.Err() == nil {
				s.log.Warn().Err(err).Msg("remove expired jobs")
			}
		} else if n > 0 {
			s.log.Info().Int64("jobs", n).Msg("removed expired jobs")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// rescuer requeues, every interval until ctx ends, the running solves
// whose worker stopped renewing its heartbeat: its process died. Every
// replica runs one; see rescueTx for why that is safe.
func (s *Service) rescuer(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := s.rescue(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn().Err(err).Msg("rescue jobs of dead workers")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// rescue requeues the stalled solves, each under a new River job that any
// replica's workers fetch at once. River's own rescuer would wait for
// --max-budget + --job-rescue-grace and for a live leader; the dead
// worker's River job, if River rescues it later, is then ignored by work.
func (s *Service) rescue(ctx context.Context) error {
	var rescued []record
	err := s.st.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		rescued, err = s.st.rescueTx(ctx, tx, s.cfg.HeartbeatTimeout)
		if err != nil || len(rescued) == 0 {
			return err
		}
		ids := make([]string, len(rescued))
		for i, r := range rescued {
			ids[i] = r.ID
		}
		return s.queueTx(ctx, tx, ids)
	})
	if err != nil {
		return err
	}
	s.metrics.rescues.Add(float64(len(rescued)))
	if len(rescued) > 0 {
		s.changed.notify()
	}
	for _, r := range rescued {
		s.log.Warn().Str("job", r.ID).Int("attempts", r.Attempts).Dur("heartbeat_timeout", s.cfg.HeartbeatTimeout).
			Int64("heartbeat_timeout_ms", s.cfg.HeartbeatTimeout.Milliseconds()).Msg("running job lost its worker (no heartbeat): requeued")
	}
	return nil
}
