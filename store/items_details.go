package store

import (
	"encoding/json"
	"time"

	"github.com/loupe-mam/loupe"
)

// This file holds the types of an item's details (spec 2.4 to 2.8): what the
// GraphQL schema binds to and the store's per-area files read and write.

// UserRef points at a user (comment author, assignee).
type UserRef struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// Name is an outsider's name (Type share: a comment through a share).
	Name *string `json:"name,omitempty"`
}

// ApproximateSecond is a time position the way the spec writes it.
type ApproximateSecond struct {
	Approximate float64 `json:"approximate"`
}

// CommentContext anchors a comment to a span of the timeline.
type CommentContext struct {
	Type        string            `json:"type"`
	StartSecond ApproximateSecond `json:"startSecond"`
	EndSecond   ApproximateSecond `json:"endSecond"`
}

// Reaction is one user's reaction to a comment.
type Reaction struct {
	Reaction  string    `json:"reaction"`
	UserID    string    `json:"userId"`
	CreatedOn time.Time `json:"createdOn"`
}

// Comment is a comment on an item (spec 2.5).
type Comment struct {
	TenantID string            `db:"tenant_id"`
	ID       string            `db:"id"`
	ItemID   string            `db:"item_id"`
	Type     loupe.CommentType `db:"type"`
	ParentID *string           `db:"parent_id"`
	Text     string            `db:"text"`
	AuthorID string            `db:"author_id"`
	// AuthorType is user, or share for an outsider's comment (AuthorID is
	// then the share's id, AuthorName the name they gave).
	AuthorType   string     `db:"author_type"`
	AuthorName   *string    `db:"author_name"`
	AssigneeID   *string    `db:"assignee_id"`
	AssignedOn   *time.Time `db:"assigned_on"`
	ContextDoc   loupe.JSON `db:"context"`
	Resolved     bool       `db:"resolved"`
	CreatedOn    time.Time  `db:"created_on"`
	ModifiedOn   time.Time  `db:"modified_on"`
	TextEditedOn *time.Time `db:"text_edited_on"`
	DeletedOn    *time.Time `db:"deleted_on"`
	// ReactionsDoc is the comment's reactions as one JSON array.
	ReactionsDoc loupe.JSON `db:"reactions"`
}

// NodeID implements Node.
func (c *Comment) NodeID() string { return c.ID }

// Author is who wrote the comment.
func (c *Comment) Author() UserRef {
	if c.AuthorType == "share" {
		return UserRef{Type: "share", ID: c.AuthorID, Name: c.AuthorName}
	}
	return UserRef{Type: "user", ID: c.AuthorID}
}

// Assignee is who the comment is assigned to, if anyone.
func (c *Comment) Assignee() *UserRef {
	if c.AssigneeID == nil {
		return nil
	}
	return &UserRef{Type: "user", ID: *c.AssigneeID}
}

// Context is the span the comment is about; nil for the whole item.
func (c *Comment) Context() *CommentContext {
	if c.ContextDoc.IsNull() {
		return nil
	}
	var cc CommentContext
	if json.Unmarshal(c.ContextDoc, &cc) != nil {
		return nil
	}
	return &cc
}

// Reactions are the comment's reactions, oldest first.
func (c *Comment) Reactions() []Reaction {
	out := []Reaction{}
	if !c.ReactionsDoc.IsNull() {
		_ = json.Unmarshal(c.ReactionsDoc, &out) // written by SQL's json_agg
	}
	return out
}

// Relation is a directed relation seen from one of its items.
type Relation struct {
	ItemID        string                  `db:"item_id"`
	RelationType  string                  `db:"relation_type"`
	Direction     loupe.RelationDirection `db:"direction"`
	RelatedItemID string                  `db:"related_item_id"`
	CreatedOn     time.Time               `db:"created_on"`
}

// TimedMetadata is form data for a span of the media.
type TimedMetadata struct {
	ItemID   string     `db:"item_id"`
	ID       string     `db:"id"`
	StartMs  int64      `db:"start_ms"`
	EndMs    int64      `db:"end_ms"`
	FormID   string     `db:"form_id"`
	FormData loupe.JSON `db:"form_data"`
}

// Data is the entry's form and values.
func (t *TimedMetadata) Data() ItemMetadata {
	return ItemMetadata{FormID: t.FormID, FormData: t.FormData}
}

// ItemVersion is a version of an item's media (spec 2.7).
type ItemVersion struct {
	ItemID       string             `db:"item_id"`
	ID           string             `db:"id"`
	Name         string             `db:"name"`
	CreatedBy    string             `db:"created_by"`
	CreatedOn    time.Time          `db:"created_on"`
	VersionState loupe.VersionState `db:"version_state"`
}

// VersionCreatedOn is when the version was made.
func (v *ItemVersion) VersionCreatedOn() time.Time { return v.CreatedOn }

// Transcript is an item's timed transcript in one language.
type Transcript struct {
	ItemID       string     `db:"item_id"`
	LanguageCode string     `db:"language_code"`
	Segments     loupe.JSON `db:"segments"`
	BlobKey      string     `db:"blob_key"`
	UpdatedOn    time.Time  `db:"updated_on"`
}

// TimedTranscript is the transcript's segments.
func (t *Transcript) TimedTranscript() []loupe.TranscriptSegment {
	out := []loupe.TranscriptSegment{}
	_ = json.Unmarshal(t.Segments, &out) // written from []loupe.TranscriptSegment
	return out
}

// MediaUsage is when and by which workflow media was last used.
type MediaUsage struct {
	LastUsedOn       time.Time `json:"lastUsedOn"`
	LastUsedWorkflow string    `json:"lastUsedWorkflow"`
}

// Thumbnail is a thumbnail image at a time position.
type Thumbnail struct {
	ItemID     string `db:"item_id"`
	PositionMs int64  `db:"position_ms"`
	BlobKey    string `db:"blob_key"`
	Width      *int   `db:"width"`
	Height     *int   `db:"height"`
}

// Position is the thumbnail's position in seconds.
func (t *Thumbnail) Position() float64 { return float64(t.PositionMs) / 1000 }

// PathEntry is one step of a folder path.
type PathEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ExternalIDMatch answers one external id (spec 2.8).
type ExternalIDMatch struct {
	Status     string  `json:"status"`
	ItemID     *string `json:"itemId"`
	ExternalID string  `json:"externalId"`
}
