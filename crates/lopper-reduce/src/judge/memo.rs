//! The memo of local changes that were not interesting: a candidate is keyed by the lines
//! its change touches ([`local_change`]), so that a change that failed in one round is
//! presumed to fail in a later one ([`Memo::Presume`]).

use foldhash::{HashMap, HashMapExt, HashSet};

/// Whether and how [`Judge::judge`] uses the memo of local changes that were
/// not interesting ([`local_change`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Memo<'p> {
    /// No memo: every new text is judged, and nothing is learnt.
    Off,
    /// Every new text is judged; the local changes of those not interesting are learnt.
    Record(LocalKey<'p>),
    /// A text whose local change is known not to be interesting is presumed so, untested.
    Presume(LocalKey<'p>),
}

/// How the local changes of one pass are keyed (see [`local_change`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LocalKey<'p> {
    /// The pass that made the changes.
    pub pass: &'p str,
    /// Key modulo a consistent renaming of words: for passes that only delete, replace or
    /// move text (Perses, sub-trees, tokens), whose failed changes stay failed after the
    /// identifier pass renamed the program; not for passes whose change is a renaming.
    pub modulo_words: bool,
}

/// The most words a change may take out of its lines for its key to say of each whether
/// the program still has it elsewhere (each a search of the whole text); a change that
/// takes more is keyed by its lines alone.
const WORDS_LOOKED_UP: usize = 8;

/// A key for the change from `best` to `candidate` made by `key.pass`, local to the lines it
/// touches: the pass, the changed lines with one line of context either side as they were,
/// and what they became (with `key.modulo_words`, each word as the number of its first
/// appearance there); and, for each word the change takes out of those lines (at most
/// [`WORDS_LOOKED_UP`]), whether `best` has it outside them. Two candidates of different
/// rounds with the same key make the same change to the same neighbourhood, though the
/// program elsewhere may differ — but not where a name the change deletes has lost its
/// last use elsewhere meanwhile (`int i = e;` to `e;` fails while `i = b;` stands, and may
/// pass once it went).
pub(crate) fn local_change(key: LocalKey<'_>, best: &str, candidate: &str) -> [u8; 32] {
    let (b, c) = (best.as_bytes(), candidate.as_bytes());
    let prefix = lopper_parse::common_prefix(b, c);
    let suffix = lopper_parse::common_suffix(&b[prefix..], &c[prefix..]);
    // Widen to whole lines, plus one line before and after.
    let start = |s: &[u8]| s[..prefix].iter().rposition(|&x| x == b'\n').map_or(0, |i| s[..i].iter().rposition(|&x| x == b'\n').map_or(0, |j| j + 1));
    let end = |s: &[u8], changed_end: usize| {
        let next = |from: usize| s[from..].iter().position(|&x| x == b'\n').map_or(s.len(), |i| from + i + 1);
        let line_end = next(changed_end);
        if line_end < s.len() {
            next(line_end)
        } else {
            line_end
        }
    };
    let window = start(b)..end(b, b.len() - suffix);
    let (before, after) = (&b[window.clone()], &c[start(c)..end(c, c.len() - suffix)]);
    let mut h = blake3::Hasher::new();
    for w in words_gone(before, after).unwrap_or_default() {
        h.update(&[occurs_outside(b, w, &window) as u8]);
    }
    h.update(key.pass.as_bytes());
    h.update(b"\0");
    if key.modulo_words {
        // Abstracted into one buffer and hashed once: the same bytes in the same order,
        // so the same key as a piece-by-piece update, without a hasher call per word.
        let mut names = HashMap::new();
        let mut abstracted = Vec::with_capacity(before.len() + after.len() + 1);
        abstract_words(before, &mut names, &mut abstracted);
        abstracted.push(0);
        abstract_words(after, &mut names, &mut abstracted);
        h.update(&abstracted);
    } else {
        for part in [before, b"\0", after] {
            h.update(part);
        }
    }
    h.finalize().into()
}

/// The words of `before` that `after` lacks, in order of first appearance; `None` when
/// there are more than [`WORDS_LOOKED_UP`] (a change over much of the file stops there).
fn words_gone<'t>(before: &'t [u8], after: &[u8]) -> Option<Vec<&'t [u8]>> {
    let kept: HashSet<&[u8]> = words(after).collect();
    let mut gone: Vec<&[u8]> = Vec::new();
    for w in words(before) {
        if !kept.contains(w) && !gone.contains(&w) {
            if gone.len() == WORDS_LOOKED_UP {
                return None;
            }
            gone.push(w);
        }
    }
    Some(gone)
}

/// The words of `text` (as [`abstract_words`] reads them), in order.
fn words(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&x| !is_word_byte(x)).filter(|w| w.first().is_some_and(|x| x.is_ascii_alphabetic() || *x == b'_'))
}

/// Whether `text` has the word `w` (not as part of a longer word) outside `window`.
fn occurs_outside(text: &[u8], w: &[u8], window: &std::ops::Range<usize>) -> bool {
    memchr::memmem::find_iter(text, w).any(|p| {
        let end = p + w.len();
        !window.contains(&p) && (p == 0 || !is_word_byte(text[p - 1])) && (end == text.len() || !is_word_byte(text[end]))
    })
}

/// Whether `x` may stand inside a word (an ASCII letter, digit or `_`).
fn is_word_byte(x: u8) -> bool {
    x.is_ascii_alphanumeric() || x == b'_'
}

/// Appends `text` to `out` with every word (a run of ASCII letters, digits and `_` that
/// starts with a letter or `_`: identifiers and keywords alike) replaced by byte 1 and the
/// little-endian number of its first appearance in `names`, which it extends; other bytes
/// as they are.
fn abstract_words<'t>(text: &'t [u8], names: &mut HashMap<&'t [u8], u32>, out: &mut Vec<u8>) {
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_alphabetic() || text[i] == b'_' {
            let end = text[i..].iter().position(|&x| !is_word_byte(x)).map_or(text.len(), |n| i + n);
            let w = &text[i..end];
            let next = names.len() as u32;
            let n = *names.entry(w).or_insert(next);
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
            i = end;
        } else {
            let end = text[i..].iter().position(|&x| x.is_ascii_alphabetic() || x == b'_').map_or(text.len(), |n| i + n);
            out.extend_from_slice(&text[i..end]);
            i = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{local_change, LocalKey};

    #[test]
    fn a_deleted_name_losing_its_last_use_elsewhere_changes_the_key() {
        let key = LocalKey { pass: "tokens", modulo_words: true };
        let change = |p: &str| local_change(key, p, &p.replace("int i = e;", "e;"));
        // The same lines around the change; `i` used further down, or not.
        let used = "f();\nint i = e;\nk();\nx();\ni = b;\nz;\n";
        let unused = "f();\nint i = e;\nk();\nx();\ny();\nz;\n";
        assert_ne!(change(used), change(unused));
        // The program differing elsewhere, `i` still used: the same key, presumed.
        assert_eq!(change(used), change(&used.replace("z;", "w;")));
        // `ii` is another word: `i` has no use left.
        assert_eq!(change(unused), change(&unused.replace("y();", "ii = b;")));
    }
}
