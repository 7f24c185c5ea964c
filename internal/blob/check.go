package blob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Checker is a Store that can tell whether it works (the system scope's
// storage manager status).
type Checker interface {
	Check(ctx context.Context) error
}

// Check writes and removes a probe file: the directory exists, is writable
// and has room for a file.
func (d *Disk) Check(context.Context) error {
	f, err := os.CreateTemp(d.root, ".probe-*")
	if err != nil {
		return fmt.Errorf("files cannot be written under %s", d.root)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("files cannot be removed under %s", filepath.Dir(name))
	}
	return nil
}
