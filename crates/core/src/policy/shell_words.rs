//! Just enough shell syntax for policy: split a command line into its
//! simple commands (across `&&`, `||`, `;`, `|`, `&`, newlines, subshells
//! and command substitutions) and spot redirections, quotes respected.

/// The simple commands of `command`, trimmed, in order; the contents of
/// `$( )`, backticks and `( )` subshells count as commands of their own.
pub fn split_commands(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_into(command, &mut out);
    out.retain(|c| !c.is_empty());
    out
}

fn split_into(command: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = command.chars().collect();
    let mut current = String::new();
    let mut i = 0;
    let flush = |current: &mut String, out: &mut Vec<String>| {
        let t = current.trim();
        if !t.is_empty() {
            out.push(t.to_string());
        }
        current.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                current.push(c);
                if let Some(n) = chars.get(i + 1) {
                    current.push(*n);
                }
                i += 2;
            }
            '\'' => {
                let end = find_from(&chars, i + 1, '\'');
                current.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            '"' => {
                let end = closing_double_quote(&chars, i + 1);
                let inner: String = chars[i + 1..end.saturating_sub(1).max(i + 1)]
                    .iter()
                    .collect();
                extract_substitutions(&inner, out);
                current.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                let end = matching_paren(&chars, i + 1);
                let inner: String = chars[i + 2..end.saturating_sub(1).max(i + 2)]
                    .iter()
                    .collect();
                split_into(&inner, out);
                current.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            '`' => {
                let end = find_from(&chars, i + 1, '`');
                let inner: String = chars[i + 1..end.saturating_sub(1).max(i + 1)]
                    .iter()
                    .collect();
                split_into(&inner, out);
                current.extend(&chars[i..end.min(chars.len())]);
                i = end;
            }
            '(' if current.trim().is_empty() => {
                let end = matching_paren(&chars, i);
                let inner: String = chars[i + 1..end.saturating_sub(1).max(i + 1)]
                    .iter()
                    .collect();
                split_into(&inner, out);
                i = end;
            }
            '&' if chars.get(i + 1) == Some(&'&') => {
                flush(&mut current, out);
                i += 2;
            }
            '|' if chars.get(i + 1) == Some(&'|') => {
                flush(&mut current, out);
                i += 2;
            }
            '&' if matches!(chars.get(i + 1), Some('>'))
                || current.ends_with('>')
                || current.ends_with('<') =>
            {
                current.push(c);
                i += 1;
            }
            ';' | '|' | '&' | '\n' => {
                flush(&mut current, out);
                i += 1;
            }
            _ => {
                current.push(c);
                i += 1;
            }
        }
    }
    flush(&mut current, out);
}

/// Index just past the next `ch` at or after `from` (or the end).
fn find_from(chars: &[char], from: usize, ch: char) -> usize {
    chars[from.min(chars.len())..]
        .iter()
        .position(|c| *c == ch)
        .map(|p| from + p + 1)
        .unwrap_or(chars.len())
}

fn closing_double_quote(chars: &[char], from: usize) -> usize {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// Index just past the `)` matching the `(` at `open`.
fn matching_paren(chars: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' => i = find_from(chars, i + 1, '\'') - 1,
            '"' => i = closing_double_quote(chars, i + 1) - 1,
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// `$( )` and backticks inside double quotes still run commands.
fn extract_substitutions(inner: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = inner.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && chars.get(i + 1) == Some(&'(') {
            let end = matching_paren(&chars, i + 1);
            let sub: String = chars[i + 2..end.saturating_sub(1).max(i + 2)]
                .iter()
                .collect();
            split_into(&sub, out);
            i = end;
        } else if chars[i] == '`' {
            let end = find_from(&chars, i + 1, '`');
            let sub: String = chars[i + 1..end.saturating_sub(1).max(i + 1)]
                .iter()
                .collect();
            split_into(&sub, out);
            i = end;
        } else {
            i += 1;
        }
    }
}

/// True when the command redirects input or output (`>`, `>>`, `<`, `&>`,
/// `2>`), outside quotes. `2>&1` alone does not count.
pub fn has_redirection(command: &str) -> bool {
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '\'' => i = find_from(&chars, i + 1, '\''),
            '"' => i = closing_double_quote(&chars, i + 1),
            '>' | '<' => {
                let rest: String = chars[i..].iter().take(4).collect();
                if rest.starts_with(">&") && chars.get(i + 2).is_some_and(|c| c.is_ascii_digit()) {
                    i += 3;
                    continue;
                }
                if chars[i] == '<' && chars.get(i + 1) == Some(&'(') {
                    i += 1;
                    continue;
                }
                return true;
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_compound_commands() {
        assert_eq!(
            split_commands("git status && git diff"),
            vec!["git status", "git diff"]
        );
        assert_eq!(
            split_commands("a | b; c || d & e"),
            vec!["a", "b", "c", "d", "e"]
        );
        assert_eq!(
            split_commands("echo 'a && b' \"c;d\""),
            vec!["echo 'a && b' \"c;d\""]
        );
        assert_eq!(
            split_commands("echo $(rm -rf x; ls)"),
            vec!["rm -rf x", "ls", "echo $(rm -rf x; ls)"]
        );
        assert_eq!(
            split_commands("(cd a && make) | tee log"),
            vec!["cd a", "make", "tee log"]
        );
        assert_eq!(
            split_commands("echo \"$(whoami)\""),
            vec!["whoami", "echo \"$(whoami)\""]
        );
        assert_eq!(
            split_commands("ls 2>&1 | grep x"),
            vec!["ls 2>&1", "grep x"]
        );
        assert_eq!(split_commands("  "), Vec::<String>::new());
    }

    #[test]
    fn finds_redirections() {
        assert!(has_redirection("echo hi > f"));
        assert!(has_redirection("cat < f"));
        assert!(has_redirection("ls &> out"));
        assert!(!has_redirection("ls 2>&1"));
        assert!(!has_redirection("echo '>'"));
        assert!(!has_redirection("diff <(a) <(b)"));
    }
}
