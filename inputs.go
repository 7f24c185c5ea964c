package loupe

import "time"

// The input types of writes that are domain values: what a client asks to
// create or change, before the store checks and writes it.

// APIKeyInput is a key to create for the principal.
type APIKeyInput struct {
	Label string
	// ExpiresOn nil: the key does not expire ("indefinite").
	ExpiresOn     *time.Time
	MaxUnusedDays *int
}

// UserRefInput names a user.
type UserRefInput struct {
	Type *string `json:"type"`
	ID   string  `json:"id"`
}

// ApproximateSecondInput is a time position.
type ApproximateSecondInput struct {
	Approximate float64 `json:"approximate"`
}

// CommentContextInput anchors a new comment.
type CommentContextInput struct {
	Type        *string                `json:"type"`
	StartSecond ApproximateSecondInput `json:"startSecond"`
	EndSecond   ApproximateSecondInput `json:"endSecond"`
}

// CreateCommentInput is a new comment.
type CreateCommentInput struct {
	ItemID   string               `json:"itemId"`
	Text     string               `json:"text"`
	Type     *CommentType         `json:"type"`
	ParentID *string              `json:"parentId"`
	Context  *CommentContextInput `json:"context"`
	Assignee *UserRefInput        `json:"assignee"`
}

// UpdateCommentInput changes a comment; nil fields stay as they are.
type UpdateCommentInput struct {
	ID       string        `json:"id"`
	Text     *string       `json:"text"`
	Resolved *bool         `json:"resolved"`
	Assignee *UserRefInput `json:"assignee"`
	Unassign *bool         `json:"unassign"`
}

// TimedMetadataInput is an entry to insert or replace.
type TimedMetadataInput struct {
	ID      string            `json:"id"`
	StartMs int64             `json:"startMs"`
	EndMs   int64             `json:"endMs"`
	Data    ItemMetadataInput `json:"data"`
}

// CreateAttachmentInput registers an attachment.
type CreateAttachmentInput struct {
	ItemID      string         `json:"itemId"`
	FileName    string         `json:"fileName"`
	Type        AttachmentType `json:"type"`
	Role        AttachmentRole `json:"role"`
	Language    *string        `json:"language"`
	Description *string        `json:"description"`
}

// UpdateAttachmentInput changes an attachment; nil fields stay.
type UpdateAttachmentInput struct {
	ItemID      string          `json:"itemId"`
	FileName    string          `json:"fileName"`
	NewFileName *string         `json:"newFileName"`
	Type        *AttachmentType `json:"type"`
	Role        *AttachmentRole `json:"role"`
	Language    *string         `json:"language"`
	Description *string         `json:"description"`
}

// CreateItemInput is a new item (GraphQL CreateItemInput, REST POST /api/v1/items).
type CreateItemInput struct {
	Title                     *string            `json:"title"`
	ItemType                  string             `json:"itemType"`
	Metadata                  *ItemMetadataInput `json:"metadata"`
	FolderParents             []string           `json:"folderParents"`
	OriginalFileName          *string            `json:"originalFileName"`
	ExternalID                *string            `json:"externalId"`
	LanguageCode              *string            `json:"languageCode"`
	MediaCreatedOn            *time.Time         `json:"mediaCreatedOn"`
	MediaType                 *string            `json:"mediaType"`
	TranscriptionEnabled      *bool              `json:"transcriptionEnabled"`
	TranslationEnabled        *bool              `json:"translationEnabled"`
	CelebrityDetectionEnabled *bool              `json:"celebrityDetectionEnabled"`
	LabelDetectionEnabled     *bool              `json:"labelDetectionEnabled"`
	PersonDetectionEnabled    *bool              `json:"personDetectionEnabled"`
	TextDetectionEnabled      *bool              `json:"textDetectionEnabled"`
	CreateUnknownPersons      *bool              `json:"createUnknownPersons"`
}

// ItemMetadataInput is the metadata given with a new item.
type ItemMetadataInput struct {
	FormID   *string `json:"formId"`
	FormData JSON    `json:"formData"`
}
