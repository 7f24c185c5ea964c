package store

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// enum implements gqlgen's marshalling for string enums whose values are
// spelled as the spec spells them, so REST JSON needs no mapping.
func marshalEnum(w io.Writer, s string) { io.WriteString(w, strconv.Quote(s)) } //nolint:errcheck

func unmarshalEnum[T ~string](v any, name string, values ...T) (T, error) {
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

func (e VersionState) MarshalGQL(w io.Writer) { marshalEnum(w, string(e)) }
func (e *VersionState) UnmarshalGQL(v any) (err error) {
	*e, err = unmarshalEnum(v, "versionState", VersionExists, VersionInRecycleBin, VersionDeleted)
	return err
}

// CommentType tells comments from replies.
type CommentType string

const (
	CommentTop   CommentType = "top"
	CommentReply CommentType = "reply"
)

func (e CommentType) MarshalGQL(w io.Writer) { marshalEnum(w, string(e)) }
func (e *CommentType) UnmarshalGQL(v any) (err error) {
	*e, err = unmarshalEnum(v, "comment type", CommentTop, CommentReply)
	return err
}

// RelationDirection says which end of a relation an item is.
type RelationDirection string

const (
	RelationOutgoing RelationDirection = "outgoing"
	RelationIncoming RelationDirection = "incoming"
)

func (e RelationDirection) MarshalGQL(w io.Writer) { marshalEnum(w, string(e)) }
func (e *RelationDirection) UnmarshalGQL(v any) (err error) {
	*e, err = unmarshalEnum(v, "relation direction", RelationOutgoing, RelationIncoming)
	return err
}

// AttachmentType is what an attachment is.
type AttachmentType string

// AttachmentTypes are the values the original service knows.
var AttachmentTypes = []AttachmentType{"poster", "prproj", "image", "subtitle", "file"}

func (e AttachmentType) MarshalGQL(w io.Writer) { marshalEnum(w, string(e)) }
func (e *AttachmentType) UnmarshalGQL(v any) (err error) {
	*e, err = unmarshalEnum(v, "attachment type", AttachmentTypes...)
	return err
}

// AttachmentRole is what an attachment is used for.
type AttachmentRole string

// AttachmentRoles are the values the original service knows.
var AttachmentRoles = []AttachmentRole{"thumbnail", "poster", "subtitle", "file"}

func (e AttachmentRole) MarshalGQL(w io.Writer) { marshalEnum(w, string(e)) }
func (e *AttachmentRole) UnmarshalGQL(v any) (err error) {
	*e, err = unmarshalEnum(v, "attachment role", AttachmentRoles...)
	return err
}
