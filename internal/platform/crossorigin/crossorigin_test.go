package crossorigin

import (
	"slices"
	"strings"
	"testing"
)

func TestParseOrigins(t *testing.T) {
	for _, c := range []struct {
		setting string
		want    []string
		err     string // a part of the error; "" when the setting is good
	}{
		{setting: "", want: nil},
		{setting: " , ", want: nil},
		{setting: "https://app.example.com", want: []string{"https://app.example.com"}},
		{setting: "HTTPS://App.Example.com, http://localhost:5173 ,https://app.example.com",
			want: []string{"https://app.example.com", "http://localhost:5173"}},
		{setting: "https://*.studio.example", want: []string{"https://*.studio.example"}},
		{setting: "http://[::1]:3000", want: []string{"http://[::1]:3000"}},
		{setting: "*", want: []string{"*"}},
		{setting: " * ", want: []string{"*"}},

		{setting: "*,https://app.example.com", err: "stands alone"},
		{setting: "https://app.example.com/", err: "no path"},
		{setting: "https://app.example.com/app", err: "no path"},
		{setting: "https://app.example.com?x=1", err: "no path, query"},
		{setting: "https://app.example.com#", err: "fragment"},
		{setting: "app.example.com", err: "scheme"},
		{setting: "ftp://app.example.com", err: "scheme"},
		{setting: "https://", err: "no host"},
		{setting: "https://:443", err: "no host"},
		{setting: "https://user@app.example.com", err: "user name"},
		{setting: "https://app.*.example", err: "wildcard"},
		{setting: "https://*", err: "wildcard"},
		{setting: "https://*.*.example", err: "wildcard"},
		{setting: "https://app.example.com:port", err: "not an origin"},
	} {
		got, err := ParseOrigins(c.setting)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.setting, err)
		case c.err == "" && !slices.Equal(got, c.want):
			t.Errorf("%q: %q, want %q", c.setting, got, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %q, %v; want an error about %q", c.setting, got, err, c.err)
		}
	}
}
