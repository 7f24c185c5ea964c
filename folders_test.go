package loupe

import "testing"

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
		if _, err := ValidFolderName(name); (err == nil) != ok {
			t.Errorf("ValidFolderName(%q) error %v, want ok %v", name, err, ok)
		}
	}
}
