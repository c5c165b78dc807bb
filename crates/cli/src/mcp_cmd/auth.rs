//! `mcp auth <name>`: logs in to an OAuth-protected server now (the
//! authorization URL opens in the browser, or is printed to open by hand)
//! and keeps the tokens for both CLIs; `--logout` forgets them.

use super::{AuthArgs, Env};
use gemini_rs_core::tools::mcp::client::{login, server_url};
use gemini_rs_core::tools::mcp::extensions::{load_extensions, merge_servers};
use gemini_rs_core::tools::mcp::{config, oauth};

/// `mcp auth`.
pub(super) async fn run(env: &Env, args: &AuthArgs) -> i32 {
    let settings = match super::list::load_settings(env) {
        Ok((s, _)) => s,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let servers = merge_servers(
        config::configured_servers(&settings),
        &load_extensions(&env.paths, &env.cwd),
    );
    let Some(server) = servers.into_iter().find(|s| s.name == args.name) else {
        eprintln!("Error: no MCP server named '{}' is configured.", args.name);
        return 1;
    };
    let Some(url) = server_url(&server).map(str::to_string) else {
        eprintln!(
            "Error: '{}' is a stdio server; only HTTP and SSE servers log in.",
            args.name
        );
        return 1;
    };
    if args.logout {
        return match oauth::logout(&server.name, &url).await {
            Ok(()) => {
                println!("Logged out of '{}'.", server.name);
                0
            }
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        };
    }
    eprintln!("Authenticating with MCP server '{}'...", server.name);
    let show = |auth_url: &str| {
        eprintln!(
            "Open this URL in a browser to authorize '{}':\n{auth_url}",
            server.name
        );
    };
    match login(&server, "", Some(&show)).await {
        Ok(()) => {
            println!("Authenticated with MCP server '{}'.", server.name);
            0
        }
        Err(e) => {
            eprintln!("Error: MCP server '{}' {e}", server.name);
            1
        }
    }
}
