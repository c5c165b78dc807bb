//! `mcp add` and `mcp remove`: edit `mcpServers` in the user or project
//! settings file, keeping the rest of the file.

use super::{AddArgs, Env, RemoveArgs, Scope, Transport};
use crate::settings_file::{FileScope, comments_note, read, write};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// The settings file a scope names.
fn file_scope(scope: Scope) -> FileScope {
    match scope {
        Scope::User => FileScope::User,
        Scope::Project => FileScope::Project,
    }
}

fn settings_path(env: &Env, scope: Scope) -> Result<PathBuf, String> {
    match scope {
        Scope::User => Ok(env.paths.user_settings()),
        Scope::Project => {
            let home = std::fs::canonicalize(&env.paths.home).unwrap_or(env.paths.home.clone());
            if env.cwd == home {
                return Err(
                    "Please use --scope user to edit settings in the home directory.".to_string(),
                );
            }
            Ok(env.paths.workspace_settings(&env.cwd))
        }
    }
}

fn split_env(entries: &[String]) -> Map<String, Value> {
    entries
        .iter()
        .filter_map(|e| {
            let (k, v) = e.split_once('=')?;
            Some((k.to_string(), Value::String(v.to_string())))
        })
        .collect()
}

fn split_headers(entries: &[String]) -> Map<String, Value> {
    entries
        .iter()
        .filter_map(|h| {
            let (k, v) = h.split_once(':')?;
            Some((k.trim().to_string(), Value::String(v.trim().to_string())))
        })
        .collect()
}

/// The `mcpServers.<name>` entry `add` writes, as Gemini CLI builds it.
fn server_entry(args: &AddArgs) -> Value {
    let mut entry = Map::new();
    match args.transport {
        Transport::Stdio => {
            entry.insert("command".into(), json!(args.command_or_url));
            if !args.args.is_empty() {
                entry.insert("args".into(), json!(args.args));
            }
            let env = split_env(&args.env);
            if !env.is_empty() {
                entry.insert("env".into(), Value::Object(env));
            }
        }
        Transport::Sse | Transport::Http => {
            entry.insert("url".into(), json!(args.command_or_url));
            entry.insert("type".into(), json!(args.transport.as_str()));
            let headers = split_headers(&args.header);
            if !headers.is_empty() {
                entry.insert("headers".into(), Value::Object(headers));
            }
        }
    }
    if let Some(t) = args.timeout {
        entry.insert("timeout".into(), json!(t));
    }
    if args.trust {
        entry.insert("trust".into(), json!(true));
    }
    if let Some(d) = &args.description {
        entry.insert("description".into(), json!(d));
    }
    let list = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    if !args.include_tools.is_empty() {
        entry.insert("includeTools".into(), json!(list(&args.include_tools)));
    }
    if !args.exclude_tools.is_empty() {
        entry.insert("excludeTools".into(), json!(list(&args.exclude_tools)));
    }
    Value::Object(entry)
}

/// `mcp add`.
pub(super) fn add(env: &Env, args: &AddArgs) -> i32 {
    match try_add(env, args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

fn try_add(env: &Env, args: &AddArgs) -> Result<(), String> {
    let scope = args.scope.as_str();
    let mut file = read(&settings_path(env, args.scope)?, file_scope(args.scope))?;
    let servers = file
        .value
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if !servers.is_object() {
        *servers = Value::Object(Map::new());
    }
    let Value::Object(servers) = servers else {
        return Err("mcpServers is not an object".to_string());
    };
    let existed = servers.contains_key(&args.name);
    if existed {
        println!(
            "MCP server \"{}\" is already configured within {scope} settings.",
            args.name
        );
    }
    servers.insert(args.name.clone(), server_entry(args));
    write(&file)?;
    if let Some(note) = comments_note(&file) {
        println!("{note}");
    }
    if existed {
        println!("MCP server \"{}\" updated in {scope} settings.", args.name);
    } else {
        println!(
            "MCP server \"{}\" added to {scope} settings. ({})",
            args.name,
            args.transport.as_str()
        );
    }
    Ok(())
}

/// `mcp remove`.
pub(super) fn remove(env: &Env, args: &RemoveArgs) -> i32 {
    match try_remove(env, args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

fn try_remove(env: &Env, args: &RemoveArgs) -> Result<(), String> {
    let scope = args.scope.as_str();
    let mut file = read(&settings_path(env, args.scope)?, file_scope(args.scope))?;
    let removed = file
        .value
        .get_mut("mcpServers")
        .and_then(Value::as_object_mut)
        .and_then(|servers| servers.shift_remove(&args.name))
        .is_some();
    if !removed {
        println!("Server \"{}\" not found in {scope} settings.", args.name);
        return Ok(());
    }
    write(&file)?;
    if let Some(note) = comments_note(&file) {
        println!("{note}");
    }
    println!("Server \"{}\" removed from {scope} settings.", args.name);
    Ok(())
}
