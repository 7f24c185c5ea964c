// Package benchseed fills a database with one realistic tenant for `loupe
// bench`: media items with metadata in a folder tree, one very large
// folder, comments with replies, reactions and timeline context, audit
// history and relations. Going through the API would take hours at these
// sizes, so rows go straight into Postgres with COPY; the result must read
// back through the API exactly as if it had been made there (the tests
// check that).
package benchseed

import (
	"errors"
	"fmt"
)

// Spec is how much to seed.
type Spec struct {
	// Items is the number of media items (video, audio, image, document),
	// each with default-form metadata, one version and 1–3 folder parents.
	Items int
	// Folders is the number of folders (the big folder included), at most
	// six levels deep.
	Folders int
	// BigFolderItems is how many items sit in one folder (their first
	// parent): the "folder with 100k children". At most Items.
	BigFolderItems int
	// Comments are spread over the items, some items much busier than
	// others; some are replies, some have timeline context or reactions.
	Comments int
	// AuditRecords is the audit history (create, metadata, archive records).
	AuditRecords int
	// Relations are typed relations between distinct items.
	Relations int
	// Transcripts is how many items (spread evenly) have an en-US
	// transcript of a dozen segments, searchable like one the API wrote.
	Transcripts int
	// DetectedTexts is how many items (spread evenly) have text detection
	// results: a few default_detected_text timed metadata entries each.
	DetectedTexts int
	// NoSettle skips the VACUUM and ANALYZE after the load: for many small
	// tenants seeded one after another, settled once at the end.
	NoSettle bool
	// TenantName names the tenant; empty picks a fresh "bench-…" name, so
	// that seeding twice into one database does not collide.
	TenantName string
}

// Quick is a small tenant for tests: seeded in well under a second.
func Quick() Spec {
	return Spec{Items: 600, Folders: 40, BigFolderItems: 400, Comments: 1500, AuditRecords: 400, Relations: 300,
		Transcripts: 30, DetectedTexts: 30}
}

// Scale is the tenant of `loupe-bench --scale` (issue 34): items items with
// the big folder of Full (100k children), the rest in folders of ~100,
// and fewer comments, audit records and relations per item than Full (a
// 10M tenant in the proportions of Full would not fit this machine's disk:
// docs/benchmarks.md), transcripts on 5% of the items and text detection
// results on 5%.
func Scale(items int) Spec {
	return Spec{Items: items, Folders: max(2, items/100), BigFolderItems: min(100_000, items),
		Comments: items / 2, AuditRecords: items / 5, Relations: items / 10,
		Transcripts: items / 20, DetectedTexts: items / 20}
}

// Small is one of the scale run's small tenants.
func Small() Spec {
	return Spec{Items: 200, Folders: 10, BigFolderItems: 0, Comments: 100, AuditRecords: 50, Relations: 20,
		Transcripts: 10, DetectedTexts: 10, NoSettle: true}
}

// Full is the bench's tenant.
func Full() Spec {
	return Spec{Items: 100_000, Folders: 2_000, BigFolderItems: 100_000, Comments: 200_000,
		AuditRecords: 50_000, Relations: 50_000}
}

// validate rejects a spec that cannot be seeded.
func (s Spec) validate() error {
	switch {
	case s.Items < 0 || s.Folders < 0 || s.BigFolderItems < 0 || s.Comments < 0 || s.AuditRecords < 0 || s.Relations < 0:
		return errors.New("benchseed: counts must not be negative")
	case s.BigFolderItems > s.Items:
		return fmt.Errorf("benchseed: BigFolderItems %d exceeds Items %d", s.BigFolderItems, s.Items)
	case s.Items > 0 && s.Folders < 2:
		// The big folder plus at least one other to spread items over.
		return errors.New("benchseed: items need at least 2 folders")
	case s.Transcripts < 0 || s.DetectedTexts < 0 || s.Transcripts > s.Items || s.DetectedTexts > s.Items:
		return errors.New("benchseed: transcripts and detected texts must be between 0 and Items")
	case s.Items > 1<<24:
		return errors.New("benchseed: at most 16M items")
	case (s.Comments > 0 || s.AuditRecords > 0) && s.Items == 0:
		return errors.New("benchseed: comments and audit records need items")
	case s.Relations > 0 && int64(s.Relations) > int64(s.Items)*int64(s.Items-1)/4:
		return fmt.Errorf("benchseed: %d relations are too many for %d items", s.Relations, s.Items)
	}
	return nil
}
