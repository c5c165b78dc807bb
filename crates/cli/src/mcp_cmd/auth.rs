//! `mcp auth <name>`: logs in to an OAuth-protected server now (the
//! authorization URL opens in the browser, or is printed to open by hand)
//! and keeps the tokens for both CLIs; `--logout` forgets them.

use super::{AuthArgs, Env};

/// `mcp auth`.
pub(super) async fn run(env: &Env, args: &AuthArgs) -> i32 {
    let server = match super::list::startup(env)
        .and_then(|s| gemini_rs_core::oauth_server(&s, &args.name).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let name = server.name();
    if args.logout {
        return match server.logout().await {
            Ok(()) => {
                println!("Logged out of '{name}'.");
                0
            }
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        };
    }
    eprintln!("Authenticating with MCP server '{name}'...");
    let show = |auth_url: &str| {
        eprintln!("Open this URL in a browser to authorize '{name}':\n{auth_url}");
    };
    match server.login(&show).await {
        Ok(()) => {
            println!("Authenticated with MCP server '{name}'.");
            0
        }
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}
