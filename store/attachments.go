package store

import (
	"context"
	"fmt"
	"time"
)

// Attachment is a file attached to an item (spec 2.4). The blob itself lives
// in blob storage under BlobKey.
type Attachment struct {
	TenantID    string    `db:"tenant_id"`
	ItemID      string    `db:"item_id"`
	FileName    string    `db:"file_name"`
	Type        string    `db:"type"`
	Role        string    `db:"role"`
	Language    string    `db:"language"`
	Description string    `db:"description"`
	UserID      string    `db:"user_id"`
	BlobKey     string    `db:"blob_key"`
	ModifiedOn  time.Time `db:"modified_on"`
}

const attachmentsOfItemsSQL = `
SELECT tenant_id, item_id, file_name, type, role, language, description, user_id, blob_key, modified_on
FROM attachments WHERE tenant_id = $1 AND item_id = ANY($2::uuid[])
ORDER BY item_id, file_name`

// AttachmentsOfItems returns, per item id, the item's attachments by file
// name, in one query.
func (s *Store) AttachmentsOfItems(ctx context.Context, tenantID string, itemIDs []string) (map[string][]*Attachment, error) {
	out := make(map[string][]*Attachment, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []*Attachment
	if err := s.db.SelectContext(ctx, &rows, attachmentsOfItemsSQL, tenantID, stringArray(itemIDs)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch attachments: %w", err)
	}
	for _, a := range rows {
		out[a.ItemID] = append(out[a.ItemID], a)
	}
	return out, nil
}
