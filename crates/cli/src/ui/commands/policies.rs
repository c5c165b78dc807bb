//! `/policies [list]`: the policy rules in force, grouped by approval mode
//! as Gemini CLI groups them (a mode's section lists only the rules the
//! normal mode does not already have).

use gemini_rs_core::PolicyListing;
use gemini_rs_protocol::events::ApprovalMode;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// The sections, in order.
const SECTIONS: &[(ApprovalMode, &str)] = &[
    (ApprovalMode::Default, "Normal mode"),
    (
        ApprovalMode::AutoEdit,
        "Auto-edit mode (adds to normal mode)",
    ),
    (ApprovalMode::Yolo, "YOLO mode (adds to normal mode)"),
    (ApprovalMode::Plan, "Plan mode (adds to normal mode)"),
];

fn applies(rule: &PolicyListing, mode: ApprovalMode) -> bool {
    rule.modes.is_empty() || rule.modes.contains(&mode)
}

/// One rule's line.
fn rule_line(n: usize, r: &PolicyListing) -> Line<'static> {
    let color = match r.decision {
        "allow" => Color::Green,
        "deny" => Color::Red,
        _ => Color::Yellow,
    };
    let target = if r.tool_name == "*" {
        "all tools".to_string()
    } else {
        format!("tool: {}", r.tool_name)
    };
    let mut rest = String::new();
    if !r.command_prefixes.is_empty() {
        rest.push_str(&format!(
            " (command starts with: {})",
            r.command_prefixes.join(" | ")
        ));
    }
    if let Some(p) = &r.args_pattern {
        rest.push_str(&format!(" (args match: {p})"));
    }
    rest.push_str(&format!(" [priority {:.3}]", r.priority));
    if !r.source.is_empty() {
        rest.push_str(&format!(" [{}]", r.source));
    }
    Line::from(vec![
        Span::raw(format!("  {n}. ")),
        Span::styled(
            r.decision.to_uppercase(),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!(" {target}")),
        Span::styled(rest, Style::new().fg(Color::DarkGray)),
    ])
}

/// The listing.
pub fn lines(rules: &[PolicyListing]) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    if rules.is_empty() {
        return vec![Line::from("No policy rules are in force.")];
    }
    let mut out = vec![Line::from(Span::styled("Policy rules in force", bold))];
    for (mode, title) in SECTIONS {
        let picked: Vec<&PolicyListing> = rules
            .iter()
            .filter(|r| applies(r, *mode))
            .filter(|r| *mode == ApprovalMode::Default || !applies(r, ApprovalMode::Default))
            .collect();
        out.push(Line::default());
        out.push(Line::from(Span::styled(title.to_string(), bold)));
        if picked.is_empty() {
            out.push(Line::from(Span::styled(
                "  (none)",
                Style::new().fg(Color::DarkGray),
            )));
        }
        for (i, r) in picked.iter().enumerate() {
            out.push(rule_line(i + 1, r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tool: &str, modes: &[ApprovalMode]) -> PolicyListing {
        PolicyListing {
            tool_name: tool.into(),
            decision: "allow",
            priority: 2.1,
            modes: modes.to_vec(),
            args_pattern: None,
            command_prefixes: vec!["git".into()],
            source: "User: /h/.gemini/policies/a.toml".into(),
        }
    }

    #[test]
    fn groups_by_mode_without_repeating_normal_rules() {
        let rules = [
            rule("run_shell_command", &[]),
            rule("*", &[ApprovalMode::Yolo]),
        ];
        let text: Vec<String> = lines(&rules).iter().map(ToString::to_string).collect();
        let yolo = text.iter().position(|l| l.starts_with("YOLO")).unwrap_or(0);
        assert!(text[yolo + 1].contains("ALLOW all tools"), "{text:#?}");
        assert_eq!(
            text.iter()
                .filter(|l| l.contains("run_shell_command"))
                .count(),
            1
        );
        assert!(text[3].contains("command starts with: git"), "{text:#?}");
        assert!(text[3].contains("[User: /h/.gemini/policies/a.toml]"));
    }
}
