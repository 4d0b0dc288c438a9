use std::collections::HashMap;

type Scores<'a> = HashMap<&'a str, u32>;

macro_rules! square {
    ($e:expr) => {
        $e * $e
    };
}

#[derive(Debug, Clone)]
pub struct Player {
    name: String,
    level: u32,
}

impl Player {
    pub fn new(name: &str, level: u32) -> Self {
        Player { name: name.to_string(), level }
    }

    pub fn power(&self) -> u32 {
        square!(self.level) + 1
    }
}

pub fn best<'a>(scores: &Scores<'a>) -> Option<&'a str> {
    scores.iter().max_by_key(|(_, v)| **v).map(|(k, _)| *k)
}

pub fn describe(p: &Player) -> String {
    let label: u32 = p.name.clone();
    format!("{} at {}", label, p.power())
}
