//! Traces: the random choices of one generator run, as the shims write them (JSON lines,
//! docs/generators.md), and the edits the reducer makes to them.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One random choice: which API was called, the shape of its arguments, the value it
/// answered, and the call stack it was made from.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The API (`randint`, `choice`, `random`, …).
    pub api: String,
    /// Its arguments' shape: `[start, stop, step]` for `randint`/`randrange`, `[len]` for
    /// `choice`, `[len, k]` for `choices`/`sample`, `[]` for `random` (the shim's table).
    pub args: Vec<serde_json::Value>,
    /// The value, kept as written (integers of any size): a number, a list of indices, or
    /// `{"lopper": "low"}` / `{"lopper": "high"}`, which the shim answers with the smallest
    /// or largest value that fits the call.
    pub value: Box<RawValue>,
    /// The call stack, outermost frame first: (invocation number, `file:line`).
    pub stack: Vec<(u64, String)>,
}

impl Choice {
    /// The call sites, joined: what a replayed call must match (with the API).
    pub fn key(&self) -> String {
        self.stack.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>().join(" ")
    }

    /// The value as an integer, if it is one.
    pub fn int_value(&self) -> Option<i64> {
        self.value.get().parse().ok()
    }

    /// The `i`-th argument as an integer.
    pub fn int_arg(&self, i: usize) -> Option<i64> {
        self.args.get(i).and_then(|a| a.as_i64())
    }

    /// Whether the value is already the one a `low` marker would give, as far as lopper can
    /// tell without the shim (the shim stays the authority).
    pub fn is_low(&self) -> bool {
        let v = self.value.get();
        match self.api.as_str() {
            "randint" | "randrange" => self.int_value().is_some_and(|x| Some(x) == self.int_arg(0)),
            "random" | "getrandbits" | "choice" => v.parse::<f64>().is_ok_and(|x| x == 0.0),
            "uniform" | "gauss" | "normalvariate" => v.parse::<f64>().ok().zip(self.args.first().and_then(|a| a.as_f64())).is_some_and(|(x, a)| x == a),
            "choices" => serde_json::from_str::<Vec<u64>>(v).is_ok_and(|xs| xs.iter().all(|&x| x == 0)),
            "sample" | "shuffle" => serde_json::from_str::<Vec<u64>>(v).is_ok_and(|xs| xs.iter().enumerate().all(|(i, &x)| x == i as u64)),
            _ => v.contains("\"low\""),
        }
    }

    /// Whether the choice looks like a selection (GReduce's reducible selection pattern): a
    /// coin that guards a block (`random() < p`, a choice of two, one random bit).
    pub fn is_selection(&self) -> bool {
        match self.api.as_str() {
            "random" => true,
            "choice" => self.int_arg(0) == Some(2),
            "randint" | "randrange" => self.int_arg(0).zip(self.int_arg(1)).is_some_and(|(a, b)| b - a == 2),
            "getrandbits" => self.int_arg(0) == Some(1),
            _ => false,
        }
    }

    /// For a number drawn from a range (`random`, `uniform`, `randint`, `randrange`) above its
    /// smallest value: (smallest, current, integer-valued), the interval the values pass
    /// bisects (a count drawn as `Math.random() * n`, a length).
    pub fn bisect_bounds(&self) -> Option<(f64, f64, bool)> {
        let v: f64 = self.value.get().parse().ok()?;
        let (lo, int) = match self.api.as_str() {
            "random" => (0.0, false),
            "uniform" => (self.args.first()?.as_f64()?, false),
            "randint" | "randrange" if self.int_arg(2) == Some(1) => (self.int_arg(0)? as f64, true),
            // An index into a sequence is rarely a count; bisecting every one costs too much.
            _ => return None,
        };
        (v > lo && v.is_finite() && v < 9.0e15).then_some((lo, v, int))
    }

    /// This choice with the value `value` (JSON text).
    pub fn with_value(&self, value: &str) -> Choice {
        let mut c = self.clone();
        c.value = RawValue::from_string(value.to_string()).expect("lopper writes valid JSON values");
        c
    }
}

/// The marker values the shims resolve.
pub const LOW: &str = r#"{"lopper":"low"}"#;
/// See [`LOW`].
pub const HIGH: &str = r#"{"lopper":"high"}"#;

/// A trace: the choices in the order they were made.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The choices.
    pub choices: Vec<Choice>,
}

/// One line of a trace file (docs/generators.md, "The protocol"): a single choice
/// (`value`), or a run of choices of one API, argument shape and stack, as a JSON array
/// (`values`) or as base64 of little-endian IEEE 754 doubles (`f64`, for floats).
#[derive(Deserialize)]
struct Line {
    api: String,
    args: Vec<serde_json::Value>,
    #[serde(default)]
    value: Option<Box<RawValue>>,
    #[serde(default)]
    values: Option<Vec<Box<RawValue>>>,
    #[serde(default)]
    f64: Option<String>,
    stack: Vec<(u64, String)>,
}

/// A [`Line`] as lopper writes it, borrowing from the choices it stands for.
#[derive(Serialize)]
struct LineRef<'a> {
    api: &'a str,
    args: &'a [serde_json::Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Vec<&'a RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    f64: Option<String>,
    stack: &'a [(u64, String)],
}

/// The run's values as base64 doubles, if each is written as a finite float literal (so
/// the shim reads back the very same float; an integer stays a JSON number).
fn as_f64_base64(values: &[&RawValue]) -> Option<String> {
    let mut bytes = Vec::with_capacity(8 * values.len());
    for v in values {
        let t = v.get();
        if !t.contains(['.', 'e', 'E']) {
            return None;
        }
        let x: f64 = t.parse().ok().filter(|x: &f64| x.is_finite())?;
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    Some(BASE64_STANDARD.encode(bytes))
}

impl Trace {
    /// Reads JSON lines (blank lines skipped); a run line becomes its choices, in order.
    ///
    /// # Errors
    /// The first line that is not a choice or a run of them, with its line number (from 1).
    pub fn parse(text: &str) -> Result<Trace, (usize, serde_json::Error)> {
        use serde::de::Error as _;
        let mut choices = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = |e| (i + 1, e);
            let l: Line = serde_json::from_str(line).map_err(at)?;
            let values = match (l.value, l.values, l.f64) {
                (Some(v), None, None) => vec![v],
                (None, Some(vs), None) => vs,
                (None, None, Some(b)) => {
                    let bytes = BASE64_STANDARD.decode(b.as_bytes()).map_err(|e| at(serde_json::Error::custom(format!("f64: {e}"))))?;
                    if bytes.len() % 8 != 0 {
                        return Err(at(serde_json::Error::custom("f64: not a whole number of doubles")));
                    }
                    let mut vs = Vec::with_capacity(bytes.len() / 8);
                    for d in bytes.chunks_exact(8) {
                        let x = f64::from_le_bytes(d.try_into().expect("8 bytes"));
                        if !x.is_finite() {
                            return Err(at(serde_json::Error::custom("f64: a value that is not finite")));
                        }
                        vs.push(RawValue::from_string(serde_json::to_string(&x).map_err(at)?).map_err(at)?);
                    }
                    vs
                }
                _ => return Err(at(serde_json::Error::custom("a trace line needs exactly one of `value`, `values` and `f64`"))),
            };
            choices.extend(values.into_iter().map(|value| Choice { api: l.api.clone(), args: l.args.clone(), value, stack: l.stack.clone() }));
        }
        Ok(Trace { choices })
    }

    /// Writes JSON lines: consecutive choices of one API, argument shape and stack as one run
    /// line (floats as `f64`), a choice on its own as one choice line.
    pub fn to_jsonl(&self) -> String {
        let mut s = String::new();
        let mut rest = &self.choices[..];
        while let Some(first) = rest.first() {
            let n = rest.iter().take_while(|c| c.api == first.api && c.args == first.args && c.stack == first.stack).count();
            let (run, tail) = rest.split_at(n);
            rest = tail;
            let mut line = LineRef { api: &first.api, args: &first.args, value: None, values: None, f64: None, stack: &first.stack };
            if n == 1 {
                line.value = Some(&first.value);
            } else {
                let values: Vec<&RawValue> = run.iter().map(|c| &*c.value).collect();
                line.f64 = as_f64_base64(&values);
                line.values = line.f64.is_none().then_some(values);
            }
            s.push_str(&serde_json::to_string(&line).expect("a trace line serializes"));
            s.push('\n');
        }
        s
    }

    /// Number of choices.
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether there are no choices.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }
}
