package loupe

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// MarshalEnum and UnmarshalEnum implement gqlgen's marshalling for string
// enums whose values are spelled as the spec spells them, so REST JSON
// needs no mapping.
func MarshalEnum(w io.Writer, s string) { io.WriteString(w, strconv.Quote(s)) } //nolint:errcheck

// UnmarshalEnum reads one of values, or answers EINVALID naming the enum.
func UnmarshalEnum[T ~string](v any, name string, values ...T) (T, error) {
	s, _ := v.(string)
	if slices.Contains(values, T(s)) {
		return T(s), nil
	}
	return "", Invalid("invalid %s %s", name, fmt.Sprintf("%q", fmt.Sprint(v)))
}

// VersionState is the state of an item or version (spec 2.7).
type VersionState string

const (
	VersionExists       VersionState = "EXISTS"
	VersionInRecycleBin VersionState = "IN_RECYCLE_BIN"
	VersionDeleted      VersionState = "DELETED"
)

func (e VersionState) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *VersionState) UnmarshalGQL(v any) (err error) {
	*e, err = UnmarshalEnum(v, "versionState", VersionExists, VersionInRecycleBin, VersionDeleted)
	return err
}

// CommentType tells comments from replies.
type CommentType string

const (
	CommentTop   CommentType = "top"
	CommentReply CommentType = "reply"
)

func (e CommentType) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *CommentType) UnmarshalGQL(v any) (err error) {
	*e, err = UnmarshalEnum(v, "comment type", CommentTop, CommentReply)
	return err
}

// RelationDirection says which end of a relation an item is.
type RelationDirection string

const (
	RelationOutgoing RelationDirection = "outgoing"
	RelationIncoming RelationDirection = "incoming"
)

func (e RelationDirection) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *RelationDirection) UnmarshalGQL(v any) (err error) {
	*e, err = UnmarshalEnum(v, "relation direction", RelationOutgoing, RelationIncoming)
	return err
}

// AttachmentType is what an attachment is.
type AttachmentType string

// AttachmentTypes are the values the original service knows.
var AttachmentTypes = []AttachmentType{"poster", "prproj", "image", "subtitle", "file"}

func (e AttachmentType) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *AttachmentType) UnmarshalGQL(v any) (err error) {
	*e, err = UnmarshalEnum(v, "attachment type", AttachmentTypes...)
	return err
}

// AttachmentRole is what an attachment is used for.
type AttachmentRole string

// AttachmentRoles are the values the original service knows.
var AttachmentRoles = []AttachmentRole{"thumbnail", "poster", "subtitle", "file"}

func (e AttachmentRole) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *AttachmentRole) UnmarshalGQL(v any) (err error) {
	*e, err = UnmarshalEnum(v, "attachment role", AttachmentRoles...)
	return err
}

// AuditAction is what happened to an item (spec 2.9 actionType).
type AuditAction string

const (
	ActionCreate             AuditAction = "create"
	ActionDelete             AuditAction = "delete"
	ActionUndelete           AuditAction = "undelete"
	ActionArchiveInitiated   AuditAction = "archiveInitiated"
	ActionUnarchiveInitiated AuditAction = "unarchiveInitiated"
	ActionMetadataUpdated    AuditAction = "metadataUpdated"
	// ActionProcessingFailed: the item's media could not be processed
	// (mdfDiff.reason says why; docs/processing.md).
	ActionProcessingFailed AuditAction = "processingFailed"
	// Shares (docs/shares.md): made and revoked by users; opened, used and
	// tried with a wrong password by outsiders, recorded with the share's
	// id as executedBy (an outsider has no user) and mdfDiff.shareId.
	ActionShareCreated        AuditAction = "shareCreated"
	ActionShareRevoked        AuditAction = "shareRevoked"
	ActionShareOpened         AuditAction = "shareOpened"
	ActionShareDownload       AuditAction = "shareDownload"
	ActionShareUpload         AuditAction = "shareUpload"
	ActionShareComment        AuditAction = "shareComment"
	ActionSharePasswordFailed AuditAction = "sharePasswordFailed"
)

var auditActions = []AuditAction{ActionCreate, ActionDelete, ActionUndelete, ActionArchiveInitiated,
	ActionUnarchiveInitiated, ActionMetadataUpdated, ActionProcessingFailed,
	ActionShareCreated, ActionShareRevoked, ActionShareOpened, ActionShareDownload, ActionShareUpload,
	ActionShareComment, ActionSharePasswordFailed}

// ParseAuditAction validates an action type given by a client.
func ParseAuditAction(s string) (AuditAction, error) {
	for _, a := range auditActions {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(auditActions))
	for i, a := range auditActions {
		names[i] = string(a)
	}
	return "", Invalid("invalid actionType %q: expected one of %s", s, strings.Join(names, ", "))
}

func (a AuditAction) MarshalGQL(w io.Writer) { MarshalEnum(w, string(a)) }

// UnmarshalGQL reads the enum value (gqlgen).
func (a *AuditAction) UnmarshalGQL(v any) error {
	s, _ := v.(string)
	p, err := ParseAuditAction(s)
	if err != nil {
		return err
	}
	*a = p
	return nil
}
