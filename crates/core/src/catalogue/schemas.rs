//! The parameter schemas each dialect declares, as data. A built-in
//! validates a call against one schema of its own that takes both
//! dialects' parameters (calls in either dialect's names work in both);
//! what the model is shown is that schema with the edits listed here for
//! the session's dialect: parameters left out, parameters added (their
//! descriptions in our own words) and enum values left out. Recorded from
//! each release by the `tool-schemas` scenario (`e2e/reference`).

use super::dialect::Dialect;
use serde_json::{Map, Value};

/// How one dialect declares one built-in's parameters, relative to the
/// tool's own schema.
#[derive(Debug)]
pub struct SchemaEdit {
    /// The built-in (its 0.27.4 name).
    pub tool: &'static str,
    /// The dialect declaring it so.
    pub dialect: Dialect,
    /// Top-level parameters it does not declare.
    pub omit: &'static [&'static str],
    /// Parameters it declares beyond the tool's schema: a JSON object of
    /// property schemas.
    pub add: &'static str,
    /// Enum values it does not declare, as `(JSON pointer to the enum,
    /// value)`.
    pub omit_enum: &'static [(&'static str, &'static str)],
}

impl SchemaEdit {
    const NONE: SchemaEdit = SchemaEdit {
        tool: "",
        dialect: Dialect::Today,
        omit: &[],
        add: "{}",
        omit_enum: &[],
    };
}

/// `wait_for_previous`, which 0.61 adds to the tools whose declarations
/// go through its generic builder (the background-shell tools).
const WAIT_FOR_PREVIOUS: &str = r#"{"wait_for_previous": {"type": "boolean",
  "description": "True to start only after every earlier call of this turn has finished (this one needs their results); false or absent to run alongside them."}}"#;

/// Every edit, per dialect and tool.
pub static EDITS: &[SchemaEdit] = &[
    SchemaEdit {
        tool: "read_file",
        dialect: Dialect::Today,
        omit: &["offset", "limit"],
        add: r#"{
  "start_line": {"type": "integer", "minimum": 1,
    "description": "Optional: the first line to read, counting from 1."},
  "end_line": {"type": "integer", "minimum": 1,
    "description": "Optional: the last line to read (included), counting from 1."}}"#,
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "replace",
        dialect: Dialect::Today,
        omit: &["expected_replacements"],
        add: r#"{"allow_multiple": {"type": "boolean",
  "description": "True to replace every occurrence of `old_string`; false or absent to require exactly one."}}"#,
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "search_file_content",
        dialect: Dialect::Today,
        omit: &["include"],
        add: r#"{
  "include_pattern": {"type": "string",
    "description": "Optional: a glob choosing the files searched (`*.rs`, `src/**`); all files when absent."},
  "exclude_pattern": {"type": "string",
    "description": "Optional: a regular expression; a matching line that also matches it is left out."},
  "names_only": {"type": "boolean",
    "description": "Optional: true to list only the paths of the files with matches."},
  "max_matches_per_file": {"type": "integer", "minimum": 1,
    "description": "Optional: at most this many matches from each file."},
  "total_max_matches": {"type": "integer", "minimum": 1,
    "description": "Optional: at most this many matches in all (100 when absent)."}}"#,
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "list_background_processes",
        dialect: Dialect::Today,
        add: WAIT_FOR_PREVIOUS,
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "read_background_output",
        dialect: Dialect::Today,
        add: WAIT_FOR_PREVIOUS,
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "run_shell_command",
        dialect: Dialect::V027,
        omit: &["is_background", "delay_ms"],
        ..SchemaEdit::NONE
    },
    SchemaEdit {
        tool: "write_todos",
        dialect: Dialect::V027,
        omit_enum: &[("/properties/todos/items/properties/status/enum", "blocked")],
        ..SchemaEdit::NONE
    },
];

impl Dialect {
    /// The parameter schema this dialect declares for the built-in `tool`
    /// (its 0.27.4 name), given the tool's own schema.
    pub fn declared_schema(self, tool: &str, own: &Value) -> Value {
        let mut schema = own.clone();
        for edit in EDITS.iter().filter(|e| e.tool == tool && e.dialect == self) {
            apply(edit, &mut schema);
        }
        schema
    }
}

/// `edit` applied to `schema`.
fn apply(edit: &SchemaEdit, schema: &mut Value) {
    let added: Map<String, Value> = serde_json::from_str(edit.add).unwrap_or_default();
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.retain(|k, _| !edit.omit.contains(&k.as_str()));
        props.extend(added);
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|r| r.as_str().is_none_or(|r| !edit.omit.contains(&r)));
    }
    for (pointer, value) in edit.omit_enum {
        if let Some(values) = schema.pointer_mut(pointer).and_then(Value::as_array_mut) {
            values.retain(|v| v.as_str() != Some(value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_added_parameter_set_is_a_json_object() {
        for edit in EDITS {
            let added: Result<Map<String, Value>, _> = serde_json::from_str(edit.add);
            assert!(added.is_ok(), "{}: {:?}", edit.tool, added.err());
        }
    }

    #[test]
    fn a_dialect_declares_its_own_parameters() {
        let own = json!({"type": "object", "properties": {
            "file_path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"}
        }, "required": ["file_path"]});
        let today = Dialect::Today.declared_schema("read_file", &own);
        let names: Vec<&String> = today["properties"].as_object().unwrap().keys().collect();
        assert!(names.contains(&&"start_line".to_string()) && !names.contains(&&"offset".into()));
        assert_eq!(today["properties"]["end_line"]["minimum"], 1);
        assert_eq!(Dialect::V027.declared_schema("read_file", &own), own);
        let todos = json!({"properties": {"todos": {"items": {"properties": {
            "status": {"enum": ["pending", "blocked"]}}}}}});
        assert_eq!(
            Dialect::V027.declared_schema("write_todos", &todos)["properties"]["todos"]["items"]["properties"]
                ["status"]["enum"],
            json!(["pending"])
        );
    }
}
