package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/events/feed"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// Schedule is Standard Webhooks' retry schedule: the waits before the
// 2nd to 10th attempts (the 1st goes at once). After the 10th fails, the
// hook is disabled.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}

// answerKept is how much of a receiver's answer the log keeps.
const answerKept = 4 << 10

// Plan is the deliveries a batch of events asks for: one per event and
// enabled hook of its tenant and type, made before the event, whose
// condition holds (itemTypes:
// "<tenant>/<item>" → item type). The message id is the event's, so that
// it is stable across retries and replays.
func Plan(events []*store.Event, hooks []*loupe.Webhook, itemTypes map[string]string) []jobs.DeliverWebhookArgs {
	var out []jobs.DeliverWebhookArgs
	for _, e := range events {
		var payload []byte
		for _, h := range hooks {
			// A hook hears of what happens from its creation on, however far
			// behind the reader is.
			if h.TenantID != e.TenantID || h.Type != e.Type || e.OccurredOn.Before(h.CreatedOn) || !holds(h, e, itemTypes) {
				continue
			}
			if payload == nil {
				payload = Payload(e)
			}
			out = append(out, jobs.DeliverWebhookArgs{TenantID: e.TenantID, WebhookID: h.ID, MessageID: "evt_" + e.ID(),
				EventType: string(e.Type), Payload: payload})
		}
	}
	return out
}

// holds is whether h's condition takes e.
func holds(h *loupe.Webhook, e *store.Event, itemTypes map[string]string) bool {
	var c loupe.WebhookCondition
	if json.Unmarshal(h.Condition, &c) != nil || c.Criteria != "itemTypeEquals" {
		return true
	}
	if e.ItemID == nil || c.ItemType == nil {
		return false
	}
	return itemTypes[e.TenantID+"/"+*e.ItemID] == *c.ItemType
}

// Payload is the thin body of e: {type, timestamp, data} as Standard
// Webhooks suggests, data the event's ids and its own data.
func Payload(e *store.Event) []byte {
	data := map[string]any{}
	json.Unmarshal(e.Data, &data) //nolint:errcheck // the outbox holds JSON objects
	data["eventId"], data["tenantId"] = e.ID(), e.TenantID
	if e.ItemID != nil {
		data["itemId"] = *e.ItemID
	}
	if e.ActorID != nil {
		data["actorId"] = *e.ActorID
	}
	b, _ := json.Marshal(map[string]any{"type": e.Type, "timestamp": e.OccurredOn.UTC().Format(time.RFC3339Nano), "data": data})
	return b
}

// Dispatcher runs the webhooks reader of the outbox on a node (every node
// runs one; the reader's lock lets one work at a time).
type Dispatcher struct {
	Store *store.Store
	Feed  *feed.Feed
	Log   *slog.Logger
}

const batch = 200

// Run asks for deliveries until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	feed.Follow(ctx, d.Feed, batch, d.Log, "webhooks", func(ctx context.Context) (int, error) {
		return d.Store.DispatchWebhooks(ctx, batch, Plan)
	})
}

// Worker delivers one message to one hook per job.
type Worker struct {
	river.WorkerDefaults[jobs.DeliverWebhookArgs]
	Store *store.Store
	Guard *Guard
	// Schedule replaces the package's (tests).
	Schedule []time.Duration
	client   *http.Client
}

// Timeout bounds a job: the request's own bound and the log's writes.
func (w *Worker) Timeout(*river.Job[jobs.DeliverWebhookArgs]) time.Duration {
	return timeout + 15*time.Second
}

// Work makes one attempt. A failure is logged and the job snoozed until
// the next attempt of the schedule (or the receiver's Retry-After, when
// later), so that the attempts are counted in the log, not by River.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.DeliverWebhookArgs]) error {
	a := job.Args
	h, err := w.Store.Webhook(ctx, a.TenantID, a.WebhookID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil // deleted since
	}
	if err != nil {
		return err
	}
	if !h.Enabled && !a.Replay {
		return nil // disabled since: nothing more goes to it
	}
	attempts, err := w.Store.DeliveryAttempts(ctx, a.TenantID, a.WebhookID, a.MessageID)
	if err != nil {
		return err
	}
	d := &store.WebhookDelivery{TenantID: a.TenantID, WebhookID: a.WebhookID, ID: loupe.NewID(), MessageID: a.MessageID,
		EventType: a.EventType, Payload: loupe.JSON(a.Payload), Attempt: attempts + 1, AttemptedOn: time.Now().UTC()}
	retryAfter := w.send(ctx, h, d)
	if err := w.Store.RecordDelivery(context.WithoutCancel(ctx), d); err != nil {
		return err
	}
	switch {
	case d.Succeeded || a.Replay:
		return nil
	case d.Status != nil && *d.Status == http.StatusGone:
		return w.Store.DisableWebhook(ctx, a.TenantID, a.WebhookID, "the receiver answered 410 Gone")
	}
	schedule := w.Schedule
	if schedule == nil {
		schedule = Schedule
	}
	if d.Attempt > len(schedule) {
		return w.Store.DisableWebhook(ctx, a.TenantID, a.WebhookID,
			fmt.Sprintf("all %d attempts to deliver %s failed; the last: %s", d.Attempt, a.MessageID, failure(d)))
	}
	wait := schedule[d.Attempt-1]
	wait += time.Duration(rand.Int64N(int64(wait)/10 + 1)) // jitter: up to a tenth more
	if retryAfter > wait {
		wait = min(retryAfter, 24*time.Hour)
	}
	return river.JobSnooze(wait)
}

// send makes the request and fills d with what came back. It answers the
// receiver's Retry-After (0 when none).
func (w *Worker) send(ctx context.Context, h *loupe.Webhook, d *store.WebhookDelivery) time.Duration {
	if w.client == nil {
		w.client = w.Guard.Client()
	}
	secrets, err := w.secrets(h)
	if err != nil {
		d.Error = "cannot open the signing secret: " + err.Error()
		return 0
	}
	ts := time.Now()
	sig, err := Sign(secrets, d.MessageID, ts, d.Payload)
	if err != nil {
		d.Error = err.Error()
		return 0
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(d.Payload))
	if err != nil {
		d.Error = "cannot make the request: " + err.Error()
		return 0
	}
	var headers []loupe.WebhookHeader
	json.Unmarshal(h.Headers, &headers) //nolint:errcheck // stored by CreateWebhook
	for _, x := range headers {
		req.Header.Set(x.HeaderField, x.HeaderValue)
	}
	// Set after the hook's own: never overridden (and refused on save).
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Loupe-Webhooks/1")
	req.Header.Set("webhook-id", d.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := w.client.Do(req)
	d.DurationMs = int(time.Since(start).Milliseconds())
	if err != nil {
		d.Error = strings.ReplaceAll(err.Error(), h.URL, "the url")
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, answerKept))
	d.Status, d.Answer = &resp.StatusCode, strings.ToValidUTF8(string(body), "")
	d.Succeeded = resp.StatusCode >= 200 && resp.StatusCode < 300
	return parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
}

// secrets are the hook's secrets in force: the current, and the previous
// for a day after a rotation.
func (w *Worker) secrets(h *loupe.Webhook) ([]string, error) {
	cur, err := w.Guard.Open(h.TenantID, h.Secret)
	if err != nil {
		return nil, err
	}
	out := []string{cur}
	if h.PreviousSecret != nil && h.PreviousUntil != nil && time.Now().Before(*h.PreviousUntil) {
		if prev, err := w.Guard.Open(h.TenantID, *h.PreviousSecret); err == nil {
			out = append(out, prev)
		}
	}
	return out, nil
}

// parseRetryAfter reads seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// failure is what the log says of a failed attempt.
func failure(d *store.WebhookDelivery) string {
	if d.Status != nil {
		return "HTTP " + strconv.Itoa(*d.Status)
	}
	return d.Error
}
