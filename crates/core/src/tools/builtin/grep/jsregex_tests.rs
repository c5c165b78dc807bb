//! Tests of the JS regex checker and translator.
use super::*;

fn err(p: &str) -> String {
    translate(p).unwrap_err().to_string()
}

fn rust(p: &str) -> String {
    match translate(p).unwrap() {
        Translation::Rust(r) => r,
        Translation::Unsupported(w) => panic!("unsupported: {w}"),
    }
}

fn matches(p: &str, text: &str) -> bool {
    regex::Regex::new(&rust(p)).unwrap().is_match(text)
}

#[test]
fn v8_messages() {
    assert_eq!(
        err("("),
        "Invalid regular expression: /(/: Unterminated group"
    );
    assert_eq!(err("a)"), "Invalid regular expression: /a)/: Unmatched ')'");
    assert_eq!(
        err("*a"),
        "Invalid regular expression: /*a/: Nothing to repeat"
    );
    assert_eq!(
        err("a**"),
        "Invalid regular expression: /a**/: Nothing to repeat"
    );
    assert_eq!(
        err("^*"),
        "Invalid regular expression: /^*/: Nothing to repeat"
    );
    assert_eq!(
        err("{2}"),
        "Invalid regular expression: /{2}/: Nothing to repeat"
    );
    assert_eq!(
        err("[a"),
        "Invalid regular expression: /[a/: Unterminated character class"
    );
    assert_eq!(
        err("a\\"),
        "Invalid regular expression: /a\\/: \\ at end of pattern"
    );
    assert_eq!(
        err("a{3,2}"),
        "Invalid regular expression: /a{3,2}/: numbers out of order in {} quantifier"
    );
    assert_eq!(
        err("[z-a]"),
        "Invalid regular expression: /[z-a]/: Range out of order in character class"
    );
    assert_eq!(
        err("(?x)"),
        "Invalid regular expression: /(?x)/: Invalid group"
    );
    assert_eq!(
        err("(?<1>a)"),
        "Invalid regular expression: /(?<1>a)/: Invalid capture group name"
    );
}

#[test]
fn annex_b_literals_compile() {
    assert!(matches("a{2", "xa{2y"));
    assert!(matches("a}", "a}"));
    assert!(matches("]", "x]"));
    assert!(matches("a{2}", "aa"));
    assert!(!matches("a{2}", "a"));
    assert!(matches("a{,2}", "a{,2}"));
    assert!(matches("[[]", "["));
    assert!(matches("[a&&b]", "&"));
    assert!(matches("[\\d-z]", "-"));
    assert!(matches("\\/x", "/x"));
    assert!(matches("\\x41\\u0042", "AB"));
    assert!(matches("\\uD83D\\uDE00", "\u{1F600}"));
    assert!(!matches("[]", "a"));
    assert!(matches("[^]", "a"));
    assert!(matches("#x ~", "#x ~"));
    assert!(matches("(?<n>ab)c", "abc"));
    assert!(matches("\\1", "\u{1}"));
    assert!(matches("function\\s+\\w+", "function  foo"));
    assert!(matches("import\\s+\\{.*\\}", "import { a }"));
}

#[test]
fn unsupported_constructs() {
    assert!(matches!(
        translate("a(?=b)").unwrap(),
        Translation::Unsupported(_)
    ));
    assert!(matches!(
        translate("(a)\\1").unwrap(),
        Translation::Unsupported(_)
    ));
    assert!(matches!(
        translate("(?<!a)b").unwrap(),
        Translation::Unsupported(_)
    ));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Patterns dense in regex syntax, so most paths of the parser run.
    fn pattern() -> impl Strategy<Value = String> {
        proptest::string::string_regex(r"[ab01()\[\]{}|*+?.^$\\dDwWsSbBnuxck,:=!<>/-]{0,24}")
            .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any pattern is accepted or refused with V8's prefix, never a
        /// panic; an accepted one compiles in the `regex` crate.
        #[test]
        fn never_panics_and_translations_compile(p in pattern()) {
            match translate(&p) {
                Ok(Translation::Rust(r)) => {
                    prop_assert!(regex::Regex::new(&r).is_ok(), "{p:?} -> {r:?}");
                }
                Ok(Translation::Unsupported(_)) => {}
                Err(e) => {
                    let m = e.to_string();
                    let prefix = format!("Invalid regular expression: /{p}/: ");
                    prop_assert!(m.starts_with(&prefix), "{m}");
                }
            }
        }

        /// Arbitrary Unicode never panics.
        #[test]
        fn never_panics_on_any_unicode(p in "\\PC{0,24}") {
            let _ = translate(&p);
        }

        /// A plain word matches itself.
        #[test]
        fn a_plain_word_matches_itself(w in "[A-Za-z0-9_ é]{1,16}") {
            prop_assert!(matches(&w, &w), "{w:?}");
        }
    }
}
