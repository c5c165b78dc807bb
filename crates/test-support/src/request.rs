//! One request as the server received it.

use serde_json::Value;

/// One request the server received, kept in arrival order by
/// [`FakeServer::requests`](crate::FakeServer::requests).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The HTTP method, e.g. `POST`.
    pub method: String,
    /// The path with its query, e.g. `/v1beta/models/m:streamGenerateContent?alt=sse`.
    pub path: String,
    /// Every header in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, or `Null` when it is empty or not JSON.
    pub body: Value,
    /// The body as text (form bodies are not JSON).
    pub raw: String,
}

impl Request {
    /// The value of header `name` (any case); the first one if repeated.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The Gemini API key: the `x-goog-api-key` header.
    pub fn api_key(&self) -> Option<&str> {
        self.header("x-goog-api-key")
    }

    /// The path without its query.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// The Gemini model named in the path (`gemini-2.5-flash` in
    /// `.../models/gemini-2.5-flash:generateContent`), or `""`.
    pub fn model(&self) -> &str {
        gemini_target(self.path_only()).0
    }

    /// The Gemini RPC named in the path (`streamGenerateContent`,
    /// `generateContent`, `countTokens`), or `""`.
    pub fn rpc(&self) -> &str {
        gemini_target(self.path_only()).1
    }
}

/// `(model, rpc)` of a Gemini path `.../models/<model>:<rpc>`.
fn gemini_target(path: &str) -> (&str, &str) {
    let Some((_, tail)) = path.split_once("/models/") else {
        return ("", "");
    };
    tail.split_once(':').unwrap_or((tail, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str) -> Request {
        Request {
            method: "POST".into(),
            path: path.into(),
            headers: vec![("x-goog-api-key".into(), "k".into())],
            body: Value::Null,
            raw: String::new(),
        }
    }

    #[test]
    fn gemini_paths_name_model_and_rpc() {
        let r = at("/v1beta/models/gemini-x:streamGenerateContent?alt=sse");
        assert_eq!((r.model(), r.rpc()), ("gemini-x", "streamGenerateContent"));
        assert_eq!(r.api_key(), Some("k"));
        assert_eq!(r.header("X-Goog-Api-Key"), Some("k"));
        let r = at("/v1/chat/completions");
        assert_eq!((r.model(), r.rpc()), ("", ""));
    }
}
