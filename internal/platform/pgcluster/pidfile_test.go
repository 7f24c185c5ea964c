package pgcluster

import "testing"

func TestParsePostmasterPort(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    int
		wantErr bool
	}{
		{
			name:    "running server",
			content: "4242\n/tmp/pg/data\n1700000000\n54321\n\n127.0.0.1\n  1234567         0\nready   \n",
			want:    54321,
		},
		{name: "port with spaces", content: "1\n/d\n2\n 5432 \n", want: 5432},
		{name: "too short", content: "4242\n/tmp/pg/data\n", wantErr: true},
		{name: "not a number", content: "1\n/d\n2\nfoo\n", wantErr: true},
		{name: "out of range", content: "1\n/d\n2\n70000\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePostmasterPort(tc.content)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("parsePostmasterPort = %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
