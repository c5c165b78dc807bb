//! `extensions list`: one installed extension in Gemini CLI's words (its
//! `toOutputString`; 0.27.4 and 0.61 differ only in how a setting's value
//! shows and whether settings show by default).

use gemini_rs_core::{ExtensionListing, ResolvedSetting, SettingSource};

/// How the settings of an extension are listed.
#[derive(Debug, Clone, Copy)]
pub(super) struct SettingsView {
    /// Whether they are listed at all (`experimental.extensionConfig`).
    pub shown: bool,
    /// Whether an empty value shows as `[not set]` (0.61).
    pub empty_is_unset: bool,
}

/// The lines Gemini CLI prints for `e`.
pub(super) fn describe(e: &ExtensionListing, view: SettingsView) -> String {
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
    if !e.skills.is_empty() {
        out.push_str("\n Agent skills:");
        for (name, description) in &e.skills {
            out.push_str(&format!("\n  {name}: {description}"));
        }
    }
    if view.shown && !e.settings.is_empty() {
        out.push_str("\n Settings:");
        for setting in &e.settings {
            out.push_str(&format!("\n  {}", setting_line(setting, view)));
        }
    }
    out
}

/// `name: value (Scope - source)`: the value is `[not set]` when unset
/// (in 0.61 also when empty) and `***` when secret; the scope names the
/// `.env` that holds it, and is left out (the space before it is not)
/// when none does.
fn setting_line(s: &ResolvedSetting, view: SettingsView) -> String {
    let Some((value, source)) = &s.value else {
        return format!("{}: [not set] ", s.name);
    };
    let scope = match source {
        SettingSource::User(f) => format!("(User - {})", f.display()),
        SettingSource::Workspace(f) => format!("(Workspace - {})", f.display()),
    };
    let shown = if value.is_empty() && view.empty_is_unset {
        "[not set]"
    } else if s.sensitive {
        "***"
    } else {
        value
    };
    format!("{}: {shown} {scope}", s.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn setting(value: Option<&str>, sensitive: bool) -> ResolvedSetting {
        ResolvedSetting {
            name: "Key".into(),
            env_var: "KEY".into(),
            sensitive,
            value: value.map(|v| (v.to_string(), SettingSource::User(PathBuf::from("/e/.env")))),
        }
    }

    const TODAY: SettingsView = SettingsView {
        shown: true,
        empty_is_unset: true,
    };
    const V027: SettingsView = SettingsView {
        shown: true,
        empty_is_unset: false,
    };

    #[test]
    fn secrets_are_starred_and_empty_values_follow_the_dialect() {
        let line = |v, s, view| setting_line(&setting(v, s), view);
        assert_eq!(line(Some("k"), true, TODAY), "Key: *** (User - /e/.env)");
        assert_eq!(line(Some("k"), false, TODAY), "Key: k (User - /e/.env)");
        assert_eq!(line(None, true, TODAY), "Key: [not set] ");
        assert_eq!(
            line(Some(""), true, TODAY),
            "Key: [not set] (User - /e/.env)"
        );
        // 0.27.4 shows an empty value as it is, a secret one starred.
        assert_eq!(line(Some(""), false, V027), "Key:  (User - /e/.env)");
        assert_eq!(line(Some(""), true, V027), "Key: *** (User - /e/.env)");
    }
}
