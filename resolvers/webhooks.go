package resolvers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/events/webhooks"
)

// msgWebhooksAdminOnly answers a webhook call by a user who is no admin.
const msgWebhooksAdminOnly = "Only administrators may manage the tenant's webhooks."

// maskedHeaderValue stands for a hook's header value in answers: values
// are credentials more often than not.
const maskedHeaderValue = "***"

// checkWebhook validates an input and its receiver's address.
func (r *Resolver) checkWebhook(ctx context.Context, in *loupe.WebhookInput, create bool) error {
	if r.Webhooks == nil {
		return loupe.Invalid("webhooks are not available on this server")
	}
	if err := in.Check(create); err != nil {
		return err
	}
	if in.URL != nil {
		return r.Webhooks.CheckURL(ctx, *in.URL)
	}
	return nil
}

// newWebhookSecret makes a secret and seals it for the tenant.
func (r *Resolver) newWebhookSecret(tenantID string) (secret, sealed string, err error) {
	if secret, err = webhooks.NewSecret(); err != nil {
		return "", "", err
	}
	sealed, err = r.Webhooks.Seal(tenantID, secret)
	return secret, sealed, err
}

// keepMaskedHeaders puts back the stored value of each header given with
// the mask it was answered with (a client writing back what it read).
func keepMaskedHeaders(cur *loupe.Webhook, headers []*loupe.WebhookHeader) {
	var stored []loupe.WebhookHeader
	json.Unmarshal(cur.Headers, &stored) //nolint:errcheck // written by CreateWebhook
	for _, h := range headers {
		if h == nil || h.HeaderValue != maskedHeaderValue {
			continue
		}
		for _, s := range stored {
			if http.CanonicalHeaderKey(s.HeaderField) == http.CanonicalHeaderKey(h.HeaderField) {
				h.HeaderValue = s.HeaderValue
			}
		}
	}
}
