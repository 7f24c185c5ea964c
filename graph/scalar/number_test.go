package scalar

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestUnmarshalNumbersStrictly(t *testing.T) {
	ints := func(v any) result {
		n, err := UnmarshalInt(v)
		return wrap(n, err)
	}
	int64s := func(v any) result {
		n, err := UnmarshalInt64(v)
		return wrap(n, err)
	}
	floats := func(v any) result {
		f, err := UnmarshalFloatContext(context.Background(), v)
		return wrap(f, err)
	}
	for _, c := range []struct {
		name string
		f    func(any) result
		in   any
		want any
		err  string
	}{
		{"int json.Number", ints, json.Number("5"), 5, ""},
		{"int negative", ints, json.Number("-12"), -12, ""},
		{"int literal int64", ints, int64(7), 7, ""},
		{"int Go int", ints, 3, 3, ""},
		{"int whole float64", ints, float64(4), 4, ""},
		{"int null", ints, nil, 0, ""},
		{"int numeric string", ints, "5", nil, notInt},
		{"int empty string", ints, "", nil, notInt},
		{"int boolean", ints, true, nil, notInt},
		{"int fraction", ints, json.Number("5.5"), nil, notInt},
		{"int fraction float64", ints, 5.5, nil, notInt},
		{"int exponent", ints, json.Number("1e3"), nil, notInt},
		{"int overflow", ints, json.Number("9223372036854775808"), nil, intRange},
		{"int overflow float64", ints, 1e19, nil, intRange},
		{"int object", ints, map[string]any{}, nil, notInt},
		{"int64 json.Number", int64s, json.Number("9223372036854775807"), int64(9223372036854775807), ""},
		{"int64 numeric string", int64s, "5", nil, notInt},
		{"int64 boolean", int64s, false, nil, notInt},
		{"int64 underflow", int64s, json.Number("-9223372036854775809"), nil, intRange},
		{"float json.Number", floats, json.Number("1.5"), 1.5, ""},
		{"float whole json.Number", floats, json.Number("2"), 2.0, ""},
		{"float exponent", floats, json.Number("1e3"), 1000.0, ""},
		{"float literal float64", floats, 0.25, 0.25, ""},
		{"float literal int64", floats, int64(3), 3.0, ""},
		{"float Go int", floats, 4, 4.0, ""},
		{"float null", floats, nil, 0.0, ""},
		{"float numeric string", floats, "1.5", nil, notNumber},
		{"float NaN string", floats, "NaN", nil, notNumber},
		{"float boolean", floats, true, nil, notNumber},
		{"float overflow", floats, json.Number("1e400"), nil, floatRange},
		{"float NaN number", floats, json.Number("NaN"), nil, floatRange},
		{"float list", floats, []any{json.Number("1")}, nil, notNumber},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.f(c.in)
			if c.err != "" {
				if got.err != c.err {
					t.Fatalf("%#v: error %q, want %q", c.in, got.err, c.err)
				}
				return
			}
			if got.err != "" || got.v != c.want {
				t.Fatalf("%#v = %#v (%s), want %#v", c.in, got.v, got.err, c.want)
			}
		})
	}
}

// result is what an unmarshaler answered: the value, or the InputError's
// message.
type result struct {
	v   any
	err string
}

func wrap[T any](v T, err error) result {
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			return result{nil, "not an InputError: " + err.Error()}
		}
		return result{nil, ie.Message}
	}
	return result{v, ""}
}
