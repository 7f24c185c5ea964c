package upload

import "testing"

// The read-ahead memory lends at most its budget, keeps what is given back
// for the next part and makes room for a part of another size.
func TestReadAheadBudget(t *testing.T) {
	r := newReadAhead(40)
	a, b := r.get(16), r.get(16)
	if len(a) != 16 || len(b) != 16 {
		t.Fatalf("got %d and %d bytes", len(a), len(b))
	}
	if c := r.get(16); c != nil {
		t.Fatal("lent past the budget")
	}
	r.put(a)
	if c := r.get(10); len(c) != 10 || &c[0] != &a[0] {
		t.Fatal("a buffer given back was not lent again")
	} else {
		r.put(c)
	}
	r.put(b)
	// Neither kept buffer holds 30 bytes: they go to make room for one.
	if c := r.get(30); len(c) != 30 || r.held != 30 || len(r.free) != 0 {
		t.Fatalf("a larger part: %d bytes, held %d, kept %d", len(c), r.held, len(r.free))
	}
	if newReadAhead(-1).get(1) != nil {
		t.Fatal("no read-ahead lent a buffer")
	}
}
