package loupe

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// EventType names a change that matters to people and systems (the
// outbox, docs/events.md). Types are camelCase nouns, the family of the
// original service's webhook types (itemCreation, itemChange).
type EventType string

const (
	EventItemCreation   EventType = "itemCreation"
	EventItemChange     EventType = "itemChange"
	EventItemDeletion   EventType = "itemDeletion"
	EventItemUndeletion EventType = "itemUndeletion"
	EventItemArchive    EventType = "itemArchive"
	EventItemUnarchive  EventType = "itemUnarchive"

	EventProcessingStart      EventType = "processingStart"
	EventProcessingProgress   EventType = "processingProgress"
	EventProcessingCompletion EventType = "processingCompletion"
	EventProcessingFailure    EventType = "processingFailure"
	EventAnalysisCompletion   EventType = "analysisCompletion"

	EventCommentCreation   EventType = "commentCreation"
	EventCommentAssignment EventType = "commentAssignment"
	EventCommentResolution EventType = "commentResolution"

	EventUploadCompletion     EventType = "uploadCompletion"
	EventIngestScanCompletion EventType = "ingestScanCompletion"

	EventNotification EventType = "notification"
	// Shares (docs/shares.md): made, revoked, opened by an outsider, a
	// file uploaded through one.
	EventShareCreation   EventType = "shareCreation"
	EventShareRevocation EventType = "shareRevocation"
	EventShareOpening    EventType = "shareOpening"
	EventShareUpload     EventType = "shareUpload"
	// Renders (docs/render.md): a render-sequence request made its item's
	// original (its processing follows), or failed.
	EventRenderCompletion EventType = "renderCompletion"
	EventRenderFailure    EventType = "renderFailure"
	// EventWebhookDisabling: a hook was disabled (410, or every attempt of
	// a message failed); its creator is notified.
	EventWebhookDisabling EventType = "webhookDisabling"
)

// EventTypes lists every type, in the order above.
var EventTypes = []EventType{
	EventItemCreation, EventItemChange, EventItemDeletion, EventItemUndeletion, EventItemArchive, EventItemUnarchive,
	EventProcessingStart, EventProcessingProgress, EventProcessingCompletion, EventProcessingFailure,
	EventAnalysisCompletion, EventCommentCreation, EventCommentAssignment, EventCommentResolution,
	EventUploadCompletion, EventIngestScanCompletion, EventNotification, EventWebhookDisabling,
	EventShareCreation, EventShareRevocation, EventShareOpening, EventShareUpload,
	EventRenderCompletion, EventRenderFailure,
}

// ParseEventType validates a type given by a client.
func ParseEventType(s string) (EventType, error) {
	for _, t := range EventTypes {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return "", Invalid("unknown event type %q: expected one of %s", s, strings.Join(names, ", "))
}

func (e EventType) MarshalGQL(w io.Writer) { MarshalEnum(w, string(e)) }
func (e *EventType) UnmarshalGQL(v any) (err error) {
	s, _ := v.(string)
	*e, err = ParseEventType(s)
	return err
}

// ItemPart is a part of an item an itemChange event names as changed.
type ItemPart string

const (
	PartTitle       ItemPart = "title"
	PartMetadata    ItemPart = "metadata"
	PartFolders     ItemPart = "folders"
	PartRelations   ItemPart = "relations"
	PartAttachments ItemPart = "attachments"
	PartThumbnail   ItemPart = "thumbnail"
)

// EventCursor is a position in the outbox: the writing transaction's id
// and the row's place in it. Events are read in cursor order, and an event
// is read only once every transaction that could precede it has ended, so
// a reader resuming after a cursor misses nothing (docs/events.md).
type EventCursor struct {
	Tx  uint64
	Seq int64
}

// String is the cursor as clients see it: an event's id, and the `since`
// that resumes after it.
func (c EventCursor) String() string { return fmt.Sprintf("%d.%d", c.Tx, c.Seq) }

// ParseEventCursor reads an event id; "" is the start of the outbox.
func ParseEventCursor(s string) (EventCursor, error) {
	if s == "" {
		return EventCursor{}, nil
	}
	tx, seq, ok := strings.Cut(s, ".")
	t, err1 := strconv.ParseUint(tx, 10, 64)
	q, err2 := strconv.ParseInt(seq, 10, 64)
	if !ok || err1 != nil || err2 != nil || q < 0 {
		return EventCursor{}, Invalid("since %q is not an event id", s)
	}
	return EventCursor{Tx: t, Seq: q}, nil
}
