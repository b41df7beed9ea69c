package jobs

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// storeFile is the SQLite file of a store as it was opened. A file deleted
// while the server runs stays readable through the open connection but is
// gone for every later process: watchFile puts it back.
type storeFile struct {
	path string
	info os.FileInfo
}

func openedFile(path string) (*storeFile, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("store file: %w", err)
	}
	return &storeFile{path: path, info: info}, nil
}

// watchFile checks every interval, until ctx ends, that the store's path
// still names the file this replica has open, and restores it otherwise.
func (s *Service) watchFile(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.checkFile(ctx); err != nil && ctx.Err() == nil {
			s.log.Error().Err(err).Str("store", s.file.path).Msg("restore deleted job store file")
		}
	}
}

// checkFile restores a deleted store file from the open database (VACUUM
// INTO a new 0600 file at the path) and reopens the connection on it, so
// no job is lost and later writes land in the file the next process
// opens. If the path names another file (another replica sharing the store
// restored it first), it only reopens. It holds the pool's one connection
// throughout, so no write slips in between.
func (s *Service) checkFile(ctx context.Context) error {
	info, err := os.Stat(s.file.path)
	if err == nil && os.SameFile(info, s.file.info) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	restored := false
	if f, err := os.OpenFile(s.file.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		_ = f.Close()
		lit := "'" + strings.ReplaceAll(s.file.path, "'", "''") + "'"
		if _, err := conn.ExecContext(ctx, `VACUUM INTO `+lit); err != nil {
			_ = os.Remove(s.file.path)
			return fmt.Errorf("copy the open store into a new file: %w", err)
		}
		restored = true
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	// Drop the connection to the deleted file: closing it checkpoints its
	// write-ahead log into that file and removes the -wal and -shm files,
	// so the next connection opens the new file cleanly.
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	f, err := openedFile(s.file.path)
	if err != nil {
		return err
	}
	s.file = f
	if restored {
		s.log.Warn().Str("store", s.file.path).
			Msg("job store file was deleted while the server ran: recreated from the open database, no job lost")
	} else {
		s.log.Warn().Str("store", s.file.path).
			Msg("job store file was replaced while the server ran (another replica restored it?): reopened")
	}
	return nil
}

// refuseEmptyStore refuses a sqlite: store path naming an existing 0-byte
// file with no write-ahead log beside it, unless cfg.AllowEmptyStore. An
// xflex store is never that once opened (its tables are written on the
// first start), so such a file was truncated (a full disk, a failed copy
// or restore) or made by hand: opening it silently as a new empty store
// would hide that every job it held is gone. A missing file is created
// with a warning as before (openStore). A 0-byte file whose -wal holds the
// data (a crash before SQLite's first checkpoint) is a store.
func refuseEmptyStore(cfg Config) error {
	if cfg.AllowEmptyStore || !strings.HasPrefix(cfg.Store, "sqlite:") {
		return nil
	}
	path, err := sqlitePath(cfg.Store)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > 0 {
		return nil
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return nil
	}
	return fmt.Errorf("store %s is an empty (0-byte) file, which an xflex store never is once opened: it was truncated "+
		"(a full disk, a failed copy) or made by hand, and any jobs it held are gone; point --store at the right file, "+
		"or give --store-allow-empty to start a new store in it", path)
}
