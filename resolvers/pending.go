package resolvers

import "github.com/loupe-mam/loupe/store"

// errPending marks resolvers whose implementation is being written (removed
// before the work lands).
var errPending = store.Errorf(store.EINTERNAL, "pending")
