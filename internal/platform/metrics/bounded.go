package metrics

// Label values chosen outside the code (GraphQL operation names, which
// clients choose; job kinds, read from the queue's table) are bounded:
// a value must look like a name, and after a cap of distinct values every
// new one counts as Other.

// Other is the label value of whatever is over a cap or not a name.
const Other = "other"
