package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds directed, typed relations between items of a tenant, and
// the items.has_relations flag that follows them.

// MaxRelatedItems bounds the related items of one type written at once.
const MaxRelatedItems = 1000

// relationsLockClass namespaces the advisory lock that serialises the
// relation writes of a tenant (two-key form: class, hash of the tenant).
const relationsLockClass = 0x4c52 // "LR"

const (
	// relationsOfItemsSQL lists both directions: outgoing relations walk
	// the primary key, incoming ones item_relations_related_idx. Within an
	// item: by type, outgoing first, then as they were made.
	relationsOfItemsSQL = `
SELECT item_id, relation_type, direction, related_item_id, created_on FROM (
    SELECT r.item_id, r.relation_type, 'outgoing' AS direction, r.related_item_id, r.created_on
    FROM item_relations r WHERE r.tenant_id = $1 AND r.item_id = ANY($2::uuid[])
    UNION ALL
    SELECT r.related_item_id, r.relation_type, 'incoming', r.item_id, r.created_on
    FROM item_relations r WHERE r.tenant_id = $1 AND r.related_item_id = ANY($2::uuid[])
) rel
ORDER BY item_id, relation_type, direction DESC, created_on, related_item_id`

	lockTenantRelationsSQL = `SELECT pg_advisory_xact_lock($2::int, hashtext($1::text))`

	liveRelationItemSQL = `
SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL)`

	liveRelatedItemsSQL = `
SELECT id FROM items WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND deleted_on IS NULL`

	// dropRelationsSQL removes the relations of a type from an item to
	// anything not in $4, and answers the other ends.
	dropRelationsSQL = `
DELETE FROM item_relations
WHERE tenant_id = $1 AND item_id = $2 AND relation_type = $3 AND related_item_id <> ALL ($4::uuid[])
RETURNING related_item_id`

	addRelationsSQL = `
INSERT INTO item_relations (tenant_id, item_id, relation_type, related_item_id, created_by, created_on)
SELECT $1, $2, $3, r.id, $5, $6 FROM unnest($4::uuid[]) AS r(id)
ON CONFLICT DO NOTHING
RETURNING related_item_id`

	deleteRelationSQL = `
DELETE FROM item_relations
WHERE tenant_id = $1 AND item_id = $2 AND relation_type = $3 AND related_item_id = $4`

	// syncRelationFlagsSQL sets has_relations of the items $2 from the
	// relations as they now are, and stamps modified_on of the item the
	// write came from ($3).
	syncRelationFlagsSQL = `
UPDATE items i SET
    has_relations = EXISTS (SELECT 1 FROM item_relations o WHERE o.tenant_id = i.tenant_id AND o.item_id = i.id)
                 OR EXISTS (SELECT 1 FROM item_relations n WHERE n.tenant_id = i.tenant_id AND n.related_item_id = i.id),
    modified_on = CASE WHEN i.id = $3 THEN $4 ELSE i.modified_on END
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[])`
)

// RelationsOfItems returns, per item id, the item's relations in both
// directions, in one query. Relations to items in the recycle bin are kept
// (they come back with the item).
func (s *Store) RelationsOfItems(ctx context.Context, tenantID string, itemIDs []string) (map[string][]*Relation, error) {
	return relationsOf(ctx, s.selectPrepared, tenantID, itemIDs)
}

// selectFunc runs a query into dest: through a prepared statement, or in a
// transaction.
type selectFunc func(ctx context.Context, dest any, query string, args ...any) error

func relationsOf(ctx context.Context, sel selectFunc, tenantID string, itemIDs []string) (map[string][]*Relation, error) {
	out := make(map[string][]*Relation, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []*Relation
	if err := sel(ctx, &rows, relationsOfItemsSQL, tenantID, stringArray(itemIDs)); err != nil {
		return nil, fmt.Errorf("store: unable to list relations: %w", err)
	}
	for _, r := range rows {
		out[r.ItemID] = append(out[r.ItemID], r)
	}
	return out, nil
}

// relationsAfter answers an item's relations at the end of a write.
func relationsAfter(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string) ([]*Relation, error) {
	all, err := relationsOf(ctx, tx.SelectContext, tenantID, []string{itemID})
	if err != nil {
		return nil, err
	}
	if all[itemID] == nil {
		return []*Relation{}, nil
	}
	return all[itemID], nil
}

// beginRelationWrite serialises the relation writes of the tenant and checks
// that the item written from is live. Under the lock every statement sees
// the relations as the previous writer left them, so has_relations can be
// recomputed without a race (row locks on both ends would have to be taken
// in an order that is only known after reading the relations).
func beginRelationWrite(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string) error {
	if _, err := tx.ExecContext(ctx, lockTenantRelationsSQL, tenantID, relationsLockClass); err != nil {
		return fmt.Errorf("store: unable to lock relations: %w", err)
	}
	var live bool
	if err := tx.GetContext(ctx, &live, liveRelationItemSQL, tenantID, itemID); err != nil {
		return fmt.Errorf("store: unable to check item %s: %w", itemID, err)
	}
	if !live {
		return loupe.NotFound()
	}
	return nil
}

// syncRelationFlags recomputes has_relations of the items touched and bumps
// the modified_on of the item written from.
func syncRelationFlags(ctx context.Context, tx *sqlx.Tx, tenantID, from string, touched []string) error {
	ids := append([]string{from}, touched...)
	if _, err := tx.ExecContext(ctx, syncRelationFlagsSQL, tenantID, stringArray(ids), from, now()); err != nil {
		return fmt.Errorf("store: unable to update has_relations: %w", err)
	}
	return nil
}

// SetRelations replaces the relations of one type from a live item with
// relations to relatedIDs, which must be live items of the tenant other than
// the item itself. Relations that stay keep their createdOn. It answers all
// relations of the item afterwards, both directions.
// Returns ENOTFOUND for an unknown item, EINVALID naming a bad related id,
// a bad relation type or too many ids.
func (s *Store) SetRelations(ctx context.Context, p *loupe.Principal, itemID, relationType string, relatedIDs []string) ([]*Relation, error) {
	if !loupe.ValidRelationType(relationType) {
		return nil, loupe.Invalid("invalid relationType %q: 1 to 64 letters, digits, _ and -, starting with a letter", relationType)
	}
	if len(relatedIDs) > MaxRelatedItems {
		return nil, loupe.Invalid("at most %d related items of one type", MaxRelatedItems)
	}
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	// Ids compare as Postgres compares uuids: case does not matter.
	itemID = strings.ToLower(itemID)
	relatedIDs = lowerAll(relatedIDs)
	seen := make(map[string]bool, len(relatedIDs))
	for _, id := range relatedIDs {
		switch {
		case id == itemID:
			return nil, loupe.Invalid("item %s cannot be related to itself", id)
		case !loupe.ValidID(id):
			return nil, loupe.Invalid("item %s does not exist", id)
		case seen[id]:
			return nil, loupe.Invalid("relatedItemIds lists %s twice", id)
		}
		seen[id] = true
	}
	var out []*Relation
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := beginRelationWrite(ctx, tx, p.TenantID, itemID); err != nil {
			return err
		}
		if len(relatedIDs) > 0 {
			var live []string
			if err := tx.SelectContext(ctx, &live, liveRelatedItemsSQL, p.TenantID, stringArray(relatedIDs)); err != nil {
				return fmt.Errorf("store: unable to check related items: %w", err)
			}
			if missing := firstMissing(relatedIDs, live); missing != "" {
				return loupe.Invalid("item %s does not exist", missing)
			}
		}
		var dropped, added []string
		if err := tx.SelectContext(ctx, &dropped, dropRelationsSQL, p.TenantID, itemID, relationType,
			stringArray(relatedIDs)); err != nil {
			return fmt.Errorf("store: unable to remove relations: %w", err)
		}
		if len(relatedIDs) > 0 {
			if err := tx.SelectContext(ctx, &added, addRelationsSQL, p.TenantID, itemID, relationType,
				stringArray(relatedIDs), p.UserID, now()); err != nil {
				return fmt.Errorf("store: unable to add relations: %w", err)
			}
		}
		if len(dropped)+len(added) > 0 {
			if err := syncRelationFlags(ctx, tx, p.TenantID, itemID, append(dropped, added...)); err != nil {
				return err
			}
			if err := emitRelationsChangedTx(ctx, tx, p, itemID, relationType, added, dropped); err != nil {
				return err
			}
		}
		var err error
		out, err = relationsAfter(ctx, tx, p.TenantID, itemID)
		return err
	})
	return out, err
}

// DeleteRelation removes the relation of a type from a live item to another
// and answers the item's relations afterwards, both directions.
// Returns EINVALID with the spec's invalid-syntax message for a bad relation
// type, a related id that is not an id or the item itself; ENOTFOUND for an
// unknown item or a relation that does not exist.
func (s *Store) DeleteRelation(ctx context.Context, p *loupe.Principal, itemID, relationType, relatedID string) ([]*Relation, error) {
	itemID, relatedID = strings.ToLower(itemID), strings.ToLower(relatedID)
	syntax := func(why string) error {
		return &loupe.Error{Kind: loupe.EINVALID, Message: loupe.MsgInvalidSyntax, DeveloperMessage: why}
	}
	switch {
	case !loupe.ValidRelationType(relationType):
		return nil, syntax(fmt.Sprintf("relationType %q must be 1 to 64 letters, digits, _ and -, starting with a letter", relationType))
	case !loupe.ValidID(relatedID):
		return nil, syntax(fmt.Sprintf("relatedItemId %q is not an item id", relatedID))
	case relatedID == itemID:
		return nil, syntax("an item is never related to itself")
	case !loupe.ValidID(itemID):
		return nil, loupe.NotFound()
	}
	var out []*Relation
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := beginRelationWrite(ctx, tx, p.TenantID, itemID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, deleteRelationSQL, p.TenantID, itemID, relationType, relatedID)
		if err != nil {
			return fmt.Errorf("store: unable to remove relation: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n == 0 {
			e := loupe.NotFound()
			e.DeveloperMessage = fmt.Sprintf("item %s has no %s relation to %s", itemID, relationType, relatedID)
			return e
		}
		if err := syncRelationFlags(ctx, tx, p.TenantID, itemID, []string{relatedID}); err != nil {
			return err
		}
		if err := emitRelationsChangedTx(ctx, tx, p, itemID, relationType, nil, []string{relatedID}); err != nil {
			return err
		}
		out, err = relationsAfter(ctx, tx, p.TenantID, itemID)
		return err
	})
	return out, err
}

// emitRelationsChangedTx announces a change of relations to both ends:
// the item, and each item related or unrelated to it (its incoming
// relations changed).
func emitRelationsChangedTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, itemID, relationType string, added, removed []string) error {
	parts := []loupe.ItemPart{loupe.PartRelations}
	events := []NewEvent{itemChange(itemID, p.UserID, parts, "relationType", relationType,
		"added", nonNil(added), "removed", nonNil(removed))}
	for _, other := range append(slices.Clone(added), removed...) {
		events = append(events, itemChange(other, p.UserID, parts, "relationType", relationType, "from", itemID))
	}
	return emitTx(ctx, tx, p.TenantID, now(), events...)
}

func lowerAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strings.ToLower(id)
	}
	return out
}
