package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// This file is the one way an item row is inserted: CreateItem's item,
// a person, the items of an ingest's page (all in one statement: a page is
// one round trip) and a new tenant's archive folder. One row goes as plain
// values, several as arrays; the columns are written once for both.

// newItemRow is one item to insert: a checked input (CreateItemInput.NewItem)
// and what its maker sets besides.
type newItemRow struct {
	ID string
	In *loupe.CreateItemInput
	*loupe.NewItem
	// Owner, Visible and Updatable are a folder's attributes (nil: NULL,
	// for other items).
	Owner              *string
	Visible, Updatable *loupe.Access
	// Media, State and Size are what an ingest sets (zero: the columns'
	// defaults, {}, none and NULL).
	Media loupe.JSON
	State string
	Size  *int64
}

// itemInsertColumns are the columns an item is inserted with, in the order
// of both statements' values. folder_ids is written here (the folders the
// item goes in, in order), so that the item_folder_ids trigger finds it
// right when the links are inserted and does not rewrite each row once
// more.
const itemInsertColumns = `tenant_id, id, item_type, title, original_file_name, external_id, created_by,
                   created_on, modified_on, media_created_on, media_type,
                   metadata_form_id, metadata_form_data, language_code,
                   transcription_enabled, translation_enabled, celebrity_detection_enabled,
                   label_detection_enabled, person_detection_enabled, text_detection_enabled,
                   create_unknown_persons, owner_id, visible_to, updatable_by,
                   media, transcoding_state, media_size, folder_ids`

// insertItemsSQL inserts the rows of newItemRow, one per array element.
const insertItemsSQL = `
INSERT INTO items (` + itemInsertColumns + `)
SELECT $1, r.id, r.item_type, r.title, r.file_name, r.external_id, $2, $3, $3, r.media_created::timestamptz, r.media_type,
       r.form_id, r.form_data::jsonb, r.lang, r.tr, r.tl, r.ce, r.la, r.pe, r.te, r.un,
       r.owner, r.visible::jsonb, r.updatable::jsonb, r.media::jsonb, r.state, r.size, r.folders::uuid[]
FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
            $11::text[], $12::text[], $13::text[],
            $14::bool[], $15::bool[], $16::bool[], $17::bool[], $18::bool[], $19::bool[], $20::bool[],
            $21::uuid[], $22::text[], $23::text[], $24::text[], $25::text[], $26::bigint[], $27::text[])
     AS r(id, item_type, title, file_name, external_id, media_created, media_type,
          form_id, form_data, lang, tr, tl, ce, la, pe, te, un,
          owner, visible, updatable, media, state, size, folders)`

// insertItemSQL is insertItemsSQL for one row, its values in the same
// places: the fast path of CreateItem (store_test holds the two equal).
// It writes the item's itemCreation event ($28 its data) in the same
// statement: a POST of an item pays no round trip for its event.
const insertItemSQL = `
WITH inserted AS (
    INSERT INTO items (` + itemInsertColumns + `)
    VALUES ($1, $4::uuid, $5, $6, $7, $8, $2, $3, $3, $9::timestamptz, $10,
            $11, $12::jsonb, $13, $14, $15, $16, $17, $18, $19, $20,
            $21::uuid, $22::jsonb, $23::jsonb, $24::jsonb, $25, $26, $27::uuid[])
    RETURNING id)
INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
SELECT $1, 'itemCreation', id, $2, $3, $28::jsonb FROM inserted`

// insertItemsTx inserts rows as items of the tenant made by userID at at,
// in one statement. Returns the driver's error (a unique violation for an
// externalId in use) for the caller to name.
func insertItemsTx(ctx context.Context, tx *sqlx.Tx, tenantID, userID string, at time.Time, rows []*newItemRow) error {
	n := len(rows)
	var (
		ids, types, titles, files, forms, formData, langs, media, states, folders = make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		externalIDs, mediaTypes, owners, visible, updatable = make([]*string, n), make([]*string, n),
			make([]*string, n), make([]*string, n), make([]*string, n)
		mediaCreated               = make([]*string, n)
		sizes                      = make([]*int64, n)
		tr, tl, ce, la, pe, te, un = make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n),
			make([]bool, n), make([]bool, n), make([]bool, n)
	)
	for i, r := range rows {
		in := r.In
		ids[i], types[i], titles[i], files[i] = r.ID, in.ItemType, r.Title, r.FileName
		forms[i], formData[i], langs[i] = r.FormID, string(loupe.JSONOf(r.FormData)), r.Language
		externalIDs[i], mediaTypes[i] = in.ExternalID, in.MediaType
		if t := in.MediaCreatedOn; t != nil {
			mediaCreated[i] = ptr(t.UTC().Format(time.RFC3339Nano))
		}
		tr[i], tl[i], ce[i] = isTrue(in.TranscriptionEnabled), isTrue(in.TranslationEnabled), isTrue(in.CelebrityDetectionEnabled)
		la[i], pe[i], te[i] = isTrue(in.LabelDetectionEnabled), isTrue(in.PersonDetectionEnabled), isTrue(in.TextDetectionEnabled)
		un[i] = isTrue(in.CreateUnknownPersons)
		owners[i], visible[i], updatable[i] = r.Owner, accessJSON(r.Visible), accessJSON(r.Updatable)
		media[i], states[i], sizes[i] = "{}", "none", r.Size
		if !r.Media.IsNull() {
			media[i] = string(r.Media)
		}
		if r.State != "" {
			states[i] = r.State
		}
		folders[i] = "{" + strings.Join(in.FolderParents, ",") + "}"
	}
	// Every item made, by whichever way, is announced.
	events := make([]NewEvent, n)
	for i, r := range rows {
		events[i] = NewEvent{Type: loupe.EventItemCreation, ItemID: r.ID, ActorID: userID,
			Data: map[string]any{"itemType": r.In.ItemType, "folderIds": nonNil(r.In.FolderParents)}}
	}
	if n == 1 {
		// One row (an item created, a person, a tenant's folder): plain
		// values, its event in the same statement. The arrays cost a REST
		// POST of an item a tenth of its rate (docs/performance.md).
		data, _ := json.Marshal(events[0].Data)
		_, err := tx.ExecContext(ctx, insertItemSQL, tenantID, userID, at,
			ids[0], types[0], titles[0], files[0], externalIDs[0], mediaCreated[0], mediaTypes[0],
			forms[0], formData[0], langs[0], tr[0], tl[0], ce[0], la[0], pe[0], te[0], un[0],
			owners[0], visible[0], updatable[0], media[0], states[0], sizes[0], folders[0], string(data))
		return err
	}
	_, err := tx.ExecContext(ctx, insertItemsSQL, tenantID, userID, at,
		pq.StringArray(ids), pq.StringArray(types), pq.StringArray(titles), pq.StringArray(files),
		pq.Array(externalIDs), pq.Array(mediaCreated), pq.Array(mediaTypes),
		pq.StringArray(forms), pq.StringArray(formData), pq.StringArray(langs),
		pq.BoolArray(tr), pq.BoolArray(tl), pq.BoolArray(ce), pq.BoolArray(la), pq.BoolArray(pe), pq.BoolArray(te), pq.BoolArray(un),
		pq.Array(owners), pq.Array(visible), pq.Array(updatable),
		pq.StringArray(media), pq.StringArray(states), pq.Array(sizes), pq.StringArray(folders))
	if err != nil {
		return err
	}
	return emitTx(ctx, tx, tenantID, at, events...)
}

// nonNil is list, or an empty list for none (a payload's lists are never
// null).
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// accessJSON is an access rule as a jsonb value (nil: NULL).
func accessJSON(a *loupe.Access) *string {
	if a == nil {
		return nil
	}
	s := string(loupe.JSONOf(a))
	return &s
}

func isTrue(b *bool) bool { return b != nil && *b }

func ptr[T any](v T) *T { return &v }
