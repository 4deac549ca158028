CREATE TABLE orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
