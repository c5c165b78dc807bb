//! The envelope of a JSON-RPC 2.0 message (MCP, A2A and ACP all speak
//! it): its id, method and outcome, read leniently so that a malformed
//! message can still be answered with the right error. The payloads
//! (`params`, `result`, `error`) stay as they came: each protocol reads
//! them with its own types.

use crate::lenient::{from_object, present, wrong_type_as_none};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC 2.0 request, notification or response.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Envelope {
    /// `"2.0"`.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub jsonrpc: Option<String>,
    /// The id (a string, a number or `null`), when there is one.
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Value>,
    /// The method, as sent (of any type).
    #[serde(default, deserialize_with = "present")]
    pub method: Option<Value>,
    /// The parameters.
    #[serde(default, deserialize_with = "present")]
    pub params: Option<Value>,
    /// A response's result.
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Value>,
    /// A response's error.
    #[serde(default, deserialize_with = "present")]
    pub error: Option<Value>,
}

impl Envelope {
    /// The envelope of `message` (empty when it is not an object).
    pub fn of(message: &Value) -> Self {
        from_object(message)
    }

    /// The method's name, when it is a string.
    pub fn method_name(&self) -> Option<&str> {
        self.method.as_ref().and_then(Value::as_str)
    }

    /// Whether this is a response (it has a result or an error).
    pub fn is_response(&self) -> bool {
        self.result.is_some() || self.error.is_some()
    }

    /// Whether it says `"jsonrpc": "2.0"`.
    pub fn is_v2(&self) -> bool {
        self.jsonrpc.as_deref() == Some("2.0")
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RpcErrorObject {
    /// The code.
    #[serde(default)]
    pub code: Value,
    /// What went wrong.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_envelope_keeps_a_null_id_and_odd_fields() {
        let e = Envelope::of(&json!({"jsonrpc": "2.0", "id": null, "method": 3}));
        assert_eq!(e.id, Some(Value::Null));
        assert_eq!(e.method, Some(json!(3)));
        assert_eq!(e.method_name(), None);
        assert!(e.is_v2() && !e.is_response());
        let r = Envelope::of(&json!({"id": 1, "error": {"code": -1}}));
        assert!(r.is_response() && !r.is_v2());
        assert_eq!(Envelope::of(&json!([1])), Envelope::default());
    }
}
