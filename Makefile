# Loupe developer targets. `make run` and `make test` need only Go: what else
# they need (PostgreSQL's server binaries; for the tests also Node.js,
# Chromium and pinned Node packages) scripts/deps installs when missing.

GO ?= go

.PHONY: run build test fuzz generate bench bench-scale microbench playground-assets reference-assets released-schema

# Serve on the embedded cluster unless DATABASE_URL is set. Built and run as
# a binary (not `go run`) so that Ctrl-C and SIGTERM reach loupe itself,
# which then finishes requests and stops its Postgres cluster.
run: build
	@./bin/loupe serve

build:
	@scripts/deps run
	@echo "building bin/loupe"
	@$(GO) build -o bin/loupe ./cmd/loupe

# Each test clones its own migrated database (internal/testkit/pgtest) on the server in
# DATABASE_URL, which with-postgres provides unless it is already set. Then
# every fuzz target runs a few seconds (scripts/fuzz-short).
# The short fuzzing runs beside the tests (its output is shown after
# theirs): building its instrumented binaries took a quarter of the run's
# time after the tests, while the tests' last minutes leave a core idle.
test:
	@scripts/deps test
	@log=$$(mktemp); GO=$(GO) scripts/fuzz-short >"$$log" 2>&1 & fuzz=$$!; \
	$(GO) run ./cmd/loupe with-postgres -- $(GO) test -race -count=1 ./...; tests=$$?; \
	wait $$fuzz; fuzzed=$$?; cat "$$log"; rm -f "$$log"; \
	[ $$tests -eq 0 ] && [ $$fuzzed -eq 0 ]

# Longer fuzzing of every target (seconds each), e.g. make fuzz FUZZTIME=300.
FUZZTIME ?= 60
fuzz:
	GO=$(GO) scripts/fuzz-short $(FUZZTIME)

generate:
	$(GO) generate ./...

# At a release: snapshot the GraphQL schema into graph/released/schema.graphql
# (what the breaking-change check compares with) and empty the declared
# breaking changes, graph/released/breaking.txt (docs/graphql-schema.md).
released-schema:
	$(GO) test -count=1 -run '^TestSchemaBreaking$$' ./graph -update-released

# The performance benchmark (docs/benchmarks.md): cmd/loupe-bench seeds a
# realistic tenant in a throwaway Postgres, runs the built `loupe serve` and
# drives load per scenario, with pgbench -S and PostGraphile measured in the
# same run.
# BENCH_BASE is the reference build's commit: the last before the outbox
# (issue 29: the writes' cost of events is measured against it).
BENCH_BASE ?= a9ce757
bench: build
	@scripts/deps bench
	@$(GO) build -o bin/loupe-bench ./cmd/loupe-bench
	./bin/loupe-bench --loupe bin/loupe --base-loupe "$$(scripts/build-base $(BENCH_BASE))"

# The scale rows (issue 34, docs/benchmarks.md "Scale"): a tenant of
# SCALE items beside a 100k one and 1,000 small ones, in one database on
# disk that is kept in SCALE_DIR (about 40 GB and an hour to seed at 10M;
# a later run measures it again without seeding).
SCALE ?= 10000000
SCALE_DIR ?= /var/tmp/loupe-scale
bench-scale: build
	@scripts/deps bench
	@$(GO) build -o bin/loupe-bench ./cmd/loupe-bench
	./bin/loupe-bench --loupe bin/loupe --scale $(SCALE) --scale-dir $(SCALE_DIR)

# Go benchmarks of the hot paths, end to end over loopback against a
# throwaway Postgres; each reports SQL statements per operation (sql/op).
microbench:
	$(GO) run ./cmd/loupe with-postgres -- $(GO) test -run '^$$' -bench . -benchmem ./...

# Re-fetch the playground's pinned GraphiQL and React files from npm into
# internal/platform/playground/assets (committed: a build needs no network).
playground-assets:
	internal/platform/playground/refresh

# Re-fetch the API reference's pinned Scalar bundle from npm into
# internal/platform/apireference/assets (committed, like the playground's).
reference-assets:
	internal/platform/apireference/refresh
