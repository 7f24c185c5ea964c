package loupe

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Live pipelines (spec 2.21, 4.6; docs/live.md "Pipelines"): a configured
// live source — SRT, RTMP, RTSP, HLS, UDP/RTP multicast or an HTTP stream
// — with a list of alternative sources it can switch between, and a status
// the node measures (ffprobe with a timeout), never one a client writes.

// Limits of a pipeline.
const (
	MaxLivePipelines     = 200
	MaxLivePipelineName  = 200
	MaxLiveSources       = 16
	MaxLiveSourceKey     = 64
	MaxLiveSourceURL     = 2048
	MaxLiveListKey       = 200
	LiveOwnStoreLocation = "loupe"
)

// Status values of a pipeline (status, mediaPipelineStatus.source.type).
const (
	LiveStatusOK      = "ok"
	LiveStatusError   = "error"
	LiveStatusUnknown = "unknown"
)

// Reasons of an error status (mediaPipelineStatus.source.reason): what a
// person has to fix.
const (
	LiveReasonUnreachable = "unreachable" // refused connection, timeout, DNS
	LiveReasonRefused     = "refused"     // the server answered with an error (403, 404…)
	LiveReasonNotMedia    = "notMedia"    // it answered, with no stream ffmpeg reads
	LiveReasonNoVideo     = "noVideo"     // no video stream in a video pipeline
	LiveReasonNoAudio     = "noAudio"     // no audio stream in an audioOnly pipeline
	LiveReasonCodec       = "codec"       // a codec Loupe cannot record
	LiveReasonAddress     = "address"     // the address is not allowed (policy or cidr)
)

// Source types (liveSourceType): the protocol the node reads the source
// with, from its URL — an http(s) URL whose path ends in .m3u8 is hls.
const (
	LiveSRT  = "srt"
	LiveRTMP = "rtmp"
	LiveRTSP = "rtsp"
	LiveHLS  = "hls"
	LiveUDP  = "udp"
	LiveRTP  = "rtp"
	LiveHTTP = "http"
)

// liveSchemes are the URL schemes a source may have, and their type.
var liveSchemes = map[string]string{
	"srt": LiveSRT, "rtmp": LiveRTMP, "rtmps": LiveRTMP, "rtsp": LiveRTSP, "rtsps": LiveRTSP,
	"udp": LiveUDP, "rtp": LiveRTP, "http": LiveHTTP, "https": LiveHTTP,
}

var liveKeyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// LiveSourceType is the type of a source URL (its scheme, hls for a
// playlist), "" when the scheme is not a live source's.
func LiveSourceType(u *url.URL) string {
	t := liveSchemes[strings.ToLower(u.Scheme)]
	if t == LiveHTTP && strings.HasSuffix(strings.ToLower(u.Path), ".m3u8") {
		return LiveHLS
	}
	return t
}

// ParseLiveSourceURL checks a source URL's form (field names it in the
// error): a scheme of liveSchemes, a host, a port in range; multicast only
// for udp and rtp. Which addresses it may reach is internal/live's to say.
func ParseLiveSourceURL(field, raw string) (*url.URL, error) {
	if raw == "" || len(raw) > MaxLiveSourceURL || !utf8.ValidString(raw) || strings.ContainsAny(raw, " \t\r\n") {
		return nil, Invalid("%s must be a URL of 1 to %d characters without spaces", field, MaxLiveSourceURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return nil, Invalid("%s %q is not an absolute URL like srt://host:port or https://host/live.m3u8", field, raw)
	}
	if LiveSourceType(u) == "" {
		return nil, Invalid("%s: scheme %q is not one of srt, rtmp, rtmps, rtsp, rtsps, udp, rtp, http, https", field, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, Invalid("%s %q has no host", field, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return nil, Invalid("%s %q: port %q is not 1 to 65535", field, raw, p)
		}
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && a.IsMulticast() {
		if t := LiveSourceType(u); t != LiveUDP && t != LiveRTP {
			return nil, Invalid("%s: multicast address %s is for udp:// or rtp:// sources only", field, a)
		}
	}
	return u, nil
}

// LiveSource is one source of a pipeline's list.
type LiveSource struct {
	// Key names the source in its pipeline (current, switches).
	Key  string `json:"key"`
	Name string `json:"name"`
	URL  string `json:"url"`
	// Type is the protocol, from the URL (LiveSourceType).
	Type string `json:"type"`
}

// LiveVideo is a measured video stream.
type LiveVideo struct {
	Codec     string `json:"codec"`
	Profile   string `json:"profile"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	FrameRate string `json:"frameRate"`
}

// LiveAudio is a measured audio stream.
type LiveAudio struct {
	Codec      string `json:"codec"`
	Channels   int    `json:"channels"`
	SampleRate int    `json:"sampleRate"`
}

// LiveMeasurement is what the last probe found.
type LiveMeasurement struct {
	// Format is the container ffprobe read (hls, mpegts, flv, rtsp…).
	Format string     `json:"format"`
	Video  *LiveVideo `json:"video"`
	Audio  *LiveAudio `json:"audio"`
	// Address is the address the probe connected to ("" for https,
	// which ffprobe resolves itself; docs/live.md).
	Address string `json:"address"`
}

// LiveProbeResult is one measurement of a pipeline's active source.
type LiveProbeResult struct {
	// SourceKey is the source measured.
	SourceKey string
	// Status is ok or error; Reason and Message say why an error.
	Status, Reason, Message string
	Measured                *LiveMeasurement
	CheckedOn               time.Time
	// StaleAfter is when the measurement stops being current.
	StaleAfter time.Time
}

// LivePipeline is the spec's 2.21 record with what Loupe adds.
type LivePipeline struct {
	TenantID string `db:"tenant_id" json:"-"`
	ID       string `db:"id"`
	Name     string `db:"name"`
	// Sources is the dynamic source list (1 to MaxLiveSources); Current
	// the key of the active one.
	Sources     []LiveSource `db:"-"`
	SourcesJSON []byte       `db:"sources"`
	Current     string       `db:"current"`
	// ListKey is dynamicSourceListKey: a name for the list the client
	// chose (nil: none).
	ListKey        *string `db:"list_key"`
	Network        string  `db:"cidr"`
	LocationID     string  `db:"location_id"`
	ObjectOutput   bool    `db:"object_output"`
	AudioOnly      bool    `db:"audio_only"`
	MxfWithTsProxy bool    `db:"mxf_with_ts_proxy"`
	// The last measurement: Status ok, error or unknown (never measured
	// since its source changed); MeasuredKey the source it measured.
	Status        string     `db:"status"`
	Reason        string     `db:"reason"`
	ErrorMessage  string     `db:"error_message"`
	MeasuredKey   string     `db:"measured_key"`
	MeasuredJSON  []byte     `db:"measured"`
	CheckedOn     *time.Time `db:"checked_on"`
	StaleAfter    *time.Time `db:"stale_after"`
	CreatedByUser string     `db:"created_by"`
	CreatedOn     time.Time  `db:"created_on"`
	ModifiedOn    time.Time  `db:"modified_on"`
}

// Active is the current source.
func (p *LivePipeline) Active() LiveSource {
	for _, s := range p.Sources {
		if s.Key == p.Current {
			return s
		}
	}
	if len(p.Sources) > 0 {
		return p.Sources[0]
	}
	return LiveSource{}
}

// Fields of the 2.21 record (gqlgen binds them).

func (p *LivePipeline) PipelineID() string         { return p.ID }
func (p *LivePipeline) PipelineName() string       { return p.Name }
func (p *LivePipeline) PipelineLocationID() string { return p.LocationID }
func (p *LivePipeline) LiveSourceID() string       { return p.Active().Key }
func (p *LivePipeline) LiveSourceName() string     { return p.Active().Name }
func (p *LivePipeline) LiveSourceType() string     { return p.Active().Type }
func (p *LivePipeline) Cidr() string               { return p.Network }
func (p *LivePipeline) CreatedByUserID() string    { return p.CreatedByUser }

// Stale says whether the status is no longer current: never measured, or
// not measured again within its interval (the node that measures is down
// or behind).
func (p *LivePipeline) Stale() bool {
	return p.CheckedOn == nil || p.StaleAfter == nil || time.Now().After(*p.StaleAfter)
}

// LiveDynamicSources is mediaPipelineDynamicSources.
type LiveDynamicSources struct {
	Current              *string `json:"current"`
	DynamicSourceListKey *string `json:"dynamicSourceListKey"`
}

// MediaPipelineDynamicSources: current is the active key when the list
// has more than one source (null otherwise), the list's key as chosen.
func (p *LivePipeline) MediaPipelineDynamicSources() *LiveDynamicSources {
	d := &LiveDynamicSources{DynamicSourceListKey: p.ListKey}
	if len(p.Sources) > 1 {
		c := p.Current
		d.Current = &c
	}
	return d
}

// LiveSourceStatus is mediaPipelineStatus.source.
type LiveSourceStatus struct {
	// Type is ok, error or unknown.
	Type         string `json:"type"`
	ErrorMessage string `json:"errorMessage"`
	// Reason (error only) is one of the LiveReason values.
	Reason *string `json:"reason"`
}

// LivePipelineStatus is mediaPipelineStatus.
type LivePipelineStatus struct {
	ActiveDynamicSource *string           `json:"activeDynamicSource"`
	Source              *LiveSourceStatus `json:"source"`
}

// MediaPipelineStatus is the last measurement: the source it measured and
// what it found.
func (p *LivePipeline) MediaPipelineStatus() *LivePipelineStatus {
	s := &LivePipelineStatus{Source: &LiveSourceStatus{Type: p.Status, ErrorMessage: p.ErrorMessage}}
	if p.MeasuredKey != "" {
		k := p.MeasuredKey
		s.ActiveDynamicSource = &k
	}
	if p.Reason != "" {
		r := p.Reason
		s.Source.Reason = &r
	}
	return s
}

// LiveSourceInput is one source of a pipeline's list as a client sends it.
type LiveSourceInput struct {
	Key  string  `json:"key"`
	Name *string `json:"name,omitempty"`
	URL  string  `json:"url"`
}

// LivePipelineInput creates a pipeline, or changes the fields given.
type LivePipelineInput struct {
	PipelineName *string `json:"pipelineName,omitempty"`
	// Sources replaces the list (required to create).
	Sources []LiveSourceInput `json:"sources,omitempty"`
	// Current is the active key (default: the first source's, or the
	// current one when it is still in the list).
	Current              *string `json:"current,omitempty"`
	DynamicSourceListKey *string `json:"dynamicSourceListKey,omitempty"`
	Cidr                 *string `json:"cidr,omitempty"`
	PipelineLocationID   *string `json:"pipelineLocationId,omitempty"`
	ObjectOutput         *bool   `json:"objectOutput,omitempty"`
	AudioOnly            *bool   `json:"audioOnly,omitempty"`
	MxfWithTsProxy       *bool   `json:"mxfWithTsProxy,omitempty"`
}

// LiveSettings are a pipeline's configured fields.
type LiveSettings struct {
	Name           string
	Sources        []LiveSource
	Current        string
	ListKey        *string
	CIDR           string
	LocationID     string
	ObjectOutput   bool
	AudioOnly      bool
	MxfWithTsProxy bool
}

// Settings are p's configured fields (what an update starts from).
func (p *LivePipeline) Settings() LiveSettings {
	return LiveSettings{Name: p.Name, Sources: p.Sources, Current: p.Current, ListKey: p.ListKey, CIDR: p.Network,
		LocationID: p.LocationID, ObjectOutput: p.ObjectOutput, AudioOnly: p.AudioOnly, MxfWithTsProxy: p.MxfWithTsProxy}
}

// DefaultLiveSettings are a new pipeline's before its input applies.
func DefaultLiveSettings() LiveSettings {
	return LiveSettings{LocationID: LiveOwnStoreLocation}
}

// ParseCIDR checks a pipeline's cidr: empty (no restriction beyond the
// address policy) or one network in CIDR notation.
func ParseCIDR(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, Invalid("cidr %q is not a network like 10.20.0.0/16 or fd00:1::/48", s)
	}
	return p.Masked(), nil
}

// Apply checks in against base and answers the settings it makes, each
// problem naming its field. measure says whether what the status measures
// (the active source's URL, audioOnly, cidr) changed.
func (in *LivePipelineInput) Apply(base LiveSettings) (out LiveSettings, measure bool, err error) {
	out = base
	if in.PipelineName != nil {
		out.Name = strings.TrimSpace(*in.PipelineName)
	}
	if out.Name == "" || utf8.RuneCountInString(out.Name) > MaxLivePipelineName || !utf8.ValidString(out.Name) {
		return out, false, Invalid("pipelineName must be 1 to %d characters", MaxLivePipelineName)
	}
	if in.Sources != nil {
		if len(in.Sources) == 0 || len(in.Sources) > MaxLiveSources {
			return out, false, Invalid("sources must have 1 to %d entries", MaxLiveSources)
		}
		seen := map[string]bool{}
		out.Sources = make([]LiveSource, len(in.Sources))
		for i, s := range in.Sources {
			if len(s.Key) > MaxLiveSourceKey || !liveKeyRE.MatchString(s.Key) {
				return out, false, Invalid("sources[%d].key %q must be 1 to %d letters, digits, '.', '_' or '-'", i, s.Key, MaxLiveSourceKey)
			}
			if seen[s.Key] {
				return out, false, Invalid("sources[%d].key %q is given twice", i, s.Key)
			}
			seen[s.Key] = true
			// A source read back (its URL redacted) and written again keeps
			// its URL (live_redact.go).
			raw := s.URL
			for _, b := range base.Sources {
				if b.Key == s.Key {
					raw = KeepRedacted(raw, b.URL)
				}
			}
			u, err := ParseLiveSourceURL("sources["+strconv.Itoa(i)+"].url", raw)
			if err != nil {
				return out, false, err
			}
			name := s.Key
			if s.Name != nil {
				name = strings.TrimSpace(*s.Name)
			}
			if name == "" || utf8.RuneCountInString(name) > MaxLivePipelineName {
				return out, false, Invalid("sources[%d].name must be 1 to %d characters", i, MaxLivePipelineName)
			}
			out.Sources[i] = LiveSource{Key: s.Key, Name: name, URL: u.String(), Type: LiveSourceType(u)}
		}
	}
	if len(out.Sources) == 0 {
		return out, false, Invalid("sources must have 1 to %d entries", MaxLiveSources)
	}
	if in.Current != nil {
		out.Current = *in.Current
		if !out.hasKey(out.Current) {
			return out, false, Invalid("current %q is not the key of one of the sources", out.Current)
		}
	} else if !out.hasKey(out.Current) {
		out.Current = out.Sources[0].Key
	}
	if in.DynamicSourceListKey != nil {
		k := strings.TrimSpace(*in.DynamicSourceListKey)
		switch {
		case k == "":
			out.ListKey = nil
		case utf8.RuneCountInString(k) > MaxLiveListKey || !utf8.ValidString(k):
			return out, false, Invalid("dynamicSourceListKey must be at most %d characters", MaxLiveListKey)
		default:
			out.ListKey = &k
		}
	}
	if in.Cidr != nil {
		p, err := ParseCIDR(strings.TrimSpace(*in.Cidr))
		if err != nil {
			return out, false, err
		}
		out.CIDR = ""
		if p.IsValid() {
			out.CIDR = p.String()
		}
	}
	if in.PipelineLocationID != nil {
		l := strings.TrimSpace(*in.PipelineLocationID)
		if l == "" {
			l = LiveOwnStoreLocation
		}
		if l != LiveOwnStoreLocation && !ValidID(l) {
			return out, false, Invalid("pipelineLocationId %q is not %s (Loupe's own store) or a storage location id", l, LiveOwnStoreLocation)
		}
		out.LocationID = l
	}
	if in.ObjectOutput != nil {
		out.ObjectOutput = *in.ObjectOutput
	}
	if in.AudioOnly != nil {
		out.AudioOnly = *in.AudioOnly
	}
	if in.MxfWithTsProxy != nil {
		out.MxfWithTsProxy = *in.MxfWithTsProxy
	}
	before, after := activeOf(base), activeOf(out)
	measure = before.URL != after.URL || base.AudioOnly != out.AudioOnly || base.CIDR != out.CIDR
	return out, measure, nil
}

func (s LiveSettings) hasKey(k string) bool {
	for _, src := range s.Sources {
		if src.Key == k {
			return true
		}
	}
	return false
}

func activeOf(s LiveSettings) LiveSource {
	p := LivePipeline{Sources: s.Sources, Current: s.Current}
	return p.Active()
}

// Measured is what the last measurement found (nil: none, or it failed
// before reading the media).
func (p *LivePipeline) Measured() *LiveMeasurement {
	if len(p.MeasuredJSON) == 0 {
		return nil
	}
	var m LiveMeasurement
	if err := json.Unmarshal(p.MeasuredJSON, &m); err != nil {
		return nil
	}
	return &m
}
