#!/bin/sh
# First start: initdb, a password-protected login role POSTGRES_USER owning database POSTGRES_DB.
# Then PostgreSQL in the foreground on every address (the pod's), password auth for remote clients.
set -eu
: "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}" "${POSTGRES_DB:?}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  printf "CREATE ROLE \"%s\" LOGIN PASSWORD '%s';\nCREATE DATABASE \"%s\" OWNER \"%s\";\n" \
    "$POSTGRES_USER" "$POSTGRES_PASSWORD" "$POSTGRES_DB" "$POSTGRES_USER" | postgres --single -D "$PGDATA" postgres >/dev/null
  echo "postgres-entrypoint: initialised $PGDATA with database $POSTGRES_DB"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c max_connections=200 -c shared_buffers=128MB
