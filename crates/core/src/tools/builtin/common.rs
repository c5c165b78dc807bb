//! Helpers the built-in tools share: parsing arguments into a tool's typed
//! params struct, parameter aliases, Node-style I/O error texts and
//! JavaScript's `localeCompare`.

use crate::tools::ToolError;
use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::path::Path;

/// A tool's parameter aliases: `(alias, canonical)` pairs (names of later
/// Gemini CLI versions and their v0.27.4 names).
pub(super) type Aliases = &'static [(&'static str, &'static str)];

/// Renames each alias in `args` to its canonical name when the canonical
/// name is absent. The registry calls this with the tool spec's
/// `param_aliases` before schema validation, because the schema's `required` lists
/// canonical names only.
pub(crate) fn move_aliases(args: &mut Map<String, Value>, aliases: Aliases) {
    for (alias, canonical) in aliases {
        if !args.contains_key(*canonical)
            && let Some(v) = args.remove(*alias)
        {
            args.insert((*canonical).to_string(), v);
        }
    }
}

/// Parses arguments that passed the schema into the tool's params struct
/// (parse, don't validate). The struct names the same aliases with
/// `#[serde(alias)]`, so it also reads arguments nobody normalised; an
/// alias next to its canonical name is dropped first (the canonical one
/// wins, as in [`move_aliases`]), since serde would call the pair a
/// duplicate field.
///
/// A failure means the schema let through something the struct does not
/// take; its text names the field.
pub(super) fn parse_params<P: DeserializeOwned>(
    args: &Map<String, Value>,
    aliases: Aliases,
) -> Result<P, ToolError> {
    let mut args = args.clone();
    for (alias, canonical) in aliases {
        if args.contains_key(*canonical) {
            args.remove(*alias);
        }
    }
    P::deserialize(Value::Object(args))
        .map_err(|e| ToolError::invalid_params(format!("Invalid parameters: {e}")))
}

/// For parameters outside the schema (internal ones such as
/// `modified_by_user`, or accepted aliases the schema does not list): a
/// value of another type reads as absent instead of failing the call, as
/// it did before the params were typed.
pub(super) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = Value::deserialize(d)?;
    Ok(T::deserialize(value).ok())
}

/// Node's message for an I/O error of `syscall` on `path`.
pub(super) fn node_message(e: &std::io::Error, syscall: &str, path: &Path) -> String {
    super::node_error(e, syscall, path).map_or_else(|| e.to_string(), |(_, m)| m)
}

/// ICU root-collation order of ASCII punctuation and symbols (they sort
/// before digits, which sort before letters).
const PUNCT_ORDER: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Primary weight of one character: (class, value), case folded.
fn primary(c: char) -> (u8, u32) {
    if c.is_whitespace() {
        (0, c as u32)
    } else if let Some(i) = PUNCT_ORDER.find(c) {
        (1, i as u32)
    } else if c.is_ascii_digit() {
        (2, c as u32)
    } else if c.is_alphabetic() {
        (3, c.to_lowercase().next().map_or(c as u32, |l| l as u32))
    } else {
        (1, 100 + c as u32)
    }
}

/// An approximation of JavaScript's `a.localeCompare(b)` (ICU root
/// collation): punctuation < digits < letters, letters case-insensitive
/// first, then lower case before upper case.
pub(super) fn locale_compare(a: &str, b: &str) -> Ordering {
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    pa.cmp(pb)
        .then_with(|| {
            let ta = a.chars().map(|c| !c.is_lowercase());
            let tb = b.chars().map(|c| !c.is_lowercase());
            ta.cmp(tb)
        })
        .then_with(|| a.cmp(b))
}
