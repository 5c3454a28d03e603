/**
 * Metrics the dashboards and alerts use that Trawl's services do not export, each with where it
 * comes from. The e2e test checks every other metric name against the live /metrics of the five
 * services; these are checked against this list instead.
 */
export const EXTERNAL_METRICS: Readonly<Record<string, string>> = {
  up: 'Prometheus: one series per scraped target (the chart\'s ServiceMonitors set job="trawl-<component>")',
  nats_consumer_num_pending: "prometheus-nats-exporter -jsz=all -prefix=nats (the official NATS Helm chart's promExporter)",
  nats_consumer_num_ack_pending: 'prometheus-nats-exporter -jsz=all -prefix=nats',
  nats_consumer_num_redelivered: 'prometheus-nats-exporter -jsz=all -prefix=nats',
  nats_consumer_num_waiting: 'prometheus-nats-exporter -jsz=all -prefix=nats',
  nats_consumer_delivered_consumer_seq: 'prometheus-nats-exporter -jsz=all -prefix=nats',
  nats_stream_total_messages: 'prometheus-nats-exporter -jsz=all -prefix=nats',
  kube_deployment_status_replicas_available: 'kube-state-metrics (Deployment)',
  kube_deployment_spec_replicas: 'kube-state-metrics (Deployment)',
  kube_horizontalpodautoscaler_status_current_replicas:
    'kube-state-metrics (HorizontalPodAutoscaler; KEDA names its HPA keda-hpa-<ScaledObject>)',
  kube_horizontalpodautoscaler_spec_max_replicas: 'kube-state-metrics (HorizontalPodAutoscaler)',
  kube_job_failed: 'kube-state-metrics (Job): the Failed condition, condition="true|false|unknown"',
};
