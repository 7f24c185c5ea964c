package store

import (
	"encoding/json"
	"testing"

	"github.com/loupe-mam/loupe"
)

func ptr[T any](v T) *T { return &v }

func TestCreateItemInputValidate(t *testing.T) {
	cases := []struct {
		name      string
		in        loupe.CreateItemInput
		wantErr   bool
		wantTitle string
		wantForm  string
	}{
		{"title given", loupe.CreateItemInput{Title: ptr(" Clip "), ItemType: "video"}, false, "Clip", "default"},
		{"title from form", loupe.CreateItemInput{ItemType: "video", Metadata: &loupe.ItemMetadataInput{FormData: loupe.JSON(`{"default_title":"From form"}`)}}, false, "From form", "default"},
		{"title from file name", loupe.CreateItemInput{ItemType: "audio", OriginalFileName: ptr("take1.wav")}, false, "take1.wav", "default"},
		{"folder form", loupe.CreateItemInput{Title: ptr("F"), ItemType: "folder"}, false, "F", "default_folder"},
		{"no title", loupe.CreateItemInput{ItemType: "video"}, true, "", ""},
		{"bad item type", loupe.CreateItemInput{Title: ptr("x"), ItemType: "Video"}, true, "", ""},
		{"bad language", loupe.CreateItemInput{Title: ptr("x"), ItemType: "video", LanguageCode: ptr("english")}, true, "", ""},
		{"form data not object", loupe.CreateItemInput{Title: ptr("x"), ItemType: "video", Metadata: &loupe.ItemMetadataInput{FormData: loupe.JSON(`[1]`)}}, true, "", ""},
		{"folder with two parents", loupe.CreateItemInput{Title: ptr("x"), ItemType: "folder", FolderParents: []string{"a", "b"}}, true, "", ""},
		{"parent twice", loupe.CreateItemInput{Title: ptr("x"), ItemType: "video", FolderParents: []string{"a", "a"}}, true, "", ""},
		{"blank external id", loupe.CreateItemInput{Title: ptr("x"), ItemType: "video", ExternalID: ptr(" ")}, true, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := validateNewItem(&c.in)
			if (err != nil) != c.wantErr {
				t.Fatalf("validate() error = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				if loupe.ErrorKind(err) != loupe.EINVALID {
					t.Fatalf("error kind %s, want %s", loupe.ErrorKind(err), loupe.EINVALID)
				}
				return
			}
			if n.title != c.wantTitle || n.formID != c.wantForm {
				t.Fatalf("title %q form %q, want %q %q", n.title, n.formID, c.wantTitle, c.wantForm)
			}
			var title string
			if json.Unmarshal(n.formData["default_title"], &title) != nil || title == "" {
				t.Fatalf("default_title not set: %s", n.formData["default_title"])
			}
		})
	}
}

func TestMergeFormData(t *testing.T) {
	data := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`"x"`)}
	delta := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`null`), "c": json.RawMessage(`true`)}
	changes := mergeFormData(data, delta)
	if len(data) != 2 || string(data["a"]) != "1" || string(data["c"]) != "true" || data["b"] != nil {
		t.Fatalf("merged = %v", data)
	}
	if len(changes) != 2 || changes[0].FieldID != "b" || string(changes[0].OldValue) != `"x"` ||
		changes[1].FieldID != "c" || string(changes[1].OldValue) != "null" {
		t.Fatalf("changes = %+v (unchanged a must not be listed)", changes)
	}
}

func TestAccessValidate(t *testing.T) {
	cases := []struct {
		in      Access
		wantErr bool
		groups  int
	}{
		{Access{Level: AccessTenant, Groups: []string{"x"}}, false, 0},
		{Access{Level: AccessSelectedGroups, Groups: []string{"t:editors"}}, false, 1},
		{Access{Level: AccessSelectedGroups}, true, 0},
		{Access{Level: AccessSelectedGroups, Groups: []string{" "}}, true, 0},
		{Access{Level: "world"}, true, 0},
	}
	for _, c := range cases {
		a := c.in
		err := a.Validate("visibleTo")
		if (err != nil) != c.wantErr || (err == nil && len(a.Groups) != c.groups) {
			t.Fatalf("%+v: err %v, groups %v", c.in, err, a.Groups)
		}
	}
}

func TestValidFolderName(t *testing.T) {
	for name, ok := range map[string]bool{"Promo": true, " Promo ": true, "": false, "a/b": false, "tab\there": false} {
		if _, err := validFolderName(name); (err == nil) != ok {
			t.Errorf("validFolderName(%q) error %v, want ok %v", name, err, ok)
		}
	}
}
