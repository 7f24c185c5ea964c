package usage

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/store"
)

// newStore is a store on a fresh database with one tenant and its admin.
func newStore(t *testing.T) (*store.Store, *store.TenantCreated) {
	t.Helper()
	db, err := store.Open(pgtest.DB(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := store.New(db)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	tn, err := st.CreateTenant(context.Background(), "a", "admin@a.test", store.NewKey{ID: k.ID, SecretHash: k.Hash})
	if err != nil {
		t.Fatal(err)
	}
	return st, tn
}

// hourly reads usage_hourly as metric@hour -> count.
func hourly(t *testing.T, st *store.Store) map[string]int64 {
	t.Helper()
	var rows []struct {
		Metric string    `db:"metric"`
		Hour   time.Time `db:"hour"`
		Count  int64     `db:"count"`
	}
	if err := st.DB().Select(&rows, `SELECT metric, hour, count FROM usage_hourly`); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Metric+"@"+r.Hour.UTC().Format(store.HourFormat)] = r.Count
	}
	return out
}

func TestRecorderAggregatesAndWritesInBatches(t *testing.T) {
	st, tn := newStore(t)
	r := New(st, nil)
	r.interval = time.Hour // only explicit flushes here
	clock := time.Date(2026, 2, 3, 10, 59, 0, 0, time.UTC)
	r.now = func() time.Time { return clock }

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				r.Count(tn.TenantID, store.MetricSearchesPerformed, 1)
				r.SeenUser(tn.TenantID, tn.UserID)
			}
		}()
	}
	wg.Wait()
	r.Count(tn.TenantID, store.MetricCommentsCreated, 0) // nothing
	if len(r.seen) != 1 || len(r.users) != 1 || len(r.counts) != 1 {
		t.Fatalf("in memory: %d seen, %d users, %d counts", len(r.seen), len(r.users), len(r.counts))
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The next hour: new counts add to new rows; the user counts again there, once.
	clock = clock.Add(2 * time.Minute)
	r.Count(tn.TenantID, store.MetricSearchesPerformed, 2)
	r.SeenUser(tn.TenantID, tn.UserID)
	r.SeenUser(tn.TenantID, tn.UserID)
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Same hour again: a count adds to its row, a user seen already is not re-sent.
	r.Count(tn.TenantID, store.MetricSearchesPerformed, 3)
	r.SeenUser(tn.TenantID, tn.UserID)
	if len(r.users) != 0 {
		t.Fatalf("a user seen this hour is pending again")
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"searches_performed@2026-02-03-10": 800, "unique_users@2026-02-03-10": 1,
		"searches_performed@2026-02-03-11": 5, "unique_users@2026-02-03-11": 1,
	}
	if got := hourly(t, st); len(got) != len(want) || got["searches_performed@2026-02-03-10"] != 800 ||
		got["searches_performed@2026-02-03-11"] != 5 || got["unique_users@2026-02-03-10"] != 1 || got["unique_users@2026-02-03-11"] != 1 {
		t.Fatalf("usage_hourly %v, want %v", got, want)
	}
}

func TestRecorderFlushesInTheBackground(t *testing.T) {
	st, tn := newStore(t)
	r := New(st, nil)
	r.interval = 20 * time.Millisecond
	r.Count(tn.TenantID, store.MetricCommentsCreated, 2)
	deadline := time.Now().Add(5 * time.Second)
	for hourly(t, st)["comments_created@"+time.Now().UTC().Format(store.HourFormat)] != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no background flush: %v", hourly(t, st))
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Close(context.Background())
	r.Count(tn.TenantID, store.MetricCommentsCreated, 1) // after Close: kept until an explicit flush
	time.Sleep(60 * time.Millisecond)
	if n := len(hourly(t, st)); n != 1 {
		t.Fatalf("a closed recorder flushed by itself: %v", hourly(t, st))
	}
}

func TestRecorderKeepsCountsWhenAWriteFails(t *testing.T) {
	st, tn := newStore(t)
	broken, err := store.Open("postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer broken.Close()
	r := New(store.New(broken), nil)
	r.interval = time.Hour
	r.Count(tn.TenantID, store.MetricCommentsResolved, 4)
	r.SeenUser(tn.TenantID, tn.UserID)
	if err := r.Flush(context.Background()); err == nil {
		t.Fatal("a flush to an unreachable database succeeded")
	}
	r.Count(tn.TenantID, store.MetricCommentsResolved, 1)
	r.st = st // the database is back
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Format(store.HourFormat)
	if got := hourly(t, st); got["comments_resolved@"+hour] != 5 || got["unique_users@"+hour] != 1 {
		t.Fatalf("after the retry: %v", got)
	}
}
