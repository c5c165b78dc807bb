//! The client scenarios the conformance tests run: which tools the (fake)
//! model calls in each, and the small model that echoes a declared schema
//! back for `json-schema-2020-12-preservation`.

use crate::support::Sandbox;
use serde_json::json;
use std::process::Command;

/// A model for `json-schema-2020-12-preservation`: it calls the echo tool
/// with the input schema gemini-rs declared to it for the scenario's
/// focal tool, then answers "done". Gemini's streaming wire, on a free
/// port printed first.
pub(super) const ECHO_MODEL_PY: &str = r#"
import http.server, json, sys
def chunk(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        decls = [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
        last = (body.get("contents") or [{}])[-1].get("parts") or []
        focal = [d for d in decls if d["name"].endswith("json_schema_2020_12_tool")]
        echo = [d["name"] for d in decls if d["name"].endswith("json_schema_echo")]
        answered = any("functionResponse" in p for p in last)
        if focal and echo and not answered:
            schema = focal[0].get("parametersJsonSchema") or focal[0].get("parameters")
            parts = [{"functionCall": {"name": echo[0], "args": {"schema": schema}}}]
        else:
            parts = [{"text": "done"}]
        data = ("data: " + json.dumps(chunk(parts)) + "\r\n\r\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

/// Starts [`ECHO_MODEL_PY`]; its process and base URL.
pub(super) fn echo_model(sb: &Sandbox) -> (std::process::Child, String) {
    use std::io::BufRead;
    let script = sb.write_home("echo_model.py", ECHO_MODEL_PY);
    let mut child = Command::new("python3")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    (child, format!("http://127.0.0.1:{}", line.trim()))
}

/// One client scenario: its name, the revision it is scored at (`None`:
/// the one it belongs to), and the tools the (fake) model calls in one
/// turn (none: `mcp list`).
pub(super) struct Case {
    pub(super) scenario: String,
    pub(super) version: Option<&'static str>,
    pub(super) calls: Vec<(&'static str, serde_json::Value)>,
}

/// The OAuth scenarios whose right outcome is a refused login (no token).
pub(super) const REFUSED_LOGINS: &[&str] = &[
    "auth/resource-mismatch",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-supported-missing",
    "auth/metadata-issuer-mismatch",
    "auth/iss-normalized",
];

/// The OAuth scenarios scored at both revisions.
const AUTH_BOTH: &[&str] = &[
    "metadata-default",
    "metadata-var1",
    "metadata-var2",
    "metadata-var3",
    "basic-cimd",
    "scope-from-www-authenticate",
    "scope-from-scopes-supported",
    "scope-omitted-when-undefined",
    "scope-step-up",
    "scope-retry-limit",
    "token-endpoint-auth-basic",
    "token-endpoint-auth-post",
    "token-endpoint-auth-none",
    "pre-registration",
];

/// The OAuth scenarios new in 2026-07-28.
const AUTH_2026: &[&str] = &[
    "resource-mismatch",
    "offline-access-scope",
    "offline-access-not-supported",
    "authorization-server-migration",
    "iss-supported",
    "iss-not-advertised",
    "iss-supported-missing",
    "iss-wrong-issuer",
    "iss-unexpected",
    "iss-normalized",
    "metadata-issuer-mismatch",
];

fn case(
    scenario: &str,
    version: Option<&'static str>,
    calls: Vec<(&'static str, serde_json::Value)>,
) -> Case {
    Case {
        scenario: scenario.to_string(),
        version,
        calls,
    }
}

/// Every client scenario of the suite at 2025-11-25 and 2026-07-28 (and
/// the two 2025-03-26 OAuth ones at their own revision).
pub(super) fn client_cases() -> Vec<Case> {
    const V25: Option<&str> = Some("2025-11-25");
    const V26: Option<&str> = Some("2026-07-28");
    let add = || vec![("add_numbers", json!({"a": 5, "b": 3}))];
    let mut cases = vec![
        case("initialize", V25, vec![]),
        case("tools_call", V25, add()),
        case("sse-retry", V25, vec![("test_reconnection", json!({}))]),
        case(
            "elicitation-sep1034-client-defaults",
            V25,
            vec![("test_client_elicitation_defaults", json!({}))],
        ),
        case("tools_call", V26, add()),
        case("request-metadata", V26, vec![]),
        case(
            "sep-2322-client-request-state",
            V26,
            [
                "test_mrtr_echo_state",
                "test_mrtr_no_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_result_type",
            ]
            .into_iter()
            .map(|t| (t, json!({})))
            .collect(),
        ),
        case(
            "http-standard-headers",
            V26,
            vec![("test_headers", json!({}))],
        ),
        case(
            "http-custom-headers",
            V26,
            vec![
                ("test_custom_headers", custom_header_args()),
                (
                    "test_custom_headers_null",
                    // What a model sends for a null it may not pass (the schema
                    // says boolean): the optional parameter left out.
                    json!({"region": "us-east1", "priority": 1, "query": "SELECT 1"}),
                ),
            ],
        ),
        case(
            "http-invalid-tool-headers",
            V26,
            vec![("valid_tool", json!({"region": "us-west1"}))],
        ),
        case("json-schema-ref-no-deref", V26, vec![]),
        // Its model is [`ECHO_MODEL_PY`].
        case("json-schema-2020-12-preservation", V25, vec![]),
        case("json-schema-2020-12-preservation", V26, vec![]),
    ];
    for auth in AUTH_BOTH {
        for version in [V25, V26] {
            cases.push(case(
                &format!("auth/{auth}"),
                version,
                vec![("test-tool", json!({}))],
            ));
        }
    }
    for auth in AUTH_2026 {
        cases.push(case(
            &format!("auth/{auth}"),
            V26,
            vec![("test-tool", json!({}))],
        ));
    }
    for auth in [
        "2025-03-26-oauth-metadata-backcompat",
        "2025-03-26-oauth-endpoint-fallback",
    ] {
        cases.push(case(
            &format!("auth/{auth}"),
            None,
            vec![("test-tool", json!({}))],
        ));
    }
    cases
}

/// The arguments `http-custom-headers` asks for (its context's first call,
/// `float_val` included: 3.14159 is its value, not an approximation of π).
#[allow(clippy::approx_constant)]
fn custom_header_args() -> serde_json::Value {
    json!({"region": "us-west1", "priority": 42, "verbose": false, "debug": true,
        "empty_val": "", "method_val": "test-method", "float_val": 3.14159,
        "non_ascii_val": "Hello, 世界", "whitespace_val": " padded ",
        "leading_space_val": " us-west1", "trailing_space_val": "us-west1 ",
        "internal_space_val": "us west 1", "control_char_val": "line1\nline2",
        "crlf_val": "line1\r\nline2", "tab_val": "\tindented", "query": "SELECT * FROM users"})
}
