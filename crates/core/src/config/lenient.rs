//! Lenient typed reading of the merged settings: a value of the wrong type
//! is dropped and reported with its dotted path, and every other key is
//! still read.
//!
//! How: the merged value is deserialized into the typed tree once. Only when
//! that fails, each key is tried alone (a value holding just that one path)
//! to find the ones the typed tree refuses; objects and lists the tree
//! accepts as such are searched key by key (element by element), so the
//! report names the innermost bad value (`tools.exclude[1]`,
//! `tools.shell.timeout`). Bad values are removed and the rest is read
//! again. This needs nothing but `Deserialize` from the typed structs, so a
//! new settings key is covered by adding a field.
//!
//! The file, line and column of a bad value come from re-reading the layer
//! that supplied it with a deserializer that walks to that path and stops
//! there: serde_json attaches the position it reached, the same machinery
//! as [`super::ConfigError::Parse`].

use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess};
use serde_json::{Map, Value};
use std::fmt;
use std::path::{Path, PathBuf};

/// One step of a path into the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// A list position.
    Index(usize),
}

/// The dotted form of a path: `tools.shell.timeout`, `tools.exclude[1]`.
pub fn dotted(path: &[Segment]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Deserializes `value` into `T`, dropping the values `T` refuses. Returns
/// the result and each dropped value's path with serde's reason. `null`
/// members count as unset (as [`super::Settings::get`] treats them).
pub fn parse<T: DeserializeOwned + Default>(value: &Value) -> (T, Vec<(Vec<Segment>, String)>) {
    let mut value = match value {
        Value::Object(_) => value.clone(),
        _ => Value::Object(Map::new()),
    };
    strip_nulls(&mut value);
    if let Ok(typed) = T::deserialize(&value) {
        return (typed, Vec::new());
    }
    let mut errors = Vec::new();
    prune::<T>(&mut Vec::new(), &mut value, &mut errors);
    let typed = T::deserialize(&value).unwrap_or_default();
    (typed, errors)
}

fn strip_nulls(value: &mut Value) {
    if let Value::Object(map) = value {
        map.retain(|_, v| !v.is_null());
        map.values_mut().for_each(strip_nulls);
    }
}

/// `leaf` placed at `path` in an otherwise empty tree, read as `T`.
fn check<T: DeserializeOwned>(path: &[Segment], leaf: &Value) -> Result<(), serde_json::Error> {
    let mut tree = leaf.clone();
    for seg in path.iter().rev() {
        tree = match seg {
            Segment::Key(k) => Value::Object(Map::from_iter([(k.clone(), tree)])),
            Segment::Index(_) => Value::Array(vec![tree]),
        };
    }
    T::deserialize(&tree).map(|_| ())
}

/// Removes from `value` (the value at `path`) whatever `T` refuses.
fn prune<T: DeserializeOwned>(
    path: &mut Vec<Segment>,
    value: &mut Value,
    errors: &mut Vec<(Vec<Segment>, String)>,
) {
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                path.push(Segment::Key(key.clone()));
                if let Some(child) = map.get_mut(&key)
                    && let Err(reason) = check::<T>(path, child)
                {
                    let empty = match child {
                        Value::Object(_) => Some(Value::Object(Map::new())),
                        Value::Array(_) => Some(Value::Array(Vec::new())),
                        _ => None,
                    };
                    if empty.is_some_and(|e| check::<T>(path, &e).is_ok()) {
                        prune::<T>(path, child, errors);
                        if let Err(reason) = check::<T>(path, child) {
                            errors.push((path.clone(), reason.to_string()));
                            map.remove(&key);
                        }
                    } else {
                        errors.push((path.clone(), reason.to_string()));
                        map.remove(&key);
                    }
                }
                path.pop();
            }
        }
        Value::Array(items) => {
            let mut keep = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                match check::<T>(path, item) {
                    Ok(()) => keep.push(true),
                    Err(reason) => {
                        errors.push((path.clone(), reason.to_string()));
                        keep.push(false);
                    }
                }
                path.pop();
            }
            let mut flags = keep.into_iter();
            items.retain(|_| flags.next().unwrap_or(true));
        }
        _ => {}
    }
}

/// In the layers (lowest precedence first, values after `$VAR` expansion),
/// the file that supplied the bad value `target` at `path`, and that
/// value's line and column in the file. A list element is looked up by its
/// value, since merged lists join several layers. The last layer holding
/// exactly the bad value wins; failing that (objects merged from several
/// layers), the last layer setting the key at all.
pub fn locate(
    layers: &[(PathBuf, &Value)],
    path: &[Segment],
    target: &Value,
) -> Option<(PathBuf, usize, usize)> {
    let found = |exact: bool| {
        layers
            .iter()
            .rev()
            .find_map(|(file, layer)| path_in_layer(layer, path, target, exact).map(|p| (file, p)))
    };
    let (file, in_layer) = found(true).or_else(|| found(false))?;
    let (line, column) = position_in_file(file, &in_layer).unwrap_or((0, 0));
    Some((file.clone(), line, column))
}

/// `path` as it is in `layer` (holding `target` itself when `exact`), or
/// `None` when the layer does not set it.
fn path_in_layer(
    layer: &Value,
    path: &[Segment],
    target: &Value,
    exact: bool,
) -> Option<Vec<Segment>> {
    let mut here = layer;
    let mut out = Vec::with_capacity(path.len());
    for (i, seg) in path.iter().enumerate() {
        match seg {
            Segment::Key(k) => {
                here = here.get(k)?;
                out.push(seg.clone());
            }
            Segment::Index(_) => {
                // Only list elements are checked one by one (see `prune`),
                // so an index is always the last step.
                if i + 1 != path.len() {
                    return None;
                }
                let (pos, item) = here
                    .as_array()?
                    .iter()
                    .enumerate()
                    .find(|(_, v)| *v == target)?;
                here = item;
                out.push(Segment::Index(pos));
            }
        }
    }
    (!exact || here == target).then_some(out)
}

/// Line and column (1-based) of the value at `path` in a settings file.
pub(crate) fn position_in_file(file: &Path, path: &[Segment]) -> Option<(usize, usize)> {
    let text =
        super::input_file::read_input(file, None, super::input_file::MAX_INPUT_BYTES).ok()?;
    let stripped = super::jsonc::strip_comments(text.trim_start_matches('\u{feff}'));
    let mut de = serde_json::Deserializer::from_str(&stripped);
    let (line, column) = match (Locate { path }).deserialize(&mut de) {
        Err(e) if e.to_string().starts_with(FOUND) => (e.line(), e.column()),
        _ => return None,
    };
    // serde_json reports the last byte it consumed (the `:` or `,` before
    // the value, or whitespace); the value starts at the next non-blank.
    let line_start: usize = stripped
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let after = line_start + column;
    let skipped = stripped.get(after..)?.find(|c: char| !c.is_whitespace())?;
    let start = after + skipped;
    let before = stripped.get(..start)?;
    let line = before.matches('\n').count() + 1;
    let column = start - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((line, column))
}

const FOUND: &str = "settings value found";

/// Walks to `path` and stops there, before reading the value, with a
/// [`FOUND`] error, which serde_json tags with its position.
struct Locate<'a> {
    path: &'a [Segment],
}

impl<'de> DeserializeSeed<'de> for Locate<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self.path.first() {
            None => Err(de::Error::custom(FOUND)),
            Some(Segment::Key(_)) => d.deserialize_map(self),
            Some(Segment::Index(_)) => d.deserialize_seq(self),
        }
    }
}

impl<'de> de::Visitor<'de> for Locate<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a settings object or list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (Some(Segment::Key(want)), rest) = (self.path.first(), &self.path[1..]) else {
            return Err(de::Error::custom("not a key"));
        };
        while let Some(key) = map.next_key::<String>()? {
            if &key == want {
                map.next_value_seed(Locate { path: rest })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let (Some(Segment::Index(want)), rest) = (self.path.first(), &self.path[1..]) else {
            return Err(de::Error::custom("not an index"));
        };
        let mut i = 0;
        loop {
            let more = if i == *want {
                seq.next_element_seed(Locate { path: rest })?.is_some()
            } else {
                seq.next_element::<IgnoredAny>()?.is_some()
            };
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }
}

pub(crate) use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
