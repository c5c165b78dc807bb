//! `mcp list`: every configured server (settings, then extensions), its
//! status after a real connection attempt, and its tools.

use super::Env;
use gemini_rs_core::{GeminiPaths, ListingStream, Startup};
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
    // Gemini CLI's words, on the stream the dialect prints the list on.
    let say = |line: String| match startup.dialect().texts().mcp_list {
        ListingStream::Stdout => println!("{line}"),
        ListingStream::Stderr => eprintln!("{line}"),
    };
    if servers.is_empty() {
        say("No MCP servers configured.".into());
        return 0;
    }
    say("Configured MCP servers:\n".into());
    for server in servers {
        let origin = match &server.extension {
            Some(ext) => format!(" (from {ext})"),
            None => String::new(),
        };
        let head = format!("{}{origin}: {}", server.name, server.transport);
        match server.probe {
            ServerProbe::Connected(_) => say(format!("✓ {head} - Connected")),
            // Gemini CLI has no such state (it says Disconnected); the
            // way out is worth a line.
            ServerProbe::NeedsAuthentication => {
                say(format!("! {head} - Needs authentication"));
                say(format!("    Run: gemini-rs mcp auth {}", server.name));
            }
            ServerProbe::Disabled => say(format!("○ {head} - Disabled")),
            ServerProbe::Disconnected(reason) => {
                tracing::debug!("mcp list: {} is disconnected: {reason}", server.name);
                say(format!("✗ {head} - Disconnected"));
            }
        }
    }
    0
}
