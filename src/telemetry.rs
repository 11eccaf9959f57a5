//! Logs (tracing) and metrics (Prometheus text through the `metrics` facade).

use std::sync::OnceLock;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tracing_subscriber::EnvFilter;

/// Log output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    #[default]
    Pretty,
    Json,
}

/// Installs the global tracing subscriber (`RUST_LOG`, default `info`). Safe to call twice.
pub fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// The process-wide Prometheus recorder, installed on first use.
pub fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Suffix("_seconds".into()),
                    &[
                        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
                    ],
                )
                .map(PrometheusBuilder::build_recorder)
                .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
            let handle = recorder.handle();
            // Another recorder may already be installed (an embedding program); keep ours for
            // rendering anyway so /metrics still answers.
            let _ = metrics::set_global_recorder(recorder);
            describe();
            handle
        })
        .clone()
}

fn describe() {
    metrics::describe_counter!(
        "repro_gate_webhooks_total",
        "Webhook deliveries received, by event and outcome"
    );
    metrics::describe_histogram!(
        "repro_gate_job_duration_seconds",
        metrics::Unit::Seconds,
        "Time spent running one job attempt"
    );
    metrics::describe_counter!(
        "repro_gate_github_requests_total",
        "Requests made to the GitHub API, by method and status"
    );
    metrics::describe_counter!(
        "repro_gate_verifications_total",
        "Verifications of a claimed reproduction that reached a verdict, by verdict"
    );
    // Every verdict's series exists from the start (a rate over a missing series is nothing).
    for v in crate::core::verify::Verdict::ALL {
        metrics::counter!("repro_gate_verifications_total", "verdict" => v.label()).increment(0);
    }
    metrics::describe_counter!(
        "repro_gate_jobs_dead_total",
        "Jobs parked as dead after their last attempt"
    );
}
