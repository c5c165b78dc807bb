//! `mcp list`: every configured server (settings, then extensions), its
//! status after a real connection attempt, and its tools.

use super::Env;
use gemini_rs_core::config::{Settings, trust};
use gemini_rs_core::tools::mcp::extensions::{load_extensions, merge_servers};
use gemini_rs_core::tools::mcp::{McpManager, McpServerConfig, TransportSpec, config};
use std::time::Duration;

/// How long `list` waits for one server.
const PROBE_LIMIT: Duration = Duration::from_secs(10);

/// The merged settings of `cwd`: the project layer only when the folder
/// is trusted, as for a session.
pub(super) fn load_settings(env: &Env) -> Result<(Settings, bool), String> {
    let var = |k: &str| std::env::var(k).ok();
    let untrusted = Settings::load(&env.cwd, &env.paths, false, &var).map_err(|e| e.to_string())?;
    let trusted = matches!(
        trust::is_trusted(
            untrusted.settings.folder_trust_enabled(),
            &env.cwd,
            &env.paths
        ),
        Ok(trust::Trust::Trusted)
    );
    if !trusted {
        return Ok((untrusted.settings, false));
    }
    let settings = Settings::load(&env.cwd, &env.paths, true, &var).map_err(|e| e.to_string())?;
    Ok((settings.settings, true))
}

/// `<command args> (stdio)`, `<url> (http)`, `<url> (sse)`.
fn describe(c: &McpServerConfig) -> String {
    match &c.transport {
        TransportSpec::Stdio { command, args, .. } => {
            format!("{command} {} (stdio)", args.join(" "))
        }
        TransportSpec::Http(url) | TransportSpec::HttpThenSse(url) => format!("{url} (http)"),
        TransportSpec::Sse(url) => format!("{url} (sse)"),
        TransportSpec::Invalid => "(invalid configuration)".to_string(),
    }
}

/// `mcp list`.
pub(super) async fn run(env: &Env) -> i32 {
    let (settings, _trusted) = match load_settings(env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let extensions = load_extensions(&env.paths, &env.cwd);
    let servers = merge_servers(config::configured_servers(&settings), &extensions);
    if servers.is_empty() {
        println!("No MCP servers configured.");
        return 0;
    }
    let from_extension = |name: &str| {
        extensions
            .iter()
            .find(|e| e.servers.iter().any(|s| s.name == name))
            .map(|e| e.name.clone())
    };
    let dirs = [env.cwd.clone()];
    let probes = servers
        .iter()
        .map(|c| McpManager::probe(c.clone(), &dirs, PROBE_LIMIT));
    let results = futures::future::join_all(probes).await;
    println!("Configured MCP servers:\n");
    for (server, result) in servers.iter().zip(results) {
        let origin = match from_extension(&server.name) {
            Some(ext) if !is_in_settings(&settings, &server.name) => format!(" (from {ext})"),
            _ => String::new(),
        };
        let head = format!("{}{origin}: {}", server.name, describe(server));
        match result {
            Ok(tools) => {
                println!("✓ {head} - Connected");
                if tools.is_empty() {
                    println!("    Tools: (none)");
                } else {
                    println!("    Tools: {}", tools.join(", "));
                }
            }
            Err(reason) if reason.starts_with("needs authentication") => {
                println!("! {head} - Needs authentication");
                println!("    Run: gemini-rs mcp auth {}", server.name);
            }
            Err(reason) => {
                println!("✗ {head} - Disconnected");
                println!("    Error: {reason}");
            }
        }
    }
    0
}

fn is_in_settings(settings: &Settings, name: &str) -> bool {
    settings.typed().mcp_servers.contains_key(name)
}
