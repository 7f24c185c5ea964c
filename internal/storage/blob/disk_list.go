package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// List implements Store. It walks only the directories that can hold keys
// with the prefix and after the position, visiting each directory's
// entries in the order their keys sort (a directory d sorts as "d/", so
// "a-b" comes before "a/c", as in S3's byte order).
func (d *Disk) List(ctx context.Context, prefix, after string, limit int) ([]Object, bool, error) {
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	l := &diskLister{d: d, ctx: ctx, prefix: prefix, after: after, limit: limit}
	err := l.walk("")
	if errors.Is(err, errPageFull) {
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	return l.page, l.more, nil
}

var errPageFull = errors.New("page full")

type diskLister struct {
	d             *Disk
	ctx           context.Context
	prefix, after string
	limit         int
	page          []Object
	more          bool
}

// walk lists the directory of keys starting with dir ("" or "a/b/").
func (l *diskLister) walk(dir string) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(l.d.root, filepath.FromSlash(dir)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked
		}
		return fmt.Errorf("blob: unable to list %s: %w", dir, err)
	}
	type entry struct {
		key   string // the key, or the directory's prefix ending in "/"
		isDir bool
	}
	list := make([]entry, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // temporary files and uploads in progress are no blobs
		}
		switch {
		case e.IsDir():
			list = append(list, entry{dir + name + "/", true})
		case e.Type().IsRegular():
			list = append(list, entry{dir + name, false})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	for _, e := range list {
		if e.isDir {
			// Every key under e.key starts with it: descend only when
			// one of them can match the prefix and sort after the
			// position.
			if !strings.HasPrefix(e.key, l.prefix) && !strings.HasPrefix(l.prefix, e.key) {
				continue
			}
			if l.after > e.key && !strings.HasPrefix(l.after, e.key) {
				continue
			}
			if err := l.walk(e.key); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(e.key, l.prefix) || e.key <= l.after || ValidKey(e.key) != nil {
			continue
		}
		st, err := os.Stat(filepath.Join(l.d.root, filepath.FromSlash(e.key)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted while we walked
			}
			return fmt.Errorf("blob: unable to list %s: %w", e.key, err)
		}
		if len(l.page) == l.limit {
			l.more = true
			return errPageFull
		}
		l.page = append(l.page, l.d.object(e.key, st))
	}
	return nil
}
