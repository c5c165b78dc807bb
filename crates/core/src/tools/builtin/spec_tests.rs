//! The spec table: names are unique, tools agree with their specs, the
//! Claude Code map is one to one and round-trips.

use super::{ActivateSkillTool, BUILTINS, InternalDocsTool, builtin_tools, specs};
use crate::catalogue::builtins::spec;
use crate::catalogue::claude::{by_claude_name, call_from_claude, call_to_claude, claude_name};
use crate::tools::Tool;
use crate::tools::spec::{AgentUse, ModelUse};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::sync::Arc;

/// Parameters a tool takes outside its schema (read by its params struct).
const OUTSIDE_SCHEMA: [(&str, &str); 1] = [("replace", "allow_multiple")];

fn object(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// Every built-in tool, also those the session makes with its own data.
fn all_tools() -> Vec<Arc<dyn Tool>> {
    let mut tools = builtin_tools();
    tools.push(Arc::new(ActivateSkillTool::new(
        Arc::new(Vec::new()),
        Arc::default(),
    )));
    tools.push(Arc::new(InternalDocsTool));
    let dismiss: super::Asker =
        Arc::new(|_, _| Box::pin(async { gemini_rs_protocol::events::QuestionsReply::Dismiss }));
    tools.push(Arc::new(super::AskUserTool::new(dismiss)));
    // The resource tools, over a session without servers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let settings = crate::config::Settings::from_value(json!({}));
    let mcp = Arc::new(runtime.block_on(crate::tools::mcp::McpManager::start(
        &settings,
        &[],
        &[],
        true,
    )));
    tools.push(Arc::new(super::mcp_resources::ReadMcpResource(mcp.clone())));
    tools.push(Arc::new(super::mcp_resources::ListMcpResources(mcp)));
    tools
}

#[test]
fn names_and_aliases_are_unique() {
    let mut seen = HashSet::new();
    for spec in specs() {
        assert!(!spec.name.is_empty() && !spec.display_name.is_empty());
        for name in std::iter::once(&spec.name).chain(spec.aliases) {
            assert!(seen.insert(*name), "{name} is declared twice");
        }
    }
    let displays: HashSet<_> = specs().map(|s| s.display_name).collect();
    assert_eq!(displays.len(), BUILTINS.len());
}

#[test]
fn every_tool_agrees_with_its_spec() {
    let tools = all_tools();
    assert_eq!(tools.len(), BUILTINS.len());
    for tool in tools {
        let spec = tool.spec().unwrap();
        assert_eq!(tool.name(), spec.name);
        assert_eq!(tool.display_name(), spec.display_name);
        assert_eq!(tool.kind(), spec.kind);
        assert!(std::ptr::eq(
            spec,
            crate::catalogue::builtins::spec(spec.name).unwrap()
        ));
        let props = tool.parameter_schema()["properties"].clone();
        for (alias, canonical) in spec.param_aliases {
            assert!(props.get(canonical).is_some(), "{}: {canonical}", spec.name);
            assert!(props.get(alias).is_none(), "{}: {alias}", spec.name);
        }
        for (_, ours) in spec.claude.map_or(&[][..], |c| c.params) {
            let outside = OUTSIDE_SCHEMA.contains(&(spec.name, *ours));
            assert!(
                props.get(ours).is_some() || outside,
                "{}: {ours}",
                spec.name
            );
        }
    }
}

#[test]
fn lookup_by_name_and_alias() {
    assert_eq!(spec("grep_search").unwrap().name, "search_file_content");
    assert_eq!(
        spec("search_file_content").unwrap().display_name,
        "SearchText"
    );
    assert!(spec("SearchText").is_none());
    assert!(spec("nope").is_none());
}

#[test]
fn declarations_match_gemini_cli() {
    let needs_model: Vec<_> = specs()
        .filter(|s| s.model == ModelUse::Required)
        .map(|s| s.name)
        .collect();
    assert_eq!(needs_model, ["google_web_search"]);
    let builtin_only: Vec<_> = specs()
        .filter(|s| s.agents == AgentUse::BuiltInAgentsOnly)
        .map(|s| s.name)
        .collect();
    assert_eq!(builtin_only, ["get_internal_docs"]);
}

#[test]
fn the_claude_twins() {
    let twins: Vec<_> = specs()
        .filter_map(|s| Some((s.claude_name()?, s.name)))
        .collect();
    assert_eq!(
        twins,
        [
            ("LS", "list_directory"),
            ("Read", "read_file"),
            ("Grep", "search_file_content"),
            ("Glob", "glob"),
            ("Edit", "replace"),
            ("Write", "write_file"),
            ("WebFetch", "web_fetch"),
            ("Bash", "run_shell_command"),
            ("WebSearch", "google_web_search"),
        ]
    );
    for (claude, ours) in twins {
        assert_eq!(by_claude_name(claude).unwrap().name, ours);
        assert_eq!(claude_name(ours), Some(claude));
    }
    assert_eq!(claude_name("grep_search"), Some("Grep"));
    assert!(by_claude_name("read_file").is_none());
    assert!(claude_name("write_todos").is_none());
}

#[test]
fn claude_parameter_maps_are_one_to_one() {
    for twin in specs().filter_map(|s| s.claude) {
        let claude: HashSet<_> = twin.params.iter().map(|p| p.0).collect();
        let ours: HashSet<_> = twin.params.iter().map(|p| p.1).collect();
        assert_eq!(claude.len(), twin.params.len(), "{}", twin.name);
        assert_eq!(ours.len(), twin.params.len(), "{}", twin.name);
        for (c, o) in twin.params {
            assert_eq!(twin.ours_for(c), Some(*o));
            assert_eq!(twin.claude_for(o), Some(*c));
        }
    }
}

#[test]
fn claude_calls_round_trip() {
    let edit = object(json!({
        "file_path": "/w/a.txt", "old_string": "a", "new_string": "b", "replace_all": true
    }));
    let (name, args) = call_from_claude("Edit", &edit).unwrap();
    assert_eq!(name, "replace");
    assert_eq!(
        Value::Object(args.clone()),
        json!({"file_path": "/w/a.txt", "old_string": "a", "new_string": "b", "allow_multiple": true})
    );
    assert_eq!(call_to_claude(name, &args).unwrap(), ("Edit", edit));

    let grep = object(json!({"pattern": "fn", "path": "src", "glob": "*.rs", "-i": true}));
    let (name, args) = call_from_claude("Grep", &grep).unwrap();
    assert_eq!(name, "search_file_content");
    assert_eq!(
        Value::Object(args.clone()),
        json!({"pattern": "fn", "dir_path": "src", "include": "*.rs", "-i": true})
    );
    assert_eq!(
        call_to_claude("grep_search", &args).unwrap(),
        ("Grep", grep)
    );

    let bash = object(json!({"command": "ls", "run_in_background": true}));
    let (name, args) = call_from_claude("Bash", &bash).unwrap();
    assert_eq!(name, "run_shell_command");
    assert_eq!(args["is_background"], json!(true));
    assert_eq!(call_to_claude(name, &args).unwrap().1, bash);

    assert!(call_from_claude("Task", &Map::new()).is_none());
    assert!(call_to_claude("save_memory", &Map::new()).is_none());
}

#[test]
fn the_catalogue_lists_every_builtin_in_registration_order() {
    let ours: Vec<&str> = super::specs().map(|s| s.name).collect();
    let catalogue: Vec<&str> = crate::catalogue::builtins::specs()
        .map(|s| s.name)
        .collect();
    assert_eq!(ours, catalogue);
    assert!(
        super::specs()
            .zip(crate::catalogue::builtins::specs())
            .all(|(a, b)| std::ptr::eq(a, b))
    );
}

#[test]
fn the_catalogue_lists_the_builtins_in_registration_order() {
    let made: Vec<&str> = builtin_tools()
        .iter()
        .map(|t| t.spec().unwrap().name)
        .collect();
    let listed: Vec<&str> = specs()
        .map(|s| s.name)
        .filter(|n| made.contains(n))
        .collect();
    assert_eq!(made, listed);
    assert_eq!(BUILTINS.len(), specs().count());
}
