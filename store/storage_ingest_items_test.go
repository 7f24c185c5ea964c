package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// The ingest's bulk path (createItemsBulkTx, its rows in one statement)
// makes the items createItem (one row, createItemSQL) makes from the same
// input: the same columns (but the ids and times), the
// same first version, folder link and create audit record; and refuses the
// same metadata. (media, transcoding_state and media_size are what an
// ingest sets besides: given "none" and an empty media document here, and
// media_size left out.)
func TestBulkItemsEqualCreateItem(t *testing.T) {
	ctx := context.Background()
	db, err := Open(DSN(pgtest.DB(t)), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db)
	ten, err := s.CreateTenant(ctx, "bulk", "admin@bulk.test", NewKey{ID: "0123456789abcdef0123456789abcdef", SecretHash: []byte("h"), Label: "k"})
	if err != nil {
		t.Fatal(err)
	}
	p := &loupe.Principal{TenantID: ten.TenantID, UserID: ten.UserID, Email: "admin@bulk.test", IsAdmin: true}
	str := func(v string) *string { return &v }
	yes := true
	folder, err := s.CreateItem(ctx, p, &loupe.CreateItemInput{Title: str("Reel"), ItemType: "folder"})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	inputs := []loupe.CreateItemInput{
		{Title: str(" Clip "), ItemType: "video", OriginalFileName: str("clip.mp4"), MediaType: str("video/mp4"),
			FolderParents: []string{folder.ID}, TranscriptionEnabled: &yes, TextDetectionEnabled: &yes,
			MediaCreatedOn: &created,
			Metadata:       &loupe.ItemMetadataInput{FormID: str("default"), FormData: loupe.JSON(`{"default_description": "d"}`)}},
		{ItemType: "audio", OriginalFileName: str("take.wav"), LanguageCode: str("de-DE")},
		{Title: str("Refused"), ItemType: "video", Metadata: &loupe.ItemMetadataInput{FormData: loupe.JSON(`{"default_description": 5}`)}},
	}
	for i, in := range inputs {
		one, oneErr := s.CreateItem(ctx, p, &in)
		var ids []string
		var errs []error
		err := s.inTx(ctx, func(tx *sqlx.Tx) error {
			var err error
			in2 := in
			in3 := in
			// Two rows: the bulk statement, not the one-row fast path.
			ids, errs, err = createItemsBulkTx(ctx, tx, p, []*IngestObject{{Input: in2}, {Input: in3}}, "none", now())
			return err
		})
		if err != nil {
			t.Fatalf("input %d: bulk: %v", i, err)
		}
		if (oneErr != nil) != (errs[0] != nil) {
			t.Fatalf("input %d: CreateItem error %v, bulk error %v", i, oneErr, errs[0])
		}
		if oneErr != nil {
			if loupe.ErrorKind(oneErr) != loupe.ErrorKind(errs[0]) {
				t.Fatalf("input %d: error kinds %v, %v", i, oneErr, errs[0])
			}
			continue
		}
		cols := func(id string) map[string]any {
			var row map[string]any
			r := db.QueryRowx(`SELECT to_jsonb(i) - '{id,created_on,modified_on,search,media_size}'::text[] AS j FROM items i WHERE tenant_id = $1 AND id = $2`, p.TenantID, id)
			var j []byte
			if err := r.Scan(&j); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(j, &row); err != nil {
				t.Fatal(err)
			}
			var others struct {
				Versions int    `db:"versions"`
				Version  string `db:"version"`
				Folders  string `db:"folders"`
				Audit    string `db:"audit"`
			}
			if err := db.Get(&others, `SELECT
				(SELECT count(*) FROM item_versions WHERE tenant_id = $1 AND item_id = $2) AS versions,
				(SELECT string_agg(name || created_by, ',') FROM item_versions WHERE tenant_id = $1 AND item_id = $2) AS version,
				(SELECT coalesce(string_agg(folder_id || ':' || position || ':' || child_name || ':' || child_type, ','), '') FROM item_folders WHERE tenant_id = $1 AND item_id = $2) AS folders,
				(SELECT string_agg(action_type || executed_by || email || item_title || mdf_diff::text, ',') FROM audit_records WHERE tenant_id = $1 AND item_id = $2) AS audit`,
				p.TenantID, id); err != nil {
				t.Fatal(err)
			}
			row["_others"] = others
			return row
		}
		got, want := cols(ids[0]), cols(one.ID)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input %d:\nbulk       %v\nCreateItem %v", i, got, want)
		}
	}
}

// BenchmarkIngestPage writes pages of 1,000 new objects (a scan's page):
// the items, their first versions, folder links, create audit records and
// ingested_objects rows in one transaction, processing skipped.
//
//	go run ./cmd/loupe with-postgres -- go test -run '^$' -bench IngestPage ./store/
func BenchmarkIngestPage(b *testing.B) {
	ctx := context.Background()
	db, err := Open(DSN(pgtest.DB(b)), 4)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := New(db)
	ten, err := s.CreateTenant(ctx, "bench", "admin@bench.test", NewKey{ID: "0123456789abcdef0123456789abcdef", SecretHash: []byte("h"), Label: "k"})
	if err != nil {
		b.Fatal(err)
	}
	p := &loupe.Principal{TenantID: ten.TenantID, UserID: ten.UserID, Email: "admin@bench.test", IsAdmin: true}
	folders := map[string]string{}
	mediaType := "video/mp4"
	const page = 1000
	b.ResetTimer()
	for i := range b.N {
		objs := make([]*IngestObject, page)
		for k := range objs {
			key := fmt.Sprintf("in/p%06d/obj%04d.mp4", i, k)
			objs[k] = &IngestObject{Key: key, ETag: "e", Size: 1, ModTime: time.Now(), FolderPath: []string{"Bench"},
				Input: loupe.CreateItemInput{Title: &key, ItemType: "video", MediaType: &mediaType}}
		}
		res, err := s.IngestObjects(ctx, p, IngestSource{Bucket: "bench", SkipProcessing: true}, objs, nil, folders)
		if err != nil {
			b.Fatal(err)
		}
		if res.Created != page {
			b.Fatalf("created %d of %d", res.Created, page)
		}
	}
	b.ReportMetric(float64(b.N*page)/b.Elapsed().Seconds(), "items/s")
}
