//! Merging the outputs of several hooks of one event (§9.6).

use super::config::HookEvent;
use super::event::Merge;
use super::output::HookOutput;
use crate::config::lenient::{from_object, wrong_type_as_none as lenient};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Merges outputs (in result order) with the strategy of `event`; `None`
/// when no hook produced an output.
pub fn aggregate(event: HookEvent, outputs: &[&HookOutput]) -> Option<HookOutput> {
    if outputs.is_empty() {
        return None;
    }
    Some(match event.spec().merge {
        Merge::Or => merge_or(outputs),
        Merge::Replace { specific } => merge_replace(outputs, specific),
        Merge::ToolSelection => merge_tool_selection(outputs),
    })
}

fn extend(target: &mut Option<Map<String, Value>>, add: &Map<String, Value>) {
    let t = target.get_or_insert_with(Map::new);
    for (k, v) in add {
        t.insert(k.clone(), v.clone());
    }
}

/// OR-merge: any block/deny or `continue:false` wins; texts joined with `\n`.
fn merge_or(outputs: &[&HookOutput]) -> HookOutput {
    let mut merged = HookOutput {
        continue_: Some(true),
        suppress_output: Some(false),
        ..HookOutput::default()
    };
    let (mut stops, mut reasons, mut messages, mut contexts) = (vec![], vec![], vec![], vec![]);
    let (mut blocked, mut stopped) = (false, false);
    for o in outputs {
        if o.should_stop() {
            stopped = true;
            merged.continue_ = Some(false);
            if let Some(s) = &o.stop_reason {
                stops.push(s.clone());
            }
        }
        if o.is_blocking() {
            blocked = true;
            merged.decision = o.decision.clone();
        }
        if let Some(r) = &o.reason {
            reasons.push(r.clone());
        }
        if let Some(m) = &o.system_message {
            messages.push(m.clone());
        }
        if o.suppressed() {
            merged.suppress_output = Some(true);
        }
        if let Some(spec) = &o.hook_specific {
            let shared = SharedSpecific::deserialize(spec).unwrap_or_default();
            if shared.clear_context == Some(true) {
                extend(
                    &mut merged.hook_specific,
                    &Map::from_iter([("clearContext".into(), Value::Bool(true))]),
                );
            }
            let rest: Map<String, Value> = spec
                .iter()
                .filter(|(k, _)| k.as_str() != "clearContext")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            extend(&mut merged.hook_specific, &rest);
            if let Some(c) = shared.additional_context {
                contexts.push(c);
            }
        }
    }
    if !blocked && !stopped {
        merged.decision = Some("allow".into());
    }
    // Claude's PreToolUse: deny > ask > allow, whichever hook said it.
    let strongest = outputs
        .iter()
        .filter_map(|o| o.specific("permissionDecision")?.as_str())
        .max_by_key(|d| permission_rank(d));
    if let Some(decision) = strongest {
        let decision = Value::String(decision.to_string());
        extend(
            &mut merged.hook_specific,
            &Map::from_iter([("permissionDecision".into(), decision)]),
        );
    }
    let join = |v: Vec<String>| (!v.is_empty()).then(|| v.join("\n"));
    merged.stop_reason = join(stops);
    merged.reason = join(reasons);
    merged.system_message = join(messages);
    if let Some(c) = join(contexts) {
        extend(
            &mut merged.hook_specific,
            &Map::from_iter([("additionalContext".into(), Value::String(c))]),
        );
    }
    merged
}

/// How strongly a `permissionDecision` restricts a call.
fn permission_rank(decision: &str) -> u8 {
    match decision {
        "deny" => 3,
        "ask" => 2,
        "allow" => 1,
        _ => 0,
    }
}

/// Later outputs override earlier fields; `hookSpecificOutput` is
/// shallow-merged when `merge_specific`, else replaced.
fn merge_replace(outputs: &[&HookOutput], merge_specific: bool) -> HookOutput {
    let mut m = HookOutput::default();
    for o in outputs {
        macro_rules! over {
            ($f:ident) => {
                if o.$f.is_some() {
                    m.$f = o.$f.clone();
                }
            };
        }
        over!(continue_);
        over!(stop_reason);
        over!(suppress_output);
        over!(system_message);
        over!(decision);
        over!(reason);
        match (&o.hook_specific, merge_specific) {
            (Some(spec), true) => extend(&mut m.hook_specific, spec),
            (Some(spec), false) => m.hook_specific = Some(spec.clone()),
            (None, _) => {}
        }
    }
    m
}

/// The `hookSpecificOutput` fields every event merges alike; a field of
/// the wrong type reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct SharedSpecific {
    #[serde(deserialize_with = "lenient")]
    clear_context: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    additional_context: Option<String>,
}

/// `hookSpecificOutput.toolConfig` of BeforeToolSelection as a hook
/// writes it; a field of the wrong type reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WireToolConfig {
    #[serde(deserialize_with = "lenient")]
    mode: Option<String>,
    #[serde(deserialize_with = "lenient")]
    allowed_function_names: Option<Vec<Value>>,
}

/// Union of allowed names (sorted); NONE beats ANY beats AUTO.
fn merge_tool_selection(outputs: &[&HookOutput]) -> HookOutput {
    let mut names = std::collections::BTreeSet::new();
    let (mut none, mut any) = (false, false);
    for o in outputs {
        let Some(tc) = o.specific("toolConfig") else {
            continue;
        };
        let tc: WireToolConfig = from_object(tc);
        match tc.mode.as_deref() {
            Some("NONE") => none = true,
            Some("ANY") => any = true,
            _ => {}
        }
        if let Some(list) = tc.allowed_function_names {
            names.extend(list.into_iter().filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            }));
        }
    }
    let (mode, names): (&str, Vec<String>) = if none {
        ("NONE", vec![])
    } else if any {
        ("ANY", names.into_iter().collect())
    } else {
        ("AUTO", names.into_iter().collect())
    };
    let tool_config = serde_json::json!({"mode": mode, "allowedFunctionNames": names});
    HookOutput {
        hook_specific: Some(Map::from_iter([
            (
                "hookEventName".into(),
                Value::String("BeforeToolSelection".into()),
            ),
            ("toolConfig".into(), tool_config),
        ])),
        ..HookOutput::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn out(v: Value) -> HookOutput {
        HookOutput::from_value(&v)
    }

    #[test]
    fn or_merge() {
        let a = out(json!({}));
        let b = out(json!({"decision": "block", "reason": "r"}));
        let m = aggregate(HookEvent::BeforeTool, &[&a, &b]).unwrap();
        assert!(m.is_blocking());
        assert_eq!(m.effective_reason(), "r");

        let a = out(
            json!({"decision": "allow", "systemMessage": "s1", "hookSpecificOutput": {"additionalContext": "c1", "x": 1}}),
        );
        let b = out(
            json!({"systemMessage": "s2", "suppressOutput": true, "hookSpecificOutput": {"additionalContext": "c2", "clearContext": true}}),
        );
        let m = aggregate(HookEvent::AfterAgent, &[&a, &b]).unwrap();
        assert_eq!(m.decision.as_deref(), Some("allow"));
        assert_eq!(m.system_message.as_deref(), Some("s1\ns2"));
        assert!(m.suppressed());
        assert!(m.clear_context());
        assert_eq!(m.specific("additionalContext"), Some(&json!("c1\nc2")));
        assert_eq!(m.specific("x"), Some(&json!(1)));

        let a = out(json!({"continue": false, "stopReason": "s1"}));
        let b = out(json!({"continue": false, "stopReason": "s2"}));
        let m = aggregate(HookEvent::BeforeAgent, &[&a, &b]).unwrap();
        assert!(m.should_stop());
        assert_eq!(m.decision, None);
        assert_eq!(m.effective_reason(), "s1\ns2");
    }

    #[test]
    fn the_strictest_permission_decision_wins() {
        let decide = |d: &str| out(json!({"hookSpecificOutput": {"permissionDecision": d}}));
        let (allow, ask, deny) = (decide("allow"), decide("ask"), decide("deny"));
        let merged = |outs: &[&HookOutput]| {
            let m = aggregate(HookEvent::BeforeTool, outs).unwrap();
            m.specific("permissionDecision").cloned()
        };
        assert_eq!(merged(&[&allow, &ask, &allow]), Some(json!("ask")));
        assert_eq!(merged(&[&deny, &ask, &allow]), Some(json!("deny")));
        assert_eq!(merged(&[&allow]), Some(json!("allow")));
        assert_eq!(merged(&[&out(json!({}))]), None);
    }

    #[test]
    fn replace_merge() {
        let a = out(json!({"decision": "block", "hookSpecificOutput": {"a": 1}}));
        let b = out(json!({"decision": "allow", "hookSpecificOutput": {"b": 2}}));
        let m = aggregate(HookEvent::BeforeModel, &[&a, &b]).unwrap();
        assert_eq!(m.decision.as_deref(), Some("allow"));
        assert_eq!(m.hook_specific.unwrap().len(), 2);
        let m = aggregate(HookEvent::SessionEnd, &[&a, &b]).unwrap();
        assert_eq!(m.hook_specific.unwrap().len(), 1);
        assert_eq!(aggregate(HookEvent::SessionEnd, &[]), None);
    }

    #[test]
    fn tool_selection() {
        let a = out(
            json!({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["b", "a"]}}}),
        );
        let b = out(
            json!({"hookSpecificOutput": {"toolConfig": {"mode": "AUTO", "allowedFunctionNames": ["c", "a"]}}}),
        );
        let m = aggregate(HookEvent::BeforeToolSelection, &[&a, &b]).unwrap();
        assert_eq!(
            m.specific("toolConfig"),
            Some(&json!({"mode": "ANY", "allowedFunctionNames": ["a", "b", "c"]}))
        );
        let n = out(json!({"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}}));
        let m = aggregate(HookEvent::BeforeToolSelection, &[&a, &n]).unwrap();
        assert_eq!(
            m.specific("toolConfig"),
            Some(&json!({"mode": "NONE", "allowedFunctionNames": []}))
        );
        let e = out(json!({}));
        let m = aggregate(HookEvent::BeforeToolSelection, &[&e]).unwrap();
        assert_eq!(
            m.specific("toolConfig"),
            Some(&json!({"mode": "AUTO", "allowedFunctionNames": []}))
        );
    }
}
