//! `/bug`, `/docs` and `/privacy`: what to paste into a bug report (never
//! a secret: names of settings, not their values), where the docs are,
//! and where the conversation goes.

use serde_json::Value;

/// Facts for a bug report, gathered by the caller.
pub struct BugFacts<'a> {
    /// What the user typed after `/bug`.
    pub description: &'a str,
    /// The session id.
    pub session_id: &'a str,
    /// The model in use.
    pub model: &'a str,
    /// Its provider's id and API root, when known.
    pub provider: Option<(String, Option<String>)>,
    /// Gemini's auth type, when set.
    pub auth_type: Option<String>,
    /// The merged settings.
    pub settings: &'a Value,
    /// `advanced.bugCommand.urlTemplate`, when set.
    pub url_template: Option<&'a str>,
    /// The terminal (`TERM_PROGRAM`, else `TERM`).
    pub terminal: Option<String>,
    /// The colour theme in use.
    pub theme: &'a str,
}

/// The report's lines, then the URL to file it at (when a template is
/// set).
pub fn bug_report(f: &BugFacts<'_>) -> String {
    let provider = match &f.provider {
        Some((id, Some(url))) => format!("{id} ({})", redact_url(url)),
        Some((id, None)) => id.clone(),
        None => "unknown".to_string(),
    };
    let info = [
        ("gemini-rs version", env!("CARGO_PKG_VERSION").to_string()),
        ("Session ID", f.session_id.to_string()),
        (
            "Operating system",
            format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        ),
        (
            "Kernel",
            kernel_release().unwrap_or_else(|| "unknown".into()),
        ),
        ("Model", f.model.to_string()),
        ("Provider", provider),
        (
            "Auth type",
            f.auth_type.clone().unwrap_or_else(|| "none".into()),
        ),
        (
            "Memory use",
            resident_mib().map_or_else(|| "unknown".into(), |m| format!("{m} MiB")),
        ),
        (
            "Terminal",
            f.terminal.clone().unwrap_or_else(|| "unknown".into()),
        ),
        ("Theme", f.theme.to_string()),
        ("Settings in use", settings_keys(f.settings).join(", ")),
    ];
    let info: String = info
        .iter()
        .map(|(k, v)| format!("* **{k}:** {v}\n"))
        .collect();
    let mut out = String::from("Bug report (no keys, tokens or setting values in it):\n\n");
    out.push_str(&info);
    if !f.description.is_empty() {
        out.push_str(&format!("\nProblem: {}\n", f.description));
    }
    match f.url_template {
        Some(template) => {
            let url = template
                .replace("{title}", &percent_encode(f.description))
                .replace("{info}", &percent_encode(&info))
                .replace("{problem}", &percent_encode(f.description));
            out.push_str(&format!("\nTo file it, open:\n{url}\n"));
        }
        None => out.push_str(
            "\nPaste it into your bug report (advanced.bugCommand.urlTemplate sets a URL to file it at).\n",
        ),
    }
    out
}

/// `scheme://host[:port]/path` without user info, query or fragment.
fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let rest = match rest.split_once('/') {
        Some((authority, path)) => {
            let host = authority.rsplit('@').next().unwrap_or(authority);
            format!("{host}/{path}")
        }
        None => rest.rsplit('@').next().unwrap_or(rest).to_string(),
    };
    if scheme.is_empty() {
        rest
    } else {
        format!("{scheme}://{rest}")
    }
}

/// The dotted names of the settings in use, two levels deep; maps of
/// user-chosen names (servers, hooks, providers) give their count only.
pub fn settings_keys(settings: &Value) -> Vec<String> {
    const NAMED: &[&str] = &["mcpServers", "hooks", "model.providers", "model.prices"];
    let mut out = Vec::new();
    let Some(top) = settings.as_object() else {
        return out;
    };
    for (k, v) in top {
        match v.as_object() {
            Some(map) if NAMED.contains(&k.as_str()) => out.push(format!("{k} ({})", map.len())),
            Some(map) if !map.is_empty() => {
                for (k2, v2) in map {
                    let dotted = format!("{k}.{k2}");
                    match v2.as_object() {
                        Some(m) if NAMED.contains(&dotted.as_str()) => {
                            out.push(format!("{dotted} ({})", m.len()))
                        }
                        _ => out.push(dotted),
                    }
                }
            }
            _ => out.push(k.clone()),
        }
    }
    out
}

/// `%`-encodes everything but unreserved characters.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn kernel_release() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string())
}

/// This process's resident memory in MiB (Linux `/proc`).
fn resident_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// `/docs`: where the documentation is.
pub const DOCS: &str = "gemini-rs's documentation is in its repository: README.md, then docs/ (command-line.md, settings.md, tool-names.md, sessions.md, automation.md, hardening.md and more). Gemini CLI's documentation, whose settings and files gemini-rs reads, is at https://goo.gle/gemini-cli-docs";

/// `/privacy`: where prompts go for the provider and auth in use.
pub fn privacy_notice(provider: Option<&(String, Option<String>)>, auth: Option<&str>) -> String {
    let common = "gemini-rs sends your prompts, the files and command output its tools read, and the conversation so far to the model's provider, and nothing anywhere else: no usage statistics (telemetry only when telemetry.enabled is set, to the endpoint you name). Sessions are recorded on this machine under ~/.gemini/tmp.";
    let terms = match provider {
        Some((id, _)) if id == "gemini" => match auth {
            Some("vertex-ai") => "Vertex AI: Google Cloud's terms apply, the Service Specific Terms (https://cloud.google.com/terms/service-terms) under your Google Cloud agreement.".to_string(),
            _ => "Gemini API key: the Google APIs Terms of Service (https://developers.google.com/terms) and the Gemini API Additional Terms of Service (https://ai.google.dev/gemini-api/terms) apply; see them for how Google uses what you send on the free and paid tiers.".to_string(),
        },
        Some((id, url)) => {
            let url = url
                .as_deref()
                .map(redact_url)
                .unwrap_or_else(|| "its default API root".into());
            format!("Provider {id}: requests go to {url}; that service's own terms and privacy policy apply (a local server keeps them on your machine).")
        }
        None => "The model's provider is not known; its terms apply to what you send.".to_string(),
    };
    format!("{terms}\n{common}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn report_names_settings_not_their_values() {
        let settings = json!({
            "general": {"vimMode": true},
            "model": {"name": "openai/gpt-5", "providers": {"corp": {"headers": {"Authorization": "Bearer SECRET-1"}}}},
            "mcpServers": {"gh": {"env": {"GITHUB_TOKEN": "SECRET-2"}}},
            "security": {"auth": {"selectedType": "gemini-api-key"}}
        });
        let facts = BugFacts {
            description: "it broke",
            session_id: "s1",
            model: "openai/gpt-5",
            provider: Some((
                "corp".into(),
                Some("https://user:SECRET-3@llm.example/v1?key=SECRET-4".into()),
            )),
            auth_type: Some("gemini-api-key".into()),
            settings: &settings,
            url_template: Some("https://bugs.example/new?t={title}&i={info}"),
            terminal: Some("tmux".into()),
            theme: "GitHub",
        };
        let report = bug_report(&facts);
        assert!(!report.contains("SECRET"), "{report}");
        assert!(report.contains("https://llm.example/v1"), "{report}");
        assert!(report.contains("general.vimMode"), "{report}");
        assert!(report.contains("model.providers (1)"), "{report}");
        assert!(report.contains("mcpServers (1)"), "{report}");
        assert!(
            report.contains("https://bugs.example/new?t=it%20broke&i="),
            "{report}"
        );
    }

    #[test]
    fn privacy_follows_the_provider() {
        let gemini = ("gemini".to_string(), None);
        assert!(privacy_notice(Some(&gemini), Some("vertex-ai")).contains("Vertex AI"));
        assert!(privacy_notice(Some(&gemini), None).contains("Gemini API"));
        let local = (
            "ollama".to_string(),
            Some("http://127.0.0.1:11434".to_string()),
        );
        assert!(privacy_notice(Some(&local), None).contains("http://127.0.0.1:11434"));
    }
}
