//! Tool names for MCP tools (§6.3): `generateValidName`, and the
//! `<server>__<validName>` form used on a clash and as a lookup alias, and
//! the later `mcp_<server>_<tool>` alias.

/// Gemini CLI's `generateValidName`: every character outside
/// `[a-zA-Z0-9_.-]` becomes `_` (one per UTF-16 code unit, as JavaScript
/// counts), and a result longer than 63 characters becomes its first 28
/// characters, `___`, and its last 32.
pub fn generate_valid_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('_');
            }
        }
    }
    if out.len() > 63 {
        // All ASCII now, so byte slicing is safe.
        let head = &out[..28];
        let tail = &out[out.len() - 32..];
        return format!("{head}___{tail}");
    }
    out
}

/// `<server>__<validName(tool)>`: the qualified name of an MCP tool.
pub fn qualified_name(server: &str, tool: &str) -> String {
    format!("{server}__{}", generate_valid_name(tool))
}

/// `mcp_<server>_<tool>`, sanitized and shortened like any name: the form
/// later Gemini CLI releases give MCP tools, accepted as a lookup alias.
pub fn mcp_prefixed_name(server: &str, tool: &str) -> String {
    generate_valid_name(&format!("mcp_{server}_{tool}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes() {
        assert_eq!(generate_valid_name("do.it!"), "do.it_");
        assert_eq!(generate_valid_name("a b/c"), "a_b_c");
        assert_eq!(generate_valid_name("ok-name_1.x"), "ok-name_1.x");
        // One astral character is two UTF-16 code units.
        assert_eq!(generate_valid_name("a😀"), "a__");
        assert_eq!(generate_valid_name("é"), "_");
    }

    #[test]
    fn shortens() {
        let long: String = (0..70).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let v = generate_valid_name(&long);
        assert_eq!(v.len(), 63);
        assert_eq!(&v[..28], &long[..28]);
        assert_eq!(&v[28..31], "___");
        assert_eq!(&v[31..], &long[38..]);
        let exact: String = "x".repeat(63);
        assert_eq!(generate_valid_name(&exact), exact);
    }

    #[test]
    fn qualified() {
        assert_eq!(qualified_name("my-srv", "do.it!"), "my-srv__do.it_");
        assert_eq!(mcp_prefixed_name("my srv", "do.it!"), "mcp_my_srv_do.it_");
    }
}
