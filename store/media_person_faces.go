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

// This file holds what person detection (internal/analysis/worker) reads and
// writes: the faces persons are known by, the persons found in an item
// (its detectedPersons) and the persons it creates.

// MaxFacesPerPerson bounds the faces kept per person and engine: enough
// views to recognise them again, not a face per appearance.
const MaxFacesPerPerson = 20

// maxKnownFaces bounds one read of a tenant's known faces (matched in
// memory; docs/analysis.md says what a larger set needs).
const maxKnownFaces = 50_000

// PersonFace is a face a person is known by.
type PersonFace struct {
	PersonID   string          `db:"person_id"`
	Name       string          `db:"name"`
	Descriptor pq.Float32Array `db:"descriptor"`
}

// Appearance is where and when a person was seen in an item.
type Appearance struct {
	StartMs int64 `json:"startMs"`
	EndMs   int64 `json:"endMs"`
	X       int   `json:"x"`
	Y       int   `json:"y"`
	W       int   `json:"w"`
	H       int   `json:"h"`
}

// DetectedPerson is a person found in an item: the item's detectedPersons
// entries.
type DetectedPerson struct {
	PersonID    string       `json:"personId"`
	Name        string       `json:"name"`
	Confidence  float64      `json:"confidence"`
	New         bool         `json:"created,omitempty"`
	Appearances []Appearance `json:"appearances"`
	// Descriptor is stored as a face of the person (mean of the item's).
	Descriptor []float32 `json:"-"`
}

const (
	personFacesSQL = `
SELECT f.person_id, i.title AS name, f.descriptor FROM person_faces f
JOIN items i ON i.tenant_id = f.tenant_id AND i.id = f.person_id AND i.deleted_on IS NULL
WHERE f.tenant_id = $1 AND f.engine = $2
ORDER BY f.person_id, f.created_on LIMIT $3`

	insertPersonFaceSQL = `
INSERT INTO person_faces (tenant_id, id, person_id, item_id, engine, descriptor, created_on)
SELECT $1, $2, $3, $4, $5, $6, $7
WHERE (SELECT count(*) FROM person_faces WHERE tenant_id = $1 AND engine = $5 AND person_id = $3) < $8`

	addPersonImageSQL = `
INSERT INTO person_images (tenant_id, person_id, image_id, position)
SELECT $1, $2, $3, COALESCE((SELECT max(position) FROM person_images WHERE tenant_id = $1 AND person_id = $2), 0) + 1
ON CONFLICT DO NOTHING`

	itemCreatorSQL = `
SELECT created_by FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL FOR UPDATE`

	setDetectedPersonsSQL = `
UPDATE items SET media = COALESCE(media, '{}'::jsonb) || jsonb_build_object('detectedPersons', $3::jsonb)
WHERE tenant_id = $1 AND id = $2 AND media->'analysis'->'personDetection'->>'runKey' = $4`
)

// PersonFaces answers the faces the tenant's live persons are known by
// for engine (at most maxKnownFaces).
func (s *Store) PersonFaces(ctx context.Context, tenantID, engine string) ([]PersonFace, error) {
	var faces []PersonFace
	if err := s.db.SelectContext(ctx, &faces, personFacesSQL, tenantID, engine, maxKnownFaces); err != nil {
		return nil, fmt.Errorf("store: unable to read person faces: %w", err)
	}
	return faces, nil
}

// DetectedPersonsWrite is what person detection found in an item.
type DetectedPersonsWrite struct {
	TenantID, ItemID, RunKey, Engine string
	// Persons are those found; those without PersonID are created (named
	// Name) as the item's creator.
	Persons []*DetectedPerson
	// AddImages adds the item to each person's images
	// (autoAddImagesToDetectedPersons).
	AddImages bool
}

// SaveDetectedPersons writes in one transaction what person detection
// found: new persons created (audited), each person's face kept (up to
// MaxFacesPerPerson), the item added to their images when asked, and the
// item's detectedPersons. ErrStaleRun when another run holds the item's
// person detection, ENOTFOUND when it is gone.
func (s *Store) SaveDetectedPersons(ctx context.Context, w DetectedPersonsWrite) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var creator string
		if err := tx.GetContext(ctx, &creator, itemCreatorSQL, w.TenantID, w.ItemID); err != nil {
			return notFoundOr(err, "store: unable to read item %s: %w", w.ItemID)
		}
		p := &loupe.Principal{TenantID: w.TenantID, UserID: creator}
		at := time.Now().UTC()
		for _, d := range w.Persons {
			if d.PersonID == "" {
				person, err := createPersonTx(ctx, tx, p, loupe.NewPerson{Name: d.Name})
				if err != nil {
					return err
				}
				d.PersonID, d.New = person.ID, true
			}
			if len(d.Descriptor) > 0 {
				if _, err := tx.ExecContext(ctx, insertPersonFaceSQL, w.TenantID, loupe.NewID(), d.PersonID, w.ItemID,
					w.Engine, pq.Float32Array(d.Descriptor), at, MaxFacesPerPerson); err != nil {
					return fmt.Errorf("store: unable to keep a face: %w", err)
				}
			}
			if w.AddImages {
				if _, err := tx.ExecContext(ctx, addPersonImageSQL, w.TenantID, d.PersonID, w.ItemID); err != nil {
					return fmt.Errorf("store: unable to add a person's image: %w", err)
				}
			}
		}
		persons := w.Persons
		if persons == nil {
			persons = []*DetectedPerson{}
		}
		doc, err := json.Marshal(persons)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, setDetectedPersonsSQL, w.TenantID, w.ItemID, string(doc), w.RunKey)
		if err != nil {
			return fmt.Errorf("store: unable to write detected persons: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrStaleRun
		}
		return nil
	})
}
