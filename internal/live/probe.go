package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Service measures pipelines' sources and checks their addresses.
type Service struct {
	cfg Config
}

// New is a service for c (defaults filled).
func New(c Config) *Service { return &Service{cfg: c.WithDefaults()} }

// Config is the service's configuration, defaults filled.
func (s *Service) Config() Config { return s.cfg }

// protocols are what ffprobe may open for each source type: a playlist
// cannot lead it to file:, a URL to another protocol.
var protocols = map[string]string{
	loupe.LiveHTTP: "http,https,tcp,tls,crypto",
	loupe.LiveHLS:  "http,https,tcp,tls,crypto",
	loupe.LiveRTMP: "rtmp,rtmps,tcp,tls",
	loupe.LiveRTSP: "rtsp,rtsps,rtp,srtp,udp,tcp,tls",
	loupe.LiveSRT:  "srt",
	loupe.LiveUDP:  "udp",
	loupe.LiveRTP:  "rtp,udp",
}

// Recordable codecs: what Loupe's recordings copy into their segments
// and its processing reads (docs/live.md "Codecs").
var (
	videoCodecs = []string{"h264", "hevc", "mpeg2video", "mpeg4", "prores", "dnxhd", "vp8", "vp9", "av1", "mjpeg", "jpeg2000"}
	audioCodecs = []string{"aac", "mp2", "mp3", "ac3", "eac3", "opus", "vorbis", "flac", "s302m", "pcm_s16le", "pcm_s16be",
		"pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_bluray", "pcm_dvd"}
)

// target is the URL ffprobe is given and the headers it sends: the
// checked address in place of the name (the name cannot resolve anew in
// between), except over TLS, whose certificate and SNI need the name.
func target(u *url.URL, addr netip.Addr) (string, string, bool) {
	switch strings.ToLower(u.Scheme) {
	case "https", "rtmps", "rtsps":
		return u.String(), "", false
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return u.String(), "", true
	}
	pinned := *u
	host := addr.String()
	if addr.Is6() {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	pinned.Host = host
	var headers string
	if t := loupe.LiveSourceType(u); t == loupe.LiveHTTP || t == loupe.LiveHLS {
		headers = "Host: " + u.Host + "\r\n"
	}
	return pinned.String(), headers, true
}

// Input is what ffmpeg reads a pipeline's active source from, its
// address checked now.
type Input struct {
	// URL is the source's, with the checked address in place of its name
	// (except over TLS); Headers the HTTP headers to send with it (the
	// name as Host); Protocols ffmpeg's protocol whitelist for its type.
	URL, Headers, Protocols string
	// Address is the address connected to ("" over TLS).
	Address string
	url     *url.URL
}

// Input resolves and checks the pipeline's active source's address
// (policy and cidr) and answers what ffmpeg reads it from.
func (s *Service) Input(ctx context.Context, p *loupe.LivePipeline) (Input, error) {
	in, _, err := s.input(ctx, p)
	return in, err
}

// input is Input with the reason of a failure.
func (s *Service) input(ctx context.Context, p *loupe.LivePipeline) (Input, string, error) {
	src := p.Active()
	u, err := url.Parse(src.URL)
	if err != nil {
		return Input{}, loupe.LiveReasonAddress, fmt.Errorf("The source URL cannot be read: %w", err)
	}
	cidr, _ := loupe.ParseCIDR(p.Network)
	addrs, err := s.cfg.Policy().resolve(ctx, u, cidr)
	var dns *errDNS
	switch {
	case errors.As(err, &dns):
		return Input{}, loupe.LiveReasonUnreachable, dns
	case err != nil:
		return Input{}, loupe.LiveReasonAddress, fmt.Errorf("The source's address is not allowed: %w", err)
	}
	in := Input{Protocols: protocols[src.Type], url: u}
	var pinned bool
	in.URL, in.Headers, pinned = target(u, addrs[0])
	if pinned {
		in.Address = addrs[0].String()
	}
	return in, "", nil
}

// probeArgv is the ffprobe command of one measurement.
func probeArgv(typ, input, headers string, timeout time.Duration) []string {
	us := strconv.FormatInt((timeout - time.Second/2).Microseconds(), 10)
	argv := []string{"ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams",
		"-protocol_whitelist", protocols[typ], "-rw_timeout", us, "-analyzeduration", "3000000", "-probesize", "2000000"}
	if typ == loupe.LiveRTSP || typ == loupe.LiveUDP || typ == loupe.LiveSRT {
		argv = append(argv, "-timeout", us)
	}
	if headers != "" {
		argv = append(argv, "-headers", headers)
	}
	return append(argv, "-i", input)
}

// Measure probes the pipeline's active source now and says what it
// found: ok with the measurement, or an error a person can act on.
func (s *Service) Measure(ctx context.Context, p *loupe.LivePipeline) loupe.LiveProbeResult {
	r := s.measure(ctx, p)
	// ffprobe's words may quote the URL: never its credentials.
	r.Message = loupe.RedactLiveText(r.Message)
	r.CheckedOn = time.Now().UTC().Truncate(time.Microsecond)
	r.StaleAfter = r.CheckedOn.Add(s.cfg.staleAfter())
	return r
}

func (s *Service) measure(ctx context.Context, p *loupe.LivePipeline) loupe.LiveProbeResult {
	src := p.Active()
	r := loupe.LiveProbeResult{SourceKey: src.Key, Status: loupe.LiveStatusError}
	fail := func(reason, msg string) loupe.LiveProbeResult {
		r.Reason, r.Message = reason, msg
		return r
	}
	in, reason, err := s.input(ctx, p)
	if err != nil {
		return fail(reason, err.Error())
	}
	u, input, headers := in.url, in.URL, in.Headers
	measured := &loupe.LiveMeasurement{Address: in.Address}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ProbeTimeout)
	defer cancel()
	argv := probeArgv(src.Type, input, headers, s.cfg.ProbeTimeout)
	var out bytes.Buffer
	err = tool.Run(ctx, tool.Cmd{Program: argv[0], Args: argv[1:], Stdout: &out})
	if err != nil {
		reason, msg := explain(err, ctx.Err() != nil, u, s.cfg.ProbeTimeout)
		return fail(reason, msg)
	}
	var pr media.Probe
	if err := json.Unmarshal(out.Bytes(), &pr); err != nil {
		return fail(loupe.LiveReasonNotMedia, "The source answered, but ffprobe's report of it is unreadable")
	}
	measured.Format = pr.Format.FormatName
	var video, audio *media.Stream
	for i := range pr.Streams {
		st := &pr.Streams[i]
		switch {
		case st.CodecType == "video" && st.Disposition["attached_pic"] == 0 && video == nil:
			video = st
		case st.CodecType == "audio" && audio == nil:
			audio = st
		}
	}
	if video != nil {
		measured.Video = &loupe.LiveVideo{Codec: video.CodecName, Profile: video.Profile, Width: video.Width,
			Height: video.Height, FrameRate: video.AvgFrameRate}
		if measured.Video.FrameRate == "" || measured.Video.FrameRate == "0/0" {
			measured.Video.FrameRate = video.RFrameRate
		}
	}
	if audio != nil {
		sr, _ := strconv.Atoi(audio.SampleRate)
		measured.Audio = &loupe.LiveAudio{Codec: audio.CodecName, Channels: audio.Channels, SampleRate: sr}
	}
	r.Measured = measured
	switch {
	case video == nil && audio == nil:
		return fail(loupe.LiveReasonNotMedia, "The source answered, but with no audio or video stream")
	case !p.AudioOnly && video == nil:
		return fail(loupe.LiveReasonNoVideo, fmt.Sprintf("The source has no video stream (only %s audio): check the encoder's video "+
			"output, or switch audioOnly on for a sound-only feed", audio.CodecName))
	case p.AudioOnly && audio == nil:
		return fail(loupe.LiveReasonNoAudio, "The source has no audio stream, and the pipeline is audioOnly: check the encoder's audio output")
	case !p.AudioOnly && !contains(videoCodecs, video.CodecName):
		return fail(loupe.LiveReasonCodec, fmt.Sprintf("Loupe cannot record the source's video codec %q: have the encoder send H.264, "+
			"HEVC, MPEG-2, ProRes, DNxHD/HR, VP9 or AV1", video.CodecName))
	case !p.AudioOnly && (video.Width <= 0 || video.Height <= 0):
		return fail(loupe.LiveReasonNotMedia, "The source's video picture size could not be read within the probe: check that the "+
			"encoder sends keyframes (and its stream headers) at least every few seconds")
	case audio != nil && !contains(audioCodecs, audio.CodecName):
		return fail(loupe.LiveReasonCodec, fmt.Sprintf("Loupe cannot record the source's audio codec %q: have the encoder send AAC, "+
			"MPEG audio, AC-3, Opus or PCM", audio.CodecName))
	}
	r.Status = loupe.LiveStatusOK
	return r
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

var serverReturned = regexp.MustCompile(`(?i)server returned ([0-9]{3}[^;:\n]*|[a-z][^;:\n]*)`)

// explain words a failed ffprobe run as what a person can fix.
func explain(err error, timedOut bool, u *url.URL, timeout time.Duration) (reason, msg string) {
	where := u.Host
	if u.Port() == "" {
		where = u.Hostname()
	}
	if timedOut {
		return loupe.LiveReasonUnreachable, fmt.Sprintf("The source at %s did not answer within %s: check that it is sending, and that "+
			"this node's network reaches it (firewall, routing)", where, timeout)
	}
	var te *tool.Error
	stderr := err.Error()
	if errors.As(err, &te) {
		stderr = te.Stderr
	}
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "connection refused"):
		return loupe.LiveReasonUnreachable, fmt.Sprintf("Nothing accepts connections at %s (connection refused): check the address "+
			"and port, and that the source is running", where)
	case strings.Contains(low, "timed out") || strings.Contains(low, "timeout"):
		return loupe.LiveReasonUnreachable, fmt.Sprintf("The source at %s did not answer in time (timed out): check that it is sending, "+
			"and that this node's network reaches it", where)
	case strings.Contains(low, "resolve hostname") || strings.Contains(low, "name or service not known"):
		return loupe.LiveReasonUnreachable, (&errDNS{host: u.Hostname()}).Error()
	case strings.Contains(low, "network is unreachable") || strings.Contains(low, "no route to host"):
		return loupe.LiveReasonUnreachable, fmt.Sprintf("This node has no route to %s: check the address and the network", where)
	case serverReturned.MatchString(stderr):
		what := strings.TrimSpace(serverReturned.FindStringSubmatch(stderr)[1])
		hint := "check the URL"
		switch {
		case strings.HasPrefix(what, "404"):
			hint = "check the stream's path, and that it is being published"
		case strings.HasPrefix(what, "401") || strings.HasPrefix(what, "403"):
			hint = "check the credentials or the server's access rules for this node"
		case strings.HasPrefix(what, "5"):
			hint = "the server has a problem of its own"
		}
		return loupe.LiveReasonRefused, fmt.Sprintf("The server refused the stream: it answered %s; %s", what, hint)
	case strings.Contains(low, "not on whitelist"):
		return loupe.LiveReasonRefused, "The source leads to a protocol a live source may not use (a playlist pointing at files or " +
			"another scheme): " + stderr
	case strings.Contains(low, "invalid data found"):
		return loupe.LiveReasonNotMedia, fmt.Sprintf("The source at %s answered, but not with a media stream ffmpeg can read: "+
			"check the URL and the stream's format", where)
	case strings.Contains(low, "protocol not found"):
		return loupe.LiveReasonUnreachable, fmt.Sprintf("This node's ffmpeg cannot read %s:// sources", u.Scheme)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return loupe.LiveReasonUnreachable, fmt.Sprintf("The source at %s did not answer in time", where)
	}
	return loupe.LiveReasonUnreachable, fmt.Sprintf("The source at %s could not be read: %s", where, stderr)
}
