//! Helpers shared by this crate's integration tests.

/// A needle for an oracle that keeps candidates containing it: two adjacent non-space
/// characters of `src`, the `at`-th such pair (modulo their number), or the whole text
/// when it has none.
pub fn needle(src: &str, at: usize) -> String {
    let chars: Vec<char> = src.chars().collect();
    let pairs: Vec<String> = chars.windows(2).filter(|w| !w[0].is_whitespace() && !w[1].is_whitespace()).map(|w| w.iter().collect()).collect();
    if pairs.is_empty() {
        return src.to_string();
    }
    pairs[at % pairs.len()].clone()
}
