//! The matcher's memo: sets of end positions ([`Ends`]) and the tables that hold them
//! ([`Tables`]), reused from one CST node's matcher to the next.

use lopper_grammar::SymbolId;
// foldhash: the memo tables are probed for every (symbol, position) of every node, and
// SipHash was a quarter of parsing time.
use foldhash::{HashMap, HashSet};
use std::rc::Rc;

/// A sorted set of item positions where a match can end: up to two held inline (nearly
/// every set: a visible symbol matches one item or none), more shared, so that neither
/// a lookup in the memo nor a small result allocates.
#[derive(Clone)]
pub(super) enum Ends {
    Inline(u8, [u32; 2]),
    Shared(Rc<[u32]>),
}

impl Ends {
    pub(super) const NONE: Ends = Ends::Inline(0, [0; 2]);

    pub(super) fn one(p: u32) -> Ends {
        Ends::Inline(1, [p, 0])
    }

    /// `v` as a set (sorted and deduplicated here).
    pub(super) fn of(mut v: Vec<u32>) -> Ends {
        v.sort_unstable();
        v.dedup();
        match v[..] {
            [] => Ends::NONE,
            [a] => Ends::one(a),
            [a, b] => Ends::Inline(2, [a, b]),
            _ => Ends::Shared(Rc::from(v)),
        }
    }
}

impl std::ops::Deref for Ends {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match self {
            Ends::Inline(n, a) => &a[..*n as usize],
            Ends::Shared(v) => v,
        }
    }
}

/// A matcher's memo tables, kept between matchers (cleared) so that each CST node's
/// matcher does not grow its tables from nothing: that growth was a fifth of parsing.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) memo: HashMap<(SymbolId, u32), Ends>,
    pub(super) seq_memo: HashMap<(SymbolId, u32, u32, u32), Ends>,
    pub(super) busy: HashSet<(SymbolId, u32)>,
}

impl Tables {
    /// Empties the tables for the next matcher; one a large node grew is dropped instead,
    /// since clearing costs its whole capacity every time.
    pub(super) fn reset(mut self) -> Tables {
        if self.memo.capacity() + self.seq_memo.capacity() > 1 << 12 {
            return Tables::default();
        }
        self.memo.clear();
        self.seq_memo.clear();
        self.busy.clear();
        self
    }
}
