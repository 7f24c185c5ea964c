package pipeline_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
)

// A run keeps every channel: an audio file's 5.1 gets a stereo proxy and a
// 5.1 one, a video's 4-channel second track two pair proxies; the item's
// technical metadata names what each proxy and each waveform channel
// holds, in proxyAudioTrackUrls' order; the bench runs the same commands.
func TestRunKeepsAudioChannels(t *testing.T) {
	mediatest.Need(t)
	ctx := context.Background()
	six := []string{}
	for _, f := range []int{300, 500, 700, 60, 1100, 1300} {
		six = append(six, "-f", "lavfi", "-i", "sine=frequency="+strconv.Itoa(f)+":duration=2")
	}
	s51 := lavfi(t, "51.wav", append(six, "-filter_complex",
		"[0][1][2][3][4][5]join=inputs=6:channel_layout=5.1(side):map=0.0-FL|1.0-FR|2.0-FC|3.0-LFE|4.0-SL|5.0-SR")...)
	r, err := pipeline.Run(ctx, s51, t.TempDir(), pipeline.AllSteps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	channels := map[string]int{}
	for _, o := range r.Outputs {
		if strings.HasSuffix(o.Name, ".m4a") {
			p, err := media.ProbeFile(ctx, o.Path)
			if err != nil || p.Audio() == nil {
				t.Fatalf("%s: %v", o.Name, err)
			}
			channels[o.Key+"/"+o.Name] = p.Audio().Channels
		}
	}
	if channels["proxy/proxy.m4a"] != 2 || channels["audioTracks/audio_1.m4a"] != 6 || len(channels) != 2 {
		t.Fatalf("5.1 audio: outputs' channels %v", channels)
	}
	tech := r.Technical()
	mix, _ := tech["audioMix"].(map[string]any)
	proxies, _ := tech["audioProxies"].([]map[string]any)
	if mix["rule"] != media.MixDownmix || len(proxies) != 1 || proxies[0]["layout"] != "5.1" ||
		!slices.Equal(proxies[0]["channels"].([]int), []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("5.1 audio: audioMix %v, audioProxies %v", mix, proxies)
	}
	if wc, _ := tech["waveformChannels"].([]string); len(wc) != 6 || wc[3] != "track 1 channel 4 (LFE)" {
		t.Errorf("5.1 audio: waveformChannels %q", wc)
	}
	for _, cmd := range pipeline.Bare(s51, "/w", r.Probe) {
		if slices.Contains(cmd, "/w/proxy.m4a") && !slices.Contains(cmd, "/w/audio_1.m4a") {
			t.Errorf("bench: the audio proxies are not one command: %q", cmd)
		}
		if strings.Contains(strings.Join(cmd, " "), "showwavespic") {
			t.Errorf("bench: %q", cmd)
		}
	}

	video := lavfi(t, "v.mkv", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
		"-f", "lavfi", "-i", "sine=frequency=300:duration=2", "-f", "lavfi", "-i", "sine=frequency=500:duration=2",
		"-filter_complex", "[1][2]join=inputs=2:channel_layout=stereo:map=0.0-FL|1.0-FR[st];"+
			"[1][2][1][2]join=inputs=4:channel_layout=4.0:map=0.0-FL|1.0-FR|2.0-FC|3.0-BC[four]",
		"-map", "0:v", "-map", "[st]", "-map", "[four]", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "flac")
	r, err = pipeline.Run(ctx, video, t.TempDir(), pipeline.Steps{pipeline.StepProxy: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range r.Outputs {
		if o.Key == pipeline.OutAudioTracks {
			names = append(names, filepath.Base(o.Path))
		}
	}
	proxies, _ = r.Technical()["audioProxies"].([]map[string]any)
	if !slices.Equal(names, []string{"audio_1.m4a", "audio_2.m4a"}) || len(proxies) != 2 ||
		proxies[0]["label"] != "track 2 channels 1-2" || proxies[1]["label"] != "track 2 channels 3-4" {
		t.Errorf("video: track proxies %v, audioProxies %v", names, proxies)
	}
	if _, ok := r.Technical()["waveformChannels"]; ok {
		t.Error("video: waveformChannels without a waveform made")
	}
}
