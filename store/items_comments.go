package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds comments on items (spec 2.5) and their reactions.

// Limits on comments.
const (
	// MaxReaction bounds one reaction (an emoji or a short word), in characters.
	MaxReaction = 32
	// MaxReactionsPerUser bounds the different reactions one user leaves on
	// one comment, so that a comment's record stays small.
	MaxReactionsPerUser = 20
	// MaxCommentPage bounds one page of comments; DefaultCommentPage is the
	// size when a client names none.
	MaxCommentPage     = 100
	DefaultCommentPage = 20
)

// firstCommentAfter is below every UUID and lastCommentBefore above: the
// keyset positions of a first page, oldest or newest first.
const (
	firstCommentAfter = "00000000-0000-0000-0000-000000000000"
	lastCommentBefore = "ffffffff-ffff-ffff-ffff-ffffffffffff"
)

// commentFields is the Comment's field table (store_fields.go): the columns of
// comments aliased c, in select order. The reactions come along as one
// JSON array (oldest first), so a page of comments costs no query per
// comment. The bare set (inLean) is what a list whose selection asks only
// for CommentBareGQL (and resolvers.bareCommentFields) is served from — a
// grid's latest comments: gathering the reactions was half the cost of the
// first comments of a page of items, and the other columns (three
// timestamps, a JSON document) a third of reading the rest.
var commentFields = []column[Comment]{
	{SQL: "c.tenant_id", Ptr: func(c *Comment) any { return &c.TenantID }, In: inBoth},
	{SQL: "c.id", GQL: "id", Ptr: func(c *Comment) any { return &c.ID }, In: inBoth},
	{SQL: "c.item_id", GQL: "itemId", Ptr: func(c *Comment) any { return &c.ItemID }, In: inBoth},
	{SQL: "c.type", GQL: "type", Ptr: func(c *Comment) any { return &c.Type }, In: inBoth},
	{SQL: "c.parent_id", GQL: "parentId", Ptr: func(c *Comment) any { return &c.ParentID }, In: inBoth},
	{SQL: "c.text", GQL: "text", Ptr: func(c *Comment) any { return &c.Text }, In: inBoth},
	{SQL: "c.author_id", GQL: "author", Ptr: func(c *Comment) any { return &c.AuthorID }, In: inBoth},
	{SQL: "c.author_type", Ptr: func(c *Comment) any { return &c.AuthorType }, In: inBoth},
	{SQL: "c.author_name", Ptr: func(c *Comment) any { return &c.AuthorName }, In: inBoth},
	{SQL: "c.assignee_id", GQL: "assignee", Ptr: func(c *Comment) any { return &c.AssigneeID }, In: inWhole},
	{SQL: "c.assigned_on", GQL: "assignedOn", Ptr: func(c *Comment) any { return &c.AssignedOn }, In: inWhole},
	{SQL: "c.context", GQL: "context", Ptr: func(c *Comment) any { return &c.ContextDoc }, In: inWhole},
	{SQL: "c.resolved", GQL: "resolved", Ptr: func(c *Comment) any { return &c.Resolved }, In: inBoth},
	{SQL: "c.created_on", GQL: "createdOn", Ptr: func(c *Comment) any { return &c.CreatedOn }, In: inBoth},
	{SQL: "c.modified_on", GQL: "modifiedOn", Ptr: func(c *Comment) any { return &c.ModifiedOn }, In: inWhole},
	{SQL: "c.text_edited_on", GQL: "textEditedOn", Ptr: func(c *Comment) any { return &c.TextEditedOn }, In: inWhole},
	{SQL: "c.deleted_on", GQL: "deletedOn", Ptr: func(c *Comment) any { return &c.DeletedOn }, In: inWhole},
	{SQL: `(SELECT json_agg(json_build_object('reaction', r.reaction, 'userId', r.user_id, 'createdOn', r.created_on)
                 ORDER BY r.created_on, r.user_id, r.reaction)
 FROM comment_reactions r WHERE r.tenant_id = c.tenant_id AND r.comment_id = c.id) AS reactions`,
		GQL: "reactions", Ptr: func(c *Comment) any { return &c.ReactionsDoc }, In: inWhole},
}

var (
	commentWhole = fieldsOf(commentFields, inWhole)
	commentBare  = fieldsOf(commentFields, inLean)

	// commentColumns selects a Comment from comments aliased c.
	commentColumns = commentWhole.Columns
	// commentBareColumns select a bare Comment (commentFields).
	commentBareColumns = commentBare.Columns
)

// CommentBareGQL are the GraphQL fields of Comment a bare row answers.
var CommentBareGQL = commentBare.GQL

// A comment is visible with its item.
var commentsByIDsSQL = `SELECT ` + commentColumns + `
FROM comments c JOIN items i ON i.tenant_id = c.tenant_id AND i.id = c.item_id
WHERE c.tenant_id = $1 AND c.id = ANY($2::uuid[])
  AND ` + visibleSQL("i", 3, 4)

var (
	commentByIDSQL = `SELECT ` + commentColumns + `
FROM comments c WHERE c.tenant_id = $1 AND c.id = $2`

	// commentsPageSQL walks comments_item_idx from a keyset position;
	// newestCommentsPageSQL walks it backwards.
	commentsPageSQL = `SELECT ` + commentColumns + `
FROM comments c
WHERE c.tenant_id = $1 AND c.item_id = $2 AND c.id > $3
ORDER BY c.id LIMIT $4`
	newestCommentsPageSQL = `SELECT ` + commentColumns + `
FROM comments c
WHERE c.tenant_id = $1 AND c.item_id = $2 AND c.id < $3
ORDER BY c.id DESC LIMIT $4`

	// commentChecksSQL checks what a new comment refers to in one round
	// trip: the item ($2) is live (its title, null when it is not), the
	// parent ($3) is a live comment of that item (its type, null when it
	// is not), the assignee ($4) is an active user of the tenant.
	commentChecksSQL = `
SELECT (SELECT i.title FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL) AS item_title,
       (SELECT p.type FROM comments p
        WHERE p.tenant_id = $1 AND p.id = $3::uuid AND p.item_id = $2 AND p.deleted_on IS NULL) AS parent_type,
       EXISTS (SELECT 1 FROM users u
               WHERE u.tenant_id = $1 AND u.id = $4::uuid AND NOT u.deactivated) AS assignee_ok`

	insertCommentSQL = `
INSERT INTO comments (tenant_id, id, item_id, type, parent_id, text, author_id, assignee_id,
                      assigned_on, context, resolved, created_on, modified_on, author_type, author_name)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false, $11, $11, $12, $13)`

	lockCommentSQL = `
SELECT author_id, text, deleted_on, resolved, assignee_id FROM comments WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

	activeCommentUserSQL = `
SELECT EXISTS (SELECT 1 FROM users WHERE tenant_id = $1 AND id = $2 AND NOT deactivated)`

	// updateCommentSQL changes what is given: $3 text (null keeps it),
	// $4 resolved (null keeps it), $5 unassign, $6 assignee (null keeps
	// it). assignedOn moves only when the assignee changes.
	updateCommentSQL = `
WITH c AS (
    UPDATE comments SET
        text           = COALESCE($3::text, text),
        text_edited_on = CASE WHEN $3::text IS NOT NULL AND $3::text <> text THEN $7::timestamptz
                              ELSE text_edited_on END,
        resolved       = COALESCE($4::boolean, resolved),
        assignee_id    = CASE WHEN $5::boolean THEN NULL ELSE COALESCE($6::uuid, assignee_id) END,
        assigned_on    = CASE WHEN $5::boolean THEN NULL
                              WHEN $6::uuid IS NOT NULL AND assignee_id IS DISTINCT FROM $6::uuid THEN $7::timestamptz
                              ELSE assigned_on END,
        modified_on    = $7::timestamptz
    WHERE tenant_id = $1 AND id = $2
    RETURNING *
)
SELECT ` + commentColumns + ` FROM c`

	deleteCommentSQL = `
UPDATE comments SET deleted_on = $3, text = '', modified_on = $3
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	addReactionSQL = `
INSERT INTO comment_reactions (tenant_id, comment_id, user_id, reaction, created_on)
SELECT $1, $2, $3, $4, $5
WHERE (SELECT count(*) FROM comment_reactions
       WHERE tenant_id = $1 AND comment_id = $2 AND user_id = $3) < $6
ON CONFLICT DO NOTHING`

	// hasReactionSQL tells a reaction already there from one refused by
	// the per-user limit.
	hasReactionSQL = `
SELECT EXISTS (SELECT 1 FROM comment_reactions
               WHERE tenant_id = $1 AND comment_id = $2 AND user_id = $3 AND reaction = $4)`

	removeReactionSQL = `
DELETE FROM comment_reactions WHERE tenant_id = $1 AND comment_id = $2 AND user_id = $3 AND reaction = $4`

	touchCommentSQL = `UPDATE comments SET modified_on = $3 WHERE tenant_id = $1 AND id = $2`
)

// CommentItemNotFound is the spec's answer to a comment on an unknown item
// (section 7): "Item not found", with a developer message and the
// NotFoundError debug kind.
func CommentItemNotFound(itemID string) *loupe.Error {
	return &loupe.Error{
		Kind:             loupe.ENOTFOUND,
		Message:          "Item not found",
		DeveloperMessage: fmt.Sprintf("Item %s does not exist", itemID),
		Payload:          map[string]any{"debug": []string{"NotFoundError"}},
	}
}

// CommentQuery selects a page of one item's comments, oldest first (or
// newest first). Paging is keyset on the comment id, a UUIDv7, so it follows
// creation order.
type CommentQuery struct {
	ItemID string
	// After is the id the page starts after ("" for the first page).
	After       string
	First       int
	NewestFirst bool
}

// Validate checks the page size and the cursor.
func (q *CommentQuery) Validate() error {
	if q.First < 1 || q.First > MaxCommentPage {
		return loupe.Invalid("first (size) must be between 1 and %d", MaxCommentPage)
	}
	if q.After != "" && !loupe.ValidID(q.After) {
		return loupe.Invalid("invalid cursor (after / mScrollId)")
	}
	return nil
}

// Comments returns a page of an item's comments, in the query's order, and
// whether more follow. The caller has found the item. Returns EINVALID for a bad
// query.
func (s *Store) Comments(ctx context.Context, tenantID string, q CommentQuery) ([]*Comment, bool, error) {
	if err := q.Validate(); err != nil {
		return nil, false, err
	}
	if !loupe.ValidID(q.ItemID) {
		return []*Comment{}, false, nil
	}
	after, query := q.After, commentsPageSQL
	if q.NewestFirst {
		query = newestCommentsPageSQL
		if after == "" {
			after = lastCommentBefore
		}
	} else if after == "" {
		after = firstCommentAfter
	}
	out := []*Comment{}
	if err := s.selectPrepared(ctx, &out, query, tenantID, q.ItemID, after, q.First+1); err != nil {
		return nil, false, fmt.Errorf("store: unable to list comments: %w", err)
	}
	more := len(out) > q.First
	if more {
		out = out[:q.First]
	}
	return out, more, nil
}

// firstCommentsOfItemsSQL is the first page of each of several items in
// one query, by [newest first][whole comments, not bare]. A lateral LIMIT per item
// reads only the rows it returns from comments_item_idx, where
// row_number() over a partition would read every comment of every item.
var firstCommentsOfItemsSQL = [2][2]string{
	{firstCommentsOfItems(commentBareColumns, ""), firstCommentsOfItems(commentColumns, "")},
	{firstCommentsOfItems(commentBareColumns, " DESC"), firstCommentsOfItems(commentColumns, " DESC")},
}

func firstCommentsOfItems(columns, dir string) string {
	return `SELECT ` + columns + `
FROM unnest($2::uuid[]) AS k(item_id)
CROSS JOIN LATERAL (
    SELECT * FROM comments c
    WHERE c.tenant_id = $1 AND c.item_id = k.item_id
    ORDER BY c.id` + dir + ` LIMIT $3
) c
ORDER BY c.item_id, c.id` + dir
}

// FirstCommentsOfItems returns, per item id, the item's first n comments
// (oldest first, or newest first), in one query: whole, or bare (only the
// fields commentBareColumns reads are set).
func (s *Store) FirstCommentsOfItems(ctx context.Context, tenantID string, itemIDs []string, n int, newestFirst, whole bool) (map[string][]*Comment, error) {
	out := make(map[string][]*Comment, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 || n < 1 {
		return out, nil
	}
	query, dests := firstCommentsOfItemsSQL[b2i(newestFirst)][b2i(whole)], (*Comment).dests
	if !whole {
		dests = (*Comment).bareDests
	}
	rows, err := selectScanned(ctx, s, dests, query, tenantID, stringArray(itemIDs), n)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list comments of items: %w", err)
	}
	for _, c := range rows {
		out[c.ItemID] = append(out[c.ItemID], c)
	}
	return out, nil
}

// CommentsByIDs returns the comments among ids whose item the principal may
// see, keyed by id, in one query.
func (s *Store) CommentsByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*Comment, error) {
	out := make(map[string]*Comment, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []*Comment
	if err := s.selectPrepared(ctx, &rows, commentsByIDsSQL, p.TenantID, stringArray(ids), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch comments: %w", err)
	}
	for _, c := range rows {
		out[c.ID] = c
	}
	return out, nil
}

func getComment(ctx context.Context, q queryer, tenantID, id string) (*Comment, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var c Comment
	if err := q.GetContext(ctx, &c, commentByIDSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch comment %s: %w", id)
	}
	return &c, nil
}

// CreateComment stores a new comment by the principal on a live item.
// Returns ItemNotFound for an unknown, deleted or foreign item, EINVALID for
// bad input (a reply needs a live top comment of the same item; an assignee
// must be an active user of the tenant).
func (s *Store) CreateComment(ctx context.Context, p *loupe.Principal, in *loupe.CreateCommentInput) (*Comment, error) {
	return s.createComment(ctx, p, in, commentAuthor{kind: "user"})
}

// commentAuthor is who writes a comment: a user (p), or an outsider
// through a share (p is then the share's Actor) with the name they gave,
// audited on the item.
type commentAuthor struct {
	kind  string // user or share
	name  *string
	share *ShareGrant
}

// CreateShareComment writes an outsider's comment on an item through g
// (the caller checked the item is within it), with their name, audited
// as shareComment; its event names the share and its creator.
func (s *Store) CreateShareComment(ctx context.Context, g *ShareGrant, in *loupe.CreateCommentInput, name *string) (*Comment, error) {
	return s.createComment(ctx, g.Actor(), in, commentAuthor{kind: "share", name: name, share: g})
}

func (s *Store) createComment(ctx context.Context, p *loupe.Principal, in *loupe.CreateCommentInput, author commentAuthor) (*Comment, error) {
	n, err := in.NewComment()
	if err != nil {
		return nil, err
	}
	assignee := n.Assignee
	if !loupe.ValidID(in.ItemID) {
		return nil, CommentItemNotFound(in.ItemID)
	}
	if in.ParentID != nil && !loupe.ValidID(*in.ParentID) {
		return nil, loupe.Invalid("parent comment %s does not exist on this item", *in.ParentID)
	}
	id, at := loupe.NewID(), now()
	var assignedOn any
	if assignee != nil {
		assignedOn = at
	}
	var c *Comment
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var chk struct {
			ItemTitle  *string `db:"item_title"` // nil: no live item
			ParentType *string `db:"parent_type"`
			AssigneeOK bool    `db:"assignee_ok"`
		}
		if err := tx.GetContext(ctx, &chk, commentChecksSQL, p.TenantID, in.ItemID, in.ParentID, assignee); err != nil {
			return fmt.Errorf("store: unable to check comment: %w", err)
		}
		switch {
		case chk.ItemTitle == nil:
			return CommentItemNotFound(in.ItemID)
		case in.ParentID != nil && chk.ParentType == nil:
			return loupe.Invalid("parent comment %s does not exist on this item", *in.ParentID)
		case in.ParentID != nil && *chk.ParentType != string(loupe.CommentTop):
			return loupe.Invalid("parent comment %s is a reply: replies answer top comments", *in.ParentID)
		case assignee != nil && !chk.AssigneeOK:
			return loupe.Invalid("assignee %s is not a user of the tenant", *assignee)
		}
		if _, err := tx.ExecContext(ctx, insertCommentSQL, p.TenantID, id, in.ItemID, string(n.Type), in.ParentID,
			n.Text, p.UserID, assignee, assignedOn, n.Context, at, author.kind, author.name); err != nil {
			return fmt.Errorf("store: unable to create comment: %w", err)
		}
		var err error
		if c, err = getComment(ctx, tx, p.TenantID, id); err != nil {
			return err
		}
		created := commentEvent(loupe.EventCommentCreation, c, p.UserID)
		if g := author.share; g != nil {
			created.ActorID = "" // no user: the share
			created.Data["shareId"], created.Data["creatorId"] = g.ID, g.CreatedBy
			if err := auditTx(ctx, tx, p, in.ItemID, *chk.ItemTitle, loupe.ActionShareComment, at,
				shareDiff(g.ID, map[string]any{"commentId": id})); err != nil {
				return err
			}
		}
		events := []NewEvent{created}
		if assignee != nil {
			events = append(events, commentEvent(loupe.EventCommentAssignment, c, p.UserID))
		}
		return emitTx(ctx, tx, p.TenantID, at, events...)
	})
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, MetricCommentsCreated, 1)
	if assignee != nil {
		s.countUsage(p.TenantID, MetricCommentsAssigned, 1)
	}
	return c, nil
}

// commentEvent is an event of comment c, made by actorID.
func commentEvent(typ loupe.EventType, c *Comment, actorID string) NewEvent {
	data := map[string]any{"commentId": c.ID, "commentType": c.Type, "authorId": c.AuthorID}
	if c.ParentID != nil {
		data["parentId"] = *c.ParentID
	}
	if c.AssigneeID != nil {
		data["assigneeId"] = *c.AssigneeID
	}
	return NewEvent{Type: typ, ItemID: c.ItemID, ActorID: actorID, Data: data}
}

// lockedComment is what the permission checks of a change need, and what
// it changes from (for the usage counters).
type lockedComment struct {
	AuthorID   string     `db:"author_id"`
	Text       string     `db:"text"`
	DeletedOn  *time.Time `db:"deleted_on"`
	Resolved   bool       `db:"resolved"`
	AssigneeID *string    `db:"assignee_id"`
}

// lockComment locks a comment for a change. Returns ENOTFOUND when the
// tenant has no such comment.
func lockComment(ctx context.Context, tx *sqlx.Tx, tenantID, id string) (*lockedComment, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var lc lockedComment
	if err := tx.GetContext(ctx, &lc, lockCommentSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to lock comment %s: %w", id)
	}
	return &lc, nil
}

func commentDeleted(id string) error {
	return loupe.Errorf(loupe.ECONFLICT, "comment %s is deleted", id)
}

// UpdateComment changes a comment's text (author only: it sets
// textEditedOn), resolved state or assignee (anyone in the tenant).
// Returns ENOTFOUND for an unknown comment, EFORBIDDEN when someone other
// than the author edits the text, ECONFLICT for a deleted comment, EINVALID
// for bad input or a change of nothing.
func (s *Store) UpdateComment(ctx context.Context, p *loupe.Principal, in *loupe.UpdateCommentInput) (*Comment, error) {
	ch, err := in.Change()
	if err != nil {
		return nil, err
	}
	text, assignee, unassign := ch.Text, ch.Assignee, ch.Unassign
	var (
		c                 *Comment
		resolves, assigns bool // changes the usage counters count
	)
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		lc, err := lockComment(ctx, tx, p.TenantID, in.ID)
		if err != nil {
			return err
		}
		if lc.DeletedOn != nil {
			return commentDeleted(in.ID)
		}
		resolves = in.Resolved != nil && *in.Resolved && !lc.Resolved
		assigns = assignee != nil && (lc.AssigneeID == nil || !strings.EqualFold(*lc.AssigneeID, *assignee))
		if text != nil && lc.AuthorID != p.UserID {
			return loupe.Errorf(loupe.EFORBIDDEN, "only the author may edit a comment's text")
		}
		if assignee != nil {
			var ok bool
			if err := tx.GetContext(ctx, &ok, activeCommentUserSQL, p.TenantID, *assignee); err != nil {
				return fmt.Errorf("store: unable to check assignee: %w", err)
			}
			if !ok {
				return loupe.Invalid("assignee %s is not a user of the tenant", *assignee)
			}
		}
		var out Comment
		at := now()
		if err := tx.GetContext(ctx, &out, updateCommentSQL, p.TenantID, in.ID, text, in.Resolved,
			unassign, assignee, at); err != nil {
			return fmt.Errorf("store: unable to update comment %s: %w", in.ID, err)
		}
		c = &out
		var events []NewEvent
		if assigns {
			events = append(events, commentEvent(loupe.EventCommentAssignment, c, p.UserID))
		}
		if resolves {
			events = append(events, commentEvent(loupe.EventCommentResolution, c, p.UserID))
		}
		return emitTx(ctx, tx, p.TenantID, at, events...)
	})
	if err != nil {
		return nil, err
	}
	if resolves {
		s.countUsage(p.TenantID, MetricCommentsResolved, 1)
	}
	if assigns {
		s.countUsage(p.TenantID, MetricCommentsAssigned, 1)
	}
	return c, nil
}

// DeleteComment deletes a comment softly: it stays listed, with deletedOn
// set and its text removed. Only its author or a tenant admin may. Deleting
// a deleted comment changes nothing. Returns ENOTFOUND for an unknown
// comment, EFORBIDDEN for anyone else.
func (s *Store) DeleteComment(ctx context.Context, p *loupe.Principal, id string) (*Comment, error) {
	var c *Comment
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		lc, err := lockComment(ctx, tx, p.TenantID, id)
		if err != nil {
			return err
		}
		if lc.AuthorID != p.UserID && !p.IsAdmin {
			return loupe.Errorf(loupe.EFORBIDDEN, "only the author or an admin may delete a comment")
		}
		if lc.DeletedOn == nil {
			if _, err := tx.ExecContext(ctx, deleteCommentSQL, p.TenantID, id, now()); err != nil {
				return fmt.Errorf("store: unable to delete comment %s: %w", id, err)
			}
		}
		c, err = getComment(ctx, tx, p.TenantID, id)
		return err
	})
	return c, err
}

// ReactToComment adds the principal's reaction to a comment, or with remove
// takes it back; either is a no-op when already so. Returns ENOTFOUND for an
// unknown comment, ECONFLICT for a deleted one, EINVALID for a blank or
// overlong reaction or one more than MaxReactionsPerUser.
func (s *Store) ReactToComment(ctx context.Context, p *loupe.Principal, id, reaction string, remove bool) (*Comment, error) {
	reaction = strings.TrimSpace(reaction)
	if n := utf8.RuneCountInString(reaction); n < 1 || n > MaxReaction {
		return nil, loupe.Invalid("reaction must be 1 to %d characters", MaxReaction)
	}
	var c *Comment
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		lc, err := lockComment(ctx, tx, p.TenantID, id)
		if err != nil {
			return err
		}
		if lc.DeletedOn != nil {
			return commentDeleted(id)
		}
		at := now()
		var res sql.Result
		if remove {
			res, err = tx.ExecContext(ctx, removeReactionSQL, p.TenantID, id, p.UserID, reaction)
		} else {
			res, err = tx.ExecContext(ctx, addReactionSQL, p.TenantID, id, p.UserID, reaction, at, MaxReactionsPerUser)
		}
		if err != nil {
			return fmt.Errorf("store: unable to write reaction: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n == 0 && !remove {
			var there bool
			if err := tx.GetContext(ctx, &there, hasReactionSQL, p.TenantID, id, p.UserID, reaction); err != nil {
				return fmt.Errorf("store: unable to read reaction: %w", err)
			}
			if !there {
				return loupe.Invalid("at most %d different reactions per user on a comment", MaxReactionsPerUser)
			}
		}
		if n > 0 {
			if _, err := tx.ExecContext(ctx, touchCommentSQL, p.TenantID, id, at); err != nil {
				return fmt.Errorf("store: unable to touch comment %s: %w", id, err)
			}
		}
		c, err = getComment(ctx, tx, p.TenantID, id)
		return err
	})
	return c, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
