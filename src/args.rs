//! Value parsers for the arguments clap cannot check by type alone: `SIDE=KIND`,
//! `NAME=ALT`, the numbering styles of `text --style`. Names that depend on the rulebook
//! (sides, rulings, scenarios) are checked when it is compiled, with the valid names
//! listed.

use clap::builder::{PossibleValue, PossibleValuesParser};
use std::path::PathBuf;

/// `NAME=VALUE`, both trimmed and non-empty.
pub(crate) type Pair = (String, String);

/// Who decides for a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AgentArg {
    Random,
    Heuristic,
    /// Decisions read from a script file (docs/cli.md).
    Scripted(PathBuf),
    /// Monte Carlo search with N playouts per decision, and optionally a horizon of H
    /// game turns after which playouts are scored by the rulebook's score (docs/search.md).
    Search(u32, Option<u32>),
}

/// `NAME=VALUE` with both parts present.
pub(crate) fn parse_pair(s: &str) -> Result<Pair, String> {
    let Some((k, v)) = s.split_once('=') else {
        return Err(format!("`{s}` is not NAME=VALUE"));
    };
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || v.is_empty() {
        return Err(format!("`{s}` is not NAME=VALUE (both parts are needed)"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// `SIDE=random|heuristic|scripted:FILE|search:N`.
pub(crate) fn parse_agent(s: &str) -> Result<(String, AgentArg), String> {
    let (side, kind) = parse_pair(s).map_err(|e| format!("{e}: expected SIDE=KIND"))?;
    let agent = match kind.as_str() {
        "random" => AgentArg::Random,
        "heuristic" => AgentArg::Heuristic,
        "search" => return Err("search needs a number of playouts per decision, as in search:16".into()),
        k => match (k.strip_prefix("scripted:"), k.strip_prefix("search:")) {
            (Some(file), _) if !file.is_empty() => AgentArg::Scripted(PathBuf::from(file)),
            (Some(_), _) => return Err("scripted: needs a file, as in scripted:moves.txt".into()),
            (_, Some(n)) => match n.split_once(':').map_or((n, None), |(n, h)| (n, Some(h))) {
                (n, h) if n.trim().parse::<u32>().is_ok_and(|n| n >= 1) => {
                    let n = n.trim().parse::<u32>().unwrap_or(1);
                    match h.map(|h| h.trim().parse::<u32>()) {
                        None => AgentArg::Search(n, None),
                        Some(Ok(h)) if h >= 1 => AgentArg::Search(n, Some(h)),
                        Some(_) => {
                            return Err(format!(
                                "search:{n}:{}: the horizon must be a whole number of game turns from 1, \
                                 as in search:16:2",
                                h.unwrap_or_default()
                            ))
                        }
                    }
                }
                _ => {
                    return Err(format!(
                        "search:{n}: the number of playouts per decision must be a whole number from 1 \
                         to {}, as in search:16",
                        u32::MAX
                    ))
                }
            },
            _ => {
                return Err(format!(
                    "unknown agent `{k}` (agents: random, heuristic, scripted:FILE, search:N, search:N:H)"
                ))
            }
        },
    };
    Ok((side, agent))
}

/// A count of games: a whole number, at least 1.
pub(crate) fn parse_games(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("at least one game is needed".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{s}` is not a whole number of games")),
    }
}

/// The built-in numbering styles, listed in `--help` and checked by clap.
pub(crate) fn style_parser() -> PossibleValuesParser {
    // Names are computed once per run; leaking them gives clap the 'static strings it wants.
    let names = kriegsspiel_text::Style::names();
    PossibleValuesParser::new(names.into_iter().map(|n| PossibleValue::new(&*Box::leak(n.into_boxed_str()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_agents() {
        assert_eq!(parse_pair(" a = b ").unwrap(), ("a".into(), "b".into()));
        assert!(parse_pair("a").is_err());
        assert!(parse_pair("=b").is_err());
        assert!(parse_pair("a=").is_err());
        assert_eq!(parse_agent("Red=heuristic").unwrap(), ("Red".into(), AgentArg::Heuristic));
        assert_eq!(
            parse_agent("Red=scripted:x.txt").unwrap(),
            ("Red".into(), AgentArg::Scripted(PathBuf::from("x.txt")))
        );
        assert!(parse_agent("Red=scripted:").unwrap_err().contains("needs a file"));
        assert_eq!(parse_games("3"), Ok(3));
        assert!(parse_games("0").unwrap_err().contains("at least one"));
        assert!(parse_games("-1").is_err());
        assert!(parse_agent("Red=clever").unwrap_err().contains("random, heuristic"));
        assert_eq!(parse_agent("Red=search:16").unwrap(), ("Red".into(), AgentArg::Search(16, None)));
        assert_eq!(parse_agent("Red=search:16:2").unwrap(), ("Red".into(), AgentArg::Search(16, Some(2))));
        assert!(parse_agent("Red=search:16:0").unwrap_err().contains("horizon"));
        assert!(parse_agent("Red=search:16:").unwrap_err().contains("horizon"));
        assert!(parse_agent("Red=search:16:x").unwrap_err().contains("horizon"));
        assert!(parse_agent("Red=search:x:2").unwrap_err().contains("whole number"));
        assert!(parse_agent("Red=search").unwrap_err().contains("search:16"));
        assert!(parse_agent("Red=search:").unwrap_err().contains("whole number"));
        assert!(parse_agent("Red=search:0").unwrap_err().contains("whole number"));
        assert!(parse_agent("Red=search:x").unwrap_err().contains("whole number"));
        assert!(parse_agent("Red=search:-3").unwrap_err().contains("whole number"));
    }
}
