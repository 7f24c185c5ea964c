package loupe

import "testing"

func TestRedactLiveURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"srt://10.0.0.5:9000?mode=caller&passphrase=s3cretpass", "srt://10.0.0.5:9000?mode=caller&passphrase=***"},
		{"rtsp://cam:hunter2@10.0.0.9/stream1", "rtsp://cam:***@10.0.0.9/stream1"},
		{"rtmp://live.example.com/app/abcd-efgh-1234", "rtmp://live.example.com/app/***"},
		{"https://cdn.example.com/live/index.m3u8?token=xyz&quality=hd", "https://cdn.example.com/live/index.m3u8?quality=hd&token=***"},
		{"udp://239.1.1.1:5000", "udp://239.1.1.1:5000"},
		{"http://10.0.0.2/feed.ts", "http://10.0.0.2/feed.ts"},
	} {
		if got := RedactLiveURL(c.in); got != c.want {
			t.Errorf("RedactLiveURL(%s) = %s, want %s", c.in, got, c.want)
		}
		if got := KeepRedacted(RedactLiveURL(c.in), c.in); got != c.in {
			t.Errorf("written back, %s became %s", c.in, got)
		}
	}
	if got := KeepRedacted("srt://10.0.0.6:9000", "srt://10.0.0.5:9000?passphrase=x"); got != "srt://10.0.0.6:9000" {
		t.Errorf("a new URL was not kept: %s", got)
	}
	msg := "srt://10.0.0.5:9000?mode=caller&passphrase=s3cretpass: Connection refused; rtsp://cam:hunter2@10.0.0.9/x failed"
	if got := RedactLiveText(msg); got != "srt://10.0.0.5:9000?mode=caller&passphrase=***: Connection refused; rtsp://cam:***@10.0.0.9/x failed" {
		t.Errorf("RedactLiveText: %s", got)
	}
}
