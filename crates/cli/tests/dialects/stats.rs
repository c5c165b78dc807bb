//! `-o json`'s stats as the references count them (issue 36): the
//! `json-stats` scenario answers the first model request with a 500,
//! which the client retries.

use super::{compare, golden, play_with_output};
use serde_json::{Value, json};

/// Plays `json-stats` in `dialect`, compares its shape with the golden
/// and returns the model's stats.
fn model_stats(dialect: &str) -> Value {
    let (ours, out) = play_with_output("json-stats", dialect);
    compare("json-stats", dialect, ours, golden("json-stats", dialect));
    let answer: Value = serde_json::from_str(&out.stdout).expect("-o json");
    answer["stats"]["models"]["gemini-2.5-flash"].clone()
}

#[test]
fn today_json_stats_count_errors_by_type_and_role() {
    let model = model_stats("today");
    // The counts 0.61 printed for this scenario: three requests, the
    // retried 500 among them, by type and under the main agent's role.
    let api = &model["api"];
    assert_eq!(
        (&api["totalRequests"], &api["totalErrors"]),
        (&json!(3), &json!(1)),
        "{model}"
    );
    assert_eq!(api["errorsByType"], json!({"ApiError": 1}), "{model}");
    let main = &model["roles"]["main"];
    assert_eq!(
        (&main["totalRequests"], &main["totalErrors"]),
        (&json!(3), &json!(1)),
        "{model}"
    );
    assert_eq!(main["tokens"], model["tokens"], "{model}");
}

#[test]
fn v027_json_stats_have_0_27_4s_shape() {
    let model = model_stats("0.27");
    // 0.27.4 counted the retried 500 too, with no types or roles.
    let api = &model["api"];
    assert_eq!(
        (&api["totalRequests"], &api["totalErrors"]),
        (&json!(3), &json!(1)),
        "{model}"
    );
}
