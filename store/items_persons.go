package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// Person is an item of itemType person (spec 2.17).
type Person struct {
	TenantID     string         `db:"tenant_id"`
	ID           string         `db:"id"`
	CreatedOn    time.Time      `db:"created_on"`
	ItemType     string         `db:"item_type"`
	Name         string         `db:"name"`
	Description  string         `db:"description"`
	ImageIDsList pq.StringArray `db:"image_ids"`
}

// NodeID implements Node.
func (p *Person) NodeID() string { return p.ID }

// ImageIds are the ids of image items showing the person.
func (p *Person) ImageIds() []string {
	if p.ImageIDsList == nil {
		return []string{}
	}
	return p.ImageIDsList
}

// This file holds persons (spec 2.17): items of itemType person, with the
// images that show them.

// ItemTypePerson is the itemType of persons.
const ItemTypePerson = "person"

const (
	// personColumns selects a Person from items aliased i. Images in the
	// recycle bin drop out of imageIds.
	personColumns = `
i.tenant_id, i.id, i.created_on, i.item_type, i.title AS name,
COALESCE(i.metadata_form_data->>'default_description', '') AS description,
ARRAY(SELECT pi.image_id FROM person_images pi
      JOIN items m ON m.tenant_id = pi.tenant_id AND m.id = pi.image_id
      WHERE pi.tenant_id = i.tenant_id AND pi.person_id = i.id AND m.deleted_on IS NULL
      ORDER BY pi.position) AS image_ids`

	personsByIDsSQL = `SELECT ` + personColumns + `
FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.item_type = 'person' AND i.deleted_on IS NULL`

	// liveItemTypesSQL answers the type of each live item among the ids.
	liveItemTypesSQL = `
SELECT id, item_type FROM items
WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND deleted_on IS NULL`

	insertPersonImagesSQL = `
INSERT INTO person_images (tenant_id, person_id, image_id, position)
SELECT $1, $2, p.id, p.ord FROM unnest($3::uuid[]) WITH ORDINALITY AS p(id, ord)`
)

// CreatePerson stores a new item of itemType person (title = name, the
// description as the form's default_description) with its images, and its
// create audit record, in one transaction. Returns EINVALID for bad input or
// an image that is not a live item of the tenant (folders and persons are
// not images).
func (s *Store) CreatePerson(ctx context.Context, p *loupe.Principal, in loupe.NewPerson) (*Person, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var person *Person
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		person, err = createPersonTx(ctx, tx, p, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, MetricItemsCreated, 1)
	return person, nil
}

// createPersonTx is CreatePerson in tx, in checked.
func createPersonTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, in loupe.NewPerson) (*Person, error) {
	const formID = "default"
	formData := map[string]json.RawMessage{"default_title": loupe.RawJSON(in.Name)}
	description := ""
	if in.Description != nil && *in.Description != "" {
		description = *in.Description
		formData["default_description"] = loupe.RawJSON(description)
	}
	id, at := loupe.NewID(), now()
	err := func() error {
		if len(in.ImageIDs) > 0 {
			var found []struct {
				ID       string `db:"id"`
				ItemType string `db:"item_type"`
			}
			if err := tx.SelectContext(ctx, &found, liveItemTypesSQL, p.TenantID, stringArray(in.ImageIDs)); err != nil {
				return fmt.Errorf("store: unable to check images: %w", err)
			}
			types := make(map[string]string, len(found))
			for _, f := range found {
				types[f.ID] = f.ItemType
			}
			for _, img := range in.ImageIDs {
				switch t, ok := types[img]; {
				case !ok:
					return loupe.Invalid("imageIds: item %s does not exist", img)
				case t == "folder" || t == ItemTypePerson:
					return loupe.Invalid("imageIds: item %s is a %s, not an image", img, t)
				}
			}
		}
		row := &newItemRow{ID: id, In: &loupe.CreateItemInput{ItemType: ItemTypePerson},
			NewItem: &loupe.NewItem{Title: in.Name, FormID: formID, FormData: formData, Language: "en-US"}}
		if err := insertItemsTx(ctx, tx, p.TenantID, p.UserID, at, []*newItemRow{row}); err != nil {
			return fmt.Errorf("store: unable to create person: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertFirstVersionSQL, p.TenantID, id, loupe.NewID(), p.UserID, at); err != nil {
			return fmt.Errorf("store: unable to create first version: %w", err)
		}
		if len(in.ImageIDs) > 0 {
			if _, err := tx.ExecContext(ctx, insertPersonImagesSQL, p.TenantID, id, stringArray(in.ImageIDs)); err != nil {
				return fmt.Errorf("store: unable to store person images: %w", err)
			}
		}
		return auditTx(ctx, tx, p, id, in.Name, loupe.ActionCreate, at, CreateDiff(formID, formData))
	}()
	if err != nil {
		return nil, err
	}
	images := in.ImageIDs
	if images == nil {
		images = []string{}
	}
	return &Person{TenantID: p.TenantID, ID: id, CreatedOn: at, ItemType: ItemTypePerson,
		Name: in.Name, Description: description, ImageIDsList: images}, nil
}

// PersonsByIDs returns the live persons among ids, keyed by id, in one query.
func (s *Store) PersonsByIDs(ctx context.Context, tenantID string, ids []string) (map[string]*Person, error) {
	out := make(map[string]*Person, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var persons []*Person
	if err := s.selectPrepared(ctx, &persons, personsByIDsSQL, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch persons: %w", err)
	}
	for _, p := range persons {
		out[p.ID] = p
	}
	return out, nil
}
