-- +goose Up

-- Faces of persons (spec 2.17, docs/analysis.md "Person detection"): the
-- descriptors person detection matched or made persons from, so that the
-- same person is recognised in the next item. Descriptors of different
-- engines do not compare: each row names its engine.
CREATE TABLE person_faces (
    tenant_id  uuid NOT NULL,
    id         uuid NOT NULL,
    person_id  uuid NOT NULL,
    -- the item the face was seen in
    item_id    uuid NOT NULL,
    engine     text NOT NULL,
    descriptor real[] NOT NULL,
    created_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, person_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX person_faces_engine_idx ON person_faces (tenant_id, engine, person_id);

-- +goose Down
DROP TABLE person_faces;
