package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// The hand-written scans (store_scan.go) read what sqlx's mapping of columns to
// fields by name reads, for every query that uses them: rows with every
// column set and rows with nulls.
func TestScansReadWhatSqlxReads(t *testing.T) {
	ctx := context.Background()
	db, err := Open(DSN(pgtest.DB(t)), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db)
	ten, err := s.CreateTenant(ctx, "scan", "admin@scan.test", NewKey{ID: "0123456789abcdef0123456789abcdef", SecretHash: []byte("h"), Label: "k"})
	if err != nil {
		t.Fatal(err)
	}
	p := &loupe.Principal{TenantID: ten.TenantID, UserID: ten.UserID, IsAdmin: true}
	str := func(v string) *string { return &v }
	folder, err := s.CreateItem(ctx, p, &loupe.CreateItemInput{Title: str("Reel"), ItemType: "folder"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.CreateItem(ctx, p, &loupe.CreateItemInput{Title: str("Full"), ItemType: "video", FolderParents: []string{folder.ID, ten.ArchiveFolder},
		OriginalFileName: str("a.mov"), ExternalID: str("ext-1"), LanguageCode: str("en"), MediaType: str("video/mp4"),
		Metadata: &loupe.ItemMetadataInput{FormData: loupe.JSON(`{"default_description": "d"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := s.CreateItem(ctx, p, &loupe.CreateItemInput{Title: str("Bare"), ItemType: "image", FolderParents: []string{folder.ID}})
	if err != nil {
		t.Fatal(err)
	}
	// Every column set, and neighbours of one type told apart (distinct
	// times, alternating booleans), so that a scan in the wrong order fails.
	if _, err := db.Exec(`UPDATE items SET media = '{"proxy": "p"}', media_size = 42, frame_count = 7,
		technical_metadata = '{"fps": 25}', geo_location = '{"lat": 1}', custom_icons = '{"pos1": "star"}',
		media_usage = '{"a": 1}', upload_lock_owner = 'i-1', metadata_version = 3, transcoding_state = 'done',
		modified_on = created_on + interval '1 minute', media_created_on = created_on - interval '1 day',
		archived_on = created_on + interval '2 minutes', upload_locked_on = created_on + interval '3 minutes',
		transcript_last_updated = created_on + interval '4 minutes',
		transcription_enabled = true, translation_enabled = false, celebrity_detection_enabled = true,
		label_detection_enabled = false, person_detection_enabled = true, text_detection_enabled = false,
		create_unknown_persons = true, has_relations = false, has_attachments = true
		WHERE tenant_id = $1 AND id = $2`, ten.TenantID, full.ID); err != nil {
		t.Fatal(err)
	}
	c, err := s.CreateComment(ctx, p, &loupe.CreateCommentInput{ItemID: full.ID, Text: "first",
		Assignee: &loupe.UserRefInput{Type: str("user"), ID: ten.UserID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateComment(ctx, p, &loupe.CreateCommentInput{ItemID: full.ID, Text: "reply", ParentID: &c.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE comments SET modified_on = created_on + interval '1 minute', text_edited_on = created_on + interval '2 minutes',
		assigned_on = created_on + interval '3 minutes', resolved = true WHERE tenant_id = $1 AND id = $2`, ten.TenantID, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO comment_reactions (tenant_id, comment_id, user_id, reaction, created_on) VALUES ($1, $2, $3, 'ok', now())`,
		ten.TenantID, c.ID, ten.UserID); err != nil {
		t.Fatal(err)
	}

	ids := stringArray([]string{full.ID, bare.ID, folder.ID})
	acl := []any{p.UserID, aclTokens(p)}
	lean, whole := ItemQuery{FolderID: folder.ID, First: 10, Lean: true}, ItemQuery{FolderID: folder.ID, First: 10}
	leanSQL, leanArgs := lean.sql(false, p)
	wholeSQL, wholeArgs := whole.sql(false, p)
	check := func(name string, viaSqlx any, scanned func() (any, error), rows int) {
		t.Run(name, func(t *testing.T) {
			got, err := scanned()
			if err != nil {
				t.Fatal(err)
			}
			if n := reflect.ValueOf(got).Len(); n != rows {
				t.Fatalf("%d rows, want %d", n, rows)
			}
			if !reflect.DeepEqual(got, reflect.ValueOf(viaSqlx).Elem().Interface()) {
				t.Fatalf("hand scan\n %s\nsqlx\n %s", dump(got), dump(viaSqlx))
			}
		})
	}
	sqlxRows := func(dest any, query string, args ...any) any {
		t.Helper()
		if err := s.selectPrepared(ctx, dest, query, args...); err != nil {
			t.Fatal(err)
		}
		return dest
	}
	args := func(a ...any) []any { return a }
	check("items by ids", sqlxRows(&[]*Item{}, itemsByIDsSQL, append(args(p.TenantID, ids), acl...)...), func() (any, error) {
		return selectScanned(ctx, s, itemDests(false), itemsByIDsSQL, append(args(p.TenantID, ids), acl...)...)
	}, 3)
	check("lean items by ids", sqlxRows(&[]*Item{}, itemsByIDsLeanSQL, append(args(p.TenantID, ids), acl...)...), func() (any, error) {
		return selectScanned(ctx, s, itemDests(true), itemsByIDsLeanSQL, append(args(p.TenantID, ids), acl...)...)
	}, 3)
	check("a folder's items", sqlxRows(&[]*Item{}, wholeSQL, wholeArgs...), func() (any, error) {
		return selectScanned(ctx, s, itemDests(false), wholeSQL, wholeArgs...)
	}, 2)
	check("a folder's lean items", sqlxRows(&[]*Item{}, leanSQL, leanArgs...), func() (any, error) {
		return selectScanned(ctx, s, itemDests(true), leanSQL, leanArgs...)
	}, 2)
	for newest := range 2 {
		for whole, dests := range []func(*Comment) []any{(*Comment).bareDests, (*Comment).dests} {
			q := firstCommentsOfItemsSQL[newest][whole]
			check("comments", sqlxRows(&[]*Comment{}, q, p.TenantID, ids, 5), func() (any, error) {
				return selectScanned(ctx, s, dests, q, p.TenantID, ids, 5)
			}, 2)
		}
	}
	check("folders of items", sqlxRows(&[]*folderLinks{}, foldersOfItemsSQL, append(args(p.TenantID, ids), acl...)...), func() (any, error) {
		return selectScanned(ctx, s, (*folderLinks).dests, foldersOfItemsSQL, append(args(p.TenantID, ids), acl...)...)
	}, 2)
	t.Run("one item", func(t *testing.T) {
		var want Item
		if err := s.getPrepared(ctx, &want, visibleItemByIDSQL, p.TenantID, full.ID, p.UserID, aclTokens(p)); err != nil {
			t.Fatal(err)
		}
		if err := decodeMedia(&want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Item(ctx, p, full.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("hand scan\n %s\nsqlx\n %s", dump(got), dump(&want))
		}
		if _, err := s.Item(ctx, p, "01234567-0123-7123-8123-0123456789ab"); loupe.ErrorKind(err) != loupe.ENOTFOUND {
			t.Fatalf("a missing item: %v", err)
		}
	})
}

func dump(v any) string {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Slice {
		return fmt.Sprintf("%+v", rv.Interface())
	}
	out := ""
	for i := range rv.Len() {
		out += dump(rv.Index(i).Interface()) + "\n "
	}
	return out
}
