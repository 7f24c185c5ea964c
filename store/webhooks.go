package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// Webhooks (docs/events.md): a tenant's hooks, the webhooks reader of the
// outbox that asks for their deliveries, and the log of every attempt.

const (
	webhookColumns = `tenant_id, id, created_by, created_on, modified_on, type, url, label, protected, condition,
headers, enabled, disabled_reason, secret, previous_secret, previous_until`

	webhooksSQL = `SELECT ` + webhookColumns + ` FROM webhooks WHERE tenant_id = $1 ORDER BY created_on, id`
	webhookSQL  = `SELECT ` + webhookColumns + ` FROM webhooks WHERE tenant_id = $1 AND id = $2`

	countWebhooksSQL = `SELECT count(*) FROM webhooks WHERE tenant_id = $1`

	insertWebhookSQL = `
INSERT INTO webhooks (tenant_id, id, created_by, created_on, modified_on, type, url, label, protected, condition, headers, secret, enabled)
VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12)
RETURNING ` + webhookColumns

	// updateWebhookSQL changes the fields given (NULL: kept); enabling a
	// hook forgets why it was disabled.
	updateWebhookSQL = `
UPDATE webhooks SET type = COALESCE($3, type), url = COALESCE($4, url), label = COALESCE($5, label),
    protected = COALESCE($6, protected), condition = COALESCE($7, condition), headers = COALESCE($8, headers),
    enabled = COALESCE($9, enabled),
    disabled_reason = CASE WHEN $9::boolean THEN NULL ELSE disabled_reason END, modified_on = $10
WHERE tenant_id = $1 AND id = $2
RETURNING ` + webhookColumns

	deleteWebhookSQL = `DELETE FROM webhooks WHERE tenant_id = $1 AND id = $2 RETURNING protected`

	rotateWebhookSQL = `
UPDATE webhooks SET previous_secret = secret, previous_until = $4, secret = $3, modified_on = $5
WHERE tenant_id = $1 AND id = $2 RETURNING ` + webhookColumns

	disableWebhookSQL = `
UPDATE webhooks SET enabled = false, disabled_reason = $3, modified_on = $4
WHERE tenant_id = $1 AND id = $2 AND enabled RETURNING created_by`

	// hooksForEventsSQL: the enabled hooks of the (tenant, type) pairs.
	hooksForEventsSQL = `
SELECT ` + webhookColumns + ` FROM webhooks w
WHERE enabled AND (tenant_id, type) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`

	itemTypesSQL = `
SELECT i.tenant_id::text || '/' || i.id::text AS key, i.item_type
FROM unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, id)
JOIN items i ON i.tenant_id = k.tenant_id AND i.id = k.id`
)

// Webhooks lists a tenant's hooks, oldest first.
func (s *Store) Webhooks(ctx context.Context, tenantID string) ([]*loupe.Webhook, error) {
	var out []*loupe.Webhook
	if err := s.db.SelectContext(ctx, &out, webhooksSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list webhooks: %w", err)
	}
	return out, nil
}

// Webhook reads one hook (ENOTFOUND when the tenant has none of that id).
func (s *Store) Webhook(ctx context.Context, tenantID, id string) (*loupe.Webhook, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var w loupe.Webhook
	if err := s.db.GetContext(ctx, &w, webhookSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to read webhook %s: %w", id)
	}
	return &w, nil
}

// CreateWebhook stores a checked hook with its sealed secret.
func (s *Store) CreateWebhook(ctx context.Context, p *loupe.Principal, in *loupe.WebhookInput, sealedSecret string) (*loupe.Webhook, error) {
	var w loupe.Webhook
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, countWebhooksSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count webhooks: %w", err)
		}
		if n >= loupe.MaxWebhooksPerTenant {
			return loupe.Invalid("a tenant has at most %d webhooks", loupe.MaxWebhooksPerTenant)
		}
		cond := loupe.WebhookCondition{Criteria: "always"}
		if in.Condition != nil {
			cond = *in.Condition
		}
		headers := in.Headers
		if headers == nil {
			headers = []*loupe.WebhookHeader{}
		}
		label, protected, enabled := "", false, true
		if in.Label != nil {
			label = *in.Label
		}
		if in.Protected != nil {
			protected = *in.Protected
		}
		if in.Enabled != nil {
			enabled = *in.Enabled
		}
		return tx.GetContext(ctx, &w, insertWebhookSQL, p.TenantID, loupe.NewID(), p.UserID, now(), string(*in.Type),
			*in.URL, label, protected, loupe.JSONOf(cond), loupe.JSONOf(headers), sealedSecret, enabled)
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// UpdateWebhook changes a checked hook's given fields.
func (s *Store) UpdateWebhook(ctx context.Context, tenantID, id string, in *loupe.WebhookInput) (*loupe.Webhook, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var typ, cond, headers any
	if in.Type != nil {
		typ = string(*in.Type)
	}
	if in.Condition != nil {
		cond = loupe.JSONOf(in.Condition)
	}
	if in.Headers != nil {
		headers = loupe.JSONOf(in.Headers)
	}
	var w loupe.Webhook
	if err := s.db.GetContext(ctx, &w, updateWebhookSQL, tenantID, id, typ, in.URL, in.Label, in.Protected, cond, headers,
		in.Enabled, now()); err != nil {
		return nil, notFoundOr(err, "store: unable to update webhook %s: %w", id)
	}
	return &w, nil
}

// DeleteWebhook deletes a hook and its deliveries' log. EINVALID for a
// protected one (unprotect it first).
func (s *Store) DeleteWebhook(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var protected bool
		if err := tx.GetContext(ctx, &protected, deleteWebhookSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to delete webhook %s: %w", id)
		}
		if protected {
			return loupe.Invalid("webhook %s is protected: set protected to false first", id)
		}
		return nil
	})
}

// RotateWebhookSecret makes sealedSecret the hook's secret; the previous
// one still signs until until.
func (s *Store) RotateWebhookSecret(ctx context.Context, tenantID, id, sealedSecret string, until time.Time) (*loupe.Webhook, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var w loupe.Webhook
	if err := s.db.GetContext(ctx, &w, rotateWebhookSQL, tenantID, id, sealedSecret, until, now()); err != nil {
		return nil, notFoundOr(err, "store: unable to rotate webhook %s: %w", id)
	}
	return &w, nil
}

// DisableWebhook disables an enabled hook, saying why, and announces it
// (webhookDisabling: its creator is notified). A hook already disabled
// stays as it is.
func (s *Store) DisableWebhook(ctx context.Context, tenantID, id, reason string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var creator string
		if err := tx.GetContext(ctx, &creator, disableWebhookSQL, tenantID, id, reason, at); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return fmt.Errorf("store: unable to disable webhook %s: %w", id, err)
		}
		return emitTx(ctx, tx, tenantID, at, NewEvent{Type: loupe.EventWebhookDisabling,
			Data: map[string]any{"webhookId": id, "reason": reason, "createdBy": creator}})
	})
}

// DispatchWebhooks asks for the deliveries of the next events of the
// webhooks reader, up to limit: plan says which (given the enabled hooks
// of the batch's tenants and types, and the item types of its items), and
// the jobs are inserted and the reader moved on in one transaction — each
// event reaches each of its hooks once across nodes.
func (s *Store) DispatchWebhooks(ctx context.Context, limit int,
	plan func(events []*Event, hooks []*loupe.Webhook, itemTypes map[string]string) []jobs.DeliverWebhookArgs) (int, error) {
	return s.readEvents(ctx, ReaderWebhooks, limit, func(tx *sqlx.Tx, events []*Event) error {
		var tenants, types, itemTenants, items []string
		for _, e := range events {
			tenants, types = append(tenants, e.TenantID), append(types, string(e.Type))
			if e.ItemID != nil {
				itemTenants, items = append(itemTenants, e.TenantID), append(items, *e.ItemID)
			}
		}
		var hooks []*loupe.Webhook
		if err := tx.SelectContext(ctx, &hooks, hooksForEventsSQL, stringArray(tenants), stringArray(types)); err != nil {
			return fmt.Errorf("store: unable to read webhooks: %w", err)
		}
		if len(hooks) == 0 {
			return nil
		}
		itemTypes := map[string]string{}
		if len(items) > 0 {
			var rows []struct {
				Key  string `db:"key"`
				Type string `db:"item_type"`
			}
			if err := tx.SelectContext(ctx, &rows, itemTypesSQL, stringArray(itemTenants), stringArray(items)); err != nil {
				return fmt.Errorf("store: unable to read item types: %w", err)
			}
			for _, r := range rows {
				itemTypes[r.Key] = r.Type
			}
		}
		deliveries := plan(events, hooks, itemTypes)
		if len(deliveries) == 0 {
			return nil
		}
		if s.jobs == nil {
			return errNoJobs
		}
		params := make([]river.InsertManyParams, len(deliveries))
		for i, d := range deliveries {
			params[i] = river.InsertManyParams{Args: d, InsertOpts: WebhookInsertOpts()}
		}
		if _, err := s.jobs.InsertManyTx(ctx, tx.Tx, params); err != nil {
			return fmt.Errorf("store: unable to ask for webhook deliveries: %w", err)
		}
		return nil
	})
}

// WebhookInsertOpts are a delivery job's: the webhooks queue (many at
// once, apart from processing), never discarded by River's count of
// attempts (the worker keeps its own, in the log).
func WebhookInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: jobs.QueueWebhooks, MaxAttempts: 25}
}

// WebhookDelivery is one attempt to deliver a message.
type WebhookDelivery struct {
	TenantID    string     `db:"tenant_id"`
	WebhookID   string     `db:"webhook_id"`
	ID          string     `db:"id"`
	MessageID   string     `db:"message_id"`
	EventType   string     `db:"event_type"`
	Payload     loupe.JSON `db:"payload"`
	Attempt     int        `db:"attempt"`
	AttemptedOn time.Time  `db:"attempted_on"`
	Status      *int       `db:"status"`
	DurationMs  int        `db:"duration_ms"`
	Answer      string     `db:"answer"`
	Error       string     `db:"error"`
	Succeeded   bool       `db:"succeeded"`
}

// NodeID implements Node.
func (d *WebhookDelivery) NodeID() string { return d.ID }

const (
	deliveryColumns = `tenant_id, webhook_id, id, message_id, event_type, payload, attempt, attempted_on, status,
duration_ms, answer, error, succeeded`

	insertDeliverySQL = `
INSERT INTO webhook_deliveries (` + deliveryColumns + `)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

	attemptsSQL = `SELECT count(*) FROM webhook_deliveries WHERE tenant_id = $1 AND webhook_id = $2 AND message_id = $3`

	deliveriesSQL = `
SELECT ` + deliveryColumns + ` FROM webhook_deliveries
WHERE tenant_id = $1 AND webhook_id = $2 AND ($3::timestamptz IS NULL OR (attempted_on, id) < ($3, $4::uuid))
ORDER BY attempted_on DESC, id DESC LIMIT $5`

	deliverySQL = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries WHERE tenant_id = $1 AND webhook_id = $2 AND id = $3`
)

// RecordDelivery logs an attempt.
func (s *Store) RecordDelivery(ctx context.Context, d *WebhookDelivery) error {
	if _, err := s.db.ExecContext(ctx, insertDeliverySQL, d.TenantID, d.WebhookID, d.ID, d.MessageID, d.EventType,
		d.Payload, d.Attempt, d.AttemptedOn, d.Status, d.DurationMs, d.Answer, d.Error, d.Succeeded); err != nil {
		return fmt.Errorf("store: unable to log a webhook delivery: %w", err)
	}
	return nil
}

// DeliveryAttempts is how many attempts a message to a hook has had.
func (s *Store) DeliveryAttempts(ctx context.Context, tenantID, webhookID, messageID string) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, attemptsSQL, tenantID, webhookID, messageID); err != nil {
		return 0, fmt.Errorf("store: unable to count attempts: %w", err)
	}
	return n, nil
}

// MaxDeliveriesPage bounds a page of the log.
const MaxDeliveriesPage = 100

// Deliveries reads a page of a hook's log, newest first, after a cursor
// (TimeCursor's shape: time and id).
func (s *Store) Deliveries(ctx context.Context, tenantID, webhookID string, after *TimeCursor, first int) ([]*WebhookDelivery, bool, error) {
	if first < 1 || first > MaxDeliveriesPage {
		return nil, false, loupe.Invalid("first must be between 1 and %d", MaxDeliveriesPage)
	}
	var at, id any
	if after != nil {
		at, id = after.CreatedOn, after.ID
	}
	var out []*WebhookDelivery
	if err := s.db.SelectContext(ctx, &out, deliveriesSQL, tenantID, webhookID, at, id, first+1); err != nil {
		return nil, false, fmt.Errorf("store: unable to read deliveries: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}

// Delivery reads one attempt of a hook's log.
func (s *Store) Delivery(ctx context.Context, tenantID, webhookID, id string) (*WebhookDelivery, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var d WebhookDelivery
	if err := s.db.GetContext(ctx, &d, deliverySQL, tenantID, webhookID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to read delivery %s: %w", id)
	}
	return &d, nil
}

// ReplayDelivery asks for a logged message to be delivered again, with its
// webhook-id.
func (s *Store) ReplayDelivery(ctx context.Context, d *WebhookDelivery) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		_, err := s.enqueue(ctx, tx, jobs.DeliverWebhookArgs{TenantID: d.TenantID, WebhookID: d.WebhookID,
			MessageID: d.MessageID, EventType: d.EventType, Payload: json.RawMessage(d.Payload), Replay: true}, WebhookInsertOpts())
		return err
	})
}
