use super::*;
use crate::render::{may_glue, Rendering};

/// Builds `f(a, bb,c);/*x*/` by hand: call = "f" "(" args ")" ";" where args is a star of
/// elements, each `sep? id`.
fn call() -> (Tree, Vec<NodeId>) {
    let src = "f(a, bb,c);/*x*/\n".to_string();
    let mut b = TreeBuilder::new(src);
    let f = b.token(None, None, 0..1);
    let lp = b.token(None, None, 1..2);
    let a = b.token(None, None, 2..3);
    let e1 = b.node(NodeKind::Regular, None, None, vec![a]);
    let c1 = b.token(None, None, 3..4);
    let bb = b.token(None, None, 5..7);
    let e2 = b.node(NodeKind::Regular, None, None, vec![c1, bb]);
    let c2 = b.token(None, None, 7..8);
    let c = b.token(None, None, 8..9);
    let e3 = b.node(NodeKind::Regular, None, None, vec![c2, c]);
    let args = b.node(NodeKind::Star, None, None, vec![e1, e2, e3]);
    let rp = b.token(None, None, 9..10);
    let semi = b.token(None, None, 10..11);
    b.comment(11..16);
    let root = b.node(NodeKind::Regular, None, None, vec![f, lp, args, rp, semi]);
    (b.finish(root), vec![e1, e2, e3, args, bb])
}

#[test]
fn unedited_render_is_the_source_except_comments() {
    let (t, _) = call();
    assert_eq!(t.render(&EditSet::default(), RenderOptions { keep_comments: true }), t.source());
    assert_eq!(t.render(&EditSet::default(), RenderOptions::default()), "f(a, bb,c); \n");
    assert_eq!(t.token_count(), 9);
}

#[test]
fn deleting_list_elements_keeps_the_remaining_whitespace() {
    let (t, ids) = call();
    let e = EditSet::default().with(ids[1], Edit::Delete);
    assert_eq!(t.render(&e, RenderOptions::default()), "f(a,c); \n");
    assert_eq!(t.count_tokens(&e), 7);
    let e = e.with(ids[2], Edit::Delete);
    assert_eq!(t.render(&e, RenderOptions::default()), "f(a); \n");
    let all = EditSet::default().with(ids[3], Edit::Delete);
    assert_eq!(t.render(&all, RenderOptions::default()), "f(); \n");
    let live = t.live(&all);
    assert!(!live[ids[0].0 as usize] && live[t.root().0 as usize]);
}

#[test]
fn tokens_that_were_not_adjacent_never_glue() {
    // "(a)b": replacing the parenthesized node by `a` must not give "ab".
    let mut b = TreeBuilder::new("(a)b".to_string());
    let lp = b.token(None, None, 0..1);
    let a = b.token(None, None, 1..2);
    let rp = b.token(None, None, 2..3);
    let paren = b.node(NodeKind::Regular, None, None, vec![lp, a, rp]);
    let bt = b.token(None, None, 3..4);
    let root = b.node(NodeKind::Regular, None, None, vec![paren, bt]);
    let t = b.finish(root);
    let e = EditSet::default().with(paren, Edit::Replace(a));
    assert_eq!(t.render(&e, RenderOptions::default()), "a b");
    assert_eq!(t.effective(&e, paren), Some(a));
    assert_eq!(t.count_tokens(&e), 2);
}

#[test]
fn replacement_chains_are_followed() {
    let (t, ids) = call();
    // args replaced by its first element, which is replaced by its token: "f(a);"
    let e = EditSet::default().with(ids[3], Edit::Replace(ids[0]));
    assert_eq!(t.render(&e, RenderOptions::default()), "f(a); \n");
    let e2 = EditSet::default().with(ids[3], Edit::Replace(ids[1])).with(ids[1], Edit::Replace(ids[4]));
    assert_eq!(t.render(&e2, RenderOptions::default()), "f( bb); \n");
}

#[test]
fn glue_check_separates_words_operators_and_dots_only() {
    assert!(may_glue("int", "x"));
    assert!(may_glue("a +", "+"));
    assert!(may_glue("x = 1", ".5"));
    assert!(!may_glue("f(", "a"));
    assert!(!may_glue("a", ")"));
    assert!(!may_glue("a ", "b"));
}

#[test]
fn line_breaks_survive_and_blank_lines_collapse() {
    // "#x\n\n\n  a b\n  c": deleting `a b` keeps `c` on its own line, once.
    let mut b = TreeBuilder::new("#x\n\n\n  a b\n  c".to_string());
    let x = b.token(None, None, 0..2);
    let a = b.token(None, None, 7..8);
    let bt = b.token(None, None, 9..10);
    let ab = b.node(NodeKind::Regular, None, None, vec![a, bt]);
    let c = b.token(None, None, 13..14);
    let root = b.node(NodeKind::Star, None, None, vec![x, ab, c]);
    let t = b.finish(root);
    assert_eq!(t.render(&EditSet::default().with(ab, Edit::Delete), RenderOptions::default()), "#x\n  c");
    // Adjacent tokens keep their whitespace verbatim, blank lines included.
    assert_eq!(t.render(&EditSet::default().with(c, Edit::Delete), RenderOptions::default()), "#x\n\n\n  a b\n");
}

/// `x;` statements with CRLF endings; each statement a star element.
fn crlf_lines() -> (Tree, Vec<NodeId>) {
    let src = "a; x;\r\n\r\n  b;\r\nc;".to_string();
    let mut b = TreeBuilder::new(src);
    let mut elems = Vec::new();
    for (id, semi) in [(0..1, 1..2), (3..4, 4..5), (11..12, 12..13), (15..16, 16..17)] {
        let i = b.token(None, None, id);
        let s = b.token(None, None, semi);
        elems.push(b.node(NodeKind::Regular, None, None, vec![i, s]));
    }
    let root = b.node(NodeKind::Star, None, None, elems.clone());
    (b.finish(root), elems)
}

#[test]
fn crlf_sources_get_crlf_line_breaks_only() {
    let (t, ids) = crlf_lines();
    assert_eq!(t.line_break(), "\r\n");
    assert_eq!(t.token_ids().iter().map(|&id| t.token_text(id)).collect::<Vec<_>>(), ["a", ";", "x", ";", "b", ";", "c", ";"]);
    let second: Vec<&str> = t.subtree_token_ids(ids[1]).iter().map(|&id| t.token_text(id)).collect();
    assert_eq!(second, ["x", ";"]);
    assert_eq!(t.subtree_token_ids(t.root()), t.token_ids());
    let render = |deleted: &[usize]| {
        let e = deleted.iter().fold(EditSet::default(), |e, &i| e.with(ids[i], Edit::Delete));
        t.render(&e, RenderOptions::default())
    };
    // The blank line left by `x` goes; `b` keeps its CRLF and its indentation.
    assert_eq!(render(&[1]), "a;\r\n  b;\r\nc;");
    // The line break that followed `x;` is kept, as CRLF.
    assert_eq!(render(&[1, 2]), "a;\r\nc;");
    // The line break inserted after a deleted last element is CRLF too.
    assert_eq!(render(&[3]), "a; x;\r\n\r\n  b;\r\n");
    for d in [[0, 1], [2, 3], [1, 3]] {
        let out = render(&d);
        assert!(!out.replace("\r\n", "").contains('\n'), "a bare LF: {out:?}");
    }
}

#[test]
fn many_edits_are_looked_up_as_few() {
    // `x0 x1 … x39 ;`: a star of 40 one-token elements. Deleting every odd one (20 edits:
    // past the index's small-set limit), renaming one kept token and replacing none.
    let src: String = (0..40).map(|i| format!("x{i} ")).collect::<String>() + ";";
    let mut b = TreeBuilder::new(src.clone());
    let mut at = 0;
    let mut elements = Vec::new();
    for i in 0..40 {
        let len = format!("x{i}").len();
        let tok = b.token(None, None, at..at + len);
        elements.push(b.node(NodeKind::Regular, None, None, vec![tok]));
        at += len + 1;
    }
    let star = b.node(NodeKind::Star, None, None, elements.clone());
    let semi = b.token(None, None, at..at + 1);
    let root = b.node(NodeKind::Regular, None, None, vec![star, semi]);
    let t = b.finish(root);
    let mut e = EditSet::default();
    for (i, &el) in elements.iter().enumerate() {
        if i % 2 == 1 {
            e = e.with(el, Edit::Delete);
        }
    }
    let renamed = t.node(elements[38]).children[0];
    e = e.with(renamed, Edit::Text("y".into()));
    let expected: String = (0..40).step_by(2).map(|i| if i == 38 { "y ".to_string() } else { format!("x{i} ") }).collect::<String>() + ";";
    assert_eq!(t.render(&e, RenderOptions::default()), expected);
    assert_eq!(t.count_tokens(&e), 21);
    let live = t.live(&e);
    assert!(elements.iter().enumerate().all(|(i, el)| live[el.0 as usize] == (i % 2 == 0)));
}

/// Token by token, every node visited: what [`Tree::render`] gives without copying
/// unedited subtrees as one span.
fn render_token_by_token(t: &Tree, edits: &EditSet, opts: RenderOptions) -> String {
    let index = EditIndex::new(edits, t.len());
    let mut r = Rendering { tree: t, opts, nl: t.line_break(), out: String::new(), last: None, last_edited: false };
    t.walk_indexed(&index, |id| {
        match (&t.node(id).text, index.get(id)) {
            (Some(_), Some(Edit::Text(s))) => r.token(id, s, true),
            (Some(_), _) => r.token(id, t.token_text(id), false),
            (None, _) => return true,
        }
        false
    });
    r.finish()
}

/// A random tree over random tokens, gaps and comments, and a random edit set over it,
/// from `seed` (xorshift, so a failing seed reproduces). With `nested`, the tree is built
/// depth first, as the parser builds it (the arena in post-order); else level by level,
/// all tokens first.
fn random_case(seed: u64, nested: bool) -> (Tree, EditSet) {
    let mut state = seed | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    const TOKENS: [&str; 8] = ["a", "bb", "+", "(", ")", ";", "1", ".5"];
    const GAPS: [&str; 7] = ["", " ", "\n", "  ", "/*c*/", "\r\n", " // x\n"];
    let count = 1 + next(40);
    let mut src = String::new();
    let mut spans = Vec::new();
    let mut comments = Vec::new();
    for _ in 0..count {
        let gap = GAPS[next(GAPS.len())];
        if gap.contains("/") {
            let at = src.len() + gap.find('/').unwrap();
            comments.push(at..at + gap.trim_end().len() - gap.find('/').unwrap());
        }
        src.push_str(gap);
        let tok = TOKENS[next(TOKENS.len())];
        spans.push(src.len()..src.len() + tok.len());
        src.push_str(tok);
    }
    src.push_str(GAPS[next(3)]);
    let mut b = TreeBuilder::new(src);
    for c in comments {
        b.comment(c);
    }
    let kinds = [NodeKind::Regular, NodeKind::Star, NodeKind::Optional, NodeKind::Plus];
    let root = if nested {
        // Each node over a run of tokens: split into 1-3 parts, each a token or a node.
        fn build(b: &mut TreeBuilder, spans: &[Range<usize>], next: &mut dyn FnMut(usize) -> usize) -> NodeId {
            if spans.len() == 1 && next(2) == 0 {
                return b.token(None, None, spans[0].clone());
            }
            let parts = (1 + next(3)).min(spans.len());
            let mut children = Vec::new();
            let mut at = 0;
            for p in 0..parts {
                let end = if p + 1 == parts { spans.len() } else { at + 1 + next(spans.len() - at - (parts - p - 1)) };
                children.push(if end - at == 1 && next(2) == 0 { b.token(None, None, spans[at].clone()) } else { build(b, &spans[at..end], next) });
                at = end;
            }
            let kinds = [NodeKind::Regular, NodeKind::Star, NodeKind::Optional, NodeKind::Plus];
            b.node(kinds[next(kinds.len())], None, None, children)
        }
        build(&mut b, &spans, &mut next)
    } else {
        // Group runs of adjacent nodes into parents until one root is left.
        let mut level: Vec<NodeId> = spans.into_iter().map(|s| b.token(None, None, s)).collect();
        while level.len() > 1 {
            let mut up = Vec::new();
            let mut i = 0;
            while i < level.len() {
                let take = (1 + next(3)).min(level.len() - i);
                up.push(b.node(kinds[next(kinds.len())], None, None, level[i..i + take].to_vec()));
                i += take;
            }
            level = up;
        }
        if next(2) == 0 {
            level[0]
        } else {
            b.node(NodeKind::Regular, None, None, level)
        }
    };
    let t = b.finish(root);
    let mut e = EditSet::default();
    for _ in 0..next(12) {
        let id = NodeId(next(t.len()) as u32);
        let edit = match next(3) {
            0 => Edit::Delete,
            1 => {
                let mut d = id;
                while !t.node(d).children.is_empty() && next(3) != 0 {
                    d = t.node(d).children[next(t.node(d).children.len())];
                }
                if d == id {
                    continue;
                }
                Edit::Replace(d)
            }
            _ if t.node(id).kind == NodeKind::Token => Edit::Text(["z", "-", "c1"][next(3)].to_string()),
            _ => continue,
        };
        e = e.with(id, edit);
    }
    (t, e)
}

proptest::proptest! {
    #[test]
    fn rendering_copies_unedited_subtrees_as_the_token_by_token_rendering_would(seed in proptest::prelude::any::<u64>(), nested: bool) {
        let (t, e) = random_case(seed, nested);
        // Built depth first, the arena is in post-order (level by level, only by chance).
        proptest::prop_assert!(t.postorder || !nested);
        for keep_comments in [false, true] {
            let opts = RenderOptions { keep_comments };
            proptest::prop_assert_eq!(t.render(&e, opts), render_token_by_token(&t, &e, opts));
        }
        let mut tokens = 0;
        t.walk(&e, |id| {
            tokens += (t.node(id).kind == NodeKind::Token) as usize;
            true
        });
        proptest::prop_assert_eq!(t.count_tokens(&e), tokens);
        let mut live = vec![false; t.len()];
        t.walk(&e, |id| {
            live[id.0 as usize] = true;
            true
        });
        proptest::prop_assert_eq!(t.live(&e), live);
    }
}

#[test]
fn an_edit_set_deletes_beyond_a_base_when_it_keeps_its_edits_and_only_deletes_more() {
    let (a, b, c) = (NodeId(1), NodeId(2), NodeId(3));
    let base = EditSet::default().with(b, Edit::Replace(c));
    assert!(base.deletes_beyond(&base));
    assert!(base.with(a, Edit::Delete).deletes_beyond(&base));
    assert!(base.with(c, Edit::Delete).deletes_beyond(&base));
    assert!(!base.with(a, Edit::Text("x".into())).deletes_beyond(&base), "a renaming");
    assert!(!base.with(b, Edit::Delete).deletes_beyond(&base), "the base's edit changed");
    assert!(!EditSet::default().with(a, Edit::Delete).deletes_beyond(&base), "the base's edit dropped");
    assert!(!base.with(a, Edit::Replace(c)).deletes_beyond(&base), "a replacement");
}

proptest::proptest! {
    /// The bulk path of [`EditSet::delete`] (many ids at once) gives the set inserting them
    /// one by one would: every id deleted, the Delete winning over an edit it had, the rest
    /// of the set as it was.
    #[test]
    fn deleting_many_at_once_is_inserting_each(
        base in proptest::collection::vec((0u32..400, 0u8..3), 0..300),
        ids in proptest::collection::vec(0u32..400, 0..300),
    ) {
        let mut set = EditSet::default();
        for (id, kind) in base {
            let e = match kind {
                0 => Edit::Delete,
                1 => Edit::Replace(NodeId(id + 1)),
                _ => Edit::Text(format!("t{id}")),
            };
            set.insert(NodeId(id), e);
        }
        let mut one_by_one = set.clone();
        for &id in &ids {
            one_by_one.insert(NodeId(id), Edit::Delete);
        }
        set.delete(ids.iter().map(|&id| NodeId(id)));
        proptest::prop_assert_eq!(set, one_by_one);
    }
}

proptest::proptest! {
    /// [`Tree::outermost`] keeps, once each and in the order given, the nodes none of whose
    /// ancestors is given: as a set lookup per ancestor would.
    #[test]
    fn outermost_nodes_are_those_no_other_given_node_contains(seed in proptest::prelude::any::<u64>(), picks in proptest::collection::vec(0usize..1000, 0..60)) {
        let (t, _) = random_case(seed, true);
        let given: Vec<NodeId> = picks.iter().map(|&p| NodeId((p % t.len()) as u32)).collect();
        let set: std::collections::HashSet<NodeId> = given.iter().copied().collect();
        let mut seen = std::collections::HashSet::new();
        let expected: Vec<NodeId> = given.iter().copied().filter(|&n| !t.ancestors(n).any(|a| set.contains(&a)) && seen.insert(n)).collect();
        proptest::prop_assert_eq!(t.outermost(given), expected);
    }
}
