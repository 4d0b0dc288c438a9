//! Value parsers of the command line that also offer their values to shell completions.

/// A value parser that parses with `parse` and offers `names` to shell completions (and
/// nothing to the help, which says them in words): `--lang`, whose grammars directories
/// may add languages, takes any name; the others check theirs.
#[derive(Clone)]
pub struct Offered<T: Clone + Send + Sync + 'static> {
    pub parse: fn(&str) -> Result<T, String>,
    pub names: fn() -> Vec<&'static str>,
}

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for Offered<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<T, clap::Error> {
        let text = clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)?;
        (self.parse)(&text).map_err(|m| clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{m}\n")).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(clap::builder::PossibleValue::new)))
    }
}

/// The language names completions offer: the built-in ones and the shipped grammar files.
pub fn language_names() -> Vec<&'static str> {
    lopper_parse::Language::ALL.iter().map(|l| l.name()).chain(["js", "json", "smtlib", "lua", lopper_parse::registry::TEXT]).collect()
}

/// Parses a `--minimizer` name.
pub fn parse_minimizer(name: &str) -> Result<&'static dyn lopper_reduce::minimize::ListMinimizer, String> {
    lopper_reduce::minimize::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| *m)
        .ok_or_else(|| format!("unknown minimizer `{name}` (known: {})", lopper_reduce::minimize::ALL.map(|(n, _)| n).join(", ")))
}

/// Parses an `--algorithm` name (the names `--list-algorithms` prints).
pub fn parse_algorithm(name: &str) -> Result<lopper_reduce::Algorithm, String> {
    lopper_reduce::Algorithm::ALL
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(a, _, _)| *a)
        .ok_or_else(|| format!("unknown algorithm `{name}` (see --list-algorithms)"))
}

/// Parses a `--memory-limit` size into MiB: a plain number is MiB; `K`, `M`, `G` and `T`
/// (or `KiB`, `MiB`, `GiB`, `TiB`, `KB`…, any case; powers of 1024, as systemd, Docker and
/// `sort -S` read them) scale it; decimals are allowed (`1.5G`). Rounded up to whole MiB.
pub fn parse_mib(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("`{text}` is not a size (examples: 512M, 1G, 1.5G, or 2048 for MiB)"))?;
    let scale = match unit.trim().to_ascii_lowercase().trim_end_matches("ib").trim_end_matches('b') {
        "" | "m" => 1.0,
        "k" => 1.0 / 1024.0,
        "g" => 1024.0,
        "t" => 1024.0 * 1024.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (K, M, G or T; a plain number is MiB)")),
    };
    Ok((value * scale).ceil() as u64)
}

/// `--passes`' help, from the pass registry (so that it names every pass there is).
pub fn passes_help() -> String {
    use lopper_reduce::passes::Group;
    let names = |g: Group| lopper_reduce::pipeline::REGISTRY.iter().filter(|p| p.group == g).map(|p| p.name).collect::<Vec<_>>().join(", ");
    format!(
        "The passes, comma-separated (--list-passes says what each does). Once, first: {}. Every round, to the fixpoint: {}. Once, at the end: {}. Default: all of them, in this order; `perses` alone is Perses' list deletion and replacement",
        names(Group::First),
        names(Group::Main),
        names(Group::Last)
    )
}

/// `--lang`'s help, from the languages built into the binary (the grammars directories add
/// more, which `lopper languages` lists).
pub fn lang_help() -> String {
    let builtin: Vec<String> = lopper_parse::registry::built_in()
        .into_iter()
        .map(|(name, ext)| if ext.is_empty() { name } else { format!("{name} ({})", ext.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" ")) })
        .collect();
    format!(
        "The language (default: from FILE's extension). Built in: {}; and those the grammars directories declare (`lopper languages` lists them all); a FILE whose extension none claims is reduced by lines as `text`",
        builtin.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::parse_mib;

    #[test]
    fn memory_sizes_take_the_usual_suffixes() {
        assert_eq!(parse_mib("512"), Ok(512));
        assert_eq!(parse_mib("512M"), Ok(512));
        assert_eq!(parse_mib("1G"), Ok(1024));
        assert_eq!(parse_mib("1.5G"), Ok(1536));
        assert_eq!(parse_mib("2GiB"), Ok(2048));
        assert_eq!(parse_mib("1t"), Ok(1024 * 1024));
        assert_eq!(parse_mib("1536K"), Ok(2));
        assert_eq!(parse_mib("0"), Ok(0));
        assert!(parse_mib("1X").is_err());
        assert!(parse_mib("G").is_err());
    }
}
