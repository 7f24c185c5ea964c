package loupe

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhook is a tenant's hook (docs/events.md): the original service's
// shape {id, protected, type, url, label, condition, headers}, plus its
// state. Its signing secret is never part of it: it is answered once, on
// create and on rotation.
type Webhook struct {
	TenantID       string     `db:"tenant_id" json:"-"`
	ID             string     `db:"id" json:"id"`
	CreatedBy      string     `db:"created_by" json:"createdBy"`
	CreatedOn      time.Time  `db:"created_on" json:"createdOn"`
	ModifiedOn     time.Time  `db:"modified_on" json:"modifiedOn"`
	Type           EventType  `db:"type" json:"type"`
	URL            string     `db:"url" json:"url"`
	Label          string     `db:"label" json:"label"`
	Protected      bool       `db:"protected" json:"protected"`
	Condition      JSON       `db:"condition" json:"condition"`
	Headers        JSON       `db:"headers" json:"headers"`
	Enabled        bool       `db:"enabled" json:"enabled"`
	DisabledReason *string    `db:"disabled_reason" json:"disabledReason"`
	Secret         string     `db:"secret" json:"-"`
	PreviousSecret *string    `db:"previous_secret" json:"-"`
	PreviousUntil  *time.Time `db:"previous_until" json:"-"`
}

// NodeID implements Node.
func (w *Webhook) NodeID() string { return w.ID }

// WebhookCondition says which events of the hook's type it gets.
type WebhookCondition struct {
	// Criteria is always or itemTypeEquals.
	Criteria string  `json:"criteria"`
	ItemType *string `json:"itemType,omitempty"`
}

// WebhookHeader is a header a hook's requests carry.
type WebhookHeader struct {
	HeaderField string `json:"headerField"`
	HeaderValue string `json:"headerValue"`
}

// WebhookInput creates a hook or changes one (nil fields stay).
type WebhookInput struct {
	Type      *EventType        `json:"type"`
	URL       *string           `json:"url"`
	Label     *string           `json:"label"`
	Protected *bool             `json:"protected"`
	Condition *WebhookCondition `json:"condition"`
	Headers   []*WebhookHeader  `json:"headers"`
	Enabled   *bool             `json:"enabled"`
}

// Limits of a hook.
const (
	MaxWebhookURL         = 2048
	MaxWebhookLabel       = 256
	MaxWebhookHeaders     = 20
	MaxWebhookHeaderName  = 64
	MaxWebhookHeaderValue = 1024
	MaxWebhooksPerTenant  = 100
)

// reservedHeaders are what a hook's own headers may not set: the
// signature's, the body's and the connection's (a receiver must be able to
// trust them).
var reservedHeaders = []string{"Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding", "Host",
	"Connection", "Upgrade", "Te", "Trailer", "Expect", "Keep-Alive", "Proxy-Authorization", "User-Agent"}

// Check validates an input; create asks for the fields a new hook needs.
func (in *WebhookInput) Check(create bool) error {
	if create && (in.Type == nil || in.URL == nil) {
		return Invalid("a webhook needs type and url")
	}
	if in.URL != nil {
		if _, err := ParseWebhookURL(*in.URL); err != nil {
			return err
		}
	}
	if in.Label != nil && len(*in.Label) > MaxWebhookLabel {
		return Invalid("label is longer than %d bytes", MaxWebhookLabel)
	}
	if c := in.Condition; c != nil {
		switch c.Criteria {
		case "always":
			c.ItemType = nil
		case "itemTypeEquals":
			if c.ItemType == nil || *c.ItemType == "" || len(*c.ItemType) > 64 {
				return Invalid("condition itemTypeEquals needs itemType")
			}
		default:
			return Invalid("condition.criteria must be always or itemTypeEquals, not %q", c.Criteria)
		}
	}
	if len(in.Headers) > MaxWebhookHeaders {
		return Invalid("at most %d headers", MaxWebhookHeaders)
	}
	seen := map[string]bool{}
	for _, h := range in.Headers {
		if h == nil {
			return Invalid("a header is null")
		}
		name := http.CanonicalHeaderKey(h.HeaderField)
		switch {
		case h.HeaderField == "" || len(h.HeaderField) > MaxWebhookHeaderName || !IsHeaderToken(h.HeaderField):
			return Invalid("headerField %.64q is not a header name (1 to %d of letters, digits and !#$%%&'*+-.^_`|~)",
				h.HeaderField, MaxWebhookHeaderName)
		case strings.HasPrefix(strings.ToLower(name), "webhook-") || slices.ContainsFunc(reservedHeaders, func(r string) bool { return strings.EqualFold(r, name) }):
			return Invalid("headerField %q is set by Loupe (the signature's and the body's headers cannot be overridden)", name)
		case len(h.HeaderValue) > MaxWebhookHeaderValue:
			return Invalid("headerValue of %s is longer than %d bytes", name, MaxWebhookHeaderValue)
		case strings.ContainsFunc(h.HeaderValue, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
			return Invalid("headerValue of %s holds a control character", name)
		case seen[name]:
			return Invalid("header %s is given twice", name)
		}
		seen[name] = true
	}
	return nil
}

// ParseWebhookURL checks a receiver's URL: absolute http or https, a
// host, no user name, at most MaxWebhookURL bytes. (Where it may point is
// the sender's check: public addresses only, unless the operator allows.)
func ParseWebhookURL(raw string) (*url.URL, error) {
	if len(raw) > MaxWebhookURL {
		return nil, Invalid("url is longer than %d bytes", MaxWebhookURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, Invalid("url is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, Invalid("url must be an http or https URL")
	case u.Hostname() == "":
		return nil, Invalid("url has no host")
	case u.User != nil:
		return nil, Invalid("url must not hold credentials (send them in a header)")
	}
	return u, nil
}

// IsHeaderToken reports whether s is an RFC 9110 token, what a header
// field name is (a webhook's headers, the operator's key headers).
func IsHeaderToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}
