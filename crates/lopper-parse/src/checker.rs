//! The grammar screen's syntax checker: counts the syntax errors of candidates close to a
//! base text by tree-sitter's incremental re-parse, and how much of each it could not parse.

use crate::pest_front::PestBackend;
use crate::{edits, Frontend, ParseError};
use std::sync::Arc;

/// How damaged a text's parse is: tree-sitter's ERROR and MISSING nodes, and the bytes its
/// outermost ERROR nodes cover (text read as tokens without structure). Grammar-file
/// languages give 1 error for a rejected text, and no unparsed bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Damage {
    /// ERROR and MISSING nodes (an ERROR inside another counts too).
    pub errors: usize,
    /// Bytes inside outermost ERROR nodes.
    pub unparsed: usize,
}

impl std::iter::Sum for Damage {
    fn sum<I: Iterator<Item = Damage>>(all: I) -> Damage {
        all.fold(Damage::default(), |a, d| Damage { errors: a.errors + d.errors, unparsed: a.unparsed + d.unparsed })
    }
}

impl Damage {
    /// Whether this is more damage than `base` in either measure: more errors, or more of
    /// the text unparsed. The second catches a candidate whose parse recovers from one
    /// error by reading the rest of the file as a flat run of tokens (one ERROR node where
    /// the base had several small ones): measured on the 920k-token unity TU, such a
    /// candidate passed a count of errors alone, and the rest of the run saw 66k tokens
    /// without a declaration among them.
    pub fn worse_than(self, base: Damage) -> bool {
        self.errors > base.errors || self.unparsed > base.unparsed
    }
}

/// Measures the [`Damage`] of candidates against a base text; see [`Frontend::checker`].
/// No damage, or damage [worse than](Damage::worse_than) the base's, equals
/// [`Frontend::damage`] of the same text, and on a base without errors every measure does.
/// On a base that already has errors, a measure no worse than the base's is the
/// incremental re-parse's: tree-sitter's recovery from
/// errors depends on the subtrees it reuses, and may count one error more or fewer than a
/// fresh parse (found once: 8 against 9, on a base of 17; the verdict against the base
/// the same). Counting those afresh would cost a full parse per candidate on the
/// preprocessed C++ inputs, which have errors from the start.
///
/// tree-sitter re-parses a candidate incrementally from the base's CST, with one edit per
/// changed run of lines (a line diff, `edits.rs`), except where the edits replace more of
/// the base than the whole candidate (a deletion of most of a large input): editing the old
/// tree copies every node they overlap, so a fresh parse is then less work and memory.
/// Damage worse than the base's is a fresh parse's. The trees of the candidates counted since
/// the base was set (at most 32) are kept by the key the caller gives each text (the judge's BLAKE3 hash),
/// so the accepted one becomes the new base without another re-parse; a fresh parse's tree
/// shares no nodes with the base's, so those are kept only while they hold no more text in
/// all than the base (the oldest go first).
pub struct SyntaxChecker(pub(crate) Checker);

/// A text's identity, as the caller knows it (lopper's judge: its BLAKE3 hash), by which
/// [`SyntaxChecker::set_base`] finds a tree [`SyntaxChecker::errors`] made.
pub type TextKey = [u8; 32];

/// A counted candidate's tree, kept so that it can become the base.
pub(crate) struct Screened {
    key: TextKey,
    tree: tree_sitter::Tree,
    /// Whether the tree is a fresh parse's (an incremental re-parse's shares most nodes
    /// with the base's).
    fresh: bool,
    /// The bytes of its text.
    bytes: usize,
}

impl Screened {
    /// The text its tree holds apart from the base's: all of it for a fresh parse.
    fn own_bytes(&self) -> usize {
        if self.fresh {
            self.bytes
        } else {
            0
        }
    }
}

pub(crate) enum Checker {
    /// `screened`: the trees of the texts counted since the base was set, by their keys,
    /// so that the one accepted next becomes the base without a re-parse.
    TreeSitter {
        parser: tree_sitter::Parser,
        base: String,
        tree: tree_sitter::Tree,
        screened: Vec<Screened>,
        /// The base's damage.
        base_damage: Damage,
        /// Whether `tree` is a fresh parse's (else an incremental re-parse's).
        base_fresh: bool,
    },
    Pest(Arc<PestBackend>),
    /// A project bundle: each file counted afresh by its own parse.
    Bundle(Box<Frontend>),
}

impl SyntaxChecker {
    /// The syntax errors and unparsed bytes of `text` (see [`Frontend::damage`]); `key` is its identity,
    /// by which [`SyntaxChecker::set_base`] finds the tree made here.
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter gives no tree.
    pub fn errors(&mut self, text: &str, key: TextKey) -> Result<Damage, ParseError> {
        match &self.0 {
            Checker::Pest(p) => Ok(p.damage(text)),
            // A candidate that lost its first header is no project: never tested.
            Checker::Bundle(_) if !lopper_bundle::is_bundle(text) => Ok(Damage { errors: usize::MAX / 2, unparsed: 0 }),
            Checker::Bundle(f) => f.damage(text),
            Checker::TreeSitter { .. } => {
                let (tree, fresh) = self.reparse(text)?;
                let mut errors = damage(&tree);
                let Checker::TreeSitter { parser, base, base_damage, screened, .. } = &mut self.0 else { unreachable!("matched above") };
                if !fresh && errors.worse_than(*base_damage) {
                    // Re-using the base's subtrees, tree-sitter may recover from an error
                    // worse than a fresh parse does (more ERROR nodes, or more text in
                    // them): a candidate is rejected only on a fresh parse's damage.
                    errors = damage(&parser.parse(text, None).ok_or(ParseError::NoTree)?);
                } else if !errors.worse_than(*base_damage) {
                    // A lookahead window's worth: the accepted candidate is one of the last.
                    // Fresh trees (a deletion of most of the base) share nothing with the
                    // base's: at most a base's worth of text of them.
                    screened.push(Screened { key, tree, fresh, bytes: text.len() });
                    let mut held: usize = screened.iter().map(Screened::own_bytes).sum();
                    while screened.len() > SCREENED_KEPT || held > base.len() {
                        held -= screened.remove(0).own_bytes();
                    }
                }
                Ok(errors)
            }
        }
    }

    /// Makes `text`, whose identity is `key`, the new base (after a candidate was
    /// accepted): the tree [`SyntaxChecker::errors`] made of it, if it was counted since
    /// the last base and is still kept, else a fresh parse.
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter gives no tree.
    pub fn set_base(&mut self, text: &str, key: TextKey) -> Result<(), ParseError> {
        let Checker::TreeSitter { parser, base, tree, screened, base_damage, base_fresh } = &mut self.0 else { return Ok(()) };
        // A tree counted against the current base is the one re-parsing would give; else the
        // count the candidate was judged by is a fresh parse's.
        let new_tree = match screened.iter().position(|s| s.key == key) {
            Some(i) => {
                let kept = screened.swap_remove(i);
                *base_fresh = kept.fresh;
                kept.tree
            }
            None => {
                *base_fresh = true;
                parser.parse(text, None).ok_or(ParseError::NoTree)?
            }
        };
        *base_damage = damage(&new_tree);
        *tree = new_tree;
        *base = text.to_string();
        screened.clear();
        Ok(())
    }

    /// The CST of `text`, re-parsed from the base's; and whether it was parsed afresh
    /// instead (then it shares no nodes with the base's).
    fn reparse(&mut self, text: &str) -> Result<(tree_sitter::Tree, bool), ParseError> {
        let Checker::TreeSitter { parser, base, tree, .. } = &mut self.0 else { unreachable!("only tree-sitter re-parses") };
        let (edits, replaced) = edits::edits(base.as_bytes(), text.as_bytes());
        // Editing the old tree copies every node an edit overlaps: where the edits replace
        // more than the whole new text (a deletion of most of a large input), a fresh
        // parse of the new text is less work and memory (measured: the copies were a
        // quarter of the peak memory of a 1M-token reduction).
        if replaced > text.len() {
            return Ok((parser.parse(text, None).ok_or(ParseError::NoTree)?, true));
        }
        let mut tree = tree.clone();
        for e in &edits {
            tree.edit(e);
        }
        Ok((parser.parse(text, Some(&tree)).ok_or(ParseError::NoTree)?, false))
    }
}

/// How many screened trees a checker keeps (see `Checker::TreeSitter`): a few lookahead
/// windows of `4 × jobs` candidates.
const SCREENED_KEPT: usize = 32;

/// The damage of tree-sitter's parse `cst`: one walk over the nodes with errors below them.
pub(crate) fn damage(cst: &tree_sitter::Tree) -> Damage {
    let root = cst.root_node();
    let mut d = Damage::default();
    if !root.has_error() {
        return d;
    }
    // The end of the outermost ERROR node the walk is inside (0: none).
    let mut inside_until = 0;
    let mut c = root.walk();
    'outer: loop {
        let node = c.node();
        if node.is_error() || node.is_missing() {
            d.errors += 1;
            if node.is_error() && node.start_byte() >= inside_until {
                d.unparsed += node.end_byte() - node.start_byte();
                inside_until = node.end_byte();
            }
        }
        if node.has_error() && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                break 'outer;
            }
        }
    }
    d
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::{Damage, Frontend, Language};

    /// A text's identity for the checker, as lopper's judge makes it.
    pub(crate) fn key(text: &str) -> super::TextKey {
        blake3::hash(text.as_bytes()).into()
    }

    /// A prefix of a preprocessed file (an `extern "C" {` its end does not close): deleting the
    /// inner block's `}` leaves one syntax error, as before, but tree-sitter then reads the
    /// whole text as one ERROR node. The screen sees it by the unparsed bytes, through a fresh
    /// parse as for more errors. (Found on the 920k-token unity TU: such a candidate passed a
    /// count of errors, and the rest of that run saw 66k tokens without a declaration.)
    #[test]
    fn a_candidate_read_as_one_error_is_worse_than_its_base_with_as_many_errors() {
        let f = Frontend::new(Language::Cpp).unwrap();
        let base = "extern \"C\" {\nint a(int);\nextern \"C++\"\n{\nint b(int);\n}\nint c(int);\nint d(int);\nint e(int);\nint f(int);\n";
        let cand = base.replacen("}\n", "", 1);
        let (b, c) = (f.damage(base).unwrap(), f.damage(&cand).unwrap());
        assert_eq!((b.errors, c.errors), (1, 1));
        assert_eq!(b.unparsed, 0);
        assert!(c.unparsed > cand.len() * 9 / 10, "{c:?} of {} bytes", cand.len());
        assert!(c.worse_than(b) && !b.worse_than(c));
        let mut ch = f.checker(base).unwrap();
        assert_eq!(ch.errors(&cand, key(&cand)).unwrap(), c);
        assert_eq!(f.syntax_errors(&cand).unwrap(), 1);
    }

    /// The kept trees: (whether fresh, bytes) of each, oldest first.
    fn kept(ch: &super::SyntaxChecker) -> Vec<(bool, usize)> {
        let super::Checker::TreeSitter { screened, .. } = &ch.0 else { panic!("a tree-sitter checker") };
        screened.iter().map(|s| (s.fresh, s.bytes)).collect()
    }

    #[test]
    fn a_candidate_parsed_afresh_is_kept_within_a_base_s_worth_and_becomes_a_fresh_base() {
        let f = Frontend::new(Language::C).unwrap();
        let lines: Vec<String> = (0..40).map(|i| format!("int v{i} = {i};\n")).collect();
        let base = lines.concat();
        let mut ch = f.checker(&base).unwrap();
        // Each deletes most of the base (2 to 16 lines of 40 left): a fresh parse, kept
        // while the fresh ones kept hold no more text than the base.
        let cands: Vec<String> = (1..=8).map(|i| lines[..2 * i].concat()).collect();
        for c in &cands {
            assert_eq!(ch.errors(c, key(c)).unwrap(), f.damage(c).unwrap());
            let k = kept(&ch);
            assert!(k.iter().all(|&(fresh, _)| fresh) && k.iter().map(|&(_, b)| b).sum::<usize>() <= base.len(), "{k:?}");
        }
        let last = cands.last().unwrap();
        assert_eq!(kept(&ch).last(), Some(&(true, last.len())));
        ch.set_base(last, key(last)).unwrap();
        let super::Checker::TreeSitter { base_fresh, .. } = &ch.0 else { unreachable!() };
        assert!(base_fresh);
        // The base's tree serves as a fresh parse would.
        assert_eq!(f.parse_with(&ch, last).unwrap().tree.token_count(), f.parse(last).unwrap().tree.token_count());
        let broken = last.replacen("= ", "= = ", 1);
        assert_eq!(ch.errors(&broken, key(&broken)).unwrap(), f.damage(&broken).unwrap());
    }

    #[test]
    fn incremental_checker_agrees_with_a_full_parse() {
        let f = Frontend::new(Language::C).unwrap();
        let base = "int f(int a) { return a; }\nint g(void) { return f(1) + f(2); }\nint h;\n";
        let mut ch = f.checker(base).unwrap();
        for cand in [
            "int f(int a) { return a; }\nint g(void) { return f(1); }\nint h;\n",
            "int f(int a) { return a; }\nint g(void) { return f(1) + ; }\nint h;\n",
            "int f(int a) { return a; }\nint h;\n",
            "int f(int a) { return a; \nint h;\n",
            "",
            base,
        ] {
            assert_eq!(ch.errors(cand, key(cand)).unwrap(), f.damage(cand).unwrap(), "{cand:?}");
        }
        let (next, broken) = ("int f(int a) { return a; }\nint h;\n", "int f(int a) { return }\nint h;\n");
        ch.set_base(next, key(next)).unwrap();
        assert_eq!(ch.errors(broken, key(broken)).unwrap(), f.damage(broken).unwrap());
        assert_eq!(ch.errors("int h;\n", key("int h;\n")).unwrap(), Damage::default());
    }
}
