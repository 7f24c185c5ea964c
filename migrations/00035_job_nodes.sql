-- +goose Up

-- Each node that works the job queue writes a heartbeat here every few
-- seconds (internal/jobs/liveness.go). A job still running on a node
-- whose heartbeat stopped is taken up by another node within seconds,
-- rather than after its whole timeout (River's rescuer). Not a tenant's
-- data: one row per node (store/catalog_test.go lists it).
CREATE TABLE job_nodes (
    node         text PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE job_nodes;
