// Package renderjob runs what presets and render sequences ask of the
// render engine (internal/media/render) as jobs: a preset's dry run, and a
// render-sequence request from its clips' originals to its target item's
// new original (docs/render.md).
package renderjob

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media/render"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Profile is the engine's profile of a preset's output and mapping.
func Profile(o loupe.PresetOutput, m loupe.AudioMapping) render.Profile {
	p := render.Profile{Container: o.Container, EditRate: render.Rational{Num: 25, Den: 1}}
	if v := o.Video; v != nil {
		num, den, _ := loupe.ParseFrameRate(v.FrameRate)
		p.Video = &render.Video{Codec: v.Codec, Profile: v.Profile, Width: v.Width, Height: v.Height,
			FrameRate: render.Rational{Num: num, Den: den}, BitrateKbps: v.BitrateKbps}
	}
	if a := o.Audio; a != nil && m.Channels() > 0 {
		p.Audio = &render.Audio{Codec: a.Codec, SampleRate: a.SampleRate, BitrateKbps: a.BitrateKbps, Mapping: m}
	}
	return p
}

// errNoFFmpeg: the node cannot check a preset (a real failure, not the
// preset's).
var errNoFFmpeg = errors.New("renderjob: ffmpeg is not installed on this node")

// DryRun renders a second of synthetic media through a preset's output
// and answers the resolved type; settings the engine or ffmpeg refuses
// answer EINVALID with the reason (naming output), anything else (no
// ffmpeg, a cancelled request, no temporary space) as it is: a real
// failure.
func DryRun(ctx context.Context, o loupe.PresetOutput, m loupe.AudioMapping) (string, error) {
	if !tool.Installed("ffmpeg") {
		return "", errNoFFmpeg
	}
	p := Profile(o, m)
	if err := render.Validate(p); err != nil {
		return "", loupe.Invalid("output: %s", oneLine(err.Error()))
	}
	dir, err := os.MkdirTemp("", "loupe-dryrun-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	typ, err := render.DryRun(ctx, p, dir)
	var refused *render.RefusedError
	if errors.As(err, &refused) {
		return "", loupe.Invalid("output: the dry run failed: %s", oneLine(refused.Reason))
	}
	return typ, err
}

// oneLine keeps a reason to one line of sensible length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
