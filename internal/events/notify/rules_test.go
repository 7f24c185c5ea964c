package notify

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

func TestMentions(t *testing.T) {
	for text, want := range map[string][]string{
		"hi @Kim@A.test, and @kim@a.test again":     {"kim@a.test"},
		"@ed@a.test: see @sam@b.example.":           {"ed@a.test", "sam@b.example"},
		"mail kim@a.test (no mention)":              nil,
		"@not-an-email and @@x@y.z and a@@b@c.test": nil,
	} {
		if got := Mentions(text); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// Who hears of what: never the one who acted; processing news goes to the
// item's creator; a mention of an unknown email reaches no one; a deleted
// comment makes nothing.
func TestRules(t *testing.T) {
	const tenant, item, ed, kim, sam = "t", "i", "ed", "kim", "sam"
	ev := func(seq int64, typ loupe.EventType, actor string, data map[string]any) *store.Event {
		b, _ := json.Marshal(data)
		e := &store.Event{Tx: 7, Seq: seq, TenantID: tenant, Type: typ, ItemID: ptr(item), Data: b}
		if actor != "" {
			e.ActorID = ptr(actor)
		}
		return e
	}
	facts := &store.NoticeFacts{
		Items: map[string]store.NoticeItem{store.FactKey(tenant, item): {Title: "Interview", CreatedBy: kim}},
		Comments: map[string]store.NoticeComment{
			store.FactKey(tenant, "c1"): {Text: "ask @sam@a.test and @who@a.test", AuthorID: ed},
			store.FactKey(tenant, "c2"): {Text: "done", AuthorID: sam, ParentAuthor: ptr(ed)},
			store.FactKey(tenant, "c3"): {Text: "to myself", AuthorID: ed},
		},
		Users: map[string]string{store.FactKey(tenant, "sam@a.test"): sam},
	}
	events := []*store.Event{
		ev(1, loupe.EventCommentCreation, ed, map[string]any{"commentId": "c1"}),
		ev(2, loupe.EventCommentCreation, sam, map[string]any{"commentId": "c2"}),
		ev(3, loupe.EventCommentAssignment, ed, map[string]any{"commentId": "c3", "assigneeId": ed}), // self
		ev(4, loupe.EventCommentAssignment, ed, map[string]any{"commentId": "c3", "assigneeId": kim}),
		ev(5, loupe.EventCommentCreation, ed, map[string]any{"commentId": "gone"}),
		ev(6, loupe.EventProcessingCompletion, "", map[string]any{"transcodingState": "complete"}),
		ev(7, loupe.EventProcessingFailure, "", map[string]any{"reason": "ffprobe: moov atom not found"}),
		ev(8, loupe.EventItemChange, ed, map[string]any{"parts": []string{"title"}}),
	}
	var got []string
	for _, n := range Rules(events, facts) {
		got = append(got, n.Event+" "+n.Type+" "+n.UserIDs[0]+" "+n.Message)
		if len(n.UserIDs) != 1 {
			t.Fatalf("%+v: one recipient expected", n)
		}
	}
	want := []string{
		`7.1 commentMention sam On "Interview": ask @sam@a.test and @who@a.test`,
		`7.2 commentReply ed On "Interview": done`,
		`7.4 commentAssignment kim On "Interview": to myself`,
		`7.6 processingCompletion kim "Interview" is processed and ready to play.`,
		`7.7 processingFailure kim "Interview" could not be processed: ffprobe: moov atom not found`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("notifications:\n%q\nwant\n%q", got, want)
	}
}

func ptr[T any](v T) *T { return &v }
