package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
)

// AdminURL returns DATABASE_URL, the server the test databases are made on; it
// must let its user create databases.
func AdminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		t.Fatal("DATABASE_URL is not set: run `make test`")
	}
	return u
}

// withDBName points a lib/pq connection string, URL or key=value form, at
// database name.
func withDBName(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			u.Path = "/" + name
			u.RawPath = ""
			return u.String()
		}
	}
	// In key=value form the last setting of a key wins.
	return fmt.Sprintf("%s dbname='%s'", dsn, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(name))
}
