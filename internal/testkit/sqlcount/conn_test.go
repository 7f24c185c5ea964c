package sqlcount

import (
	"database/sql"
	"testing"
)

func TestCountFallbacks(t *testing.T) {
	ops := []struct {
		name string
		run  func(t *testing.T, db *sql.DB)
		want int64
	}{
		{"exec", func(t *testing.T, db *sql.DB) { must(t, exec(db, "UPDATE t SET x = $1", 1)) }, 1},
		{"query", func(t *testing.T, db *sql.DB) {
			rows, err := db.Query("SELECT x FROM t WHERE y = $1", 2)
			must(t, err)
			rows.Close()
		}, 1},
		{"prepared, three executions", func(t *testing.T, db *sql.DB) {
			st, err := db.Prepare("UPDATE t SET x = $1")
			must(t, err)
			defer st.Close()
			for i := range 3 {
				_, err := st.Exec(i)
				must(t, err)
			}
		}, 3},
		{"transaction: statements count, BEGIN/COMMIT don't", func(t *testing.T, db *sql.DB) {
			tx, err := db.Begin()
			must(t, err)
			must(t, exec(tx, "UPDATE t SET x = 1"))
			must(t, exec(tx, "UPDATE t SET x = 2"))
			must(t, tx.Commit())
		}, 2},
		{"COPY: rows feed one statement", func(t *testing.T, db *sql.DB) {
			st, err := db.Prepare("COPY t (x) FROM STDIN")
			must(t, err)
			defer st.Close()
			for i := range 3 {
				_, err := st.Exec(i)
				must(t, err)
			}
			_, err = st.Exec()
			must(t, err)
		}, 1},
		{"ping", func(t *testing.T, db *sql.DB) { must(t, db.Ping()) }, 0},
	}
	for _, conn := range []struct {
		name string
		ctx  bool
	}{{"QueryerContext conn", true}, {"Prepare-only conn", false}} {
		for _, op := range ops {
			t.Run(conn.name+"/"+op.name, func(t *testing.T) {
				var c Counter
				db := sql.OpenDB(wrap(fakeConnector{ctx: conn.ctx}, &c))
				defer db.Close()
				op.run(t, db)
				if got := c.Count(); got != op.want {
					t.Fatalf("Count = %d, want %d", got, op.want)
				}
			})
		}
	}
}

func TestNilCounter(t *testing.T) {
	var c *Counter
	db := sql.OpenDB(wrap(fakeConnector{ctx: true}, c))
	defer db.Close()
	must(t, exec(db, "SELECT 1"))
	c.Reset()
	if c.Count() != 0 {
		t.Fatal("nil Counter counted")
	}
}

func TestIsCopy(t *testing.T) {
	for q, want := range map[string]bool{
		`COPY "items" ("id") FROM STDIN`: true,
		"  copy t from stdin":            true,
		"SELECT 'COPY'":                  false,
		"COP":                            false,
		"":                               false,
	} {
		if got := isCopy(q); got != want {
			t.Errorf("isCopy(%q) = %v, want %v", q, got, want)
		}
	}
}

type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
}

func exec(db execer, q string, args ...any) error {
	_, err := db.Exec(q, args...)
	return err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
