package mdf

import (
	"testing"

	"github.com/loupe-mam/loupe"
)

func TestReadableFormData(t *testing.T) {
	withMore := func() *Mdf {
		m := testForm()
		m.fields = append(m.fields,
			&MdfField{ID: "tags", FieldID: "tags", Label: "Tags", Type: FieldMultipleChoice, Alternatives: []Alternative{{"x", "Ex"}}},
			&MdfField{ID: "dup", FieldID: "dup", Label: "Status", Type: FieldText})
		return m
	}
	cases := []struct {
		name       string
		form       func() *Mdf
		data, want string
	}{
		{name: "labels, alternatives' labels, retired fields, a shared label", form: withMore,
			data: `{"default_title":"T","status":"final","tags":["x","gone"],"old":1,"dup":"d","free":true}`,
			want: `{"Old":1,"Status":"Final","Status (dup)":"d","Tags":["Ex","gone"],"Title":"T","free":true}`},
		// An unknown form still labels the system fields.
		{name: "without a form", form: noForm, data: `{"default_description":"D","x":1}`,
			want: `{"Description":"D","x":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadableFormData(c.form(), loupe.JSON(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("readable = %s, want %s", got, c.want)
			}
		})
	}
}
