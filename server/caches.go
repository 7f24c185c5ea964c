package server

import (
	"context"
	"database/sql"
	"log/slog"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/coherence"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/store"
)

// cachePool is the connections of the node's cache coherence (its beats,
// its acknowledgements, the writers' waits); its LISTEN has one more.
const cachePool = 3

// startCaches makes the node's caches — API keys and, for creates, forms —
// and the coherence that keeps them strict across nodes
// (internal/coherence; docs/scaling.md, "Several nodes"). It runs until
// ctx ends. Without cfg.DatabaseURL nothing is cached (nil).
func startCaches(ctx context.Context, cfg Config, st *store.Store, logger *slog.Logger) *auth.KeyCache {
	if cfg.DatabaseURL == "" {
		return nil
	}
	dsn := store.DSN(cfg.DatabaseURL)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		// Only a malformed address fails here, and store.Open took it.
		logger.Warn("caches: cannot open their pool; nothing is cached", "err", err)
		return nil
	}
	db.SetMaxOpenConns(cachePool)
	db.SetMaxIdleConns(cachePool)
	id := cfg.InstanceID
	if id == "" {
		id = cfg.Jobs.NodeID
	}
	if id == "" {
		id = upload.NewInstanceID()
	}
	node := coherence.New(db, dsn, id, logger)

	keys := auth.NewKeyCache(st, cfg.KeyCacheSize, node)
	// This node forgets at once what it changes itself; the others when
	// they hear of it, before the change is answered (Sync).
	st.OnAuthChange(keys.InvalidateUser)
	node.Handle(auth.Channel, keys.Notified)
	node.OnReset(keys.Invalidate)

	st.CacheForms(node)
	node.Handle(store.FormsChannel, st.ForgetForms)
	node.OnReset(st.ForgetAllForms)

	st.OnCacheChange(node.Sync)
	go func() {
		node.Run(ctx)
		db.Close()
	}()
	return keys
}
