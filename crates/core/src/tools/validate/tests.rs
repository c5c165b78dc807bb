//! Ajv message forms and ordering.

use super::*;
use serde_json::json;

fn err(schema: Value, args: Value) -> String {
    ArgsValidator::new(&schema)
        .validate(&args)
        .unwrap_err()
        .to_string()
}

fn read_file_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "offset": {"type": "number"},
            "limit": {"type": "number"}
        },
        "required": ["file_path"]
    })
}

#[test]
fn params_object() {
    assert!(validate_params_object(&json!({})).is_ok());
    for v in [json!([]), json!("x"), json!(1), json!(null)] {
        assert_eq!(
            validate_params_object(&v).unwrap_err().to_string(),
            "Value of params must be an object"
        );
    }
}

#[test]
fn verified_examples() {
    assert_eq!(
        err(read_file_schema(), json!({})),
        "params must have required property 'file_path'"
    );
    assert_eq!(
        err(read_file_schema(), json!({"file_path": "a", "offset": "2"})),
        "params/offset must be number"
    );
    // required is checked before properties.
    assert_eq!(
        err(read_file_schema(), json!({"offset": "2"})),
        "params must have required property 'file_path'"
    );
    let replace = json!({"type": "object", "properties": {"expected_replacements": {"type": "number", "minimum": 1}}});
    assert_eq!(
        err(replace, json!({"expected_replacements": 0})),
        "params/expected_replacements must be >= 1"
    );
    assert!(
        ArgsValidator::new(&read_file_schema())
            .validate(&json!({"file_path": "a", "offset": 1.5}))
            .is_ok()
    );
}

#[test]
fn required_in_schema_order() {
    let s = json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b", "a"]});
    assert_eq!(err(s, json!({})), "params must have required property 'b'");
}

#[test]
fn simple_forms() {
    let cases = [
        (
            json!({"type": "string"}),
            json!(1),
            "params/x must be string",
        ),
        (
            json!({"type": "integer"}),
            json!(1.5),
            "params/x must be integer",
        ),
        (
            json!({"type": "array"}),
            json!({}),
            "params/x must be array",
        ),
        (
            json!({"type": "boolean"}),
            json!("t"),
            "params/x must be boolean",
        ),
        (
            json!({"type": "object"}),
            json!([]),
            "params/x must be object",
        ),
        (
            json!({"type": ["string", "null"]}),
            json!(1),
            "params/x must be string,null",
        ),
        (
            json!({"enum": ["a", "b"]}),
            json!("c"),
            "params/x must be equal to one of the allowed values",
        ),
        (
            json!({"const": "a"}),
            json!("c"),
            "params/x must be equal to constant",
        ),
        (json!({"maximum": 5}), json!(6), "params/x must be <= 5"),
        (
            json!({"exclusiveMinimum": 0}),
            json!(0),
            "params/x must be > 0",
        ),
        (
            json!({"exclusiveMaximum": 2.5}),
            json!(3),
            "params/x must be < 2.5",
        ),
        (
            json!({"multipleOf": 2}),
            json!(3),
            "params/x must be multiple of 2",
        ),
        (
            json!({"minLength": 2}),
            json!("a"),
            "params/x must NOT have fewer than 2 characters",
        ),
        (
            json!({"maxLength": 1}),
            json!("ab"),
            "params/x must NOT have more than 1 characters",
        ),
        (
            json!({"minItems": 1}),
            json!([]),
            "params/x must NOT have fewer than 1 items",
        ),
        (
            json!({"maxItems": 1}),
            json!([1, 2]),
            "params/x must NOT have more than 1 items",
        ),
        (
            json!({"maxProperties": 0}),
            json!({"a": 1}),
            "params/x must NOT have more than 0 properties",
        ),
        (
            json!({"pattern": "^a+$"}),
            json!("b"),
            "params/x must match pattern \"^a+$\"",
        ),
        (
            json!({"format": "email"}),
            json!("nope"),
            "params/x must match format \"email\"",
        ),
        (
            json!({"not": {"type": "string"}}),
            json!("s"),
            "params/x must NOT be valid",
        ),
        (json!(false), json!(1), "params/x boolean schema is false"),
        (
            json!({"uniqueItems": true}),
            json!([1, 2, 1, 2]),
            "params/x must NOT have duplicate items (items ## 1 and 3 are identical)",
        ),
        (
            json!({"contains": {"type": "string"}}),
            json!([1]),
            "params/x must contain at least 1 valid item(s)",
        ),
    ];
    for (prop, value, expected) in cases {
        let schema = json!({"type": "object", "properties": {"x": prop}});
        assert_eq!(err(schema, json!({"x": value})), expected);
    }
}

#[test]
fn additional_properties() {
    let s = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
    assert_eq!(
        err(s.clone(), json!({"z": 1})),
        "params must NOT have additional properties"
    );
    // additionalProperties comes before properties in Ajv's order.
    assert_eq!(
        err(s, json!({"a": 1, "z": 1})),
        "params must NOT have additional properties"
    );
}

#[test]
fn nested_paths_and_order() {
    let s = json!({
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}},
            "c": {"type": "number"}
        }
    });
    assert_eq!(
        err(s.clone(), json!({"a": [{"b": "x"}, {"b": 1}], "c": "n"})),
        "params/a/1/b must be string"
    );
    assert_eq!(
        err(s.clone(), json!({"c": "n", "a": [{}]})),
        "params/a/0 must have required property 'b'"
    );
    assert_eq!(
        err(s, json!({"a": [{"b": "x"}], "c": "n"})),
        "params/c must be number"
    );
}

#[test]
fn refs_are_followed() {
    let s = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/t"}},
        "definitions": {"t": {"type": "object", "properties": {"q": {"type": "integer"}, "r": {"type": "string"}}}}
    });
    assert_eq!(
        err(s, json!({"a": {"r": 1, "q": "x"}})),
        "params/a/q must be integer"
    );
}

#[test]
fn composite_keywords_list_branches() {
    let s = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "number"}]}}});
    assert_eq!(
        err(s, json!({"a": true})),
        "params/a must be string, params/a must be number, params/a must match a schema in anyOf"
    );
    let s = json!({"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "integer"}]}}});
    assert_eq!(
        err(s, json!({"a": 1})),
        "params/a must be string, params/a must match exactly one schema in oneOf"
    );
    let s = json!({"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}});
    assert_eq!(
        err(s, json!({"a": 1})),
        "params must have required property 'b', params must match \"then\" schema"
    );
    let s = json!({"propertyNames": {"maxLength": 2}});
    assert_eq!(
        err(s, json!({"abc": 1})),
        "params must NOT have more than 2 characters, params property name must be valid"
    );
    let s = json!({"dependencies": {"a": ["b", "c"]}});
    assert_eq!(
        err(s, json!({"a": 1, "c": 1})),
        "params must have properties b, c when property a is present"
    );
}

#[test]
fn type_before_group_keywords_unless_group_typed() {
    // integer: type first.
    let s = json!({"properties": {"x": {"type": "integer", "enum": [1]}}});
    assert_eq!(err(s, json!({"x": "a"})), "params/x must be integer");
    // string with string keywords: untyped keywords (enum) run first.
    let s = json!({"properties": {"x": {"type": "string", "minLength": 1, "enum": ["a"]}}});
    assert_eq!(
        err(s, json!({"x": 5})),
        "params/x must be equal to one of the allowed values"
    );
}

#[test]
fn schema_dialects() {
    let url = "https://json-schema.org/draft/2020-12/schema";
    let s = json!({"$schema": url, "type": "object"});
    let v = ArgsValidator::new(&s);
    let expected = format!("no schema with key or ref \"{url}\"");
    assert_eq!(v.validate(&json!({})).unwrap_err().to_string(), expected);
    assert_eq!(
        v.compile_error().map(ToString::to_string).as_deref(),
        Some(expected.as_str())
    );
    let s =
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": ["string", "null"]});
    assert!(ArgsValidator::new(&s).validate(&json!(null)).is_ok());
    assert!(
        ArgsValidator::new(&Value::Null)
            .validate(&json!({"any": 1}))
            .is_ok()
    );
}

#[test]
fn invalid_schema() {
    let s = json!({"type": "object", "properties": {"a": {"type": "strin"}}});
    assert_eq!(
        err(s, json!({})),
        "schema is invalid: data/properties/a/type must be equal to one of the allowed values, \
         data/properties/a/type must be array, data/properties/a/type must match a schema in anyOf"
    );
    let s = json!({"properties": {"a": {"minimum": "x", "type": 5}}});
    assert_eq!(
        err(s, json!({})),
        "schema is invalid: data/properties/a/minimum must be number"
    );
    let s = json!({"properties": {"a": {"$ref": "#/definitions/none"}}});
    assert_eq!(
        err(s, json!({})),
        "can't resolve reference #/definitions/none from id #"
    );
}

/// Sessions registering the same tool share its compiled schema; another
/// schema gets its own, and a broken one stays broken when shared.
#[test]
fn the_same_schema_is_compiled_once_per_process() {
    let first = ArgsValidator::new(&read_file_schema());
    let second = ArgsValidator::new(&read_file_schema());
    assert!(Arc::ptr_eq(&first.state, &second.state));
    assert!(second.validate(&json!({"file_path": "a"})).is_ok());
    assert_eq!(
        second.validate(&json!({})).unwrap_err().to_string(),
        "params must have required property 'file_path'"
    );
    let other = ArgsValidator::new(&json!({"type": "object"}));
    assert!(!Arc::ptr_eq(&first.state, &other.state));
    let broken = json!({"$schema": "https://example.com/s"});
    let shared = ArgsValidator::new(&broken);
    assert!(ArgsValidator::new(&broken).compile_error().is_some());
    assert!(shared.validate(&json!({})).is_err());
}
