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
