#!/usr/bin/env bash
# Makes sure what Trawl needs on a development or CI machine is installed and running:
# PostgreSQL and NATS (with JetStream) on loopback, Debian's Chromium, and tmux (the CLI's e2e test
# drives `trawl` in a pseudo-terminal). Never assumes what a previous
# session left behind; safe to run any number of times.
set -euo pipefail

need_apt=()
command -v pg_ctlcluster >/dev/null 2>&1 || need_apt+=(postgresql)
[ -x /usr/sbin/nats-server ] || need_apt+=(nats-server)
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "ensure-services: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
  for _ in $(seq 1 100); do port_open "$1" && return 0; sleep 0.1; done
  echo "ensure-services: nothing listens on 127.0.0.1:$1" >&2; return 1
}

if ! port_open 5432; then
  echo "ensure-services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n1)" main start
  wait_port 5432
fi
if ! port_open 4222; then
  echo "ensure-services: starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_port 4222
fi
