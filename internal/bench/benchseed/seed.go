package benchseed

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// Seeded is what Seed made.
type Seeded struct {
	TenantID string
	// UserID is the tenant's admin; APIKey is the admin's key (shown once).
	UserID, APIKey string
	// ItemIDs are the media items in creation order; the first
	// BigFolderItems of them sit in BigFolder.
	ItemIDs []string
	// FolderIDs are the seeded folders in creation order (parents before
	// children), BigFolder first; the tenant's archive folder is not among them.
	FolderIDs []string
	BigFolder string
	// BigFolderItems are the items whose first folder is BigFolder, in
	// creation order (a prefix of ItemIDs).
	BigFolderItems []string
	// BusiestItem is the item with the most comments ("" without comments).
	BusiestItem string
	// Took is how long seeding took, ANALYZE included.
	Took time.Duration
}

// itemsPerChunk is the unit of parallel work: one transaction seeds a
// chunk's items with their versions, folder links, comments and audit
// records. A fixed size keeps the data independent of the number of CPUs.
const itemsPerChunk = 25_000

// seedUsers is how many users besides the admin write comments and
// reactions and appear in the audit history.
const seedUsers = 9

// plan is what every phase shares: ids made up front, in creation order,
// so that UUIDv7 order equals created_on order as in a real tenant.
type plan struct {
	spec             Spec
	tenant, admin    string
	users, emails    []string // admin first
	folderIDs        []string
	folderTitles     []string
	folderParent     []int // -1 for a root
	big              int   // index of the big folder, -1 without one
	itemIDs          []string
	hasRelations     []bool
	relations        []relation
	now              time.Time
	foldersFrom      time.Time
	itemsFrom        time.Time
	itemsTo          time.Time // also where comments and relations start
	folderAccessJSON string
}

type relation struct {
	from, to int32
	typ      uint8
}

// Seed creates a tenant (through store.CreateTenant, which also makes its
// admin, API key and archive folder) and fills it as spec says, then
// vacuums and analyzes the tables so that the bench meets a settled
// database: planner statistics in place, visibility maps set (index-only
// scans), and no autovacuum woken by the bulk load mid-run.
//
// Seed runs up to min(NumCPU, 4) transactions at once on db; a pool that
// allows fewer just serialises them.
func Seed(ctx context.Context, db *sql.DB, spec Spec) (*Seeded, error) {
	began := time.Now()
	if err := spec.validate(); err != nil {
		return nil, err
	}
	key, err := auth.NewKey()
	if err != nil {
		return nil, fmt.Errorf("benchseed: %w", err)
	}
	name := spec.TenantName
	if name == "" {
		b := make([]byte, 4)
		rand.Read(b) // never fails
		name = "bench-" + hex.EncodeToString(b)
	}
	// sqlx.NewDb wraps db without touching its pool settings, which are the caller's.
	st := store.New(sqlx.NewDb(db, "postgres"))
	made, err := st.CreateTenant(ctx, name, "admin@"+name+".test", store.NewKey{ID: key.ID, SecretHash: key.Hash, Label: "bench"})
	if err != nil {
		return nil, fmt.Errorf("benchseed: create tenant: %w", err)
	}
	p := newPlan(spec, made.TenantID, made.UserID, name)

	if err := inTx(ctx, db, func(tx *sql.Tx) error { return p.seedUsersAndFolders(ctx, tx) }); err != nil {
		return nil, err
	}
	busiest, err := p.seedChunks(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := inTx(ctx, db, func(tx *sql.Tx) error { return p.seedRelations(ctx, tx) }); err != nil {
		return nil, err
	}
	if !spec.NoSettle {
		if err := Settle(ctx, db); err != nil {
			return nil, err
		}
	}

	out := &Seeded{TenantID: made.TenantID, UserID: made.UserID, APIKey: key.Header,
		ItemIDs: p.itemIDs, FolderIDs: p.folderIDs, Took: time.Since(began)}
	if p.big >= 0 {
		out.BigFolder = p.folderIDs[p.big]
		out.BigFolderItems = p.itemIDs[:min(spec.BigFolderItems, len(p.itemIDs))]
	}
	if busiest >= 0 {
		out.BusiestItem = p.itemIDs[busiest]
	}
	return out, nil
}

// seededTables are the tables a seed writes.
const seededTables = `users, items, item_versions, item_folders, comments, comment_reactions, audit_records,
    item_relations, transcripts, timed_metadata`

// Settle vacuums and analyzes the seeded tables (outside a transaction:
// VACUUM cannot run in one) and waits for their pages to be all-visible;
// Seed does it unless told not to (Spec.NoSettle).
func Settle(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE) `+seededTables); err != nil {
		return fmt.Errorf("benchseed: vacuum analyze: %w", err)
	}
	return settle(ctx, db, seededTables)
}

// settle vacuums until the loaded tables' pages are all-visible, as in a
// database autovacuum has caught up with: otherwise every index-only scan
// (a deep content page) visits the heap for each entry. The vacuum right
// after the load often marks none (relallvisible 0 on item_folders and
// comments; why was not settled — synchronous commits for the load and
// autovacuum off did not change it), a later one does. Up to 20 tries a
// second apart; a seed that does not settle is used as it is.
func settle(ctx context.Context, db *sql.DB, tables string) error {
	for range 20 {
		var behind int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_class
WHERE relname IN ('items', 'item_folders', 'comments') AND relallvisible < relpages * 0.99`).Scan(&behind); err != nil {
			return fmt.Errorf("benchseed: settle: %w", err)
		}
		if behind == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		if _, err := db.ExecContext(ctx, `VACUUM `+tables); err != nil {
			return fmt.Errorf("benchseed: vacuum: %w", err)
		}
	}
	return nil
}

func newPlan(spec Spec, tenant, admin, name string) *plan {
	now := time.Now().UTC().Truncate(time.Microsecond)
	p := &plan{spec: spec, tenant: tenant, admin: admin, big: -1, now: now,
		foldersFrom: now.AddDate(-1, -1, 0), itemsFrom: now.AddDate(-1, 0, 0), itemsTo: now.AddDate(0, 0, -30)}
	p.users, p.emails = []string{admin}, []string{"admin@" + name + ".test"}
	for j := range seedUsers {
		p.users = append(p.users, loupe.NewID())
		p.emails = append(p.emails, strings.ToLower(people[j])+"@"+name+".test")
	}
	p.folderAccessJSON = string(loupe.JSONOf(loupe.TenantAccess()))
	p.planFolders()
	p.itemIDs = make([]string, spec.Items)
	for i := range p.itemIDs {
		p.itemIDs[i] = loupe.NewID()
	}
	p.planRelations()
	return p
}

// planFolders lays out the tree: the big folder and a chain six deep come
// first (so the depth limit is always reached), then each folder goes under
// a random earlier one that is not yet six deep, or is a new root now and
// then. Parents precede children, so ids sort parents first.
func (p *plan) planFolders() {
	n := p.spec.Folders
	r := mrand.New(mrand.NewPCG(1, 1))
	p.folderIDs, p.folderTitles, p.folderParent = make([]string, n), make([]string, n), make([]int, n)
	depth := make([]int, n)
	for f := range n {
		p.folderIDs[f] = loupe.NewID()
		h := mix(uint64(f) ^ 0x666f6c64)
		switch {
		case f == 0 && p.spec.BigFolderItems > 0:
			p.big = 0
			p.folderParent[f] = -1
			p.folderTitles[f] = "Ingest (all footage)"
			continue
		case f <= 6: // the chain: depths 0..5
			p.folderParent[f] = f - 1
			if f == 1 || (f == 0 && p.big < 0) {
				p.folderParent[f] = -1
			}
		case r.IntN(50) == 0:
			p.folderParent[f] = -1
		default:
			for {
				c := 1 + r.IntN(f-1)
				if c != p.big && depth[c] < 5 {
					p.folderParent[f] = c
					break
				}
			}
		}
		if par := p.folderParent[f]; par >= 0 {
			depth[f] = depth[par] + 1
		}
		p.folderTitles[f] = folderName(depth[f], f, h)
	}
}

// planRelations picks distinct (from, type, to) triples up front, so that
// items are copied with has_relations already set: an UPDATE afterwards
// would rewrite most item rows and every index entry pointing at them.
func (p *plan) planRelations() {
	n := p.spec.Items
	p.hasRelations = make([]bool, n)
	if p.spec.Relations == 0 {
		return
	}
	r := mrand.New(mrand.NewPCG(2, 2))
	seen := make(map[uint64]bool, p.spec.Relations)
	p.relations = make([]relation, 0, p.spec.Relations)
	for len(p.relations) < p.spec.Relations {
		a, b, t := r.IntN(n), r.IntN(n), r.IntN(len(relTypes))
		k := uint64(a)<<32 | uint64(b)<<4 | uint64(t)
		if a == b || seen[k] {
			continue
		}
		seen[k] = true
		p.relations = append(p.relations, relation{int32(a), int32(b), uint8(t)})
		p.hasRelations[a], p.hasRelations[b] = true, true
	}
}

func (p *plan) itemCreated(i int) time.Time {
	return spread(p.itemsFrom, p.itemsTo, i, p.spec.Items)
}

// uuidArray is ids as a uuid[] literal: items are copied with the folder
// ids their links give them, so that the trigger keeping them finds nothing
// to change (migration 00016) and leaves no dead row versions behind.
func uuidArray(ids ...string) string { return "{" + strings.Join(ids, ",") + "}" }

var (
	itemCols = []string{"tenant_id", "id", "item_type", "title", "original_file_name", "created_by", "created_on",
		"modified_on", "media_created_on", "media_type", "media_size", "frame_count", "metadata_form_id",
		"metadata_form_data", "has_relations", "owner_id", "visible_to", "updatable_by", "folder_ids",
		"transcript_text", "transcript_last_updated"}
	versionCols = []string{"tenant_id", "item_id", "id", "name", "created_by", "created_on"}
	linkCols    = []string{"tenant_id", "item_id", "folder_id", "position"}
)

// seedUsersAndFolders adds the users and the folder tree with their first
// versions, as createFolder would.
func (p *plan) seedUsersAndFolders(ctx context.Context, tx *sql.Tx) error {
	err := copyRows(ctx, tx, "users", []string{"tenant_id", "id", "email", "is_admin"}, func(emit func(...any) error) error {
		for j := 1; j < len(p.users); j++ {
			if err := emit(p.tenant, p.users[j], p.emails[j], false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	created := func(f int) time.Time { return spread(p.foldersFrom, p.itemsFrom, f, len(p.folderIDs)) }
	err = copyRows(ctx, tx, "items", itemCols, func(emit func(...any) error) error {
		for f, id := range p.folderIDs {
			title := p.folderTitles[f]
			data := string(loupe.JSONOf(map[string]string{"default_title": title}))
			parents := uuidArray()
			if par := p.folderParent[f]; par >= 0 {
				parents = uuidArray(p.folderIDs[par])
			}
			if err := emit(p.tenant, id, "folder", title, "", p.admin, created(f), created(f), nil, nil, nil, nil,
				"default_folder", data, false, p.admin, p.folderAccessJSON, p.folderAccessJSON, parents, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = copyRows(ctx, tx, "item_versions", versionCols, func(emit func(...any) error) error {
		for f, id := range p.folderIDs {
			if err := emit(p.tenant, id, loupe.NewID(), "Version 1", p.admin, created(f)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return copyRows(ctx, tx, "item_folders", linkCols, func(emit func(...any) error) error {
		for f, id := range p.folderIDs {
			if par := p.folderParent[f]; par >= 0 {
				if err := emit(p.tenant, id, p.folderIDs[par], 1); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// seedChunks seeds the items in chunks, several transactions at once, and
// answers the busiest item's index (-1 without comments).
func (p *plan) seedChunks(ctx context.Context, db *sql.DB) (int, error) {
	n := p.spec.Items
	chunks := (n + itemsPerChunk - 1) / itemsPerChunk
	work := make(chan int, chunks)
	for c := range chunks {
		work <- c
	}
	close(work)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		busiest  = -1
		most     = 0
	)
	for range min(runtime.NumCPU(), 4, max(chunks, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				lo, hi := c*itemsPerChunk, min((c+1)*itemsPerChunk, n)
				var top, count int
				err := inTx(ctx, db, func(tx *sql.Tx) error {
					var err error
					top, count, err = p.seedChunk(ctx, tx, c, lo, hi)
					return err
				})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				if count > most {
					busiest, most = top, count
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return busiest, firstErr
}

// share is the part [lo, hi) of total that falls to items [from, to) of n.
func share(total, from, to, n int) (lo, hi int) {
	return int(int64(total) * int64(from) / int64(n)), int(int64(total) * int64(to) / int64(n))
}

// seedChunk seeds items [lo, hi) with their versions, folder links,
// comments, reactions and audit records, and answers the chunk's busiest
// item and its comment count.
func (p *plan) seedChunk(ctx context.Context, tx *sql.Tx, chunk, lo, hi int) (int, int, error) {
	if err := p.copyItems(ctx, tx, chunk, lo, hi); err != nil {
		return 0, 0, err
	}
	top, count, err := p.copyComments(ctx, tx, chunk, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	if err := p.copyAnalysis(ctx, tx, lo, hi); err != nil {
		return 0, 0, err
	}
	return top, count, p.copyAudit(ctx, tx, chunk, lo, hi)
}

// copyAnalysis writes the transcripts and text detection results of the
// chunk's items that have them (Spec.Transcripts, Spec.DetectedTexts).
func (p *plan) copyAnalysis(ctx context.Context, tx *sql.Tx, lo, hi int) error {
	cols := []string{"tenant_id", "item_id", "language_code", "segments", "blob_key", "engine", "updated_on"}
	err := copyRows(ctx, tx, "transcripts", cols, func(emit func(...any) error) error {
		for i := lo; i < hi; i++ {
			if !evenly(i, p.spec.Transcripts, p.spec.Items) {
				continue
			}
			segments, _ := transcript(i)
			key := "transcripts/" + p.itemIDs[i] + "/en-US.json"
			if err := emit(p.tenant, p.itemIDs[i], "en-US", segments, key, "bench", p.itemCreated(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	cols = []string{"tenant_id", "item_id", "id", "start_ms", "end_ms", "form_id", "form_data", "modified_on"}
	return copyRows(ctx, tx, "timed_metadata", cols, func(emit func(...any) error) error {
		for i := lo; i < hi; i++ {
			if !evenly(i, p.spec.DetectedTexts, p.spec.Items) {
				continue
			}
			for _, e := range detectedText(i) {
				if err := emit(p.tenant, p.itemIDs[i], e.id, e.startMs, e.endMs, "default_detected_text", e.data,
					p.itemCreated(i)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// planParents picks the folders of the chunk's items lo..hi: 1–3 each, the
// big folder first for the first BigFolderItems items, then other folders
// (never the big one twice).
func (p *plan) planParents(chunk, lo, hi int) [][]string {
	r := mrand.New(mrand.NewPCG(3, uint64(chunk)))
	others := len(p.folderIDs) - 1
	if p.big < 0 {
		others = len(p.folderIDs)
	}
	otherFolder := func() int {
		f := r.IntN(others)
		if p.big >= 0 {
			f++ // skip index 0, the big folder
		}
		return f
	}
	out := make([][]string, hi-lo)
	for i := lo; i < hi; i++ {
		want := 1
		switch x := r.IntN(10); {
		case x >= 9 && others >= 3:
			want = 3
		case x >= 6 && others >= 2:
			want = 2
		}
		var parents []int
		if i < p.spec.BigFolderItems {
			parents = append(parents, p.big)
		}
	pick:
		for len(parents) < want {
			f := otherFolder()
			for _, q := range parents {
				if q == f {
					continue pick
				}
			}
			parents = append(parents, f)
		}
		for _, f := range parents {
			out[i-lo] = append(out[i-lo], p.folderIDs[f])
		}
	}
	return out
}

func (p *plan) copyItems(ctx context.Context, tx *sql.Tx, chunk, lo, hi int) error {
	parentsOf := p.planParents(chunk, lo, hi)
	err := copyRows(ctx, tx, "items", itemCols, func(emit func(...any) error) error {
		for i := lo; i < hi; i++ {
			k, title, at := kindOf(i), itemTitle(i), p.itemCreated(i)
			h := mix(uint64(i) ^ 0x6d656469)
			var size, frames any
			switch k.itemType {
			case "video":
				secs := 10 + int64(h%1800)
				size, frames = secs*(2<<20), secs*25
			case "audio":
				size = (30 + int64(h%3600)) * 176_400
			case "image":
				size = 500_000 + int64(h%20_000_000)
			default:
				size = 20_000 + int64(h%5_000_000)
			}
			var text, textOn any
			if evenly(i, p.spec.Transcripts, p.spec.Items) {
				_, text = transcript(i)
				textOn = at
			}
			if err := emit(p.tenant, p.itemIDs[i], k.itemType, title, fileName(title, k), p.admin, at, at,
				at.AddDate(0, 0, -int(h%60)), k.mediaType, size, frames, "default", formData(i, title),
				p.hasRelations[i], nil, nil, nil, uuidArray(parentsOf[i-lo]...), text, textOn); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = copyRows(ctx, tx, "item_versions", versionCols, func(emit func(...any) error) error {
		for i := lo; i < hi; i++ {
			if err := emit(p.tenant, p.itemIDs[i], loupe.NewID(), "Version 1", p.admin, p.itemCreated(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The child's name and type are given, so that the fill trigger need
	// not look each item up (migration 00037).
	cols := append(slices.Clip(linkCols), "child_name", "child_type")
	return copyRows(ctx, tx, "item_folders", cols, func(emit func(...any) error) error {
		for i := lo; i < hi; i++ {
			for pos, f := range parentsOf[i-lo] {
				if err := emit(p.tenant, p.itemIDs[i], f, pos+1, itemTitle(i), kindOf(i).itemType); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// copyComments spreads the chunk's share of comments over its items: a
// quarter goes to every 97th item, so some items are busy. A quarter of the
// comments on an item that has a top comment reply to its latest one; 40%
// of those on video and audio carry a timeline context; 15% get 1–3
// reactions.
func (p *plan) copyComments(ctx context.Context, tx *sql.Tx, chunk, lo, hi int) (int, int, error) {
	from, to := share(p.spec.Comments, lo, hi, p.spec.Items)
	if from == to {
		return -1, 0, nil
	}
	r := mrand.New(mrand.NewPCG(4, uint64(chunk)))
	n := hi - lo
	lastTop := make([]int32, n)
	counts := make([]int32, n)
	for j := range lastTop {
		lastTop[j] = -1
	}
	type reaction struct {
		comment string
		user    int
		text    string
		at      time.Time
	}
	var reactions []reaction
	ids := make([]string, 0, to-from)
	cols := []string{"tenant_id", "id", "item_id", "type", "parent_id", "text", "author_id", "assignee_id",
		"assigned_on", "context", "resolved", "created_on", "modified_on"}
	err := copyRows(ctx, tx, "comments", cols, func(emit func(...any) error) error {
		for k := from; k < to; k++ {
			j := r.IntN(n)
			if r.IntN(4) == 0 {
				j = min(97*r.IntN((n+96)/97), n-1)
			}
			counts[j]++
			id, at := loupe.NewID(), spread(p.itemsTo, p.now, k, p.spec.Comments)
			author := r.IntN(len(p.users))
			typ, text := "top", pick(commentTexts, r.Uint64())
			var parent, assignee, assignedOn, timeline any
			if lt := lastTop[j]; lt >= 0 && r.IntN(4) == 0 {
				typ, text, parent = "reply", pick(replyTexts, r.Uint64()), ids[lt]
			} else {
				lastTop[j] = int32(len(ids))
				if r.IntN(20) == 0 {
					assignee, assignedOn = p.users[r.IntN(len(p.users))], at
				}
			}
			if t := kindOf(lo + j).itemType; (t == "video" || t == "audio") && r.IntN(5) < 2 {
				timeline = timelineContext(float64(r.IntN(1200))+0.5, float64(1+r.IntN(30)))
			}
			if err := emit(p.tenant, id, p.itemIDs[lo+j], typ, parent, text, p.users[author], assignee,
				assignedOn, timeline, r.IntN(10) == 0, at, at); err != nil {
				return err
			}
			ids = append(ids, id)
			if r.IntN(100) < 15 {
				first := r.IntN(len(p.users))
				for u := range 1 + r.IntN(3) { // distinct users: the key is (comment, user, reaction)
					reactions = append(reactions, reaction{id, (first + u) % len(p.users),
						pick(reactionSet, r.Uint64()), at.Add(time.Duration(u+1) * time.Minute)})
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	err = copyRows(ctx, tx, "comment_reactions", []string{"tenant_id", "comment_id", "user_id", "reaction", "created_on"},
		func(emit func(...any) error) error {
			for _, x := range reactions {
				if err := emit(p.tenant, x.comment, p.users[x.user], x.text, x.at); err != nil {
					return err
				}
			}
			return nil
		})
	if err != nil {
		return 0, 0, err
	}
	top := 0
	for j, c := range counts {
		if c > counts[top] {
			top = j
		}
	}
	return lo + top, int(counts[top]), nil
}

// copyAudit writes the chunk's share of audit history: 40% create records
// of distinct items, stamped when the item was made by the admin who made
// it, shaped as the API writes them; the rest metadata changes and archive
// toggles by any user in the following weeks.
func (p *plan) copyAudit(ctx context.Context, tx *sql.Tx, chunk, lo, hi int) error {
	from, to := share(p.spec.AuditRecords, lo, hi, p.spec.Items)
	if from == to {
		return nil
	}
	r := mrand.New(mrand.NewPCG(5, uint64(chunk)))
	n, total := hi-lo, to-from
	creates := min(total*2/5, n)
	cols := []string{"tenant_id", "id", "item_id", "action_type", "executed_by", "email", "item_title",
		"executed_on", "mdf_diff"}
	return copyRows(ctx, tx, "audit_records", cols, func(emit func(...any) error) error {
		for k := range total {
			var (
				i      int
				action string
				by     int
				at     time.Time
				diff   any
			)
			if k < creates {
				i = lo + k*n/creates
				action, at = "create", p.itemCreated(i)
				diff = createDiff(formData(i, itemTitle(i)))
			} else {
				i, by = lo+r.IntN(n), r.IntN(len(p.users))
				at = p.itemCreated(i).Add(time.Duration(1+r.IntN(20*24*60)) * time.Minute)
				switch x := r.IntN(10); {
				case x < 7:
					action, diff = "metadataUpdated", metadataDiff(r.Uint64())
				case x < 9:
					action = "archiveInitiated"
				default:
					action = "unarchiveInitiated"
				}
			}
			if err := emit(p.tenant, loupe.NewID(), p.itemIDs[i], action, p.users[by], p.emails[by],
				itemTitle(i), at, diff); err != nil {
				return err
			}
		}
		return nil
	})
}

// seedRelations copies the planned relations, after every item exists
// (both ends are foreign keys, and they span chunks).
func (p *plan) seedRelations(ctx context.Context, tx *sql.Tx) error {
	if len(p.relations) == 0 {
		return nil
	}
	cols := []string{"tenant_id", "item_id", "relation_type", "related_item_id", "created_by", "created_on"}
	return copyRows(ctx, tx, "item_relations", cols, func(emit func(...any) error) error {
		for k, x := range p.relations {
			if err := emit(p.tenant, p.itemIDs[x.from], relTypes[x.typ], p.itemIDs[x.to], p.admin,
				spread(p.itemsTo, p.now, k, len(p.relations))); err != nil {
				return err
			}
		}
		return nil
	})
}
