package store

import (
	"context"
	"fmt"
	"strconv"
)

// Access control (docs/access-control.md): every read that a principal
// makes by id or by list filters with the same SQL predicates, so that an
// invisible item answers exactly like a missing one and counts stay right.

// visibleSQL is the visibility predicate of the item aliased alias, with the
// user id at $u and the tokens at $t (NULL tokens: an admin, all visible).
func visibleSQL(alias string, u, t int) string {
	a, us, ts := alias, "$"+strconv.Itoa(u)+"::uuid", "$"+strconv.Itoa(t)+"::text[]"
	return "loupe_item_visible(" + a + ".tenant_id, " + a + ".id, " + a + ".item_type, " + a + ".owner_id, " +
		a + ".visible_to, " + us + ", " + ts + ")"
}

// admitsSQL is whether the folder aliased alias admits the user by its
// visibleTo rule.
func admitsSQL(alias string, u, t int) string {
	return "loupe_admits(" + alias + ".visible_to, " + alias + ".owner_id, $" + strconv.Itoa(u) + "::uuid, $" +
		strconv.Itoa(t) + "::text[])"
}

// ItemAccess is what a principal may do with an item.
type ItemAccess struct {
	ID        string `db:"id"`
	Visible   bool   `db:"visible"`
	Updatable bool   `db:"updatable"`
}

const itemAccessSQL = `
SELECT i.id,
       loupe_item_visible(i.tenant_id, i.id, i.item_type, i.owner_id, i.visible_to, $3::uuid, $4::text[]) AS visible,
       loupe_item_updatable(i.tenant_id, i.id, i.item_type, i.owner_id, i.visible_to, i.updatable_by, $3::uuid, $4::text[]) AS updatable
FROM items i WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[])`

// AccessOf answers, for the items among ids (live or in the recycle bin),
// whether the principal may see and change them, in one query. Ids that name
// no item of the tenant are absent from the answer.
func (s *Store) AccessOf(ctx context.Context, p *Principal, ids []string) (map[string]ItemAccess, error) {
	out := make(map[string]ItemAccess, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []ItemAccess
	if err := s.selectPrepared(ctx, &rows, itemAccessSQL, p.TenantID, stringArray(ids), p.UserID, p.aclTokens()); err != nil {
		return nil, fmt.Errorf("store: unable to check access: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}
