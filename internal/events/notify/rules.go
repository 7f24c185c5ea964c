// Package notify makes users' notifications from the outbox's events
// (docs/events.md): a comment assigned to me, mentioning me or answering
// mine; my item processed or failed. The notifications reader
// (store.NotifyFromEvents) hands it each batch of events, once across
// nodes; Rules decides who hears of what, from the facts of the batch.
package notify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// mentionRE finds "@someone@example.com" in a comment: a mention names a
// user of the tenant by email.
var mentionRE = regexp.MustCompile(`(?:^|[^\w.@])@([A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})`)

// Mentions are the lower-cased emails a comment's text mentions, each once.
func Mentions(text string) []string {
	var out []string
	for _, m := range mentionRE.FindAllStringSubmatch(text, -1) {
		e := strings.ToLower(strings.TrimRight(m[1], "."))
		if !contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// Wants lists the facts a batch needs first: items and comments (tenant
// and id pairs).
func Wants(events []*store.Event) (items, comments [][2]string) {
	for _, e := range events {
		d := data(e)
		switch e.Type {
		case loupe.EventCommentCreation, loupe.EventCommentAssignment:
			if id, _ := d["commentId"].(string); id != "" {
				comments = append(comments, [2]string{e.TenantID, id})
			}
			if e.ItemID != nil {
				items = append(items, [2]string{e.TenantID, *e.ItemID})
			}
		case loupe.EventProcessingCompletion, loupe.EventProcessingFailure, loupe.EventShareOpening:
			if e.ItemID != nil {
				items = append(items, [2]string{e.TenantID, *e.ItemID})
			}
		}
	}
	return items, comments
}

// WantsMentions lists the mentioned emails of the batch's new comments,
// once the comments are known.
func WantsMentions(events []*store.Event, f *store.NoticeFacts) [][2]string {
	var out [][2]string
	for _, e := range events {
		if e.Type != loupe.EventCommentCreation {
			continue
		}
		id, _ := data(e)["commentId"].(string)
		if c, ok := f.Comments[store.FactKey(e.TenantID, id)]; ok {
			for _, m := range Mentions(c.Text) {
				out = append(out, [2]string{e.TenantID, m})
			}
		}
	}
	return out
}

// Rules are the notifications a batch of events makes.
func Rules(events []*store.Event, f *store.NoticeFacts) []store.NewNotification {
	var out []store.NewNotification
	for _, e := range events {
		d := data(e)
		actor := ""
		if e.ActorID != nil {
			actor = *e.ActorID
		}
		itemID := ""
		if e.ItemID != nil {
			itemID = *e.ItemID
		}
		it := f.Items[store.FactKey(e.TenantID, itemID)]
		add := func(typ, title, message string, to ...string) {
			var users []string
			for _, u := range to {
				if u != "" && !strings.EqualFold(u, actor) && !contains(users, u) {
					users = append(users, u)
				}
			}
			if len(users) == 0 {
				return
			}
			out = append(out, store.NewNotification{Type: typ, Title: title, Message: message, ItemID: itemID,
				SenderID: actor, Event: e.ID(), UserIDs: users, Data: map[string]any{"eventType": e.Type}}.ForTenant(e.TenantID))
		}
		switch e.Type {
		case loupe.EventCommentCreation, loupe.EventCommentAssignment:
			id, _ := d["commentId"].(string)
			c, ok := f.Comments[store.FactKey(e.TenantID, id)]
			if !ok {
				continue // deleted since
			}
			quote := excerpt(c.Text)
			if e.Type == loupe.EventCommentAssignment {
				assignee, _ := d["assigneeId"].(string)
				add("commentAssignment", "A comment was assigned to you",
					fmt.Sprintf("On %q: %s", it.Title, quote), assignee)
				continue
			}
			var mentioned []string
			for _, m := range Mentions(c.Text) {
				mentioned = append(mentioned, f.Users[store.FactKey(e.TenantID, m)])
			}
			add("commentMention", "You were mentioned in a comment", fmt.Sprintf("On %q: %s", it.Title, quote), mentioned...)
			if c.ParentAuthor != nil && !contains(mentioned, *c.ParentAuthor) {
				add("commentReply", "Your comment was answered", fmt.Sprintf("On %q: %s", it.Title, quote), *c.ParentAuthor)
			}
			// An outsider's comment, through a share: its creator hears.
			if creator, _ := d["creatorId"].(string); creator != "" && !contains(mentioned, creator) {
				add("shareComment", "A comment through your share", fmt.Sprintf("On %q: %s", it.Title, quote), creator)
			}
		case loupe.EventShareOpening:
			creator, _ := d["creatorId"].(string)
			add("shareOpening", "Your share was opened", fmt.Sprintf("Someone opened your share of %q.", it.Title), creator)
		case loupe.EventProcessingCompletion:
			add("processingCompletion", "Your media is ready", fmt.Sprintf("%q is processed and ready to play.", it.Title), it.CreatedBy)
		case loupe.EventWebhookDisabling:
			creator, _ := d["createdBy"].(string)
			reason, _ := d["reason"].(string)
			add("webhookDisabling", "A webhook of yours was disabled", "It will receive nothing until it is enabled again: "+
				excerpt(reason), creator)
		case loupe.EventProcessingFailure:
			reason, _ := d["reason"].(string)
			add("processingFailure", "Your media could not be processed",
				fmt.Sprintf("%q could not be processed: %s", it.Title, excerpt(reason)), it.CreatedBy)
		}
	}
	return out
}

// excerpt shortens a text for a notification's message.
func excerpt(s string) string {
	const max = 200
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

func data(e *store.Event) map[string]any {
	var d map[string]any
	json.Unmarshal(e.Data, &d) //nolint:errcheck // the outbox holds JSON objects
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
