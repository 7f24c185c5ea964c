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

// insertItemValuesSQL is insertItemsSQL for one row, its values in the
// same places ($28 on are free for what a statement adds): plain values,
// since arrays cost a REST POST of an item a tenth of its rate
// (docs/performance.md). store_test holds the two equal.
const insertItemValuesSQL = `
    INSERT INTO items AS i (` + itemInsertColumns + `)
    VALUES ($1, $4::uuid, $5, $6, $7, $8, $2, $3, $3, $9::timestamptz, $10,
            $11, $12::jsonb, $13, $14, $15, $16, $17, $18, $19, $20,
            $21::uuid, $22::jsonb, $23::jsonb, $24::jsonb, $25, $26, $27::uuid[])`

// insertItemSQL inserts one row and writes its itemCreation event ($28 its
// data) in the same statement: a person or a tenant's folder pays no round
// trip for its event.
const insertItemSQL = `
WITH inserted AS (` + insertItemValuesSQL + `
    RETURNING id)
INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
SELECT $1, 'itemCreation', id, $2, $3, $28::jsonb FROM inserted`

// itemRows are rows to insert as the columns of insertItemsSQL: one slice
// per column, so that many rows go as arrays and one as plain values.
type itemRows struct {
	ids, types, titles, files, forms, formData, langs, media, states, folders []string
	externalIDs, mediaTypes, owners, visible, updatable, mediaCreated         []*string
	sizes                                                                     []*int64
	tr, tl, ce, la, pe, te, un                                                []bool
}

func itemRowsOf(rows []*newItemRow) *itemRows {
	n := len(rows)
	c := &itemRows{
		ids: make([]string, n), types: make([]string, n), titles: make([]string, n), files: make([]string, n),
		forms: make([]string, n), formData: make([]string, n), langs: make([]string, n), media: make([]string, n),
		states: make([]string, n), folders: make([]string, n),
		externalIDs: make([]*string, n), mediaTypes: make([]*string, n), owners: make([]*string, n),
		visible: make([]*string, n), updatable: make([]*string, n), mediaCreated: make([]*string, n),
		sizes: make([]*int64, n),
		tr:    make([]bool, n), tl: make([]bool, n), ce: make([]bool, n), la: make([]bool, n),
		pe: make([]bool, n), te: make([]bool, n), un: make([]bool, n),
	}
	for i, r := range rows {
		in := r.In
		c.ids[i], c.types[i], c.titles[i], c.files[i] = r.ID, in.ItemType, r.Title, r.FileName
		c.forms[i], c.formData[i], c.langs[i] = r.FormID, string(loupe.JSONOf(r.FormData)), r.Language
		c.externalIDs[i], c.mediaTypes[i] = in.ExternalID, in.MediaType
		if t := in.MediaCreatedOn; t != nil {
			c.mediaCreated[i] = ptr(t.UTC().Format(time.RFC3339Nano))
		}
		c.tr[i], c.tl[i], c.ce[i] = isTrue(in.TranscriptionEnabled), isTrue(in.TranslationEnabled), isTrue(in.CelebrityDetectionEnabled)
		c.la[i], c.pe[i], c.te[i] = isTrue(in.LabelDetectionEnabled), isTrue(in.PersonDetectionEnabled), isTrue(in.TextDetectionEnabled)
		c.un[i] = isTrue(in.CreateUnknownPersons)
		c.owners[i], c.visible[i], c.updatable[i] = r.Owner, accessJSON(r.Visible), accessJSON(r.Updatable)
		c.media[i], c.states[i], c.sizes[i] = "{}", "none", r.Size
		if !r.Media.IsNull() {
			c.media[i] = string(r.Media)
		}
		if r.State != "" {
			c.states[i] = r.State
		}
		c.folders[i] = "{" + strings.Join(in.FolderParents, ",") + "}"
	}
	return c
}

// row is the values $4–$27 of insertItemValuesSQL for row i.
func (c *itemRows) row(i int) []any {
	return []any{c.ids[i], c.types[i], c.titles[i], c.files[i], c.externalIDs[i], c.mediaCreated[i], c.mediaTypes[i],
		c.forms[i], c.formData[i], c.langs[i], c.tr[i], c.tl[i], c.ce[i], c.la[i], c.pe[i], c.te[i], c.un[i],
		c.owners[i], c.visible[i], c.updatable[i], c.media[i], c.states[i], c.sizes[i], c.folders[i]}
}

// arrays is the values $4–$27 of insertItemsSQL.
func (c *itemRows) arrays() []any {
	return []any{pq.StringArray(c.ids), pq.StringArray(c.types), pq.StringArray(c.titles), pq.StringArray(c.files),
		pq.Array(c.externalIDs), pq.Array(c.mediaCreated), pq.Array(c.mediaTypes),
		pq.StringArray(c.forms), pq.StringArray(c.formData), pq.StringArray(c.langs),
		pq.BoolArray(c.tr), pq.BoolArray(c.tl), pq.BoolArray(c.ce), pq.BoolArray(c.la), pq.BoolArray(c.pe), pq.BoolArray(c.te), pq.BoolArray(c.un),
		pq.Array(c.owners), pq.Array(c.visible), pq.Array(c.updatable),
		pq.StringArray(c.media), pq.StringArray(c.states), pq.Array(c.sizes), pq.StringArray(c.folders)}
}

// createdEvent is the itemCreation event of a new item: every item made,
// by whichever way, is announced.
func createdEvent(r *newItemRow, userID string) NewEvent {
	return NewEvent{Type: loupe.EventItemCreation, ItemID: r.ID, ActorID: userID,
		Data: map[string]any{"itemType": r.In.ItemType, "folderIds": nonNil(r.In.FolderParents)}}
}

// insertItemsTx inserts rows as items of the tenant made by userID at at,
// in one statement. Returns the driver's error (a unique violation for an
// externalId in use) for the caller to name.
func insertItemsTx(ctx context.Context, tx *sqlx.Tx, tenantID, userID string, at time.Time, rows []*newItemRow) error {
	c := itemRowsOf(rows)
	head := []any{tenantID, userID, at}
	if len(rows) == 1 {
		data, _ := json.Marshal(createdEvent(rows[0], userID).Data)
		_, err := tx.ExecContext(ctx, insertItemSQL, append(append(head, c.row(0)...), string(data))...)
		return err
	}
	if _, err := tx.ExecContext(ctx, insertItemsSQL, append(head, c.arrays()...)...); err != nil {
		return err
	}
	events := make([]NewEvent, len(rows))
	for i, r := range rows {
		events[i] = createdEvent(r, userID)
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
