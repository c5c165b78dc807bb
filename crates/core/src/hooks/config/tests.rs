use super::*;
use serde_json::json;

#[test]
fn parses_events_aliases_and_warnings() {
    let v = json!({"hooks": {
        "BeforeTool": [{"matcher": "write", "sequential": true,
            "hooks": [{"type": "command", "command": "a", "name": "n", "timeout": 200, "env": {"K": "V"}}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": "b"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "c"}]}, {"matcher": "x"}],
        "PreCompact": [{"hooks": [{"type": "plugin", "command": "p"}, {"type": "command"}]}],
        "Bogus": [],
        "enabled": true
    }});
    let c = HookConfig::from_value(&v, "project");
    assert!(c.enabled);
    assert_eq!(
        c.warnings,
        vec!["Invalid hook event name: \"Bogus\" from project config. Skipping."]
    );
    let bt = &c.events[&HookEvent::BeforeTool];
    assert_eq!(bt.len(), 2);
    assert!(bt[0].sequential);
    assert_eq!(bt[0].hooks[0].timeout_ms, 200);
    assert_eq!(bt[0].hooks[0].env, vec![("K".to_string(), "V".to_string())]);
    assert_eq!(bt[1].hooks[0].timeout_ms, DEFAULT_TIMEOUT_MS);
    assert_eq!(c.events[&HookEvent::AfterAgent].len(), 1);
    assert!(c.events[&HookEvent::PreCompress][0].hooks.is_empty());
    assert!(!c.has_event(HookEvent::PreCompress));
    assert!(c.has_event(HookEvent::AfterAgent));
}

#[test]
fn switches() {
    let h = json!({"BeforeTool": [{"hooks": [{"type": "command", "command": "a"}]}]});
    let off1 = HookConfig::from_value(&json!({"hooks": h, "hooksConfig": {"enabled": false}}), "p");
    let off2 = HookConfig::from_value(&json!({"hooks": h, "tools": {"enableHooks": false}}), "p");
    assert!(!off1.has_event(HookEvent::BeforeTool));
    assert!(!off2.has_event(HookEvent::BeforeTool));
    let s = Settings::from_value(json!({"hooks": h}));
    assert!(HookConfig::from_settings(&s, true).has_event(HookEvent::BeforeTool));
    assert!(!HookConfig::from_settings(&s, false).has_event(HookEvent::BeforeTool));
}
