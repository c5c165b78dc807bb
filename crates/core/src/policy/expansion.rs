//! Gemini CLI 0.70's rule for variables: a shell command that expands a
//! variable the environment does not set (`$VAR`, `${VAR}`) asks for
//! consent even under an allow rule, since what it runs is not what the
//! rule was written for. Single-quoted text expands nothing; `${VAR:-x}`
//! and the other forms with a default count as resolved; special
//! parameters (`$1`, `$?`, `$$`, ...) and `$(...)` are not variables.

/// The variables `command` expands that `is_set` does not know, in order.
pub fn unresolved_variables(command: &str, is_set: &dyn Fn(&str) -> bool) -> Vec<String> {
    let chars: Vec<char> = command.chars().collect();
    let mut out = Vec::new();
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => i += 1,
            '$' if !single => {
                if let Some((name, defaulted, len)) = reference(&chars[i + 1..]) {
                    if !defaulted && !is_set(&name) && !out.contains(&name) {
                        out.push(name);
                    }
                    i += len;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The variable after a `$`: its name, whether a default covers it, and
/// how many characters it takes; `None` for anything else.
fn reference(after: &[char]) -> Option<(String, bool, usize)> {
    let is_start = |c: &char| c.is_ascii_alphabetic() || *c == '_';
    let is_part = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    if after.first() == Some(&'{') {
        let close = after.iter().position(|c| *c == '}')?;
        let body = &after[1..close];
        let body = body.strip_prefix(&['#']).unwrap_or(body);
        if !body.first().is_some_and(is_start) {
            return None;
        }
        let end = body.iter().position(|c| !is_part(c)).unwrap_or(body.len());
        let rest: String = body[end..].iter().collect();
        let defaulted = ["-", ":-", "=", ":=", "+", ":+", ":?", "?"]
            .iter()
            .any(|op| rest.starts_with(op));
        return Some((body[..end].iter().collect(), defaulted, close + 1));
    }
    if !after.first().is_some_and(is_start) {
        return None;
    }
    let end = after
        .iter()
        .position(|c| !is_part(c))
        .unwrap_or(after.len());
    Some((after[..end].iter().collect(), false, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unresolved(command: &str) -> Vec<String> {
        unresolved_variables(command, &|n| n == "HOME" || n == "EMPTY")
    }

    #[test]
    fn unset_variables_are_found_outside_single_quotes() {
        assert_eq!(unresolved("echo $NOPE ${ALSO} $HOME"), ["NOPE", "ALSO"]);
        assert_eq!(
            unresolved("echo \"$NOPE/x\" '$QUOTED' \\$ESCAPED"),
            ["NOPE"]
        );
        assert_eq!(
            unresolved("echo ${NOPE:-x} ${NOPE-y} $EMPTY ${#HOME}"),
            Vec::<String>::new()
        );
        assert_eq!(
            unresolved("echo $1 $? $$ $(date) $((1+2)) $@ cost: 5$"),
            Vec::<String>::new()
        );
        assert_eq!(unresolved("echo ${#NOPE} $NOPE $NOPE"), ["NOPE"]);
    }
}
