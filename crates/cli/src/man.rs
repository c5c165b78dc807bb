//! The man pages, from the argument definitions: gemini-rs(1) with its
//! EXIT STATUS, ENVIRONMENT and FILES sections, and one page for each
//! subcommand it names (gemini-rs-mcp(1), gemini-rs-mcp-add(1), ...).

use crate::exit::{CLOSED_OUTPUT, ExitCode};
use clap_mangen::Man;
use std::path::{Path, PathBuf};

/// The variables gemini-rs reads, with what each does.
const ENVIRONMENT: [(&str, &str); 21] = [
    ("GEMINI_API_KEY", "The Gemini API key (Google AI Studio)."),
    (
        "GOOGLE_API_KEY",
        "A Google Cloud API key (Vertex AI express mode, with GOOGLE_GENAI_USE_VERTEXAI=true).",
    ),
    (
        "GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION",
        "The Vertex AI project and region.",
    ),
    (
        "GOOGLE_GEMINI_BASE_URL",
        "Another endpoint for the Gemini API (a proxy, a test server).",
    ),
    (
        "GEMINI_MODEL",
        "The model when no -m flag names one (before model.name in settings).",
    ),
    (
        "OPENAI_API_KEY, OPENAI_BASE_URL",
        "The key and endpoint of the openai provider (-m openai/<model>).",
    ),
    (
        "ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL",
        "The key and endpoint of the anthropic provider (-m anthropic/<model>).",
    ),
    (
        "OLLAMA_HOST",
        "Where the ollama provider's server listens (default http://127.0.0.1:11434).",
    ),
    (
        "GEMINI_CLI_HOME",
        "The folder that holds .gemini/ instead of the home folder.",
    ),
    (
        "GEMINI_CLI_TRUST_WORKSPACE",
        "true: the current folder is trusted for this run (CI, containers).",
    ),
    (
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
        "The system settings file (default /etc/gemini-cli/settings.json).",
    ),
    (
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
        "The system defaults file (default /etc/gemini-cli/system-defaults.json).",
    ),
    (
        "GEMINI_SYSTEM_MD",
        "true or a path: the system prompt is read from ~/.gemini/system.md or that file.",
    ),
    (
        "GEMINI_SANDBOX",
        "true, 1 or native: the native sandbox for commands (over -s and tools.sandbox); false or 0: none.",
    ),
    (
        "GEMINI_TELEMETRY_TARGET",
        "Where telemetry goes (local or gcp), as telemetry.target.",
    ),
    (
        "GEMINI_TELEMETRY_OTLP_ENDPOINT",
        "An OTLP collector for telemetry, as telemetry.otlpEndpoint.",
    ),
    (
        "GEMINI_TELEMETRY_OTLP_PROTOCOL",
        "grpc or http, as telemetry.otlpProtocol.",
    ),
    (
        "GEMINI_TELEMETRY_OUTFILE",
        "A file telemetry is written to, as telemetry.outfile.",
    ),
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "The OTLP collector when no setting names one.",
    ),
    ("NO_COLOR", "Set: no colours in the output."),
    (
        "TRACEPARENT, TRACESTATE",
        "A W3C trace context the run's spans continue.",
    ),
];

/// The files gemini-rs reads and writes, with what each holds.
const FILES: [(&str, &str); 10] = [
    (
        "~/.gemini/settings.json",
        "The user's settings (JSON with comments).",
    ),
    (
        ".gemini/settings.json",
        "The project's settings, read in a trusted folder only.",
    ),
    (
        "/etc/gemini-cli/settings.json",
        "System settings, over the user's and the project's.",
    ),
    (
        "~/.gemini/trustedFolders.json",
        "The folders trusted (or not) and how.",
    ),
    (
        "GEMINI.md",
        "Context files, in the home folder's .gemini/ and from the project root up and down.",
    ),
    (
        ".env",
        "Variables read from the first .gemini/.env or .env from the project root up, else ~/.gemini/.env or ~/.env; set variables win.",
    ),
    (
        "~/.gemini/tmp/<project>/chats/",
        "Recorded sessions (--resume, --list-sessions), 0600.",
    ),
    (
        "~/.gemini/commands/, .gemini/commands/",
        "Custom slash commands (TOML).",
    ),
    (
        "~/.gemini/extensions/",
        "Installed extensions (gemini-rs extensions).",
    ),
    (
        "~/.gemini/policies/, .gemini/policies/",
        "Policy rules (TOML).",
    ),
];

/// Escapes `text` for a roff text line.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// A section of tagged paragraphs: `tag` in bold, `text` below it.
fn tagged_section(heading: &str, items: &[(String, &str)]) -> String {
    let mut out = format!(".SH \"{heading}\"\n");
    for (tag, text) in items {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff_text(tag),
            roff_text(text)
        ));
    }
    out
}

/// The sections only the main page has.
fn main_sections() -> String {
    let mut codes: Vec<(String, &str)> = ExitCode::ALL
        .iter()
        .map(|c| (c.code().to_string(), c.meaning()))
        .collect();
    codes.push((
        CLOSED_OUTPUT.to_string(),
        "The reader of the output went away (SIGPIPE, e.g. | head).",
    ));
    let env: Vec<(String, &str)> = ENVIRONMENT
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let files: Vec<(String, &str)> = FILES.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    [
        tagged_section("EXIT STATUS", &codes),
        tagged_section("ENVIRONMENT", &env),
        tagged_section("FILES", &files),
    ]
    .concat()
}

/// The page of `cmd` (built); the main page when `main`.
fn page(cmd: &clap::Command, main: bool) -> std::io::Result<Vec<u8>> {
    let man = Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd
        .get_arguments()
        .any(|a| !a.is_hide_set() && a.get_id() != "help")
    {
        man.render_options_section(&mut out)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    if cmd.get_after_long_help().is_some() || cmd.get_after_help().is_some() {
        man.render_extra_section(&mut out)?;
    }
    if main {
        out.extend_from_slice(main_sections().as_bytes());
    }
    if cmd.get_version().is_some() || cmd.get_long_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

/// The whole tree, built (subcommands know their page names).
fn built(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// gemini-rs(1).
pub fn main_page(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    page(&built(cmd), true)
}

/// Every page, `(file name, roff)`: gemini-rs.1 and one for each
/// subcommand at any depth.
fn all_pages(
    cmd: &clap::Command,
    main: bool,
    out: &mut Vec<(String, Vec<u8>)>,
) -> std::io::Result<()> {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    out.push((format!("{name}.1"), page(cmd, main)?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        all_pages(sub, false, out)?;
    }
    Ok(())
}

/// Writes every page into `dir` (made when missing); the files written.
/// Every page is rendered before the first is written.
pub fn write_pages(cmd: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut pages = Vec::new();
    all_pages(&built(cmd), true, &mut pages)?;
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, roff) in pages {
        let path = dir.join(name);
        std::fs::write(&path, roff)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_escapes_leading_dots_and_dashes() {
        assert_eq!(roff_text(".env"), "\\&.env");
        assert_eq!(roff_text("--dir a\\b"), "\\-\\-dir a\\eb");
    }
}
