{{/*
The pod template shared by every service: non-root (UID/GID 10001), read-only root file system with
emptyDirs for the writable places, every capability dropped, seccomp RuntimeDefault, no
service-account token. Takes (dict "root" $ "component" "gateway").
*/}}
{{- define "trawl.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "trawl.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "trawl.podTemplate" -}}
{{- $ := .root -}}
{{- $component := .component -}}
{{- $meta := get (include "trawl.components" $ | fromYaml) $component -}}
{{- $v := get $.Values $meta.valuesKey -}}
{{- $ctx := dict "root" $ "component" $component -}}
metadata:
  labels:
    {{- include "trawl.labels" $ctx | nindent 4 }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "trawl.serviceAccountName" $ }}
  automountServiceAccountToken: {{ $.Values.serviceAccount.automountServiceAccountToken }}
  enableServiceLinks: false
  terminationGracePeriodSeconds: {{ include "trawl.terminationGrace" $v }}
  securityContext:
    {{- include "trawl.podSecurityContext" $ | nindent 4 }}
  {{- with $.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: {{ $component }}
      image: {{ include "trawl.image" $ }}
      imagePullPolicy: {{ $.Values.image.pullPolicy }}
      args: [{{ $component | quote }}]
      ports:
        - name: http
          containerPort: {{ $meta.port }}
          protocol: TCP
        {{- if eq $component "gateway" }}
        {{- if $v.proxyMode.enabled }}
        - name: proxy
          containerPort: {{ $v.proxyMode.port }}
          protocol: TCP
        {{- end }}
        # /admin/v1 and /metrics: only the admin Service and its NetworkPolicy lead here.
        - name: admin
          containerPort: {{ $v.adminPort }}
          protocol: TCP
        {{- end }}
      env:
        {{- include "trawl.env" $ctx | nindent 8 }}
      {{- with $v.extraEnvFrom }}
      envFrom:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      startupProbe:
        httpGet: {path: /healthz, port: http}
        periodSeconds: 5
        timeoutSeconds: 3
        failureThreshold: 24
      livenessProbe:
        httpGet: {path: /healthz, port: http}
        periodSeconds: 10
        timeoutSeconds: 3
        failureThreshold: 3
      readinessProbe:
        httpGet: {path: /readyz, port: http}
        periodSeconds: 5
        timeoutSeconds: 3
        failureThreshold: 2
      {{- if $v.preStopSleepSeconds }}
      lifecycle:
        # Endpoints drop the pod before the process stops taking requests.
        preStop:
          exec:
            command: ["sleep", {{ $v.preStopSleepSeconds | quote }}]
      {{- end }}
      {{- with $v.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "trawl.containerSecurityContext" $ | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        {{- if eq $component "fetch-worker" }}
        - name: dshm
          mountPath: /dev/shm
        {{- end }}
        {{- with $v.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  volumes:
    - name: tmp
      emptyDir:
        {{- if and (eq $component "fetch-worker") $v.tmp.sizeLimit }}
        sizeLimit: {{ $v.tmp.sizeLimit }}
        {{- else }}
        sizeLimit: 256Mi
        {{- end }}
    {{- if eq $component "fetch-worker" }}
    - name: dshm
      emptyDir:
        medium: Memory
        sizeLimit: {{ $v.shm.sizeLimit }}
    {{- end }}
    {{- with $v.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- $spread := list -}}
  {{- if $v.defaultTopologySpread }}
  {{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
  {{- $spread = append $spread (dict "maxSkew" 1 "topologyKey" $key "whenUnsatisfiable" "ScheduleAnyway" "labelSelector" (dict "matchLabels" (include "trawl.selectorLabels" $ctx | fromYaml))) }}
  {{- end }}
  {{- end }}
  {{- $spread = concat $spread $v.topologySpreadConstraints }}
  {{- with $spread }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
