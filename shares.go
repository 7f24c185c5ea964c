package loupe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Shares (docs/shares.md): a grant to people without an account of one
// item or one folder, to view it or to upload into it, never reaching
// further than its creator sees.

// What a share lets its outsiders do.
const (
	ShareView   = "view"
	ShareUpload = "upload"
)

// MsgInvalidShare is the spec's answer to an invalid share creation body
// (section 7); the reason goes to developerMessage.
const MsgInvalidShare = "Invalid share creation body"

// Limits of a share's fields.
const (
	MaxShareTitle      = 200
	MaxShareMessage    = 2000
	MaxShareRecipients = 50
	MaxShareRecipient  = 254 // an email address's longest
	MinSharePassword   = 8
	MaxSharePassword   = 256
	MaxShareUses       = 1_000_000
	MaxShareFields     = 50
)

// ShareOptions are what a share's outsiders may do besides looking.
type ShareOptions struct {
	// DownloadProxy: the proxy (and audio proxies) may be downloaded.
	DownloadProxy bool `json:"downloadProxy"`
	// DownloadOriginal: the original file may be downloaded.
	DownloadOriginal bool `json:"downloadOriginal"`
	// Comments: outsiders read the item's comments and add timed ones.
	Comments bool `json:"comments"`
	// Versions: outsiders see the item's versions (view shares), or an
	// upload share's file becomes a new version of the shared item.
	Versions bool `json:"versions"`
	// MetadataFields are the metadata fields shown (their names in the
	// item's form); none by default.
	MetadataFields []string `json:"metadataFields"`
}

// ShareOptionsInput sets some options; the others take the tenant's
// defaults (shareLimits.options).
type ShareOptionsInput struct {
	DownloadProxy    *bool    `json:"downloadProxy,omitempty"`
	DownloadOriginal *bool    `json:"downloadOriginal,omitempty"`
	Comments         *bool    `json:"comments,omitempty"`
	Versions         *bool    `json:"versions,omitempty"`
	MetadataFields   []string `json:"metadataFields,omitempty"`
}

// ShareInput is a share to create.
type ShareInput struct {
	// TargetID is the item or folder shared.
	TargetID string `json:"targetId"`
	// Access is view (the default) or upload.
	Access *string `json:"access,omitempty"`
	// Title defaults to the target's title.
	Title   *string `json:"title,omitempty"`
	Message *string `json:"message,omitempty"`
	// ExpiresOn defaults to now + shareLimits.defaultValidityDays; it may
	// not pass now + shareLimits.maxValidityDays.
	ExpiresOn *time.Time `json:"expiresOn,omitempty"`
	MaxUses   *int       `json:"maxUses,omitempty"`
	Password  *string    `json:"password,omitempty"`
	// PublicLink asks for a link anyone holding it may open; it defaults
	// to true when there are no recipients.
	PublicLink *bool `json:"publicLink,omitempty"`
	// Recipients each get a link of their own (an email or a name).
	Recipients []string           `json:"recipients,omitempty"`
	Options    *ShareOptionsInput `json:"options,omitempty"`
}

// ShareOptionRule is the tenant's default of one option and whether a
// user who is not an admin may choose otherwise.
type ShareOptionRule[T any] struct {
	Default           T    `json:"default"`
	NonAdminMayChange bool `json:"nonAdminMayChange"`
}

// ShareLimits are the tenant configuration's shareLimits (spec section
// 8): each key's meaning and default is in docs/shares.md.
type ShareLimits struct {
	DefaultValidityDays int  `json:"defaultValidityDays"`
	MaxValidityDays     int  `json:"maxValidityDays"`
	AllowPublicShares   bool `json:"allowPublicShares"`
	AllowUploadShares   bool `json:"allowUploadShares"`
	RequirePassword     bool `json:"requirePassword"`
	// SessionMinutes is how long an open lasts before the page must be
	// opened again (a use).
	SessionMinutes int `json:"sessionMinutes"`
	Options        struct {
		DownloadProxy    ShareOptionRule[bool]     `json:"downloadProxy"`
		DownloadOriginal ShareOptionRule[bool]     `json:"downloadOriginal"`
		Comments         ShareOptionRule[bool]     `json:"comments"`
		Versions         ShareOptionRule[bool]     `json:"versions"`
		MetadataFields   ShareOptionRule[[]string] `json:"metadataFields"`
	} `json:"options"`
}

// defaultShareLimits is shareLimits when the tenant set none (the tenant
// configuration's default holds the same).
const defaultShareLimits = `{"defaultValidityDays": 7, "maxValidityDays": 30, "allowPublicShares": true,
 "allowUploadShares": true, "requirePassword": false, "sessionMinutes": 240,
 "options": {"downloadProxy": {"default": true, "nonAdminMayChange": true},
  "downloadOriginal": {"default": false, "nonAdminMayChange": false},
  "comments": {"default": true, "nonAdminMayChange": true},
  "versions": {"default": false, "nonAdminMayChange": true},
  "metadataFields": {"default": [], "nonAdminMayChange": true}}}`

// ParseShareLimits reads a tenant's shareLimits over the defaults: a key it
// leaves out keeps its default. raw was checked when it was written
// (CheckShareLimits).
func ParseShareLimits(raw JSON) (*ShareLimits, error) {
	var l ShareLimits
	if err := json.Unmarshal([]byte(defaultShareLimits), &l); err != nil {
		panic("loupe: defaultShareLimits: " + err.Error())
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("loupe: shareLimits: %w", err)
		}
	}
	return &l, nil
}

// CheckShareLimits is the rule of a shareLimits value written to the
// tenant configuration: known keys only, of their types, in range.
func CheckShareLimits(raw json.RawMessage) error {
	var l ShareLimits
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Invalid("shareLimits: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	full, err := ParseShareLimits(JSON(raw))
	if err != nil {
		return Invalid("shareLimits: %v", err)
	}
	switch {
	case full.MaxValidityDays < 1 || full.MaxValidityDays > 3650:
		return Invalid("shareLimits.maxValidityDays must be between 1 and 3650")
	case full.DefaultValidityDays < 1 || full.DefaultValidityDays > full.MaxValidityDays:
		return Invalid("shareLimits.defaultValidityDays must be between 1 and maxValidityDays (%d)", full.MaxValidityDays)
	case full.SessionMinutes < 5 || full.SessionMinutes > 7*24*60:
		return Invalid("shareLimits.sessionMinutes must be between 5 and 10080")
	case len(full.Options.MetadataFields.Default) > MaxShareFields:
		return Invalid("shareLimits.options.metadataFields.default has more than %d fields", MaxShareFields)
	}
	return nil
}

// ShareRequest is a checked ShareInput with the tenant's defaults applied:
// what the store writes.
type ShareRequest struct {
	TargetID   string
	Access     string
	Title      *string // nil: the target's title
	Message    string
	ExpiresOn  time.Time
	MaxUses    *int
	Password   string
	PublicLink bool
	Recipients []string
	Options    ShareOptions
}

// Check validates in against the tenant's limits for a creator (admin or
// not) at now. Every problem is EINVALID with the field named.
func (in ShareInput) Check(l *ShareLimits, isAdmin bool, now time.Time) (*ShareRequest, error) {
	r := &ShareRequest{TargetID: in.TargetID, Access: ShareView}
	if !ValidID(in.TargetID) {
		return nil, Invalid("targetId must be the id of an item or folder")
	}
	if in.Access != nil {
		switch *in.Access {
		case ShareView:
		case ShareUpload:
			if !l.AllowUploadShares {
				return nil, Invalid("access: upload shares are not allowed in this tenant (shareLimits.allowUploadShares)")
			}
		default:
			return nil, Invalid("access must be view or upload")
		}
		r.Access = *in.Access
	}
	if in.Title != nil {
		t := strings.TrimSpace(*in.Title)
		if t == "" || utf8.RuneCountInString(t) > MaxShareTitle || !textOK(t) {
			return nil, Invalid("title must be 1 to %d characters", MaxShareTitle)
		}
		r.Title = &t
	}
	if in.Message != nil {
		if utf8.RuneCountInString(*in.Message) > MaxShareMessage || !textOK(*in.Message) {
			return nil, Invalid("message must be at most %d characters", MaxShareMessage)
		}
		r.Message = *in.Message
	}
	latest := now.Add(time.Duration(l.MaxValidityDays) * 24 * time.Hour)
	r.ExpiresOn = now.Add(time.Duration(l.DefaultValidityDays) * 24 * time.Hour)
	if in.ExpiresOn != nil {
		switch {
		case !in.ExpiresOn.After(now):
			return nil, Invalid("expiresOn must be in the future")
		case in.ExpiresOn.After(latest):
			return nil, Invalid("expiresOn may be at most %d days from now (shareLimits.maxValidityDays)", l.MaxValidityDays)
		}
		r.ExpiresOn = in.ExpiresOn.UTC()
	}
	if in.MaxUses != nil {
		if *in.MaxUses < 1 || *in.MaxUses > MaxShareUses {
			return nil, Invalid("maxUses must be between 1 and %d", MaxShareUses)
		}
		r.MaxUses = in.MaxUses
	}
	if in.Password != nil {
		n := utf8.RuneCountInString(*in.Password)
		if n < MinSharePassword || n > MaxSharePassword || !textOK(*in.Password) {
			return nil, Invalid("password must be %d to %d characters", MinSharePassword, MaxSharePassword)
		}
		r.Password = *in.Password
	}
	if len(in.Recipients) > MaxShareRecipients {
		return nil, Invalid("recipients: at most %d", MaxShareRecipients)
	}
	seen := map[string]bool{}
	for i, rc := range in.Recipients {
		rc = strings.TrimSpace(rc)
		if rc == "" || utf8.RuneCountInString(rc) > MaxShareRecipient || !textOK(rc) {
			return nil, Invalid("recipients[%d] must be an email or a name of 1 to %d characters", i, MaxShareRecipient)
		}
		if strings.Contains(rc, "@") {
			if a, err := mail.ParseAddress(rc); err != nil || a.Address != rc {
				return nil, Invalid("recipients[%d] is not an email address", i)
			}
		}
		if seen[strings.ToLower(rc)] {
			return nil, Invalid("recipients[%d] is named twice", i)
		}
		seen[strings.ToLower(rc)] = true
		r.Recipients = append(r.Recipients, rc)
	}
	r.PublicLink = len(r.Recipients) == 0
	if in.PublicLink != nil {
		r.PublicLink = *in.PublicLink
	}
	switch {
	case !r.PublicLink && len(r.Recipients) == 0:
		return nil, Invalid("publicLink: a share without recipients needs its public link")
	case r.PublicLink && !l.AllowPublicShares:
		return nil, Invalid("publicLink: public links are not allowed in this tenant (shareLimits.allowPublicShares); name recipients")
	case l.RequirePassword && r.Password == "":
		return nil, Invalid("password is required in this tenant (shareLimits.requirePassword)")
	}
	opts, err := in.Options.apply(l, isAdmin)
	if err != nil {
		return nil, err
	}
	r.Options = opts
	return r, nil
}

// apply is the options asked for over the tenant's defaults, refusing a
// change a non-admin may not make.
func (o *ShareOptionsInput) apply(l *ShareLimits, isAdmin bool) (ShareOptions, error) {
	lo := l.Options
	out := ShareOptions{DownloadProxy: lo.DownloadProxy.Default, DownloadOriginal: lo.DownloadOriginal.Default,
		Comments: lo.Comments.Default, Versions: lo.Versions.Default,
		MetadataFields: slices.Clone(lo.MetadataFields.Default)}
	if out.MetadataFields == nil {
		out.MetadataFields = []string{}
	}
	if o == nil {
		return out, nil
	}
	set := func(name string, v *bool, rule ShareOptionRule[bool], into *bool) error {
		if v == nil || *v == rule.Default {
			return nil
		}
		if !isAdmin && !rule.NonAdminMayChange {
			return Invalid("options.%s: only an admin may change it in this tenant (shareLimits.options.%s)", name, name)
		}
		*into = *v
		return nil
	}
	for _, e := range []error{
		set("downloadProxy", o.DownloadProxy, lo.DownloadProxy, &out.DownloadProxy),
		set("downloadOriginal", o.DownloadOriginal, lo.DownloadOriginal, &out.DownloadOriginal),
		set("comments", o.Comments, lo.Comments, &out.Comments),
		set("versions", o.Versions, lo.Versions, &out.Versions),
	} {
		if e != nil {
			return out, e
		}
	}
	if o.MetadataFields != nil {
		if len(o.MetadataFields) > MaxShareFields {
			return out, Invalid("options.metadataFields: at most %d", MaxShareFields)
		}
		for i, f := range o.MetadataFields {
			if f == "" || len(f) > MaxConfigStringLength || !textOK(f) {
				return out, Invalid("options.metadataFields[%d] must be a field name", i)
			}
		}
		if !isAdmin && !lo.MetadataFields.NonAdminMayChange && !slices.Equal(o.MetadataFields, out.MetadataFields) {
			return out, Invalid("options.metadataFields: only an admin may change it in this tenant (shareLimits.options.metadataFields)")
		}
		out.MetadataFields = slices.Clone(o.MetadataFields)
	}
	return out, nil
}

// ShareState says whether a share's links open, and if not, why (the
// outsider's page shows it).
type ShareState string

// The states of a share.
const (
	ShareActive    ShareState = "active"
	ShareExpired   ShareState = "expired"
	ShareRevoked   ShareState = "revoked"
	ShareExhausted ShareState = "exhausted" // maxUses reached
)

// textOK is whether Postgres text can hold s (valid UTF-8, no NUL).
func textOK(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// MarshalGQL writes the state as its enum value (gqlgen).
func (s ShareState) MarshalGQL(w io.Writer) { MarshalEnum(w, string(s)) }

// UnmarshalGQL reads the enum value (gqlgen).
func (s *ShareState) UnmarshalGQL(v any) error {
	str, _ := v.(string)
	switch ShareState(str) {
	case ShareActive, ShareExpired, ShareRevoked, ShareExhausted:
		*s = ShareState(str)
		return nil
	}
	return Invalid("unknown share state %q", str)
}
