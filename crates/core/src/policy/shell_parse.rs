//! A small bash parser for what policy and confirmation need: the simple
//! commands of a command line (split at `|`, `&&`, `||`, `;`, `&` and
//! newlines, also inside subshells, `{ }` groups, `$( )`, backticks and
//! process substitutions) and their root command names.
//!
//! It never fails: unbalanced quotes or brackets simply run to the end of
//! the input.

/// One simple command: its text as written and its words, unquoted.
#[derive(Debug, Clone, PartialEq)]
struct Simple {
    text: String,
    words: Vec<String>,
}

/// Every simple command of `cmd`, trimmed, outer commands before the ones
/// nested in them (`echo $(date)` gives `echo $(date)` then `date`).
pub fn split_commands(cmd: &str) -> Vec<String> {
    parse(cmd).into_iter().map(|s| s.text).collect()
}

/// The words of the first simple command of `cmd` as the shell passes
/// them (quotes and escapes removed), joined by single spaces: what
/// Gemini CLI 0.70 matches prefix and regex rules against beside the
/// text (`git "status"` is `git status`).
pub fn top_level_argv(cmd: &str) -> String {
    parse(cmd)
        .into_iter()
        .next()
        .map(|s| s.words.join(" "))
        .unwrap_or_default()
}

/// The distinct root command names of `cmd` in order of appearance: the
/// first word of every simple command after variable assignments and
/// reserved words, reduced to its base name (`/usr/bin/git` gives `git`).
/// `git status && git diff` gives `["git"]`. Wrappers such as `sudo` are
/// kept as they are.
pub fn root_commands(cmd: &str) -> Vec<String> {
    let mut roots: Vec<String> = Vec::new();
    for simple in parse(cmd) {
        if let Some(root) = root_of(&simple.words)
            && !roots.contains(&root)
        {
            roots.push(root);
        }
    }
    roots
}

/// Gemini CLI's `stripShellWrapper`: drops a leading `sh -c`, `bash -c`,
/// `zsh -c`, `cmd.exe /c` or `powershell … -Command` (and the quotes around
/// the rest, when it is quoted as a whole); otherwise the command trimmed.
pub fn strip_shell_wrapper(cmd: &str) -> String {
    let trimmed = cmd.trim_start();
    let lower = trimmed.to_ascii_lowercase();
    let mut words = lower.split_ascii_whitespace();
    let first = words.next().unwrap_or_default();
    let wrapper: &[&str] = match first {
        "sh" | "bash" | "zsh" => &["-c"],
        "cmd.exe" => &["/c"],
        "powershell" | "powershell.exe" | "pwsh" | "pwsh.exe" => &["-noprofile", "-command"],
        _ => return cmd.trim().to_string(),
    };
    // Walk the original text word by word: `first`, optional `-NoProfile`
    // for PowerShell, then the required flag, then at least one blank.
    let mut rest = &trimmed[first.len()..];
    let mut matched = false;
    for (i, flag) in wrapper.iter().enumerate() {
        let after_blank = rest.trim_start();
        if after_blank.len() == rest.len() {
            break;
        }
        let optional = wrapper.len() == 2 && i == 0;
        let word_len = after_blank
            .find(|c: char| c.is_whitespace())
            .unwrap_or(after_blank.len());
        if after_blank[..word_len].eq_ignore_ascii_case(flag) {
            rest = &after_blank[word_len..];
            matched = i + 1 == wrapper.len();
        } else if !optional {
            break;
        }
    }
    if !matched || rest.trim_start().len() == rest.len() {
        return cmd.trim().to_string();
    }
    let inner = rest.trim();
    let quoted = inner.len() >= 2
        && ((inner.starts_with('"') && inner.ends_with('"'))
            || (inner.starts_with('\'') && inner.ends_with('\'')));
    if quoted {
        inner[1..inner.len() - 1].to_string()
    } else {
        inner.to_string()
    }
}

/// Words that start or end a compound command rather than name one.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac",
];

fn root_of(words: &[String]) -> Option<String> {
    let first = words.iter().find(|w| !is_assignment(w))?;
    let base = first.rsplit('/').next().unwrap_or(first);
    if base.is_empty() {
        return None;
    }
    Some(base.to_string())
}

fn is_assignment(word: &str) -> bool {
    let Some(eq) = word.find('=') else {
        return false;
    };
    let name = word[..eq].trim_end_matches('+');
    let name = match name.find('[') {
        Some(b) if name.ends_with(']') => &name[..b],
        _ => name,
    };
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse(cmd: &str) -> Vec<Simple> {
    let chars: Vec<char> = cmd.chars().collect();
    let mut out = Vec::new();
    let mut p = Parser {
        s: &chars,
        i: 0,
        out: &mut out,
        backticks: 0,
    };
    p.list(None);
    out.into_iter()
        .flatten()
        .filter(|s| !s.text.is_empty())
        .collect()
}

struct Parser<'a, 'o> {
    s: &'a [char],
    i: usize,
    /// Slots in pre-order; `None` for a command that turned out empty.
    out: &'o mut Vec<Option<Simple>>,
    /// Open backtick substitutions (a backtick then closes instead of
    /// opening).
    backticks: usize,
}

impl Parser<'_, '_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    /// Parses a command list until `close` (`)` or a backtick) or the end.
    fn list(&mut self, close: Option<char>) {
        if close == Some('`') {
            self.backticks += 1;
        }
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else { break };
            if Some(c) == close {
                self.i += 1;
                break;
            }
            match c {
                ';' | '&' | '|' | '\n' => self.i += 1,
                '(' => {
                    self.i += 1;
                    self.list(Some(')'));
                }
                ')' | '`' => self.i += 1,
                '#' => self.skip_comment(),
                _ => self.simple(close),
            }
        }
        if close == Some('`') {
            self.backticks -= 1;
        }
    }

    fn skip_blanks(&mut self) {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(' ' | '\t' | '\r'), _) => self.i += 1,
                (Some('\\'), Some('\n')) => self.i += 2,
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                return;
            }
            self.i += 1;
        }
    }

    /// One simple command, up to an operator, `close`, or the end.
    fn simple(&mut self, close: Option<char>) {
        let slot = self.out.len();
        self.out.push(None);
        let mut start: Option<usize> = None;
        let mut end = self.i;
        let mut words: Vec<String> = Vec::new();
        let mut skip_target = false;
        let mut header = false;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else { break };
            let at = self.i;
            if Some(c) == close
                || matches!(c, ';' | '|' | '\n' | ')')
                || (c == '`' && self.backticks > 0)
            {
                break;
            }
            if c == '&' {
                if self.peek(1) != Some('>') {
                    break;
                }
                // `&>file` and `&>>file`.
                self.i += if self.peek(2) == Some('>') { 3 } else { 2 };
                start.get_or_insert(at);
                end = self.i;
                skip_target = true;
                continue;
            }
            if c == '(' {
                if start.is_none() {
                    break;
                }
                if at > 0 && self.s.get(at - 1) == Some(&'=') {
                    // `arr=(a b)`: an array value, not a subshell.
                    self.skip_balanced('(', ')', 0);
                    end = self.i;
                    continue;
                }
                self.i += 1;
                self.list(Some(')'));
                end = self.i;
                continue;
            }
            if c == '#' {
                self.skip_comment();
                break;
            }
            if matches!(c, '<' | '>') && self.peek(1) == Some('(') {
                // Process substitution used as an argument.
                self.i += 2;
                self.list(Some(')'));
                start.get_or_insert(at);
                end = self.i;
                continue;
            }
            if let Some(len) = self.redirection_len() {
                self.i += len;
                start.get_or_insert(at);
                end = self.i;
                if self.s.get(self.i - 1) == Some(&'&') {
                    // `2>&1`, `>&-`: the target follows without a blank.
                    let _ = self.word();
                    end = self.i;
                } else {
                    skip_target = true;
                }
                continue;
            }
            let Some(word) = self.word() else {
                self.i += 1;
                continue;
            };
            end = self.i;
            if std::mem::take(&mut skip_target) {
                continue;
            }
            if start.is_none() && !header {
                let raw: String = self.s[at..self.i].iter().collect();
                if RESERVED.contains(&raw.as_str()) {
                    continue;
                }
                if matches!(raw.as_str(), "for" | "select" | "case") {
                    header = true;
                    continue;
                }
                if raw == "function" {
                    // `function name`: the name is no command either.
                    self.skip_blanks();
                    let _ = self.word();
                    continue;
                }
            }
            if header {
                continue;
            }
            start.get_or_insert(at);
            words.push(word);
        }
        if let (Some(start), false) = (start, words.is_empty()) {
            let text: String = self.s[start..end.max(start)].iter().collect();
            if let Some(s) = self.out.get_mut(slot) {
                *s = Some(Simple {
                    text: text.trim().to_string(),
                    words,
                });
            }
        }
    }

    /// Length of a redirection operator at the cursor (`>`, `2>>`, `<&`,
    /// `&>` …), if there is one.
    fn redirection_len(&self) -> Option<usize> {
        let mut k = 0;
        while matches!(self.peek(k), Some(c) if c.is_ascii_digit()) {
            k += 1;
        }
        match self.peek(k) {
            Some('>') | Some('<') => {}
            _ => return None,
        }
        if self.peek(k + 1) == Some('(') {
            return None;
        }
        let first = self.peek(k);
        k += 1;
        match (first, self.peek(k)) {
            (Some('>'), Some('>' | '&' | '|')) | (Some('<'), Some('&' | '>')) => k += 1,
            (Some('<'), Some('<')) => {
                k += 1;
                if matches!(self.peek(k), Some('<' | '-')) {
                    k += 1;
                }
            }
            _ => {}
        }
        Some(k)
    }

    /// Reads one word, unquoting it and parsing the commands nested in it.
    fn word(&mut self) -> Option<String> {
        let mut w = String::new();
        let mut any = false;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\\' => {
                    if let Some(n) = self.peek(1) {
                        if n != '\n' {
                            w.push(n);
                        }
                        self.i += 2;
                    } else {
                        self.i += 1;
                    }
                }
                '\'' => {
                    self.i += 1;
                    while let Some(q) = self.peek(0) {
                        self.i += 1;
                        if q == '\'' {
                            break;
                        }
                        w.push(q);
                    }
                }
                '"' => {
                    self.i += 1;
                    self.double_quoted(&mut w);
                }
                '`' if self.backticks > 0 => break,
                '`' => {
                    self.i += 1;
                    self.list(Some('`'));
                    w.push_str("`…`");
                }
                '$' => self.dollar(&mut w),
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
            any = true;
        }
        any.then_some(w)
    }

    fn double_quoted(&mut self, w: &mut String) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return;
                }
                '\\' => {
                    if let Some(n) = self.peek(1) {
                        if !matches!(n, '"' | '\\' | '$' | '`') {
                            w.push('\\');
                        }
                        if n != '\n' {
                            w.push(n);
                        }
                        self.i += 2;
                    } else {
                        self.i += 1;
                    }
                }
                '`' => {
                    self.i += 1;
                    self.list(Some('`'));
                    w.push_str("`…`");
                }
                '$' => self.dollar(w),
                _ => {
                    w.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// `$(…)`, `$((…))`, `${…}` or a plain `$`.
    fn dollar(&mut self, w: &mut String) {
        match (self.peek(1), self.peek(2)) {
            (Some('('), Some('(')) => {
                self.i += 3;
                self.skip_balanced('(', ')', 2);
                w.push_str("$((…))");
            }
            (Some('('), _) => {
                self.i += 2;
                self.list(Some(')'));
                w.push_str("$(…)");
            }
            (Some('{'), _) => {
                self.i += 2;
                self.skip_balanced('{', '}', 1);
                w.push_str("${…}");
            }
            _ => {
                w.push('$');
                self.i += 1;
            }
        }
    }

    fn skip_balanced(&mut self, open: char, close: char, mut depth: usize) {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "shell_parse_tests.rs"]
mod tests;
