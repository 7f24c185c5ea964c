package loupe

import (
	"encoding/json"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestCreateItemInputValidate(t *testing.T) {
	cases := []struct {
		name      string
		in        CreateItemInput
		wantErr   bool
		wantTitle string
		wantForm  string
	}{
		{"title given", CreateItemInput{Title: ptr(" Clip "), ItemType: "video"}, false, "Clip", "default"},
		{"title from form", CreateItemInput{ItemType: "video", Metadata: &ItemMetadataInput{FormData: JSON(`{"default_title":"From form"}`)}}, false, "From form", "default"},
		{"title from file name", CreateItemInput{ItemType: "audio", OriginalFileName: ptr("take1.wav")}, false, "take1.wav", "default"},
		{"folder form", CreateItemInput{Title: ptr("F"), ItemType: "folder"}, false, "F", "default_folder"},
		{"no title", CreateItemInput{ItemType: "video"}, true, "", ""},
		{"bad item type", CreateItemInput{Title: ptr("x"), ItemType: "Video"}, true, "", ""},
		{"bad language", CreateItemInput{Title: ptr("x"), ItemType: "video", LanguageCode: ptr("english")}, true, "", ""},
		{"form data not object", CreateItemInput{Title: ptr("x"), ItemType: "video", Metadata: &ItemMetadataInput{FormData: JSON(`[1]`)}}, true, "", ""},
		{"folder with two parents", CreateItemInput{Title: ptr("x"), ItemType: "folder", FolderParents: []string{"a", "b"}}, true, "", ""},
		{"parent twice", CreateItemInput{Title: ptr("x"), ItemType: "video", FolderParents: []string{"a", "a"}}, true, "", ""},
		{"blank external id", CreateItemInput{Title: ptr("x"), ItemType: "video", ExternalID: ptr(" ")}, true, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := c.in.NewItem()
			if (err != nil) != c.wantErr {
				t.Fatalf("validate() error = %v, want error %v", err, c.wantErr)
			}
			if err != nil {
				if ErrorKind(err) != EINVALID {
					t.Fatalf("error kind %s, want %s", ErrorKind(err), EINVALID)
				}
				return
			}
			if n.Title != c.wantTitle || n.FormID != c.wantForm {
				t.Fatalf("title %q form %q, want %q %q", n.Title, n.FormID, c.wantTitle, c.wantForm)
			}
			var title string
			if json.Unmarshal(n.FormData["default_title"], &title) != nil || title == "" {
				t.Fatalf("default_title not set: %s", n.FormData["default_title"])
			}
		})
	}
}
