-- +goose Up

-- Comments: the store validates input; these constraints keep the rows
-- sound whatever writes them. A reply answers a comment (of the same item,
-- checked by the store); deleting a comment row removes its replies.
ALTER TABLE comments
    ADD CONSTRAINT comments_type_check CHECK (type IN ('top', 'reply')),
    ADD CONSTRAINT comments_reply_check CHECK ((type = 'reply') = (parent_id IS NOT NULL)),
    ADD CONSTRAINT comments_text_check CHECK (char_length(text) <= 10000),
    ADD CONSTRAINT comments_parent_fkey FOREIGN KEY (tenant_id, parent_id) REFERENCES comments ON DELETE CASCADE;
-- The foreign key's lookups (cascading a delete) need an index on the parent.
CREATE INDEX comments_parent_idx ON comments (tenant_id, parent_id) WHERE parent_id IS NOT NULL;

ALTER TABLE comment_reactions
    ADD CONSTRAINT comment_reactions_reaction_check CHECK (char_length(reaction) BETWEEN 1 AND 32);

-- Relations: never from an item to itself; types as the API spells them.
ALTER TABLE item_relations
    ADD CONSTRAINT item_relations_not_self CHECK (item_id <> related_item_id),
    ADD CONSTRAINT item_relations_type_check CHECK (relation_type ~ '^[A-Za-z][A-Za-z0-9_-]{0,63}$');

-- has_relations is true exactly while an item has a relation in either
-- direction; from here on the store keeps it so.
UPDATE items i SET has_relations =
       EXISTS (SELECT 1 FROM item_relations o WHERE o.tenant_id = i.tenant_id AND o.item_id = i.id)
    OR EXISTS (SELECT 1 FROM item_relations n WHERE n.tenant_id = i.tenant_id AND n.related_item_id = i.id)
WHERE i.has_relations IS DISTINCT FROM (
       EXISTS (SELECT 1 FROM item_relations o WHERE o.tenant_id = i.tenant_id AND o.item_id = i.id)
    OR EXISTS (SELECT 1 FROM item_relations n WHERE n.tenant_id = i.tenant_id AND n.related_item_id = i.id));

-- +goose Down
ALTER TABLE item_relations DROP CONSTRAINT item_relations_type_check, DROP CONSTRAINT item_relations_not_self;
ALTER TABLE comment_reactions DROP CONSTRAINT comment_reactions_reaction_check;
DROP INDEX comments_parent_idx;
ALTER TABLE comments DROP CONSTRAINT comments_parent_fkey, DROP CONSTRAINT comments_text_check,
    DROP CONSTRAINT comments_reply_check, DROP CONSTRAINT comments_type_check;
