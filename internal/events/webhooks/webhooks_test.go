package webhooks

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// The Standard Webhooks specification's own example: this secret, id,
// timestamp and body sign to this value.
func TestSignMatchesTheSpecificationsExample(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		body   = `{"test": 2432232314}`
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	got, err := Sign([]string{secret}, id, time.Unix(1614265330, 0), []byte(body))
	if err != nil || got != want {
		t.Fatalf("Sign = %q, %v; want %q", got, err, want)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "120": 2 * time.Minute, "0": 0, "-5": 0, "soon": 0,
		"Sat, 28 Nov 2026 12:05:00 GMT": 5 * time.Minute, "Sat, 28 Nov 2026 11:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

// Plan: one delivery per event and hook of its tenant and type, made
// before the event, whose condition holds; the message id is the event's.
func TestPlan(t *testing.T) {
	img := "image"
	cond := func(c loupe.WebhookCondition) loupe.JSON { b, _ := json.Marshal(c); return b }
	hooks := []*loupe.Webhook{
		{TenantID: "t", ID: "all", Type: loupe.EventItemChange, Condition: cond(loupe.WebhookCondition{Criteria: "always"})},
		{TenantID: "t", ID: "images", Type: loupe.EventItemChange,
			Condition: cond(loupe.WebhookCondition{Criteria: "itemTypeEquals", ItemType: &img})},
		{TenantID: "u", ID: "other tenant", Type: loupe.EventItemChange, Condition: cond(loupe.WebhookCondition{Criteria: "always"})},
		{TenantID: "t", ID: "creations", Type: loupe.EventItemCreation, Condition: cond(loupe.WebhookCondition{Criteria: "always"})},
		{TenantID: "t", ID: "made after the events", Type: loupe.EventItemChange, CreatedOn: time.Now(),
			Condition: cond(loupe.WebhookCondition{Criteria: "always"})},
	}
	ev := func(seq int64, item string) *store.Event {
		return &store.Event{Tx: 9, Seq: seq, TenantID: "t", Type: loupe.EventItemChange, ItemID: &item, Data: loupe.JSON(`{}`)}
	}
	var got []string
	for _, d := range Plan([]*store.Event{ev(1, "a"), ev(2, "b")}, hooks, map[string]string{"t/a": "video", "t/b": "image"}) {
		got = append(got, d.WebhookID+" "+d.MessageID)
	}
	if want := []string{"all evt_9.1", "all evt_9.2", "images evt_9.2"}; !slices.Equal(got, want) {
		t.Fatalf("%q, want %q", got, want)
	}
}
