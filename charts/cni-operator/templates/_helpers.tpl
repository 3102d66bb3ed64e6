{{/* Names, labels, images and the agent's host paths, shared by every template. */}}

{{- define "cni-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 42 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every object name; short enough that "<prefix>-operator" fits in 63 chars. */}}
{{- define "cni-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 42 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 42 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 42 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cni-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "cni-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: cni-operator
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component ("operator" or "agent"); never change across upgrades. */}}
{{- define "cni-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cni-operator.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "cni-operator.componentLabels" -}}
{{ include "cni-operator.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "cni-operator.operator.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (printf "%s-operator" (include "cni-operator.fullname" .)) .Values.operator.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "cni-operator.agent.serviceAccountName" -}}
{{- if .Values.agent.serviceAccount.create }}
{{- default (printf "%s-agent" (include "cni-operator.fullname" .)) .Values.agent.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.agent.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* An image reference from {registry, repository, tag, digest}: the digest wins over the tag. */}}
{{- define "cni-operator.image" -}}
{{- $repo := .image.repository }}
{{- if .image.registry }}
{{- $repo = printf "%s/%s" .image.registry .image.repository }}
{{- end }}
{{- if .image.digest }}
{{- printf "%s@%s" $repo .image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .root.Chart.AppVersion .image.tag) }}
{{- end }}
{{- end }}

{{/* A component's JVM options with its log level (both programs log through slf4j-simple). */}}
{{- define "cni-operator.javaToolOptions" -}}
{{- printf "%s -Dorg.slf4j.simpleLogger.defaultLogLevel=%s" .javaToolOptions .logLevel | trim }}
{{- end }}

{{/* The agent's effective host paths as YAML: the profile's, overridden by explicit values. */}}
{{- define "cni-operator.agent.hostPaths" -}}
{{- $hp := .Values.agent.hostPaths }}
{{- /* generic is the former name of the containerd profile; releases that set it keep working. */}}
{{- $name := ternary "containerd" $hp.profile (eq $hp.profile "generic") }}
{{- $profile := get $hp.profiles $name }}
{{- if not $profile }}
{{- fail (printf "agent.hostPaths.profile %q names no entry of agent.hostPaths.profiles" $hp.profile) }}
{{- end }}
cniConfDir: {{ default $profile.cniConfDir $hp.cniConfDir | clean }}
cniBinDir: {{ default $profile.cniBinDir $hp.cniBinDir | clean }}
cniCacheDir: {{ $hp.cniCacheDir | clean }}
netnsDir: {{ $hp.netnsDir | clean }}
stateDir: {{ $hp.stateDir | clean }}
multusConfDir: {{ $hp.multusConfDir | clean }}
multusCacheDir: {{ $hp.multusCacheDir | clean }}
criSocket: {{ default $profile.criSocket .Values.agent.criSocket.path | clean }}
{{- end }}

{{/*
The host path the agent's pod mounts to reach one of Multus's dirs (.dir), or nothing, so that a node
without Multus gets no Multus dir from the pod's volumes (DirectoryOrCreate would make one on every
node): nothing when .dir is inside one of the other mounts (.mounted), which shows it at the same
path once Multus made it (multusCacheDir in cniCacheDir, the default); else the deepest directory
above .dir that also holds the conf dir (.confDir), below the top level (/etc/cni by default), which
that mount makes anyway, and the agent makes .dir itself when it first writes there; else .dir.
*/}}
{{- define "cni-operator.agent.multusMount" -}}
{{- $dir := .dir }}
{{- $inside := false }}
{{- range .mounted }}
{{- if hasPrefix (printf "%s/" .) $dir }}{{ $inside = true }}{{ end }}
{{- end }}
{{- if not $inside }}
{{- $mount := $dir }}
{{- $prefix := "" }}
{{- range $i, $part := initial (splitList "/" (trimPrefix "/" $dir)) }}
{{- $prefix = printf "%s/%s" $prefix $part }}
{{- if and (gt $i 0) (hasPrefix (printf "%s/" $prefix) $.confDir) }}{{ $mount = $prefix }}{{ end }}
{{- end }}
{{- $mount }}
{{- end }}
{{- end }}

{{/* KUBERNETES_SERVICE_HOST/PORT when apiServer.host is set: the clients skip the kubernetes Service. */}}
{{- define "cni-operator.apiServerEnv" -}}
{{- with .Values.apiServer.host }}
- name: KUBERNETES_SERVICE_HOST
  value: {{ . | quote }}
- name: KUBERNETES_SERVICE_PORT
  value: {{ $.Values.apiServer.port | quote }}
{{- end }}
{{- end }}

{{/*
The address a component's HTTP port listens on, from <component>.metrics.bindAddress: podIP becomes
$(POD_IP), which the container's POD_IP variable (status.podIP) fills in. A loopback address is
refused: the kubelet probes the pod's IP, so the pod could never become ready.
*/}}
{{- define "cni-operator.bindAddress" -}}
{{- $address := .values.metrics.bindAddress }}
{{- if or (hasPrefix "127." $address) (eq $address "::1") }}
{{- fail (printf "%s.metrics.bindAddress %s is a loopback address: the kubelet probes the pod's IP and Prometheus scrapes it, so neither could connect; use podIP to keep to the pod's own address" .component $address) }}
{{- end }}
{{- ternary "$(POD_IP)" $address (eq $address "podIP") }}
{{- end }}

{{/* POD_IP (status.podIP) for a component whose metrics.bindAddress is podIP. */}}
{{- define "cni-operator.podIpEnv" -}}
{{- if eq .metrics.bindAddress "podIP" }}
- name: POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{{- end }}
{{- end }}

{{/*
The Prometheus job of a component's series ("operator" or "agent"): its workload's name. The
PodMonitors set it and the PrometheusRule's expressions select it, so they agree.
*/}}
{{- define "cni-operator.monitoring.job" -}}
{{- printf "%s-%s" (include "cni-operator.fullname" .root) .component }}
{{- end }}

{{/* Labels of the monitoring objects: the chart's, and those the Prometheus selects them by. */}}
{{- define "cni-operator.monitoring.labels" -}}
{{ include "cni-operator.labels" . }}
{{- with .Values.monitoring.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
One alert's settings from monitoring.prometheusRule.alerts.<name>, as YAML: enabled (true unless
set false), for and, when the alert counts events over a window (.window true), window. Fails
naming the alert when, the alert enabled, one of them is empty or not a Prometheus duration.
*/}}
{{- define "cni-operator.alert" -}}
{{- $a := index (.root.Values.monitoring.prometheusRule.alerts | default dict) .name | default dict }}
{{- $out := dict "enabled" (ne (toString $a.enabled) "false") }}
{{- $fields := list }}
{{- if $out.enabled }}
{{- $fields = append $fields "for" }}
{{- end }}
{{- if and $out.enabled .window }}
{{- $fields = append $fields "window" }}
{{- end }}
{{- range $field := $fields }}
{{- $v := index $a $field }}
{{- if or (kindIs "invalid" $v) (eq (toString $v) "") }}
{{- fail (printf "monitoring.prometheusRule.alerts.%s.%s is empty: give a Prometheus duration such as 10m" $.name $field) }}
{{- end }}
{{- if not (regexMatch "^([0-9]+(ms|s|m|h|d|w|y))+$" (toString $v)) }}
{{- fail (printf "monitoring.prometheusRule.alerts.%s.%s is %q, not a Prometheus duration such as 10m or 1h30m" $.name $field (toString $v)) }}
{{- end }}
{{- $_ := set $out $field (toString $v) }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
The operator's tolerations: operator.tolerations, and the pod network taint when the operator keeps
one, which it must tolerate (it runs on the host network and needs no pod network).
*/}}
{{- define "cni-operator.operator.tolerations" -}}
{{- $tolerations := .Values.operator.tolerations | default list }}
{{- if .Values.podNetworkTaint.enabled }}
{{- $tolerations = append $tolerations (dict "key" .Values.podNetworkTaint.key "operator" "Exists" "effect" "NoSchedule") }}
{{- end }}
{{- with $tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
One uninstall hook: a ServiceAccount, its ClusterRole (and Role in the release namespace, when it
has rules there) and a Job running the operator's image with the given args, placed and secured as
the operator is, tolerating the pod network taint whatever podNetworkTaint says (the taint may be
on every node). dict: root, name, hook, container, args, deadline (s), clusterRules,
namespaceRules.
*/}}
{{- define "cni-operator.uninstallJob" -}}
{{- $root := .root }}
{{- $op := $root.Values.operator }}
{{- $ctx := dict "root" $root "component" "uninstall" }}
{{- $meta := dict "helm.sh/hook" .hook "helm.sh/hook-weight" "-10" "helm.sh/hook-delete-policy" "before-hook-creation,hook-succeeded" }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml $meta | nindent 4 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .name }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml $meta | nindent 4 }}
rules:
  {{- toYaml .clusterRules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .name }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml $meta | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .name }}
    namespace: {{ $root.Release.Namespace }}
{{- if .namespaceRules }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml $meta | nindent 4 }}
rules:
  {{- toYaml .namespaceRules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml $meta | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .name }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "cni-operator.componentLabels" $ctx | nindent 4 }}
  annotations:
    {{- toYaml (set (deepCopy $meta) "helm.sh/hook-weight" "0") | nindent 4 }}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: {{ .deadline }}
  template:
    metadata:
      labels:
        {{- include "cni-operator.selectorLabels" $ctx | nindent 8 }}
    spec:
      serviceAccountName: {{ .name }}
      restartPolicy: Never
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $op.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- if $op.hostNetwork }}
      hostNetwork: true
      # As the operator: the node's resolver, which needs no pod network.
      dnsPolicy: Default
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ .container }}
          image: {{ include "cni-operator.image" (dict "root" $root "image" $op.image) }}
          imagePullPolicy: {{ $op.image.pullPolicy }}
          args:
            {{- toYaml .args | nindent 12 }}
          env:
            {{- if $root.Values.apiServer.host }}
            {{- include "cni-operator.apiServerEnv" $root | trim | nindent 12 }}
            {{- end }}
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: JAVA_TOOL_OPTIONS
              value: {{ include "cni-operator.javaToolOptions" $op | quote }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            privileged: false
            capabilities:
              drop:
                - ALL
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
      {{- with $op.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- $tolerations := append ($op.tolerations | default list) (dict "key" $root.Values.podNetworkTaint.key "operator" "Exists" "effect" "NoSchedule") }}
      tolerations:
        {{- toYaml $tolerations | nindent 8 }}
{{- end }}
