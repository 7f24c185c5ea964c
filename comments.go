package loupe

import (
	"math"
	"strings"
	"unicode/utf8"
)

// The rules of comments (spec 2.5): their text, type, timeline context and
// assignee as a client writes them. The store checks what needs the
// database besides (the item, the parent comment, the assignee's user).

// MaxCommentText bounds a comment's text, in characters, after trimming.
const MaxCommentText = 10000

// NewComment is a checked CreateCommentInput.
type NewComment struct {
	Type CommentType
	Text string
	// Context is the timeline span as stored (nil: none).
	Context JSON
	// Assignee is the assigned user's id (nil: none).
	Assignee *string
}

// NewComment checks a new comment and settles its type (a reply when it
// names a parent). Returns EINVALID naming the first bad field.
func (in *CreateCommentInput) NewComment() (*NewComment, error) {
	text, err := commentText(in.Text)
	if err != nil {
		return nil, err
	}
	n := &NewComment{Type: CommentTop, Text: text}
	if in.ParentID != nil {
		n.Type = CommentReply
	}
	if in.Type != nil {
		switch {
		case *in.Type == CommentReply && in.ParentID == nil:
			return nil, Invalid("a reply needs parentId")
		case *in.Type == CommentTop && in.ParentID != nil:
			return nil, Invalid("a top comment has no parentId")
		}
		n.Type = *in.Type
	}
	if c := in.Context; c != nil {
		if c.Type != nil && *c.Type != "timeline" {
			return nil, Invalid("context.type must be timeline")
		}
		start, end := c.StartSecond.Approximate, c.EndSecond.Approximate
		if math.IsNaN(start) || math.IsNaN(end) || math.IsInf(end, 0) || start < 0 || end < start {
			return nil, Invalid("context: need 0 <= startSecond.approximate <= endSecond.approximate")
		}
		timeline := "timeline"
		n.Context = JSONOf(CommentContextInput{Type: &timeline, StartSecond: c.StartSecond, EndSecond: c.EndSecond})
	}
	if in.Assignee != nil {
		if n.Assignee, err = commentUserRef("assignee", in.Assignee); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// CommentChange is a checked UpdateCommentInput: nil fields stay.
type CommentChange struct {
	Text     *string
	Resolved *bool
	Assignee *string
	Unassign bool
}

// Change checks a comment's update. Returns EINVALID naming the first bad
// field, or for a change of nothing.
func (in *UpdateCommentInput) Change() (*CommentChange, error) {
	c := &CommentChange{Resolved: in.Resolved, Unassign: in.Unassign != nil && *in.Unassign}
	if in.Text != nil {
		t, err := commentText(*in.Text)
		if err != nil {
			return nil, err
		}
		c.Text = &t
	}
	if in.Assignee != nil {
		if c.Unassign {
			return nil, Invalid("give assignee or unassign, not both")
		}
		var err error
		if c.Assignee, err = commentUserRef("assignee", in.Assignee); err != nil {
			return nil, err
		}
	}
	if c.Text == nil && c.Resolved == nil && c.Assignee == nil && !c.Unassign {
		return nil, Invalid("nothing to change: give text, resolved, assignee or unassign")
	}
	return c, nil
}

// commentText trims a comment's text and checks its length.
func commentText(s string) (string, error) {
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n < 1 || n > MaxCommentText {
		return "", Invalid("text must be 1 to %d characters", MaxCommentText)
	}
	return s, nil
}

// commentUserRef checks a reference to a user (type "user", an id that
// can exist) and returns the id.
func commentUserRef(field string, in *UserRefInput) (*string, error) {
	if in.Type != nil && *in.Type != "user" {
		return nil, Invalid("%s.type must be user", field)
	}
	if !ValidID(in.ID) {
		return nil, Invalid("%s %s is not a user of the tenant", field, in.ID)
	}
	return &in.ID, nil
}
