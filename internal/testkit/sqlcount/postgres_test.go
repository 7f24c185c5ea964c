package sqlcount_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/internal/testkit/sqlcount"
)

// Against a real server: the counts, and that lib/pq still works through
// the wrapper (arrays, COPY, cancellation, transaction options).
func TestCountPostgres(t *testing.T) {
	t.Parallel()
	var c sqlcount.Counter
	db := sqlcount.Open(pgtest.DB(t), &c)
	defer db.Close()
	ctx := context.Background()

	step := func(name string, want int64, f func() error) {
		t.Helper()
		c.Reset()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := c.Count(); got != want {
			t.Errorf("%s: %d statements counted, want %d", name, got, want)
		}
	}

	step("ping", 0, func() error { return db.PingContext(ctx) })
	step("exec without args", 1, func() error {
		_, err := db.ExecContext(ctx, "CREATE TABLE t (id int PRIMARY KEY, tags text[])")
		return err
	})
	step("exec with args", 1, func() error {
		_, err := db.ExecContext(ctx, "INSERT INTO t VALUES ($1, $2)", 1, pq.Array([]string{"a", "b"}))
		return err
	})
	step("query row", 1, func() error {
		var tags []string
		if err := db.QueryRowContext(ctx, "SELECT tags FROM t WHERE id = $1", 1).Scan(pq.Array(&tags)); err != nil {
			return err
		}
		if len(tags) != 2 || tags[1] != "b" {
			return errors.New("wrong tags")
		}
		return nil
	})
	step("prepared statement executed three times", 3, func() error {
		st, err := db.PrepareContext(ctx, "INSERT INTO t (id) VALUES ($1)")
		if err != nil {
			return err
		}
		defer st.Close()
		for id := 2; id <= 4; id++ {
			if _, err := st.ExecContext(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
	step("transaction with two statements", 2, func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "UPDATE t SET tags = '{}' WHERE id = 2"); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			return err
		}
		return tx.Commit()
	})
	step("read-only transaction refuses writes", 1, func() error {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		_, err = tx.ExecContext(ctx, "DELETE FROM t")
		var pqErr *pq.Error
		if !errors.As(err, &pqErr) || pqErr.Code != "25006" {
			return errors.New("DELETE in a read-only transaction: want read_only_sql_transaction, got " + errString(err))
		}
		return nil
	})
	step("a failing statement was still sent", 1, func() error {
		if _, err := db.ExecContext(ctx, "SELECT * FROM no_such_table"); err == nil {
			return errors.New("no error")
		}
		return nil
	})
	step("COPY of three rows is one statement", 1, func() error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		st, err := tx.Prepare(pq.CopyIn("t", "id"))
		if err != nil {
			return err
		}
		for id := 10; id < 13; id++ {
			if _, err := st.Exec(id); err != nil {
				return err
			}
		}
		if _, err := st.Exec(); err != nil {
			return err
		}
		if err := st.Close(); err != nil {
			return err
		}
		return tx.Commit()
	})
	step("cancelled query, then the pool still works", 2, func() error {
		qctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := db.ExecContext(qctx, "SELECT pg_sleep(5)"); err == nil {
			return errors.New("pg_sleep was not cancelled")
		}
		var n int
		return db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n)
	})
}

// Counters of separate pools are independent, and one pool is safe to count
// from many goroutines (run with -race).
func TestCountConcurrent(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	var a, b sqlcount.Counter
	dbA, dbB := sqlcount.Open(url, &a), sqlcount.Open(url, &b)
	defer dbA.Close()
	defer dbB.Close()
	done := make(chan error)
	for range 10 {
		go func() {
			var one int
			done <- dbA.QueryRow("SELECT 1").Scan(&one)
		}()
	}
	for range 10 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if a.Count() != 10 || b.Count() != 0 {
		t.Fatalf("counts %d and %d, want 10 and 0", a.Count(), b.Count())
	}
}

func TestOpenBadDSN(t *testing.T) {
	db := sqlcount.Open("postgres://%zz", nil)
	defer db.Close()
	if err := db.Ping(); err == nil {
		t.Fatal("Ping with a bad DSN succeeded")
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
