package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe"
)

// Access control (docs/access-control.md): every read that a principal
// makes by id or by list filters with the same SQL predicates, so that an
// invisible item answers exactly like a missing one and counts stay right.

// visibleSQL is the visibility predicate of the item aliased alias, with the
// user id at $u and the tokens at $t (NULL tokens: an admin, all visible):
// a folder when its visibleTo admits the user; any other item when it sits
// in no folder or in a live folder that admits the user.
//
// It is written into each query rather than called as a SQL function
// (migration 00015 drops loupe_item_visible): a function with subqueries is
// never inlined, so Postgres planned its body anew on every call — every
// row, admins included. That made a one-item read 6× the cost of the same
// read without it. Inline, the subqueries are planned with the query, and an
// admin's NULL tokens skip them at run time.
func visibleSQL(alias string, u, t int) string {
	a := alias
	return "(" + isAdminSQL(t) + " OR CASE WHEN " + a + ".item_type = 'folder' THEN " + admitsSQL(a, u, t) +
		" ELSE " + inAdmittingFolders(a, u, t, admitsSQL("vf", u, t)) + " END)"
}

// updatableSQL is like visibleSQL for changing the item: a folder when both
// its rules admit the user; any other item when it sits in no folder or in
// a live folder both of whose rules admit the user.
func updatableSQL(alias string, u, t int) string {
	a := alias
	both := func(f string) string { return admitsSQL(f, u, t) + " AND " + ruleAdmitsSQL(f+".updatable_by", f, u, t) }
	return "(" + isAdminSQL(t) + " OR CASE WHEN " + a + ".item_type = 'folder' THEN " + both(a) +
		" ELSE " + inAdmittingFolders(a, u, t, both("vf")) + " END)"
}

// isAdminSQL is whether the tokens at $t are NULL (an admin's), hidden from
// the planner in a sub-select. Folded as a constant, it made every plan
// made for an admin's parameters (a "custom" plan: the predicate gone) look
// cheaper than the statement's generic plan, so Postgres planned the
// statement anew on every execution — planning cost 2.5× the read itself.
// Behind the sub-select both plans cost the same and the generic plan is
// kept; the check runs once per execution and still skips the subqueries.
func isAdminSQL(t int) string {
	return "(SELECT $" + strconv.Itoa(t) + "::text[]) IS NULL"
}

// inAdmittingFolders is whether the item aliased a sits in no folder, or in
// a live folder (aliased vf) that admits holds for. The item's folders are
// its folder_ids (kept with its links): no look into item_folders.
func inAdmittingFolders(a string, u, t int, admits string) string {
	return "(cardinality(" + a + ".folder_ids) = 0" +
		" OR EXISTS (SELECT 1 FROM items vf WHERE vf.tenant_id = " + a + ".tenant_id AND vf.id = ANY (" + a + ".folder_ids)" +
		" AND vf.deleted_on IS NULL AND " + admits + "))"
}

// admitsSQL is whether the folder aliased alias admits the user by its
// visibleTo rule.
func admitsSQL(alias string, u, t int) string {
	return ruleAdmitsSQL(alias+".visible_to", alias, u, t)
}

// ruleAdmitsSQL is whether the rule column of the folder aliased alias
// admits the user (loupe_admits is a plain expression: Postgres inlines it).
func ruleAdmitsSQL(rule, alias string, u, t int) string {
	return "loupe_admits(" + rule + ", " + alias + ".owner_id, $" + strconv.Itoa(u) + "::uuid, $" +
		strconv.Itoa(t) + "::text[])"
}

// ItemAccess is what a principal may do with an item.
type ItemAccess struct {
	ID        string `db:"id"`
	Visible   bool   `db:"visible"`
	Updatable bool   `db:"updatable"`
}

var itemAccessSQL = `
SELECT i.id, ` + visibleSQL("i", 3, 4) + ` AS visible, ` + updatableSQL("i", 3, 4) + ` AS updatable
FROM items i WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[])`

// AccessOf answers, for the items among ids (live or in the recycle bin),
// whether the principal may see and change them, in one query. Ids that name
// no item of the tenant are absent from the answer.
func (s *Store) AccessOf(ctx context.Context, p *loupe.Principal, ids []string) (map[string]ItemAccess, error) {
	out := make(map[string]ItemAccess, len(ids))
	valid := validIDs(ids)
	if len(valid) == 0 {
		return out, nil
	}
	var rows []ItemAccess
	if err := s.selectPrepared(ctx, &rows, itemAccessSQL, p.TenantID, stringArray(valid), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to check access: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	// Keyed by the ids as asked too: Postgres matches a uuid in any case
	// and answers it in lower case, and a caller looking up the id it was
	// given in another case must not find nothing (and take it for a
	// missing item, which the store then writes all the same).
	for _, id := range ids {
		if r, ok := out[strings.ToLower(id)]; ok {
			out[id] = r
		}
	}
	return out, nil
}
