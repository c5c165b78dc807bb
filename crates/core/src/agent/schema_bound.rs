//! Bounds on an output schema before it is compiled (issue 41, item 6):
//! `$ref` chains at most [`MAX_REF_DEPTH`] deep, and the schema with every
//! `$ref` expanded at most [`MAX_EXPANSION`] nodes. A 1.5 KB schema of
//! chained `$defs`, each an `anyOf` of two `$ref`s to the next, expands
//! to 2^depth nodes and would make validation exponential; it is refused
//! instead. A recursive schema (a `$ref` back to a schema being expanded)
//! counts once: its validation is bounded by the answer's own size.

use serde_json::Value;
use std::collections::HashMap;

/// The longest chain of `$ref`s followed one through another.
pub const MAX_REF_DEPTH: usize = 32;
/// The most schema nodes the schema may have with its `$ref`s expanded.
pub const MAX_EXPANSION: u64 = 100_000;

/// Why a schema is past the bounds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaBoundError {
    /// A `$ref` chain deeper than [`MAX_REF_DEPTH`].
    #[error("its $ref chains go deeper than {MAX_REF_DEPTH} (at {0})")]
    TooDeep(String),
    /// More than [`MAX_EXPANSION`] nodes with `$ref`s expanded.
    #[error("with its $refs expanded it has more than {MAX_EXPANSION} schemas")]
    TooLarge,
}

/// Checks `schema` against the bounds.
pub fn check(schema: &Value) -> Result<(), SchemaBoundError> {
    let mut walk = Walk {
        root: schema,
        memo: HashMap::new(),
        stack: Vec::new(),
    };
    walk.size(schema).map(|_| ())
}

struct Walk<'a> {
    root: &'a Value,
    /// Expanded sizes of the `$ref` targets done so far.
    memo: HashMap<String, u64>,
    /// The `$ref`s being expanded, outermost first.
    stack: Vec<String>,
}

impl<'a> Walk<'a> {
    /// The node count of `node` with its local `$ref`s expanded.
    fn size(&mut self, node: &'a Value) -> Result<u64, SchemaBoundError> {
        let mut total: u64 = 1;
        let children: Box<dyn Iterator<Item = &'a Value>> = match node {
            Value::Object(map) => {
                // open shape: any node of a JSON Schema.
                if let Some(Value::String(r)) = map.get("$ref") {
                    total = total.saturating_add(self.reference(r)?);
                }
                Box::new(map.values())
            }
            Value::Array(items) => Box::new(items.iter()),
            _ => return Ok(1),
        };
        for child in children {
            if child.is_object() || child.is_array() {
                total = total.saturating_add(self.size(child)?);
                if total > MAX_EXPANSION {
                    return Err(SchemaBoundError::TooLarge);
                }
            }
        }
        Ok(total)
    }

    /// The expanded size of what `reference` points at (local `#...`
    /// pointers only; others count as one node).
    fn reference(&mut self, reference: &str) -> Result<u64, SchemaBoundError> {
        let Some(pointer) = reference.strip_prefix('#') else {
            return Ok(1);
        };
        if self.stack.iter().any(|r| r == reference) {
            return Ok(1);
        }
        if let Some(&n) = self.memo.get(reference) {
            return Ok(n);
        }
        let Some(target) = self.root.pointer(pointer) else {
            return Ok(1);
        };
        if self.stack.len() >= MAX_REF_DEPTH {
            return Err(SchemaBoundError::TooDeep(reference.to_string()));
        }
        self.stack.push(reference.to_string());
        let n = self.size(target);
        self.stack.pop();
        let n = n?;
        self.memo.insert(reference.to_string(), n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `$defs` d0..d{depth}, each an `anyOf` of two `$ref`s to the next.
    pub(crate) fn chained(depth: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..depth {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert(format!("d{depth}"), json!({"type": "string"}));
        json!({"$defs": defs, "$ref": "#/$defs/d0"})
    }

    #[test]
    fn exponential_expansion_and_deep_chains_are_refused() {
        assert_eq!(check(&chained(8)), Ok(()));
        assert_eq!(check(&chained(20)), Err(SchemaBoundError::TooLarge));
        let deep = check(&chained(40));
        assert!(deep.is_err(), "{deep:?}");
    }

    #[test]
    fn recursive_and_ordinary_schemas_pass() {
        let tree = json!({"$defs": {"node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"});
        assert_eq!(check(&tree), Ok(()));
        let plain =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert_eq!(check(&plain), Ok(()));
    }
}
