//! Each strategy on its own named input, the fuzzy bounds and the edit
//! distance.

use super::*;

const ONE: Expected = Expected::Exactly(1);

#[test]
fn exact_replaces_all_literally() {
    let r = calculate("a x a\n", "a", "b", Expected::Exactly(2));
    assert_eq!((r.content.as_str(), r.occurrences), ("b x b\n", 2));
    let r = calculate("x\n", "x", "$& $1", ONE);
    assert_eq!(r.content, "$& $1\n");
    assert_eq!(calculate("abc", "zz", "y", ONE).occurrences, 0);
}

#[test]
fn flexible_reindents() {
    let r = calculate(
        "def f():\n    x = 1\n    y = 2\n",
        "x = 1\ny = 2",
        "x = 10\ny = 20",
        ONE,
    );
    assert_eq!(
        (r.content.as_str(), r.occurrences),
        ("def f():\n    x = 10\n    y = 20\n", 1)
    );
    // A match in the middle keeps the following line intact.
    let r = calculate("a\n  x\n  y\nb\n", " x\ny ", "X\n  Y", ONE);
    assert_eq!(r.content, "a\n  X\n    Y\nb\n");
}

#[test]
fn token_regex_ignores_spacing() {
    let r = calculate(
        "  if (a==b) {\n    go();\n  }\n",
        "if ( a == b ) {",
        "if (a != b) {",
        ONE,
    );
    assert_eq!(
        (r.content.as_str(), r.occurrences),
        ("  if (a != b) {\n    go();\n  }\n", 1)
    );
}

#[test]
fn fuzzy_within_ten_percent() {
    let content = "fn main() {\n    println!(\"hello world\");\n}\n";
    let r = calculate(
        content,
        "    println!(\"helo world\");",
        "    println!(\"bye\");",
        ONE,
    );
    assert_eq!(r.occurrences, 1);
    assert_eq!(r.content, "fn main() {\n    println!(\"bye\");\n}\n");
    assert_eq!(
        fuzzy_note(&r.fuzzy_ranges).unwrap(),
        "Applied fuzzy match at line 2."
    );
    // Too different, or too short to try.
    assert_eq!(
        calculate(content, "    eprintln!(\"goodbye moon\");", "x", ONE).occurrences,
        0
    );
    assert_eq!(calculate("abcdefgh\n", "abcdefgX", "x", ONE).occurrences, 0);
}

/// Named inputs, each resolved by one strategy alone: none of the
/// other three finds it. (content, old_string, new_string, result)
const EXACT_MID_LINE: [&str; 4] = [
    "let the quick brown fox = 1;\n",
    "quick brown",
    "slow red",
    "let the slow red fox = 1;\n",
];
/// Lines indented with no-break spaces (pasted from a web page): the
/// token regex only takes spaces and tabs as indentation, and the
/// old_string is too short for the fuzzy strategy.
const FLEXIBLE_NBSP_INDENT: [&str; 4] = [
    "\u{a0}x=1\n\u{a0}y=2\n",
    "x=1\ny=2",
    "x=3\ny=4",
    "\u{a0}x=3\n\u{a0}y=4\n",
];
/// Spacing inside a line differs; too short for fuzzy.
const TOKEN_SPACING: [&str; 4] = ["  x = 1;\n", "x=1", "x=2", "  x=2;\n"];
/// A typo in a long enough line.
const FUZZY_TYPO: [&str; 4] = [
    "fn main() {\n    println!(\"hello world\");\n}\n",
    "    println!(\"helo world\");",
    "    println!(\"bye\");",
    "fn main() {\n    println!(\"bye\");\n}\n",
];

/// Which strategies resolve `[content, old, new]` on their own.
fn resolvers(input: [&str; 4]) -> Vec<&'static str> {
    let [content, old, new, _] = input;
    let mut out = Vec::new();
    if content.contains(old) {
        out.push("exact");
    }
    if flexible(content, old, new).is_some() {
        out.push("flexible");
    }
    if token_regex(content, old, new, ONE).is_some() {
        out.push("token");
    }
    if fuzzy(content, old, new).is_some() {
        out.push("fuzzy");
    }
    out
}

#[test]
fn each_strategy_has_an_input_only_it_resolves() {
    for (input, only) in [
        (EXACT_MID_LINE, "exact"),
        (FLEXIBLE_NBSP_INDENT, "flexible"),
        (TOKEN_SPACING, "token"),
        (FUZZY_TYPO, "fuzzy"),
    ] {
        assert_eq!(resolvers(input), vec![only], "{input:?}");
        let r = calculate(input[0], input[1], input[2], ONE);
        assert_eq!((r.content.as_str(), r.occurrences), (input[3], 1), "{only}");
        assert_eq!(r.fuzzy_ranges.is_empty(), only != "fuzzy");
    }
}

/// Pseudo-random lowercase text, deterministic.
fn noise(seed: &mut u64, len: usize) -> String {
    (0..len)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b'a' + ((*seed >> 33) % 26) as u8)
        })
        .collect()
}

#[test]
fn fuzzy_on_the_largest_allowed_input_is_bounded_by_its_budget() {
    // 10,000 lines x a 200-character old_string = the work limit. The scan
    // stops at its 700 ms budget; without it this takes minutes. The bound
    // is loose for loaded machines; bench/fs.sh holds the real figure.
    let mut seed = 7;
    let lines: Vec<String> = (0..10_000).map(|_| noise(&mut seed, 200)).collect();
    let content = lines.join("\n") + "\n";
    let mut old = lines[9_990].clone();
    old.replace_range(10..13, "XYZ");
    let started = Instant::now();
    let r = calculate(&content, &old, "replaced", ONE);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Fast enough to finish in a release build; a slow debug build may
    // run out of budget and then report no match, never a wrong one.
    if r.occurrences == 1 {
        assert_eq!(r.fuzzy_ranges, vec![(9_991, 9_991)]);
    }
    // Every window a near-candidate: the budget ends the scan.
    let same = "abcdefghij".repeat(20);
    let content = format!("{same}\n").repeat(10_000);
    let started = Instant::now();
    calculate(&content, &format!("{}x", &same[..199]), "y", ONE);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn bounded_levenshtein_agrees_with_the_full_one() {
    let mut seed = 3;
    for len in [0, 1, 5, 17, 40] {
        for _ in 0..30 {
            let a: Vec<char> = noise(&mut seed, len).chars().collect();
            let mut b = a.clone();
            let edits = (seed >> 40) as usize % 6;
            for k in 0..edits {
                let at = (seed >> (k + 3)) as usize % (b.len() + 1);
                if k % 2 == 0 {
                    b.insert(at, 'Z');
                } else if at < b.len() {
                    b.remove(at);
                }
            }
            let full = levenshtein(&a, &b);
            for max in 0..8 {
                let want = (full <= max).then_some(full);
                assert_eq!(bounded_levenshtein(&a, &b, max), want, "{a:?} {b:?} {max}");
            }
        }
    }
}

#[test]
fn trailing_newline_state_is_kept() {
    assert_eq!(calculate("a\nb", "b", "c\n", ONE).content, "a\nc");
    assert_eq!(calculate("a\nb\n", "b\n", "c", ONE).content, "a\nc\n");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Short text over a small alphabet (so matches happen), with newlines,
    /// indentation, CR-less line ends and a few multi-byte characters.
    fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[ab \\n\\t(){};xé→]{0,60}").unwrap()
    }

    fn expected() -> impl Strategy<Value = Expected> {
        prop_oneof![
            (0u64..4).prop_map(Expected::Exactly),
            Just(Expected::AnyAtLeastOne),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A substring that occurs exactly once is replaced exactly there.
        #[test]
        fn a_unique_substring_is_replaced_exactly(
            prefix in text(),
            old in "[a-z→]{1,12}",
            suffix in text(),
            new in text(),
        ) {
            let content = format!("{prefix}{old}{suffix}");
            // Unique also counting overlapping places ("→→" in "→→→").
            let places = (0..content.len())
                .filter(|&i| content.is_char_boundary(i) && content[i..].starts_with(old.as_str()))
                .count();
            prop_assume!(places == 1);
            let r = calculate(&content, &old, &new, ONE);
            prop_assert_eq!(r.occurrences, 1);
            // The original's trailing-newline state wins (as Gemini CLI keeps it).
            let mut want = format!("{prefix}{new}{suffix}");
            if content.ends_with('\n') && !want.ends_with('\n') {
                want.push('\n');
            } else if !content.ends_with('\n') && want.ends_with('\n') {
                want.pop();
            }
            prop_assert_eq!(r.content, want);
            prop_assert!(r.fuzzy_ranges.is_empty());
        }

        /// Any input gives an answer, never a panic; no match leaves the
        /// content as it was.
        #[test]
        fn never_panics(
            content in text(),
            old in text(),
            new in text(),
            expected in expected(),
        ) {
            let r = calculate(&content, &old, &new, expected);
            if r.occurrences == 0 {
                prop_assert_eq!(r.content, content);
            }
            let _ = fuzzy_note(&r.fuzzy_ranges);
        }

        /// Arbitrary Unicode too (char boundaries in every strategy).
        #[test]
        fn never_panics_on_any_unicode(
            content in "\\PC{0,40}",
            old in "\\PC{0,20}",
            new in "\\PC{0,10}",
        ) {
            let _ = calculate(&content, &old, &new, ONE);
        }
    }
}
