//! `mcp list`: every configured server (settings, then extensions), its
//! status after a real connection attempt, and its tools.

use super::Env;
use gemini_rs_core::{GeminiPaths, Startup};
use gemini_rs_core::{ServerProbe, list_servers};

/// The start-up load of `cwd` (the project's settings only when the
/// folder is trusted, as for a session).
pub(super) fn startup(env: &Env) -> Result<Startup, String> {
    let paths: GeminiPaths = env.paths.clone();
    Startup::load(env.cwd.clone(), paths, gemini_rs_core::Env::from_process())
        .map_err(|e| e.to_string())
}

/// Gemini CLI 0.61's warning above the list in an untrusted folder.
const UNTRUSTED: &str = "Warning: MCP servers are configured but disabled because this folder is untrusted.\n\
User-level servers are also suppressed in untrusted folders to prevent accidental side-effects.\n";

/// `mcp list`.
pub(super) async fn run(env: &Env) -> i32 {
    let startup = match startup(env) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let servers = if startup.trusted {
        let list = list_servers(&startup).await;
        for refused in &list.refused {
            eprintln!("Warning: {refused}");
        }
        list.servers
    } else {
        // Nothing of an untrusted folder starts: the servers are listed
        // disabled, with Gemini CLI 0.61's warning.
        let servers = match gemini_rs_core::list_untrusted(&startup) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("Error: {e}");
                return 1;
            }
        };
        if !servers.is_empty() {
            eprintln!("{UNTRUSTED}");
        }
        servers
    };
    let trusted = startup.trusted;
    if servers.is_empty() {
        println!("No MCP servers configured.");
        return 0;
    }
    println!("Configured MCP servers:\n");
    for server in servers {
        let origin = match &server.extension {
            Some(ext) => format!(" (from {ext})"),
            None => String::new(),
        };
        let head = format!("{}{origin}: {}", server.name, server.transport);
        match server.probe {
            ServerProbe::Connected(tools) => {
                println!("✓ {head} - Connected");
                if tools.is_empty() {
                    println!("    Tools: (none)");
                } else {
                    println!("    Tools: {}", tools.join(", "));
                }
            }
            ServerProbe::NeedsAuthentication => {
                println!("! {head} - Needs authentication");
                println!("    Run: gemini-rs mcp auth {}", server.name);
            }
            ServerProbe::Disabled => {
                println!("○ {head} - Disabled");
                if trusted {
                    println!("    Run: gemini-rs mcp enable {}", server.name);
                }
            }
            ServerProbe::Disconnected(reason) => {
                println!("✗ {head} - Disconnected");
                println!("    Error: {reason}");
            }
        }
    }
    0
}
