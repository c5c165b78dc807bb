//! Metrics in the `outfile`: each export of the periodic reader appended
//! as one JSON line shaped as Gemini CLI's file metric exporter writes the
//! JavaScript SDK's `ResourceMetrics` (`resource`, `scopeMetrics[].scope`,
//! `metrics[].descriptor`, `aggregationTemporality`, `dataPointType`,
//! `dataPoints[]` with `startTime`/`endTime` as `[seconds, nanoseconds]`),
//! cumulative as it asks for.

use super::file::{Outfile, attributes, hr_time, resource};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, Metric, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use serde_json::{Value as Json, json};
use std::time::Duration;

/// The JavaScript SDK's `AggregationTemporality.CUMULATIVE`.
const CUMULATIVE: u8 = 1;

/// The JavaScript SDK's `DataPointType`.
const HISTOGRAM: u8 = 0;
const GAUGE: u8 = 2;
const SUM: u8 = 3;

/// The JavaScript API's `ValueType`.
const INT: u8 = 0;
const DOUBLE: u8 = 1;

/// Metrics to the outfile.
#[derive(Debug)]
pub(super) struct MetricFile {
    out: Outfile,
}

impl MetricFile {
    pub(super) fn new(out: Outfile) -> MetricFile {
        MetricFile { out }
    }
}

impl PushMetricExporter for MetricFile {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        self.out.write_lines(&[resource_metrics(metrics)])
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

/// One export as a JSON object.
fn resource_metrics(metrics: &ResourceMetrics) -> Json {
    let scopes: Vec<Json> = metrics
        .scope_metrics()
        .map(|scope| {
            json!({
                "scope": {"name": scope.scope().name(), "version": scope.scope().version()},
                "metrics": scope.metrics().map(metric).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"resource": resource(metrics.resource()), "scopeMetrics": scopes})
}

/// A metric: its descriptor and its data points.
fn metric(m: &Metric) -> Json {
    let (value_type, mut data) = match m.data() {
        AggregatedMetrics::F64(d) => (DOUBLE, points(d, |v| json!(v))),
        AggregatedMetrics::U64(d) => (INT, points(d, |v| json!(v))),
        AggregatedMetrics::I64(d) => (INT, points(d, |v| json!(v))),
    };
    let kind = data["type"].take();
    let mut out = json!({
        "descriptor": {"name": m.name(), "type": kind, "description": m.description(),
            "unit": m.unit(), "valueType": value_type, "advice": {}},
        "aggregationTemporality": CUMULATIVE,
    });
    if let (Some(out), Some(data)) = (out.as_object_mut(), data.as_object_mut()) {
        data.remove("type");
        out.append(data);
    }
    out
}

/// `type` (the instrument kind), `dataPointType`, `dataPoints` and
/// `isMonotonic` of one metric's data.
fn points<T: Copy>(data: &MetricData<T>, num: impl Fn(T) -> Json) -> Json {
    match data {
        MetricData::Sum(sum) => {
            let start = hr_time(sum.start_time());
            let end = hr_time(sum.time());
            let points: Vec<Json> = sum
                .data_points()
                .map(|p| {
                    json!({"attributes": attributes(p.attributes()), "startTime": start,
                        "endTime": end, "value": num(p.value())})
                })
                .collect();
            let kind = if sum.is_monotonic() {
                "COUNTER"
            } else {
                "UP_DOWN_COUNTER"
            };
            json!({"type": kind, "dataPointType": SUM, "dataPoints": points,
                "isMonotonic": sum.is_monotonic()})
        }
        MetricData::Histogram(h) => {
            let start = hr_time(h.start_time());
            let end = hr_time(h.time());
            let points: Vec<Json> = h
                .data_points()
                .map(|p| {
                    json!({"attributes": attributes(p.attributes()), "startTime": start,
                        "endTime": end, "value": {
                            "min": p.min().map(&num), "max": p.max().map(&num), "sum": num(p.sum()),
                            "buckets": {"boundaries": p.bounds().collect::<Vec<_>>(),
                                "counts": p.bucket_counts().collect::<Vec<_>>()},
                            "count": p.count()}})
                })
                .collect();
            json!({"type": "HISTOGRAM", "dataPointType": HISTOGRAM, "dataPoints": points})
        }
        MetricData::Gauge(g) => {
            let end = hr_time(g.time());
            let start = g.start_time().map_or_else(|| end.clone(), hr_time);
            let points: Vec<Json> = g
                .data_points()
                .map(|p| {
                    json!({"attributes": attributes(p.attributes()), "startTime": start,
                        "endTime": end, "value": num(p.value())})
                })
                .collect();
            json!({"type": "GAUGE", "dataPointType": GAUGE, "dataPoints": points})
        }
        // No instrument here is an exponential histogram.
        MetricData::ExponentialHistogram(_) => {
            json!({"type": "HISTOGRAM", "dataPointType": 1, "dataPoints": []})
        }
    }
}
