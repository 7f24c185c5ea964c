package loupe

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Render sequences (spec 4.5; docs/render.md): clips of items strung
// together and rendered with a preset into a new item or into a
// placeholder, frame-exact.

// Render targets.
const (
	RenderToNewItem     = "newItem"
	RenderToPlaceholder = "placeholder"
)

// Render states.
const (
	RenderQueued    = "queued"
	RenderRendering = "rendering"
	RenderComplete  = "complete"
	RenderFailed    = "failed"
)

// MsgBadRenderTarget is the spec's answer to a payload whose target is not
// a valid sequence target (section 7); the reason goes to developerMessage.
const MsgBadRenderTarget = "Bad render sequence payload: target must be a RenderSequenceTarget with a valid analyticConfig"

// MaxRenderClips bounds a sequence.
const MaxRenderClips = 200

// RenderClipInput is one clip: an item, with in and out points in frames
// of its own rate (in inclusive, out exclusive; absent: its start, its
// end).
type RenderClipInput struct {
	ItemID string `json:"itemId"`
	In     *int64 `json:"in,omitempty"`
	Out    *int64 `json:"out,omitempty"`
}

// An analyticConfig (the tenant configuration's shape, 2.12) switches
// analyses of a render's result on: these keys, each a boolean. Label and
// celebrity detection have no engine in Loupe: they may only be false.
var (
	analyticKeys      = []string{"transcription", "translation", "personDetection", "labelDetection", "textDetection", "celebrityDetection"}
	analyticNoEngines = []string{"labelDetection", "celebrityDetection"}
)

// RenderTargetInput is where a render goes (a RenderSequenceTarget): a new
// item (title, folder) or a placeholder (an item without media yet).
type RenderTargetInput struct {
	Type           string  `json:"type"`
	ItemID         *string `json:"itemId,omitempty"`
	Title          *string `json:"title,omitempty"`
	FolderID       *string `json:"folderId,omitempty"`
	AnalyticConfig JSON    `json:"analyticConfig,omitempty"`
}

// RenderSequenceInput is a render-sequence request.
type RenderSequenceInput struct {
	PresetID string             `json:"presetId"`
	Clips    []RenderClipInput  `json:"clips"`
	Target   *RenderTargetInput `json:"target,omitempty"`
}

// badTarget is the spec's 400 for a target, with the reason.
func badTarget(format string, args ...any) *Error {
	e := Invalid(MsgBadRenderTarget)
	e.DeveloperMessage = Invalid(format, args...).Message
	return e
}

// CheckTarget validates the target's shape (the items it names are the
// store's to check) — the spec's 400 — and answers its analyticConfig,
// normalized, and the analyses it switches on, in the order of known (the
// job queue's kinds).
func (in *RenderSequenceInput) CheckTarget(known []string) (config map[string]bool, analyses []string, err error) {
	t := in.Target
	if t == nil {
		return nil, nil, badTarget("target is missing")
	}
	if err := t.checkShape(); err != nil {
		return nil, nil, err
	}
	if len(t.AnalyticConfig) == 0 || string(t.AnalyticConfig) == "null" {
		return nil, nil, badTarget(`target.analyticConfig is missing (give {} for no analysis)`)
	}
	var raw map[string]any
	if err := json.Unmarshal(t.AnalyticConfig, &raw); err != nil {
		return nil, nil, badTarget("target.analyticConfig must be an object of booleans")
	}
	config = map[string]bool{}
	for k, v := range raw {
		on, ok := v.(bool)
		switch {
		case !slices.Contains(analyticKeys, k):
			return nil, nil, badTarget("target.analyticConfig.%s is not one of %s", k, strings.Join(analyticKeys, ", "))
		case !ok:
			return nil, nil, badTarget("target.analyticConfig.%s must be true or false", k)
		case on && slices.Contains(analyticNoEngines, k):
			return nil, nil, badTarget("target.analyticConfig.%s: Loupe has no engine for it", k)
		}
		config[k] = on
	}
	analyses = []string{}
	for _, k := range known {
		if config[k] {
			analyses = append(analyses, k)
		}
	}
	return config, analyses, nil
}

// checkShape validates the target's type and the fields that go with it.
func (t *RenderTargetInput) checkShape() error {
	switch t.Type {
	case RenderToNewItem:
		if t.ItemID != nil {
			return badTarget("target.itemId is for a placeholder target; a newItem target makes its item")
		}
		if t.Title != nil && (strings.TrimSpace(*t.Title) == "" || utf8.RuneCountInString(*t.Title) > MaxTitleLength) {
			return badTarget("target.title must be 1 to %d characters", MaxTitleLength)
		}
		if t.FolderID != nil && !ValidID(*t.FolderID) {
			return badTarget("target.folderId %q is not a folder id", *t.FolderID)
		}
	case RenderToPlaceholder:
		if t.ItemID == nil || !ValidID(*t.ItemID) {
			return badTarget("target.itemId must name the placeholder item")
		}
		if t.Title != nil || t.FolderID != nil {
			return badTarget("target.title and target.folderId are for a newItem target")
		}
	default:
		return badTarget("target.type %q is not newItem or placeholder", t.Type)
	}
	return nil
}

// CheckClips validates the clips' shape (what they point at is the
// store's to check).
func (in *RenderSequenceInput) CheckClips() error {
	if len(in.Clips) == 0 || len(in.Clips) > MaxRenderClips {
		return Invalid("clips must have 1 to %d clips", MaxRenderClips)
	}
	for i, c := range in.Clips {
		switch {
		case !ValidID(c.ItemID):
			return Invalid("clips[%d].itemId %q is not an item id", i, c.ItemID)
		case c.In != nil && *c.In < 0:
			return Invalid("clips[%d].in %d is before the item's first frame (0)", i, *c.In)
		case c.In != nil && c.Out != nil && *c.Out <= *c.In:
			return Invalid("clips[%d]: in %d must be before out %d", i, *c.In, *c.Out)
		}
	}
	return nil
}
