//! A typed `/command` line, split the way the slash command handlers
//! read it: the name, the first word after it, and the text after either.

/// A typed `/command` line, split the way handlers read it.
pub struct Args<'a> {
    /// The line without its `/`.
    body: &'a str,
}

impl<'a> Args<'a> {
    /// Splits `line` (`/name sub rest`).
    pub fn new(line: &'a str) -> Args<'a> {
        Args {
            body: line.trim().trim_start_matches('/'),
        }
    }

    /// The command's name as typed.
    pub fn name(&self) -> &'a str {
        self.body.split_whitespace().next().unwrap_or("")
    }

    /// The first word after the name.
    pub fn sub(&self) -> Option<&'a str> {
        self.body.split_whitespace().nth(1)
    }

    /// The text after the name, trimmed.
    pub fn rest(&self) -> String {
        rest_after(self.body, 1)
    }

    /// The text after the name, `None` when there is none.
    pub fn rest_opt(&self) -> Option<String> {
        Some(self.rest()).filter(|r| !r.is_empty())
    }

    /// The text after the name and the first word, trimmed.
    pub fn arg(&self) -> String {
        rest_after(self.body, 2)
    }
}

/// The text after the first `n` words of `body`, trimmed.
fn rest_after(body: &str, n: usize) -> String {
    let mut rest = body.trim_start();
    for _ in 0..n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    rest.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_as_typed() {
        let a = Args::new("  /memory add  I like  tea ");
        assert_eq!((a.name(), a.sub()), ("memory", Some("add")));
        assert_eq!(a.arg(), "I like  tea");
        assert_eq!(a.rest(), "add  I like  tea");
        assert_eq!(Args::new("/model").rest_opt(), None);
        assert_eq!(Args::new("/").name(), "");
    }
}
