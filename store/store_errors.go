package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/loupe-mam/loupe"
)

// notFoundOr turns "no rows" into ENOTFOUND and wraps anything else.
func notFoundOr(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return loupe.NotFound()
	}
	return fmt.Errorf(format, append(args, err)...)
}

// oneRow answers ENOTFOUND unless a write touched a row.
func oneRow(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n == 0 {
		return loupe.NotFound()
	}
	return nil
}

// sqlResult is what a write answers.
type sqlResult = sql.Result
