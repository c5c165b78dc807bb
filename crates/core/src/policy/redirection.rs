//! Redirections in a shell command line, quotes respected: an ALLOW rule
//! does not cover a command that writes or reads files through `>`/`<`
//! unless it says so. (Splitting commands is the shell tool's parser.)

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
                if rest.starts_with(">&") && chars.get(i + 2).is_some_and(char::is_ascii_digit) {
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
    fn finds_redirections() {
        assert!(has_redirection("echo hi > f"));
        assert!(has_redirection("cat < f"));
        assert!(has_redirection("ls &> out"));
        assert!(!has_redirection("ls 2>&1"));
        assert!(!has_redirection("echo '>'"));
        assert!(!has_redirection("diff <(a) <(b)"));
    }
}
