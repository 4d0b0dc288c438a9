//! Loader for tree-sitter's `src/grammar.json` (the generated, JSON form of `grammar.js`).

use crate::ir::{Expr, Grammar};
use crate::GrammarError;
use serde_json::Value;

/// Reads a tree-sitter `grammar.json` text into the grammar IR.
///
/// `FIELD`, `PREC`, `PREC_LEFT`, `PREC_RIGHT`, `PREC_DYNAMIC` are transparent;
/// `TOKEN` and `IMMEDIATE_TOKEN` both become [`Expr::Token`]; `RESERVED` keeps its content.
///
/// # Errors
/// [`GrammarError::Json`] for text that is not JSON, [`GrammarError::Format`] for JSON that
/// is not a tree-sitter grammar (no `rules` object, an unknown node `type`, a missing field).
pub fn load_tree_sitter_json(text: &str) -> Result<Grammar, GrammarError> {
    let v: Value = serde_json::from_str(text).map_err(|e| GrammarError::Json(e.to_string()))?;
    let name = v.get("name").and_then(Value::as_str).unwrap_or("unnamed").to_string();
    let rules_v = v.get("rules").and_then(Value::as_object).ok_or_else(|| GrammarError::Format("no \"rules\" object".into()))?;
    let mut g = Grammar { name, ..Default::default() };
    for (k, r) in rules_v {
        g.rules.insert(k.clone(), expr(r)?);
    }
    if g.rules.is_empty() {
        return Err(GrammarError::NoStartRule);
    }
    let list = |key: &str| -> Result<Vec<Expr>, GrammarError> {
        match v.get(key).and_then(Value::as_array) {
            Some(a) => a.iter().map(expr).collect(),
            None => Ok(Vec::new()),
        }
    };
    g.extras = list("extras")?;
    g.externals = list("externals")?;
    let names = |key: &str| -> Vec<String> {
        v.get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string).or_else(|| x.get("name").and_then(Value::as_str).map(str::to_string))).collect())
            .unwrap_or_default()
    };
    g.word = v.get("word").and_then(Value::as_str).map(str::to_string);
    g.inline = names("inline");
    g.supertypes = names("supertypes");
    Ok(g)
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, GrammarError> {
    v.get(key).ok_or_else(|| GrammarError::Format(format!("node without \"{key}\": {v}")))
}

fn string(v: &Value, key: &str) -> Result<String, GrammarError> {
    field(v, key)?.as_str().map(str::to_string).ok_or_else(|| GrammarError::Format(format!("\"{key}\" is not a string: {v}")))
}

fn members(v: &Value) -> Result<Vec<Expr>, GrammarError> {
    field(v, "members")?.as_array().ok_or_else(|| GrammarError::Format(format!("\"members\" is not an array: {v}")))?.iter().map(expr).collect()
}

fn expr(v: &Value) -> Result<Expr, GrammarError> {
    let ty = string(v, "type")?;
    Ok(match ty.as_str() {
        "BLANK" => Expr::Blank,
        "STRING" => Expr::Str(string(v, "value")?),
        "PATTERN" => Expr::Pattern(string(v, "value")?),
        "SYMBOL" => Expr::Symbol(string(v, "name")?),
        "SEQ" => Expr::Seq(members(v)?),
        "CHOICE" => Expr::Choice(members(v)?),
        "REPEAT" => Expr::Repeat(Box::new(expr(field(v, "content")?)?)),
        "REPEAT1" => Expr::Repeat1(Box::new(expr(field(v, "content")?)?)),
        "TOKEN" | "IMMEDIATE_TOKEN" => Expr::Token(Box::new(expr(field(v, "content")?)?)),
        "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "RESERVED" => expr(field(v, "content")?)?,
        "ALIAS" => {
            Expr::Alias { content: Box::new(expr(field(v, "content")?)?), value: string(v, "value")?, named: field(v, "named")?.as_bool().unwrap_or(false) }
        }
        other => return Err(GrammarError::Format(format!("unknown rule type {other:?}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_fields_precedence_and_aliases_transparently() {
        let g = load_tree_sitter_json(
            r#"{"name":"t","rules":{
              "s":{"type":"SEQ","members":[
                {"type":"FIELD","name":"f","content":{"type":"PREC_LEFT","value":1,
                   "content":{"type":"SYMBOL","name":"x"}}},
                {"type":"ALIAS","content":{"type":"SYMBOL","name":"x"},"named":true,"value":"y"}]},
              "x":{"type":"TOKEN","content":{"type":"PATTERN","value":"[a-z]+"}}},
              "extras":[{"type":"PATTERN","value":"\\s"}],"inline":["_i"],"supertypes":["e"]}"#,
        )
        .unwrap();
        assert_eq!(g.name, "t");
        assert_eq!(
            g.rules["s"],
            Expr::Seq(vec![Expr::Symbol("x".into()), Expr::Alias { content: Box::new(Expr::Symbol("x".into())), value: "y".into(), named: true }])
        );
        assert_eq!(g.rules["x"], Expr::Token(Box::new(Expr::Pattern("[a-z]+".into()))));
        assert_eq!(g.extras, vec![Expr::Pattern("\\s".into())]);
        assert!(!g.is_visible_rule("_i") && !g.is_visible_rule("e") && g.is_visible_rule("s"));
    }

    #[test]
    fn bad_grammars_are_errors_not_panics() {
        assert!(matches!(load_tree_sitter_json("{"), Err(GrammarError::Json(_))));
        assert!(matches!(load_tree_sitter_json("{}"), Err(GrammarError::Format(_))));
        assert!(matches!(load_tree_sitter_json(r#"{"rules":{"a":{"type":"WAT"}}}"#), Err(GrammarError::Format(_))));
        assert!(matches!(load_tree_sitter_json(r#"{"rules":{}}"#), Err(GrammarError::NoStartRule)));
    }
}
