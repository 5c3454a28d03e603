{{/*
Names, labels and the image. Every template (the monitoring ones included) builds names and labels
from these, so a selector never drifts from the labels it selects.
*/}}

{{- define "trawl.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-trawl, or the release name alone when it already holds the chart's name. */}}
{{- define "trawl.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The components, in a fixed order: values key, component label, HTTP port, whether it uses Postgres. */}}
{{- define "trawl.components" -}}
gateway: {valuesKey: gateway, port: 8080, database: true}
crawl-coordinator: {valuesKey: crawlCoordinator, port: 8081, database: true}
fetch-worker: {valuesKey: fetchWorker, port: 8082, database: false}
scheduler: {valuesKey: scheduler, port: 8083, database: true}
webhook-dispatcher: {valuesKey: webhookDispatcher, port: 8084, database: true}
{{- end -}}

{{/* Name of a component's objects: <fullname>-<component>. Takes (dict "root" $ "component" "gateway"). */}}
{{- define "trawl.componentName" -}}
{{- printf "%s-%s" (include "trawl.fullname" .root | trunc 40 | trimSuffix "-") .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "trawl.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels. Takes (dict "root" $ "component" "gateway"); component may be empty for release-wide selectors. */}}
{{- define "trawl.selectorLabels" -}}
app.kubernetes.io/name: {{ include "trawl.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{/* All labels of an object. Takes (dict "root" $ "component" "gateway"). */}}
{{- define "trawl.labels" -}}
{{ include "trawl.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Values.image.tag | default .root.Chart.AppVersion | toString | replace "+" "_" | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: trawl
helm.sh/chart: {{ include "trawl.chart" .root }}
{{- end -}}

{{/* The Trawl image: repository@digest, or repository:tag (tag defaults to the chart's appVersion). Takes the root context. */}}
{{- define "trawl.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) -}}
{{- end -}}
{{- end -}}

{{- define "trawl.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "trawl.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Name of the CloudNativePG Cluster. */}}
{{- define "trawl.postgresClusterName" -}}
{{- default (printf "%s-postgres" (include "trawl.fullname" . | trunc 50 | trimSuffix "-")) .Values.postgres.cloudnativepg.clusterName -}}
{{- end -}}

{{/* True ("true") when the CloudNativePG Cluster is rendered: enabled and its API served. */}}
{{- define "trawl.cnpgEnabled" -}}
{{- if and .Values.postgres.cloudnativepg.enabled (.Capabilities.APIVersions.Has "postgresql.cnpg.io/v1") -}}true{{- end -}}
{{- end -}}

{{/* True when the fetch workers scale with KEDA: enabled and the KEDA API served. */}}
{{- define "trawl.kedaEnabled" -}}
{{- if and .Values.fetchWorker.autoscaling.keda.enabled (.Capabilities.APIVersions.Has "keda.sh/v1alpha1") -}}true{{- end -}}
{{- end -}}

{{- define "trawl.pdbApiVersion" -}}
{{- if .Capabilities.APIVersions.Has "policy/v1" -}}policy/v1{{- else -}}policy/v1beta1{{- end -}}
{{- end -}}

{{- define "trawl.hpaApiVersion" -}}
{{- if .Capabilities.APIVersions.Has "autoscaling/v2" -}}autoscaling/v2{{- else -}}autoscaling/v2beta2{{- end -}}
{{- end -}}

{{/* terminationGracePeriodSeconds: the service's drain (SHUTDOWN_TIMEOUT_MS, rounded up) plus preStop plus a margin. Takes the component's values. */}}
{{- define "trawl.terminationGrace" -}}
{{- $drain := div (add (int .shutdownTimeoutMs) 999) 1000 -}}
{{- add $drain (int (.preStopSleepSeconds | default 0)) (int .terminationGraceMarginSeconds) -}}
{{- end -}}
