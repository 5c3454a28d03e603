{{/*
The environment of each service, built as a list of EnvVar dicts so that a key given twice (a
structured value and the same name under `config`/`extraEnv`) is refused instead of rendered twice:
server-side apply rejects duplicate env names. Takes (dict "root" $ "component" "gateway").
*/}}

{{- define "trawl.secretEnv" -}}
{{- $ := .root -}}
{{- $secret := dict "name" $.Values.secrets.existingSecret "key" (get $.Values.secrets.keys .key) -}}
{{- dict "name" .name "valueFrom" (dict "secretKeyRef" $secret) | toJson -}}
{{- end -}}

{{/* DATABASE_URL: the CloudNativePG app secret's `uri` when that Cluster is rendered, else the existing secret. */}}
{{- define "trawl.databaseUrlEnv" -}}
{{- $ := .root -}}
{{- if include "trawl.cnpgEnabled" $ -}}
{{- dict "name" "DATABASE_URL" "valueFrom" (dict "secretKeyRef" (dict "name" (printf "%s-app" (include "trawl.postgresClusterName" $)) "key" "uri")) | toJson -}}
{{- else -}}
{{- include "trawl.secretEnv" (dict "root" $ "name" "DATABASE_URL" "key" "databaseUrl") -}}
{{- end -}}
{{- end -}}

{{- define "trawl.env" -}}
{{- $ := .root -}}
{{- $component := .component -}}
{{- $meta := get (include "trawl.components" $ | fromYaml) $component -}}
{{- $v := get $.Values $meta.valuesKey -}}
{{- $env := list -}}
{{- $plain := dict
  "HTTP_HOST" "0.0.0.0"
  "PORT" $meta.port
  "NATS_URL" $.Values.nats.url
  "NATS_PREFIX" $.Values.nats.prefix
  "NATS_STREAM_REPLICAS" $.Values.nats.streamReplicas
  "LOG_LEVEL" $.Values.logLevel
  "SHUTDOWN_TIMEOUT_MS" $v.shutdownTimeoutMs
-}}
{{- if $.Values.tracing.otlpTracesEndpoint -}}
{{- $_ := set $plain "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" $.Values.tracing.otlpTracesEndpoint -}}
{{- end -}}
{{- if eq $component "gateway" -}}
{{- /* Two listeners on one port fail at start; say which value to change instead. */ -}}
{{- if or (eq (int $v.adminPort) (int $meta.port)) (and $v.proxyMode.enabled (eq (int $v.adminPort) (int $v.proxyMode.port))) -}}
{{- fail (printf "gateway.adminPort: %v is taken by the API (%v) or proxy mode (gateway.proxyMode.port); the admin listener needs its own port" $v.adminPort $meta.port) -}}
{{- end -}}
{{- $_ := set $plain "ADMIN_PORT" $v.adminPort -}}
{{- $_ := set $plain "DATABASE_POOL_SIZE" $v.databasePoolSize -}}
{{- $_ := set $plain "PROXY_MODE_ENABLED" $v.proxyMode.enabled -}}
{{- $_ := set $plain "PROXY_MODE_PORT" $v.proxyMode.port -}}
{{- if $v.trustedProxies }}{{ $_ := set $plain "TRUSTED_PROXIES" $v.trustedProxies }}{{ end -}}
{{- if $v.publicBaseUrl }}{{ $_ := set $plain "PUBLIC_BASE_URL" $v.publicBaseUrl }}{{ end -}}
{{- $_ := set $plain "PLAN_DEFAULT_CREDITS" $.Values.plans.credits -}}
{{- $_ := set $plain "PLAN_DEFAULT_CONCURRENCY" $.Values.plans.concurrency -}}
{{- $_ := set $plain "PLAN_DEFAULT_MAX_ACTIVE_JOBS" $.Values.plans.maxActiveJobs -}}
{{- $_ := set $plain "PLAN_DEFAULT_EXTRACT_DOMAINS_PER_PERIOD" $.Values.plans.extractDomainsPerPeriod -}}
{{- $_ := set $plain "PLAN_DEFAULT_RATE_LIMIT_PER_MINUTE" $.Values.plans.rateLimitPerMinute -}}
{{- $_ := set $plain "PLAN_DEFAULT_PERIOD_DAYS" $.Values.plans.periodDays -}}
{{- else if eq $component "fetch-worker" -}}
{{- $_ := set $plain "WORKER_CONCURRENCY" $v.concurrency -}}
{{- $_ := set $plain "BATCH_CONCURRENCY" $v.batchConcurrency -}}
{{- $_ := set $plain "FETCH_CONCURRENCY" $v.fetchConcurrency -}}
{{- $_ := set $plain "BROWSERS" $v.browsers -}}
{{- $_ := set $plain "PAGES_PER_BROWSER" $v.pagesPerBrowser -}}
{{- $_ := set $plain "BROWSER_RETIRE_AFTER_PAGES" $v.browserRetireAfterPages -}}
{{- $_ := set $plain "HOST_CONCURRENCY_LIMIT" $v.hostPoliteness.concurrency -}}
{{- $_ := set $plain "HOST_RATE_LIMIT" $v.hostPoliteness.ratePerSecond -}}
{{- $_ := set $plain "HOST_BACKOFF" $v.hostPoliteness.backoff -}}
{{- $_ := set $plain "HOST_BACKOFF_BASE_MS" $v.hostPoliteness.backoffBaseMs -}}
{{- $_ := set $plain "HOST_BACKOFF_MAX_MS" $v.hostPoliteness.backoffMaxMs -}}
{{- $_ := set $plain "PAGE_COPY_MAX_BYTES" $v.pageCopies.maxBytes -}}
{{- $_ := set $plain "PAGE_COPY_TTL_MS" $v.pageCopies.ttlMs -}}
{{- $_ := set $plain "PAGE_COPY_MAX_ENTRY_BYTES" $v.pageCopies.maxEntryBytes -}}
{{- $_ := set $plain "PAGE_VERSION_MAX_BYTES" $v.pageVersions.maxBytes -}}
{{- $_ := set $plain "PAGE_VERSION_TTL_MS" $v.pageVersions.ttlMs -}}
{{- else if eq $component "webhook-dispatcher" -}}
{{- $_ := set $plain "DB_POOL_SIZE" $v.dbPoolSize -}}
{{- $_ := set $plain "WEBHOOK_CONCURRENCY" $v.concurrency -}}
{{- else -}}
{{- $_ := set $plain "DB_POOL_SIZE" $v.dbPoolSize -}}
{{- end -}}
{{- range $name, $value := $v.config -}}
{{- if hasKey $plain $name -}}
{{- fail (printf "%s.config.%s: the chart sets %s itself; use its value instead" $meta.valuesKey $name $name) -}}
{{- end -}}
{{- $_ := set $plain $name $value -}}
{{- end -}}
{{- range $name := keys $plain | sortAlpha -}}
{{- $env = append $env (dict "name" $name "value" (include "trawl.envString" (get $plain $name))) -}}
{{- end -}}
{{- if $meta.database -}}
{{- $env = append $env (include "trawl.databaseUrlEnv" (dict "root" $) | fromJson) -}}
{{- end -}}
{{- if eq $component "gateway" -}}
{{- $env = append $env (include "trawl.secretEnv" (dict "root" $ "name" "ADMIN_TOKEN" "key" "adminToken") | fromJson) -}}
{{- if $v.proxyMode.enabled -}}
{{- $ca := $v.proxyMode.caSecret -}}
{{- $caName := $ca.name | default $.Values.secrets.existingSecret -}}
{{- $env = append $env (dict "name" "PROXY_MODE_CA_CERT" "valueFrom" (dict "secretKeyRef" (dict "name" $caName "key" ($ca.certKey | default $.Values.secrets.keys.proxyModeCaCert)))) -}}
{{- $env = append $env (dict "name" "PROXY_MODE_CA_KEY" "valueFrom" (dict "secretKeyRef" (dict "name" $caName "key" ($ca.keyKey | default $.Values.secrets.keys.proxyModeCaKey)))) -}}
{{- end -}}
{{- end -}}
{{- if has $component (list "gateway" "scheduler" "webhook-dispatcher") -}}
{{- $env = append $env (include "trawl.secretEnv" (dict "root" $ "name" "SECRETS_KEY" "key" "secretsKey") | fromJson) -}}
{{- end -}}
{{- $names := list -}}
{{- range $env }}{{ $names = append $names .name }}{{ end -}}
{{- range $v.extraEnv -}}
{{- if has .name $names -}}
{{- fail (printf "%s.extraEnv: %s is set by the chart; use its value instead" $meta.valuesKey .name) -}}
{{- end -}}
{{- $env = append $env . -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/* A value as an env string: whole numbers without an exponent (YAML numbers arrive as float64). */}}
{{- define "trawl.envString" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}
