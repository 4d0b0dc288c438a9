//! `Tree::render_more` (a base state's text spliced for further deletions) against
//! `Tree::render` on real parsed programs: random base states (deletions, replacements by
//! a descendant, renamed tokens), random further deletions, and the spliced rendering of a
//! spliced base.

use lopper_parse::{Frontend, Language};
use lopper_tree::{Edit, EditSet, NodeId, RenderOptions, Tree};
use proptest::prelude::*;

const C: &str = "#include <stdio.h>\n#define N 3\n/* a comment */\nstruct s { int a; int b; };\n\nstatic int f(int x) {\n  // line comment\n  if (x > N) {\n    return x - 1;\n  }\n  for (int i = 0; i < x; i++) x += i;\n  return x;\n}\n\nint main(void) {\n  struct s v = { 1, 2 };\n  printf(\"%d\\n\", f(v.a) + f(v.b));\n  return 0;\n}\n";
const JS: &str = "// header\nconst a = [1, 2, 3];\nfunction g(x, y) {\n  let z = x++ + +y;\n  return z / 2 /* half */ + a.length;\n}\nclass K { static m() { return g(1, .5); } }\nconsole.log(K.m(), a.map(v => v * 2));\n";
const PY: &str =
    "import os\n\ndef f(x):\n    if x:\n        return x + 1\n    return 0\n\n\nclass A:\n    def m(self):\n        return f(2)\n\nprint(A().m(), os.sep)\n";

/// The program's tree; the CRLF variant of the text too, where `crlf`.
fn tree(lang: Language, text: &str, crlf: bool) -> Tree {
    let text = if crlf { text.replace('\n', "\r\n") } else { text.to_string() };
    Frontend::new(lang).unwrap().parse(&text).unwrap().tree
}

/// A random edit set over `tree`: each pick deletes a node, replaces it by a descendant of
/// its, or renames a token, by `picks` (node pick, kind, descendant pick).
fn edits(tree: &Tree, picks: &[(usize, u8, usize)]) -> EditSet {
    let mut e = EditSet::default();
    for &(n, kind, d) in picks {
        let id = NodeId((n % tree.len()) as u32);
        match kind % 4 {
            0 | 1 => e.insert(id, Edit::Delete),
            2 => {
                let mut below = Vec::new();
                let mut stack: Vec<NodeId> = tree.node(id).children.to_vec();
                while let Some(c) = stack.pop() {
                    below.push(c);
                    stack.extend(tree.node(c).children.iter());
                }
                if !below.is_empty() {
                    e.insert(id, Edit::Replace(below[d % below.len()]));
                }
            }
            _ if tree.node(id).text.is_some() => e.insert(id, Edit::Text(["x", "1", "+", "ab"][d % 4].to_string())),
            _ => {}
        }
    }
    e
}

/// `base` plus deletions of the nodes `picks` names.
fn more(tree: &Tree, base: &EditSet, picks: &[usize]) -> EditSet {
    let mut e = base.clone();
    e.delete(picks.iter().map(|&n| NodeId((n % tree.len()) as u32)).filter(|id| !base.contains(*id)));
    e
}

fn check(
    lang: Language,
    text: &str,
    crlf: bool,
    keep_comments: bool,
    base: &[(usize, u8, usize)],
    extra: &[usize],
    again: &[usize],
) -> Result<(), TestCaseError> {
    let t = tree(lang, text, crlf);
    let opts = RenderOptions { keep_comments };
    let s = edits(&t, base);
    let b = t.render_base(&s, opts);
    prop_assert_eq!(&b.text, &t.render(&s, opts));
    let live = t.live(&s);
    let s2 = more(&t, &s, extra);
    let Some(text2) = t.render_more(&b, &s, &live, &s2) else {
        return Err(TestCaseError::fail("deletions of unedited nodes are spliced"));
    };
    prop_assert_eq!(&text2, &t.render(&s2, opts));
    // The spliced base serves as a base in turn.
    let b2 = t.render_more_base(&b, &s, &live, &s2).expect("deletions of unedited nodes");
    prop_assert_eq!(&b2.text, &text2);
    let s3 = more(&t, &s2, again);
    let text3 = t.render_more(&b2, &s2, &t.live(&s2), &s3).expect("deletions again");
    prop_assert_eq!(&text3, &t.render(&s3, opts));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn spliced_renderings_equal_full_ones(
        lang in 0..3usize,
        crlf in any::<bool>(),
        keep_comments in any::<bool>(),
        base in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 0..6),
        extra in proptest::collection::vec(any::<usize>(), 0..8),
        again in proptest::collection::vec(any::<usize>(), 0..4),
    ) {
        let (l, text) = [(Language::C, C), (Language::JavaScript, JS), (Language::Python, PY)][lang];
        check(l, text, crlf, keep_comments, &base, &extra, &again)?;
    }
}

#[test]
fn a_base_with_other_edits_than_deletions_added_is_not_spliced() {
    let t = tree(Language::C, C, false);
    let opts = RenderOptions::default();
    let s = EditSet::default();
    let b = t.render_base(&s, opts);
    let live = t.live(&s);
    let token = t.token_ids()[3];
    let renamed = s.with(token, Edit::Text("y".into()));
    assert!(t.render_more(&b, &s, &live, &renamed).is_none());
    // An edit of the base taken back: not a superset.
    let deleted = s.with(token, Edit::Delete);
    let b2 = t.render_base(&deleted, opts);
    assert!(t.render_more(&b2, &deleted, &t.live(&deleted), &s).is_none());
    // A deletion: spliced, and equal to the full rendering.
    let text = t.render_more(&b, &s, &live, &deleted).unwrap();
    assert_eq!(text, t.render(&deleted, opts));
}
