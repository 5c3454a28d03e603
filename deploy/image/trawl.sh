#!/bin/sh
# The image's command: `trawl <service>` runs one Trawl service, `trawl migrate` applies the database
# migrations (a Job or Helm hook, never at pod start). Started by tini (PID 1); `exec` makes node
# tini's direct child, so SIGTERM reaches it and the service shuts down gracefully.
set -eu

APP=/app
usage() {
  cat <<'USAGE'
usage: trawl <command>
  gateway | crawl-coordinator | fetch-worker | scheduler | webhook-dispatcher
                  run that service (configured by environment variables; see README.md)
  migrate         apply the database migrations to DATABASE_URL, then exit
  help            this text
USAGE
}

command="${1:-help}"
[ "$#" -gt 0 ] && shift
case "$command" in
  gateway | crawl-coordinator | fetch-worker | scheduler | webhook-dispatcher)
    exec node -r "$APP/tools/register-aliases.js" "$APP/dist/apps/$command/src/main.js" "$@" ;;
  migrate)
    exec node -r "$APP/tools/register-aliases.js" "$APP/dist/libs/persistence/src/cli/migrate.js" "$@" ;;
  help | -h | --help)
    usage ;;
  *)
    echo "trawl: unknown command '$command'" >&2
    usage >&2
    exit 64 ;;
esac
