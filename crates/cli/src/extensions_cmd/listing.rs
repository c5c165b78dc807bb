//! `extensions list`: one installed extension in Gemini CLI's words (its
//! `toOutputString`, the same in 0.27.4 and 0.61).

use gemini_rs_core::ExtensionListing;

/// The lines Gemini CLI prints for `e`.
pub(super) fn describe(e: &ExtensionListing) -> String {
    let mut out = format!(
        "{} {} ({})",
        if e.enabled { "✓" } else { "✗" },
        e.name,
        e.version
    );
    out.push_str(&format!("\n ID: {}", e.id));
    out.push_str(&format!("\n name: {}", e.name_hash));
    out.push_str(&format!("\n Path: {}", e.path.display()));
    if let Some((source, kind)) = &e.source {
        out.push_str(&format!("\n Source: {source} (Type: {kind})"));
    }
    out.push_str(&format!("\n Enabled (User): {}", e.enabled_user));
    out.push_str(&format!("\n Enabled (Workspace): {}", e.enabled));
    if !e.context_files.is_empty() {
        out.push_str("\n Context files:");
        for file in &e.context_files {
            out.push_str(&format!("\n  {}", file.display()));
        }
    }
    if !e.servers.is_empty() {
        out.push_str("\n MCP servers:");
        for server in &e.servers {
            out.push_str(&format!("\n  {server}"));
        }
    }
    if !e.exclude_tools.is_empty() {
        out.push_str("\n Excluded tools:");
        for tool in &e.exclude_tools {
            out.push_str(&format!("\n  {tool}"));
        }
    }
    out
}
