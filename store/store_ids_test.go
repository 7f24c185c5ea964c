package store

import (
	"reflect"
	"testing"
)

func TestIDsScan(t *testing.T) {
	const a, b = "01a20242-9dca-771b-bd4e-ca31c13a5a01", "01a20242-9dca-771b-bd4e-ca31c13a5a02"
	cases := []struct {
		src     any
		want    IDs
		wantErr bool
	}{
		{nil, nil, false},
		{[]byte("{}"), IDs{}, false},
		{[]byte("{" + a + "}"), IDs{a}, false},
		{"{" + a + "," + b + "}", IDs{a, b}, false},
		{[]byte(`{"a b"}`), nil, true}, // quoted: not a uuid array
		{[]byte("{NULL,x y}"), nil, true},
		{[]byte(a), nil, true},
		{42, nil, true},
	}
	for _, c := range cases {
		var got IDs
		err := got.Scan(c.src)
		if (err != nil) != c.wantErr || (!c.wantErr && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("Scan(%v) = %#v, %v; want %#v (error %v)", c.src, got, err, c.want, c.wantErr)
		}
	}
}
