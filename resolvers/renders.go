package resolvers

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// newRender checks a render-sequence request against what it names — the
// preset, the clips' items as p sees them, the target — and answers it
// resolved (docs/render.md). Every problem is a 400 naming its field;
// an item p may not see answers like a missing one.
func (r *Resolver) newRender(ctx context.Context, p *loupe.Principal, in *loupe.RenderSequenceInput) (*store.NewRender, error) {
	analytic, _, err := in.CheckTarget(jobs.AnalysisKinds)
	if err != nil {
		return nil, err
	}
	if err := in.CheckClips(); err != nil {
		return nil, err
	}
	preset, err := r.Store.Preset(ctx, p.TenantID, in.PresetID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, loupe.Invalid("presetId %s is not a preset", in.PresetID)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !slices.Contains(preset.Capabilities, loupe.PresetRendering):
		return nil, loupe.Invalid("presetId %s: the preset lacks the rendering capability", preset.ID)
	case preset.CheckError != nil:
		return nil, loupe.Invalid("presetId %s: the preset failed its dry run: %s", preset.ID, *preset.CheckError)
	}
	fpsNum, fpsDen := 25, 1
	if v := preset.Output.Video; v != nil {
		fpsNum, fpsDen, _ = loupe.ParseFrameRate(v.FrameRate)
	}
	outRate := float64(fpsNum) / float64(fpsDen)

	ids := make([]string, len(in.Clips))
	for i, c := range in.Clips {
		ids[i] = c.ItemID
	}
	items, err := r.Store.ItemsByIDs(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	placeholder := ""
	if in.Target.Type == loupe.RenderToPlaceholder {
		placeholder = *in.Target.ItemID
	}
	out := &store.NewRender{PresetID: preset.ID, TargetType: in.Target.Type, Placeholder: placeholder,
		AnalyticConfig: analytic}
	var seconds float64
	for i, c := range in.Clips {
		it := items[c.ItemID]
		switch {
		case it == nil:
			return nil, loupe.Invalid("clips[%d].itemId %s is not an item", i, c.ItemID)
		case c.ItemID == placeholder:
			return nil, loupe.Invalid("clips[%d] is the target placeholder: a render cannot read what it makes", i)
		case it.ItemType == "folder":
			return nil, loupe.Invalid("clips[%d].itemId %s is a folder", i, c.ItemID)
		case it.TranscodingState != "complete":
			return nil, loupe.Invalid("clips[%d].itemId %s has no processed media (transcodingState %s)", i, c.ItemID,
				it.TranscodingState)
		}
		rate, frames := clipFrames(it, outRate)
		if frames <= 0 {
			return nil, loupe.Invalid("clips[%d].itemId %s has no video or audio to render", i, c.ItemID)
		}
		clip := store.RenderClip{ItemID: c.ItemID, Out: frames}
		if c.In != nil {
			clip.In = *c.In
		}
		if c.Out != nil {
			clip.Out = *c.Out
		}
		switch {
		case clip.Out > frames:
			return nil, loupe.Invalid("clips[%d].out %d is past the item's %d frames", i, clip.Out, frames)
		case clip.In >= clip.Out:
			return nil, loupe.Invalid("clips[%d]: in %d must be before out %d", i, clip.In, clip.Out)
		}
		out.Clips = append(out.Clips, clip)
		seconds += float64(clip.Out-clip.In) / rate
	}
	if err := r.checkPresetApplies(ctx, p, preset, in.Clips, items); err != nil {
		return nil, err
	}
	out.Duration = seconds
	out.Frames = int64(math.Round(seconds * outRate))
	if in.Target.Type == loupe.RenderToNewItem {
		title := preset.Name + " render " + time.Now().UTC().Format("2006-01-02 15:04")
		if in.Target.Title != nil {
			title = *in.Target.Title
		}
		itemType := "video"
		if preset.Output.Video == nil {
			itemType = "audio"
		}
		out.NewItem = &loupe.CreateItemInput{Title: &title, ItemType: itemType}
		if in.Target.FolderID != nil {
			out.NewItem.FolderParents = []string{*in.Target.FolderID}
		}
	}
	return out, nil
}

// clipFrames is an item's frame rate and frame count: its video's, or for
// sound alone, its duration at the output's rate (the unit of an audio
// clip's in and out).
func clipFrames(it *store.Item, outRate float64) (float64, int64) {
	var t struct {
		Duration float64 `json:"durationSeconds"`
		Video    *struct {
			FrameRate float64 `json:"frameRate"`
		} `json:"video"`
	}
	_ = json.Unmarshal(it.TechnicalMetadata, &t)
	if t.Video != nil && t.Video.FrameRate > 0 && it.FrameCount != nil {
		return t.Video.FrameRate, *it.FrameCount
	}
	return outRate, int64(math.Floor(t.Duration*outRate + 1e-6))
}

// checkPresetApplies refuses clips of items the preset's filters do not
// let through.
func (r *Resolver) checkPresetApplies(ctx context.Context, p *loupe.Principal, preset *loupe.Preset,
	clips []loupe.RenderClipInput, items map[string]*store.Item) error {
	f := preset.Filters
	values := make([]string, len(f.Choices))
	for i, c := range f.Choices {
		values[i] = c.Value
	}
	var inFolders map[string]bool
	if f.Type == loupe.PresetFilterFolder {
		ids := make([]string, len(clips))
		for i, c := range clips {
			ids[i] = c.ItemID
		}
		var err error
		if inFolders, err = r.Store.ItemsInFolders(ctx, p.TenantID, ids, values); err != nil {
			return err
		}
	}
	for i, c := range clips {
		ok := true
		switch f.Type {
		case loupe.PresetFilterItemType:
			ok = slices.Contains(values, items[c.ItemID].ItemType)
		case loupe.PresetFilterFolder:
			ok = inFolders[c.ItemID]
		}
		if !ok {
			return loupe.Invalid("clips[%d].itemId %s: preset %s does not apply to it (its filters: %s)", i, c.ItemID,
				preset.ID, f.Type)
		}
	}
	return nil
}
