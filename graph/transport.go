package graph

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// post is gqlgen's POST transport (same Supports: a JSON body) with its
// own answers: those the GraphQL-over-HTTP spec asks for (overhttp.go),
// and a shorter way out for the common case, an operation that runs.
// gqlgen writes every answer through json.Marshal, which re-reads the
// executor's already compact data byte by byte to compact and validate it
// again (docs/performance.md). post writes the data as the executor
// made it (writeResponse), in either media type.
//
// The one visible difference in what runs: gqlgen's json.Marshal escapes
// <, > and & in strings (\u003c …); post leaves them as the executor
// wrote them. Both are the same JSON.
type post struct {
	transport.POST
	maxBytes int // of the document (Options.MaxDocumentBytes)
}

func (p post) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	media, ok := negotiate(r.Header.Get("Accept"))
	if !ok {
		refuseRequest(w, r, exec, mediaJSON, notAcceptable())
		return
	}
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		refuseRequest(w, r, exec, media, badRequest("could not read the request body"))
		return
	}
	params := &graphql.RawParams{}
	if err := decodeBody(body, params); err != nil {
		refuseRequest(w, r, exec, media, err)
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	run(w, r, exec, media, params, p.maxBytes, nil)
}

// writeResponse writes resp as gqlgen's graphql.Response marshals, its
// data as it is.
func writeResponse(w io.Writer, resp *graphql.Response) {
	if resp.Label != "" || resp.Path != nil || resp.HasNext != nil || len(resp.Extensions) > 0 {
		writeMarshaled(w, resp)
		return
	}
	b := make([]byte, 0, len(resp.Data)+32)
	b = append(b, '{')
	if len(resp.Errors) > 0 {
		errs, err := json.Marshal(resp.Errors)
		if err != nil {
			writeMarshaled(w, resp)
			return
		}
		b = append(append(append(b, `"errors":`...), errs...), ',')
	}
	b = append(b, `"data":`...)
	if resp.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, resp.Data...)
	}
	b = append(b, '}')
	w.Write(b) //nolint:errcheck // the client went away
}

func writeMarshaled(w io.Writer, resp *graphql.Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(&graphql.Response{Errors: resp.Errors})
	}
	w.Write(b) //nolint:errcheck // the client went away
}
