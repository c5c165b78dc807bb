//! Properties of the shell parser (its named cases are in
//! `tools/builtin/shell/text_tests.rs`): it never fails, and lists of
//! simple commands split where bash would.

use super::*;
use proptest::prelude::*;

/// A plain command word: no quoting, not a reserved word or assignment.
fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_.-]{0,8}".prop_filter("reserved word", |w| !RESERVED.contains(&w.as_str()))
}

/// A simple command: a word and up to three plain arguments.
fn simple() -> impl Strategy<Value = String> {
    (
        word(),
        proptest::collection::vec("[a-zA-Z0-9_./=-]{1,6}", 0..3),
    )
        .prop_map(|(w, args)| std::iter::once(w).chain(args).collect::<Vec<_>>().join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any input is parsed, never a panic (unbalanced quotes and brackets
    /// run to the end).
    #[test]
    fn never_panics(cmd in "\\PC{0,60}") {
        let _ = split_commands(&cmd);
        let _ = root_commands(&cmd);
        let _ = strip_shell_wrapper(&cmd);
    }

    /// Input dense in shell syntax never panics either.
    #[test]
    fn never_panics_on_shell_syntax(cmd in r#"[a ;&|()${}`'"\\<>\n=!#*]{0,40}"#) {
        let _ = split_commands(&cmd);
        let _ = root_commands(&cmd);
    }

    /// `a && b` (and the other list operators) gives both commands, and
    /// the roots are their first words.
    #[test]
    fn a_list_of_simple_commands_splits_into_both(
        a in simple(),
        b in simple(),
        op in prop_oneof![Just("&&"), Just("||"), Just(";"), Just("|")],
    ) {
        let cmd = format!("{a} {op} {b}");
        prop_assert_eq!(split_commands(&cmd), vec![a.clone(), b.clone()]);
        let first = |s: &str| s.split(' ').next().unwrap().to_string();
        let mut roots = vec![first(&a)];
        if first(&b) != first(&a) {
            roots.push(first(&b));
        }
        prop_assert_eq!(root_commands(&cmd), roots);
    }
}
