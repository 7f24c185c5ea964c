package resolvers

import "testing"

// ForgetHints makes the resolvers give no hints to the loaders until t
// ends, as a resolver that forgets them would.
func ForgetHints(t testing.TB) {
	forgetHints.Store(true)
	t.Cleanup(func() { forgetHints.Store(false) })
}
