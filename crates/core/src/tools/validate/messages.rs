//! Ajv's keyword order (to pick the error Ajv reports) and Ajv's message
//! texts for `jsonschema` errors. A tool's schema and its arguments are
//! open shapes: they are walked as `Value`s.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind as K};
use serde_json::Value;

/// Property order of the draft-07 meta-schema, used to order meta-schema
/// errors (the meta-schema itself is not available to walk).
const META_ORDER: [&str; 44] = [
    "$id",
    "$schema",
    "$ref",
    "$comment",
    "title",
    "description",
    "default",
    "readOnly",
    "examples",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "additionalItems",
    "items",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxProperties",
    "minProperties",
    "required",
    "additionalProperties",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "propertyNames",
    "const",
    "enum",
    "type",
    "format",
    "contentMediaType",
    "contentEncoding",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
];

/// Errors Ajv never reports in draft-07 (content keywords are annotations).
fn ignored(err: &ValidationError<'_>) -> bool {
    matches!(
        err.kind(),
        K::ContentEncoding { .. } | K::ContentMediaType { .. } | K::FromUtf8 { .. }
    )
}

/// The error Ajv would report first among `errors`.
pub(super) fn first_error<'a, 'e>(
    errors: &'a [ValidationError<'e>],
    root: Option<&Value>,
    instance: &Value,
) -> Option<&'a ValidationError<'e>> {
    let mut best: Option<(Vec<u64>, &ValidationError<'e>)> = None;
    for err in errors.iter().filter(|e| !ignored(e)) {
        let key = walk(err, root, instance).key;
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, err));
        }
    }
    best.map(|(_, e)| e)
}

/// Rank of a keyword in Ajv 8's draft-07 evaluation order. `type` is checked
/// first, except for a single `number`/`string`/`array`/`object` type whose
/// group has keywords in the schema: then it is checked at that group.
fn keyword_rank(schema: Option<&Value>, kw: &str) -> u64 {
    const GROUPS: [(&str, u64, &[&str]); 4] = [
        (
            "number",
            20,
            &[
                "maximum",
                "minimum",
                "exclusiveMaximum",
                "exclusiveMinimum",
                "multipleOf",
            ],
        ),
        (
            "string",
            30,
            &["maxLength", "minLength", "pattern", "format"],
        ),
        (
            "array",
            40,
            &[
                "maxItems",
                "minItems",
                "uniqueItems",
                "additionalItems",
                "items",
                "contains",
            ],
        ),
        (
            "object",
            50,
            &[
                "maxProperties",
                "minProperties",
                "required",
                "propertyNames",
                "additionalProperties",
                "dependencies",
                "properties",
                "patternProperties",
            ],
        ),
    ];
    const UNTYPED: [&str; 10] = [
        "$ref", "const", "enum", "not", "anyOf", "oneOf", "allOf", "if", "then", "else",
    ];
    if kw == "type" {
        let single = match schema.and_then(|s| s.get("type")) {
            Some(Value::String(t)) => Some(t.as_str()),
            Some(Value::Array(a)) if a.len() == 1 => a[0].as_str(),
            _ => None,
        };
        for (name, base, kws) in GROUPS {
            if single == Some(name)
                && kws
                    .iter()
                    .any(|k| schema.is_some_and(|s| s.get(*k).is_some()))
            {
                return base;
            }
        }
        return 0;
    }
    if let Some(i) = UNTYPED.iter().position(|k| *k == kw) {
        // then/else share the rank of `if`.
        return 1 + (i as u64).min(7);
    }
    for (_, base, kws) in GROUPS {
        if let Some(i) = kws.iter().position(|k| *k == kw) {
            return base + 1 + i as u64;
        }
    }
    99
}

/// What walking an error's evaluation path yields.
struct Walk<'s> {
    /// Sort key: keyword ranks, schema positions and data positions.
    key: Vec<u64>,
    /// The schema node the failing keyword belongs to.
    node: Option<&'s Value>,
    /// For each `then`/`else` passed: the keyword and the instance path
    /// there.
    conditionals: Vec<(String, String)>,
}

fn position_in_map(map: Option<&Value>, name: &str) -> u64 {
    map.and_then(Value::as_object)
        .and_then(|m| m.keys().position(|k| k == name))
        .map_or(u64::MAX, |p| p as u64)
}

fn resolve_ref<'s>(root: Option<&'s Value>, reference: Option<&Value>) -> Option<&'s Value> {
    let r = reference?.as_str()?;
    let pointer = r.strip_prefix('#')?;
    root?.pointer(pointer)
}

/// Walks the evaluation path of `err` through the schema (when known) and
/// the instance, building Ajv's order key.
fn walk<'s>(err: &ValidationError<'_>, root: Option<&'s Value>, instance: &Value) -> Walk<'s> {
    let segs: Vec<String> = err
        .evaluation_path()
        .segments()
        .map(|s| s.to_string())
        .collect();
    let inst_segs: Vec<String> = err
        .instance_path()
        .segments()
        .map(|s| s.to_string())
        .collect();
    let mut key = Vec::new();
    let mut conditionals = Vec::new();
    let mut node = root;
    let mut inst = Some(instance);
    let mut inst_i = 0usize;
    let mut i = 0usize;
    while i < segs.len() {
        let kw = segs[i].as_str();
        key.push(keyword_rank(node, kw));
        let child_of = |n: Option<&'s Value>| n.and_then(|n| n.get(kw));
        let mut consumes_instance = false;
        let next = match kw {
            "properties" | "patternProperties" | "definitions" | "dependencies" => {
                let Some(name) = segs.get(i + 1) else {
                    i += 1;
                    continue;
                };
                let map = child_of(node);
                let pos = match (root, kw) {
                    (None, "properties") => META_ORDER
                        .iter()
                        .position(|k| k == name)
                        .map_or(u64::MAX, |p| p as u64),
                    _ => position_in_map(map, name),
                };
                key.push(pos);
                consumes_instance = matches!(kw, "properties" | "patternProperties");
                i += 1;
                map.and_then(|m| m.get(name.as_str()))
            }
            "anyOf" | "oneOf" | "allOf" | "items" => {
                let sub = child_of(node);
                match (sub, segs.get(i + 1).and_then(|s| s.parse::<usize>().ok())) {
                    (Some(Value::Array(a)), Some(idx)) => {
                        key.push(idx as u64);
                        i += 1;
                        consumes_instance = kw == "items";
                        a.get(idx)
                    }
                    _ if kw == "items" => {
                        consumes_instance = true;
                        sub
                    }
                    // An index into a schema we cannot see (meta-schema).
                    (None, Some(idx)) if kw != "items" => {
                        key.push(idx as u64);
                        i += 1;
                        None
                    }
                    _ => sub,
                }
            }
            "additionalProperties" | "additionalItems" | "contains" => {
                consumes_instance = i + 1 < segs.len();
                child_of(node)
            }
            "then" | "else" => {
                let at: Vec<String> = inst_segs[..inst_i.min(inst_segs.len())]
                    .iter()
                    .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
                    .collect();
                conditionals.push((kw.to_string(), at.concat()));
                child_of(node)
            }
            "not" | "if" | "propertyNames" => child_of(node),
            "$ref" => resolve_ref(root, node.and_then(|n| n.get("$ref"))),
            _ => {
                // A leaf keyword: the failing one.
                if i + 1 == segs.len() {
                    break;
                }
                None
            }
        };
        if consumes_instance && let Some(seg) = inst_segs.get(inst_i) {
            let pos = match inst {
                Some(Value::Array(_)) => seg.parse::<u64>().unwrap_or(u64::MAX),
                Some(Value::Object(m)) => m
                    .keys()
                    .position(|k| k == seg)
                    .map_or(u64::MAX, |p| p as u64),
                _ => u64::MAX,
            };
            key.push(pos);
            inst = inst.and_then(|v| match v {
                Value::Array(a) => seg.parse::<usize>().ok().and_then(|n| a.get(n)),
                Value::Object(m) => m.get(seg.as_str()),
                _ => None,
            });
            inst_i += 1;
        }
        node = next;
        i += 1;
    }
    Walk {
        key,
        node,
        conditionals,
    }
}

/// A number as JavaScript prints it.
fn js_number(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), js_f64),
        other => other.to_string(),
    }
}

fn js_f64(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

fn type_name(node: Option<&Value>, kind: &TypeKind) -> String {
    match node.and_then(|n| n.get("type")) {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => match kind {
            TypeKind::Single(t) => t.to_string(),
            TypeKind::Multiple(set) => set
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(","),
        },
    }
}

/// Ajv's `(items ## j and i are identical)` indices for a duplicate.
fn duplicate_pair(v: &Value) -> (usize, usize) {
    if let Value::Array(a) = v {
        for i in (0..a.len()).rev() {
            for j in (0..i).rev() {
                if a[i] == a[j] {
                    return (j, i);
                }
            }
        }
    }
    (0, 0)
}

/// Ajv's message (without the path) for one error.
fn message(err: &ValidationError<'_>, node: Option<&Value>) -> String {
    match err.kind() {
        K::AdditionalItems { limit } => format!("must NOT have more than {limit} items"),
        K::AdditionalProperties { .. } => "must NOT have additional properties".to_string(),
        K::AnyOf { .. } => "must match a schema in anyOf".to_string(),
        K::OneOfMultipleValid { .. } | K::OneOfNotValid { .. } => {
            "must match exactly one schema in oneOf".to_string()
        }
        K::Constant { .. } => "must be equal to constant".to_string(),
        K::Contains => "must contain at least 1 valid item(s)".to_string(),
        K::Enum { .. } => "must be equal to one of the allowed values".to_string(),
        K::ExclusiveMaximum { limit } => format!("must be < {}", js_number(limit)),
        K::ExclusiveMinimum { limit } => format!("must be > {}", js_number(limit)),
        K::Maximum { limit } => format!("must be <= {}", js_number(limit)),
        K::Minimum { limit } => format!("must be >= {}", js_number(limit)),
        K::FalseSchema => "boolean schema is false".to_string(),
        K::Format { format } => format!("must match format \"{format}\""),
        K::MaxItems { limit } => format!("must NOT have more than {limit} items"),
        K::MinItems { limit } => format!("must NOT have fewer than {limit} items"),
        K::MaxLength { limit } => format!("must NOT have more than {limit} characters"),
        K::MinLength { limit } => format!("must NOT have fewer than {limit} characters"),
        K::MaxProperties { limit } => format!("must NOT have more than {limit} properties"),
        K::MinProperties { limit } => format!("must NOT have fewer than {limit} properties"),
        K::MultipleOf { multiple_of } => format!("must be multiple of {}", js_f64(*multiple_of)),
        K::Not { .. } => "must NOT be valid".to_string(),
        K::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        K::PropertyNames { .. } => "property name must be valid".to_string(),
        K::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            match dependency_message(err, node, &name) {
                Some(m) => m,
                None => format!("must have required property '{name}'"),
            }
        }
        K::Type { kind } => format!("must be {}", type_name(node, kind)),
        K::UniqueItems => {
            let (j, i) = duplicate_pair(err.instance());
            format!("must NOT have duplicate items (items ## {j} and {i} are identical)")
        }
        K::UnevaluatedItems { .. } => "must NOT have unevaluated items".to_string(),
        K::UnevaluatedProperties { .. } => "must NOT have unevaluated properties".to_string(),
        _ => err.to_string(),
    }
}

/// `must have property b when property a is present` for a `dependencies`
/// failure (jsonschema reports it as `required` at `/dependencies`).
fn dependency_message(
    err: &ValidationError<'_>,
    node: Option<&Value>,
    missing: &str,
) -> Option<String> {
    let last = err.evaluation_path().segments().last()?.to_string();
    if last != "dependencies" {
        return None;
    }
    let deps = node?.get("dependencies")?.as_object()?;
    let inst = err.instance();
    for (prop, dep) in deps {
        let Some(list) = dep.as_array() else { continue };
        if inst.get(prop).is_none() || !list.iter().any(|d| d.as_str() == Some(missing)) {
            continue;
        }
        let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
        let word = if names.len() == 1 {
            "property"
        } else {
            "properties"
        };
        return Some(format!(
            "must have {word} {} when property {prop} is present",
            names.join(", ")
        ));
    }
    None
}

/// Renders `err` as Ajv's `errorsText` entries: composite keywords list their
/// branch errors first.
pub(super) fn render(
    err: &ValidationError<'_>,
    data_var: &str,
    root: Option<&Value>,
    instance: &Value,
) -> Vec<String> {
    let walked = walk(err, root, instance);
    let path = err.instance_path().as_str();
    let mut out = Vec::new();
    match err.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => {
            for branch in context {
                if let Some(e) = first_error(branch, root, instance) {
                    out.extend(render(e, data_var, root, instance));
                }
            }
        }
        K::OneOfMultipleValid { context } => {
            let mut valid = 0;
            for branch in context {
                match first_error(branch, root, instance) {
                    Some(e) => out.extend(render(e, data_var, root, instance)),
                    None => valid += 1,
                }
                if valid >= 2 {
                    break;
                }
            }
        }
        K::PropertyNames { error } => {
            out.push(format!("{data_var}{path} {}", message(error, None)));
        }
        _ => {}
    }
    out.push(format!("{data_var}{path} {}", message(err, walked.node)));
    for (kw, at) in walked.conditionals.iter().rev() {
        out.push(format!("{data_var}{at} must match \"{kw}\" schema"));
    }
    out
}
