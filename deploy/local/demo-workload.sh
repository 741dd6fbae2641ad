#!/usr/bin/env bash
# A small, steady demo workload on the local PostgreSQL: orders inserted, updated and deleted every second,
# with an occasional rolled-back savepoint. Each order carries a ~6 kB note stored out of line (TOAST); the
# status UPDATEs leave it unchanged, and it still arrives whole in ClickHouse. Runs for ${DEMO_SECONDS:-600} seconds or until killed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
eval "$(bash "$HERE/stack.sh" env)"
export PGPASSWORD=$WALSHADOW_PG_PASSWORD
psql_() { "$WALSHADOW_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$WALSHADOW_PG_HOST" -p "$WALSHADOW_PG_PORT" \
  -U "$WALSHADOW_PG_USER" -d "$WALSHADOW_PG_DATABASE" "$@"; }

psql_ <<'SQL'
CREATE TABLE IF NOT EXISTS demo_orders (
  id         bigserial PRIMARY KEY,
  customer   text NOT NULL,
  amount     numeric(12,2) NOT NULL,
  status     text NOT NULL DEFAULT 'new',
  created_at timestamptz NOT NULL DEFAULT now(),
  notes      text
);
SQL

end=$((SECONDS + ${DEMO_SECONDS:-600}))
i=0
while (( SECONDS < end )); do
  i=$((i + 1))
  psql_ <<SQL
BEGIN;
INSERT INTO demo_orders (customer, amount, notes)
  SELECT 'customer-' || (random() * 100)::int, round((random() * 500)::numeric, 2),
         (SELECT string_agg(md5(random()::text || g || i), ' ') FROM generate_series(1, 180) i)
  FROM generate_series(1, 5) g;
UPDATE demo_orders SET status = 'paid' WHERE id IN (SELECT id FROM demo_orders WHERE status = 'new' ORDER BY id LIMIT 2);
DELETE FROM demo_orders WHERE id IN (SELECT id FROM demo_orders WHERE status = 'paid' ORDER BY id LIMIT 1);
SAVEPOINT maybe;
INSERT INTO demo_orders (customer, amount) VALUES ('rolled-back-$i', 1);
ROLLBACK TO SAVEPOINT maybe;
COMMIT;
SQL
  sleep 1
done
