//! `elicitation/create`: a server asks the user for structured input during
//! a call. The session decides who answers (the terminal shows a form;
//! without a user, the schema's defaults are accepted in yolo mode when
//! every required field has one, and the request is declined otherwise).

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};

use gemini_rs_protocol::events::RequestedSchema;
pub use gemini_rs_protocol::events::{ElicitationReply, ElicitationRequest};
use gemini_rs_protocol::lenient::from_object;

/// Answers requests for the session.
pub type Elicitor =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationReply> + Send + Sync>;

/// Where a session puts its [`Elicitor`]; requests before it is set are
/// declined.
pub type ElicitorSlot = Arc<RwLock<Option<Elicitor>>>;

/// The schema's defaults, when every required property has one.
pub fn defaults(schema: &Value) -> Option<Map<String, Value>> {
    let schema: RequestedSchema = from_object(schema);
    let values: Map<String, Value> = schema
        .properties()
        .into_iter()
        .filter_map(|(name, prop)| Some((name, prop.default?)))
        .collect();
    schema
        .required()
        .iter()
        .all(|r| values.contains_key(r))
        .then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_need_every_required_field() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John"}, "age": {"type": "integer"}},
            "required": ["name"]});
        assert_eq!(
            defaults(&schema).unwrap(),
            json!({"name": "John"}).as_object().unwrap().clone()
        );
        let strict = json!({"properties": {"age": {"type": "integer"}}, "required": ["age"]});
        assert!(defaults(&strict).is_none());
    }
}
