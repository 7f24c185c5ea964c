package loupe

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Presets (spec 2.20, 4.5; docs/render.md): a named output profile —
// container, video and audio encoding, and the 16×4 audio mapping — that
// renders use, checked by a real dry run before its type says what it
// makes.

// PresetUnresolved is a preset's type until its dry run has passed.
const PresetUnresolved = "unresolved"

// PresetRendering is the capability of rendering sequences, the only one
// so far (a preset without it cannot render).
const PresetRendering = "rendering"

// Limits of a preset.
const (
	MaxPresetName    = 200
	MaxPresets       = 1000
	MaxPresetChoices = 100
	MaxPresetLabel   = 200
	AudioMappingRows = 16
	// The audio mapping's ranges (docs/render.md "Audio mapping").
	MaxMappingStream  = 15
	MaxMappingChannel = 63
	MinMappingGain    = -96
	MaxMappingGain    = 24
	MaxMappingFlags   = 3
)

// Audio mapping flags (a row's fourth value).
const (
	MappingMute   = 1
	MappingInvert = 2
)

// AudioMapping says, row r, what output channel r carries: [stream,
// channel, gainDb, flags] — the source's n-th audio stream (-1: the row is
// unused), the channel in it, a gain in dB, and flags (1 mute, 2 invert
// polarity). The output has as many channels as the last used row + 1.
type AudioMapping [AudioMappingRows][4]int

// DefaultAudioMapping is stereo: the first audio stream's two channels.
func DefaultAudioMapping() AudioMapping {
	var m AudioMapping
	for r := range m {
		m[r] = [4]int{-1, 0, 0, 0}
	}
	m[0], m[1] = [4]int{0, 0, 0, 0}, [4]int{0, 1, 0, 0}
	return m
}

// ParseAudioMapping checks rows as a client sent them: exactly 16 rows of
// 4 integers in range, each problem naming its row.
func ParseAudioMapping(rows [][]int) (AudioMapping, error) {
	var m AudioMapping
	if len(rows) != AudioMappingRows {
		return m, Invalid("audioMapping must have exactly %d rows, not %d", AudioMappingRows, len(rows))
	}
	for r, row := range rows {
		if len(row) != 4 {
			return m, Invalid("audioMapping row %d must have 4 integers [stream, channel, gainDb, flags], not %d", r, len(row))
		}
		stream, channel, gain, flags := row[0], row[1], row[2], row[3]
		switch {
		case stream < -1 || stream > MaxMappingStream:
			return m, Invalid("audioMapping row %d: stream %d is not -1 (unused) or 0 to %d", r, stream, MaxMappingStream)
		case channel < 0 || channel > MaxMappingChannel:
			return m, Invalid("audioMapping row %d: channel %d is not 0 to %d", r, channel, MaxMappingChannel)
		case gain < MinMappingGain || gain > MaxMappingGain:
			return m, Invalid("audioMapping row %d: gain %d dB is not %d to %d", r, gain, MinMappingGain, MaxMappingGain)
		case flags < 0 || flags > MaxMappingFlags:
			return m, Invalid("audioMapping row %d: flags %d are not 0 to %d (1 mute, 2 invert)", r, flags, MaxMappingFlags)
		case stream == -1 && (channel != 0 || gain != 0 || flags != 0):
			return m, Invalid("audioMapping row %d: an unused row (stream -1) must be [-1, 0, 0, 0]", r)
		}
		m[r] = [4]int{stream, channel, gain, flags}
	}
	return m, nil
}

// Rows answers the mapping as rows (the API's shape).
func (m AudioMapping) Rows() [][]int {
	out := make([][]int, len(m))
	for r := range m {
		out[r] = m[r][:]
	}
	return out
}

// Channels is how many output channels the mapping makes (0: no audio).
func (m AudioMapping) Channels() int {
	for r := len(m) - 1; r >= 0; r-- {
		if m[r][0] >= 0 {
			return r + 1
		}
	}
	return 0
}

// PresetOutput is what a preset makes (docs/render.md "Output").
type PresetOutput struct {
	// Container is mp4, mov or mxf.
	Container string       `json:"container"`
	Video     *PresetVideo `json:"video"`
	Audio     *PresetAudio `json:"audio"`
}

// PresetVideo is a preset's video encoding.
type PresetVideo struct {
	// Codec is h264, hevc, prores, dnxhr or mpeg2.
	Codec string `json:"codec"`
	// Profile is the codec's profile ("" its default): prores proxy, lt,
	// standard, hq, 4444; dnxhr lb, sq, hq, hqx, 444; h264 baseline,
	// main, high.
	Profile string `json:"profile"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	// FrameRate is "25", "30000/1001"…
	FrameRate string `json:"frameRate"`
	// BitrateKbps 0: the codec's quality default.
	BitrateKbps int `json:"bitrateKbps"`
}

// PresetAudio is a preset's audio encoding; its channels are the audio
// mapping's.
type PresetAudio struct {
	// Codec is aac, pcm_s16le or pcm_s24le.
	Codec      string `json:"codec"`
	SampleRate int    `json:"sampleRate"`
	// BitrateKbps (aac) 0: 128 per two channels.
	BitrateKbps int `json:"bitrateKbps"`
}

// DefaultPresetOutput is an HD H.264 deliverable: 1920×1080 at 25 fps,
// AAC at 48 kHz.
func DefaultPresetOutput() PresetOutput {
	return PresetOutput{Container: "mp4",
		Video: &PresetVideo{Codec: "h264", Profile: "high", Width: 1920, Height: 1080, FrameRate: "25"},
		Audio: &PresetAudio{Codec: "aac", SampleRate: 48000}}
}

var (
	presetContainers = []string{"mp4", "mov", "mxf"}
	presetVideoCodec = map[string][]string{
		"h264":   {"", "baseline", "main", "high"},
		"hevc":   {"", "main"},
		"prores": {"", "proxy", "lt", "standard", "hq", "4444"},
		"dnxhr":  {"", "lb", "sq", "hq", "hqx", "444"},
		"mpeg2":  {""},
	}
	presetAudioCodecs = []string{"aac", "pcm_s16le", "pcm_s24le"}
	presetSampleRates = []int{44100, 48000}
	frameRateRE       = regexp.MustCompile(`^([1-9][0-9]{0,5})(?:/([1-9][0-9]{0,4}))?$`)
)

// ParseFrameRate reads "25" or "30000/1001": a rate from 1 to 120 fps.
func ParseFrameRate(s string) (num, den int, err error) {
	m := frameRateRE.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, Invalid("frameRate %q is not a rate like 25 or 30000/1001", s)
	}
	num, _ = strconv.Atoi(m[1])
	den = 1
	if m[2] != "" {
		den, _ = strconv.Atoi(m[2])
	}
	if r := float64(num) / float64(den); r < 1 || r > 120 {
		return 0, 0, Invalid("frameRate %s is not 1 to 120 frames a second", s)
	}
	return num, den, nil
}

// Check validates an output's names and ranges, each problem naming its
// field (output.video.width…). What ffmpeg accepts is the dry run's to say.
func (o *PresetOutput) Check(mapping AudioMapping) error {
	if !slices.Contains(presetContainers, o.Container) {
		return Invalid("output.container %q is not one of %s", o.Container, strings.Join(presetContainers, ", "))
	}
	if o.Video == nil && (o.Audio == nil || mapping.Channels() == 0) {
		return Invalid("output makes nothing: it needs video, or audio with a used audioMapping row")
	}
	if v := o.Video; v != nil {
		profiles, ok := presetVideoCodec[v.Codec]
		if !ok {
			return Invalid("output.video.codec %q is not one of h264, hevc, prores, dnxhr, mpeg2", v.Codec)
		}
		if !slices.Contains(profiles, v.Profile) {
			return Invalid("output.video.profile %q is not one of %s's: %s", v.Profile, v.Codec,
				strings.Join(profiles[1:], ", "))
		}
		if v.Width < 16 || v.Width > 7680 || v.Width%2 != 0 {
			return Invalid("output.video.width %d must be even, 16 to 7680", v.Width)
		}
		if v.Height < 16 || v.Height > 4320 || v.Height%2 != 0 {
			return Invalid("output.video.height %d must be even, 16 to 4320", v.Height)
		}
		if _, _, err := ParseFrameRate(v.FrameRate); err != nil {
			return Invalid("output.video.%s", err.(*Error).Message)
		}
		if v.BitrateKbps < 0 || v.BitrateKbps > 2_000_000 {
			return Invalid("output.video.bitrateKbps %d is not 0 (the codec's default) to 2000000", v.BitrateKbps)
		}
		if v.BitrateKbps != 0 && (v.Codec == "prores" || v.Codec == "dnxhr") {
			return Invalid("output.video.bitrateKbps must be 0 for %s: its profile sets the rate", v.Codec)
		}
	}
	if a := o.Audio; a != nil {
		if !slices.Contains(presetAudioCodecs, a.Codec) {
			return Invalid("output.audio.codec %q is not one of %s", a.Codec, strings.Join(presetAudioCodecs, ", "))
		}
		if !slices.Contains(presetSampleRates, a.SampleRate) {
			return Invalid("output.audio.sampleRate %d is not 44100 or 48000", a.SampleRate)
		}
		if a.BitrateKbps < 0 || a.BitrateKbps > 4096 || (a.BitrateKbps > 0 && a.Codec != "aac") {
			return Invalid("output.audio.bitrateKbps %d: 0 (the default), or 1 to 4096 for aac only", a.BitrateKbps)
		}
	}
	return nil
}

// PresetChoice is one value a preset's filter lets through.
type PresetChoice struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// PresetFilters say which items a preset applies to (docs/render.md
// "Filters"): type all (every item), itemType (items of the choices'
// types) or folder (items in the choices' folders, at any depth).
type PresetFilters struct {
	Type    string         `json:"type"`
	Choices []PresetChoice `json:"choices"`
}

// Preset filter types.
const (
	PresetFilterAll      = "all"
	PresetFilterItemType = "itemType"
	PresetFilterFolder   = "folder"
)

// Check validates the filters' shape (a folder choice's existence is the
// store's to check).
func (f *PresetFilters) Check() error {
	switch f.Type {
	case PresetFilterAll:
		if len(f.Choices) > 0 {
			return Invalid("filters.choices must be empty when filters.type is all")
		}
		return nil
	case PresetFilterItemType, PresetFilterFolder:
	default:
		return Invalid("filters.type %q is not one of all, itemType, folder", f.Type)
	}
	if len(f.Choices) == 0 || len(f.Choices) > MaxPresetChoices {
		return Invalid("filters.choices must have 1 to %d entries when filters.type is %s", MaxPresetChoices, f.Type)
	}
	seen := map[string]bool{}
	for i, c := range f.Choices {
		if n := utf8.RuneCountInString(c.Label); n > MaxPresetLabel {
			return Invalid("filters.choices[%d].label is longer than %d characters", i, MaxPresetLabel)
		}
		switch {
		case f.Type == PresetFilterItemType && !itemTypeRE.MatchString(c.Value):
			return Invalid("filters.choices[%d].value %q is not an item type", i, c.Value)
		case f.Type == PresetFilterFolder && !ValidID(c.Value):
			return Invalid("filters.choices[%d].value %q is not a folder id", i, c.Value)
		case seen[c.Value]:
			return Invalid("filters.choices[%d].value %q is given twice", i, c.Value)
		}
		seen[c.Value] = true
	}
	return nil
}

// Preset is the spec's 2.20 record with what Loupe adds.
type Preset struct {
	TenantID string `db:"tenant_id" json:"-"`
	ID       string `db:"id"`
	Name     string `db:"name"`
	// Type is PresetUnresolved until the dry run passed, then the profile
	// it made: container/video codec/WxH/rate/audio codec/Nch.
	Type         string        `db:"type"`
	Filters      PresetFilters `db:"-"`
	Capabilities []string      `db:"-"`
	AudioMapping AudioMapping  `db:"-"`
	Output       PresetOutput  `db:"-"`
	// CheckError is why the last dry run failed (nil when it did not).
	CheckError      *string    `db:"check_error"`
	CheckedOn       *time.Time `db:"checked_on"`
	CreatedByUserID string     `db:"created_by"`
	CreatedOn       time.Time  `db:"created_on"`
	ModifiedOn      time.Time  `db:"modified_on"`
	// Settings is the JSON of Filters, Capabilities, AudioMapping and
	// Output as stored.
	Settings []byte `db:"settings"`
}

// PresetSettings are a preset's stored settings (its settings column).
type PresetSettings struct {
	Filters      PresetFilters `json:"filters"`
	Capabilities []string      `json:"capabilities"`
	AudioMapping AudioMapping  `json:"audioMapping"`
	Output       PresetOutput  `json:"output"`
}

// PresetInput creates a preset, or (PUT) changes the fields given.
type PresetInput struct {
	Name         *string        `json:"name,omitempty"`
	Filters      *PresetFilters `json:"filters,omitempty"`
	Capabilities []string       `json:"capabilities,omitempty"`
	AudioMapping [][]int        `json:"audioMapping,omitempty"`
	Output       *PresetOutput  `json:"output,omitempty"`
}

// Apply checks in and answers the settings it makes from base (the
// preset's current ones, or the defaults for a new preset) and the name.
// changed says whether what the dry run checks (output, mapping) changed.
func (in *PresetInput) Apply(name string, base PresetSettings) (string, PresetSettings, bool, error) {
	out, changed := base, false
	if in.Name != nil {
		name = strings.TrimSpace(*in.Name)
	}
	if name == "" || utf8.RuneCountInString(name) > MaxPresetName || !utf8.ValidString(name) {
		return "", out, false, Invalid("name must be 1 to %d characters", MaxPresetName)
	}
	if in.Filters != nil {
		f := *in.Filters
		if f.Choices == nil {
			f.Choices = []PresetChoice{}
		}
		if err := f.Check(); err != nil {
			return "", out, false, err
		}
		out.Filters = f
	}
	if in.Capabilities != nil {
		caps := []string{}
		for i, c := range in.Capabilities {
			if c != PresetRendering {
				return "", out, false, Invalid("capabilities[%d] %q is not one of: %s", i, c, PresetRendering)
			}
			if !slices.Contains(caps, c) {
				caps = append(caps, c)
			}
		}
		out.Capabilities = caps
	}
	if in.AudioMapping != nil {
		m, err := ParseAudioMapping(in.AudioMapping)
		if err != nil {
			return "", out, false, err
		}
		changed = changed || m != base.AudioMapping
		out.AudioMapping = m
	}
	if in.Output != nil {
		o := *in.Output
		changed = changed || !o.Equal(base.Output)
		out.Output = o
	}
	if err := out.Output.Check(out.AudioMapping); err != nil {
		return "", out, false, err
	}
	return name, out, changed, nil
}

// Equal says whether two outputs make the same thing.
func (o PresetOutput) Equal(p PresetOutput) bool {
	return o.Container == p.Container && ptrEqual(o.Video, p.Video) && ptrEqual(o.Audio, p.Audio)
}

func ptrEqual[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// DefaultPresetSettings are a new preset's before its input applies.
func DefaultPresetSettings() PresetSettings {
	return PresetSettings{Filters: PresetFilters{Type: PresetFilterAll, Choices: []PresetChoice{}},
		Capabilities: []string{PresetRendering}, AudioMapping: DefaultAudioMapping(), Output: DefaultPresetOutput()}
}

// PresetUse is one thing that uses a preset (its usage): a render that
// has not finished.
type PresetUse struct {
	Type string `json:"type" db:"type"`
	ID   string `json:"id" db:"id"`
	// State is the render's state.
	State string `json:"state" db:"state"`
	// ItemID is the item it renders into.
	ItemID string `json:"itemId" db:"item_id"`
}

// PresetInUse is the refusal to delete a preset that is used: a conflict,
// with the uses in payload.messages.
func PresetInUse(uses []*PresetUse) *Error {
	msgs := make([]string, len(uses))
	for i, u := range uses {
		msgs[i] = fmt.Sprintf("%s %s (%s, into item %s)", u.Type, u.ID, u.State, u.ItemID)
	}
	e := Errorf(ECONFLICT, "The preset is in use by %d unfinished render(s); delete it when they end", len(uses))
	e.Payload = map[string]any{"messages": msgs}
	return e
}
