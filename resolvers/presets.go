package resolvers

import (
	"context"
	"errors"

	"github.com/loupe-mam/loupe"
)

// PresetDryRun runs a preset's settings through ffmpeg (a second of
// synthetic media) and answers the resolved type, or an EINVALID error
// with ffmpeg's reason (internal/media/renderjob.DryRun).
type PresetDryRun func(ctx context.Context, out loupe.PresetOutput, mapping loupe.AudioMapping) (string, error)

// errNoDryRun: a node without ffmpeg cannot check a preset's change.
var errNoDryRun = errors.New("resolvers: no dry run of presets on this node")

// indexPage reads the index and size of an {l, i, s, t} list (gateway
// configs, presets): 0 and 100 by default.
func indexPage(index, size *int) (i, n int) {
	i, n = 0, 100
	if index != nil {
		i = *index
	}
	if size != nil {
		n = *size
	}
	return i, n
}

// nextIndex is an {l, i, s, t} page's i: the next page's index after got
// items from i, nil at the end.
func nextIndex(i, got, total int) *int {
	if next := i + got; next < total {
		return &next
	}
	return nil
}

// presetSettings are a preset's current settings (what an update starts from).
func presetSettings(p *loupe.Preset) loupe.PresetSettings {
	return loupe.PresetSettings{Filters: p.Filters, Capabilities: p.Capabilities, AudioMapping: p.AudioMapping,
		Output: p.Output}
}

// dryRun checks settings before an update is written.
func (r *Resolver) dryRun(ctx context.Context, s loupe.PresetSettings) (string, error) {
	if r.DryRun == nil {
		return "", errNoDryRun
	}
	return r.DryRun(ctx, s.Output, s.AudioMapping)
}

// checkPresetFolders refuses a folder filter naming a folder the tenant
// does not have.
func (r *Resolver) checkPresetFolders(ctx context.Context, p *loupe.Principal, f loupe.PresetFilters) error {
	if f.Type != loupe.PresetFilterFolder {
		return nil
	}
	ids := make([]string, len(f.Choices))
	for i, c := range f.Choices {
		ids[i] = c.Value
	}
	found, err := r.Store.FoldersByIDs(ctx, p, ids)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if found[id] == nil {
			return loupe.Invalid("filters.choices[%d].value %s is not a folder", i, id)
		}
	}
	return nil
}
