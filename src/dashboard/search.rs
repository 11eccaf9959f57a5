//! `?q=`: a test id substring with `owner:NAME`, `tier:NAME` and `status:NAME` terms. Pure.

use crate::core::history::status::Status;

/// Longest query read (the rest is ignored).
pub const MAX_QUERY: usize = 200;

/// What a query asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Search {
    /// The words that are not terms, one space apart: part of the id.
    pub text: String,
    pub owner: Option<String>,
    pub tier: Option<String>,
    pub status: Option<Status>,
    /// Terms not understood (`tier:gold`), to say so on the page.
    pub unknown: Vec<String>,
}

/// Reads `q`; a term's value is up to the next space (`owner:"a b"` is not a thing).
pub fn parse(q: &str) -> Search {
    let mut end = q.len().min(MAX_QUERY);
    while !q.is_char_boundary(end) {
        end -= 1;
    }
    let mut s = Search::default();
    let mut words = Vec::new();
    for w in q[..end].split_whitespace() {
        let term = w.split_once(':').filter(|(k, v)| {
            !v.is_empty() && matches!(k.to_ascii_lowercase().as_str(), "owner" | "tier" | "status")
        });
        match term {
            Some((k, v)) => match k.to_ascii_lowercase().as_str() {
                "owner" => s.owner = Some(v.trim_start_matches('@').to_string()),
                "tier" => match v.to_ascii_lowercase().as_str() {
                    t @ ("trusted" | "probation" | "quarantined") => s.tier = Some(t.to_string()),
                    _ => s.unknown.push(w.to_string()),
                },
                _ => match Status::parse(&v.to_ascii_lowercase().replace('-', "_")) {
                    Some(st) => s.status = Some(st),
                    None => s.unknown.push(w.to_string()),
                },
            },
            None if words.len() < crate::store::MAX_WORDS => words.push(w),
            None => s.unknown.push(w.to_string()),
        }
    }
    s.text = words.join(" ");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_terms() {
        let s = parse("  Gamma  owner:@Platform tier:Quarantined status:failed-once ");
        assert_eq!(s.text, "Gamma");
        assert_eq!(s.owner.as_deref(), Some("Platform"));
        assert_eq!(s.tier.as_deref(), Some("quarantined"));
        assert_eq!(s.status, Some(Status::FailedOnce));
        assert!(s.unknown.is_empty());
    }

    #[test]
    fn a_colon_in_an_id_is_text_and_bad_values_are_reported() {
        let s = parse("services/dash::TestDashBeta tier:gold status:");
        assert_eq!(s.text, "services/dash::TestDashBeta status:");
        assert_eq!(s.unknown, ["tier:gold"]);
    }

    #[test]
    fn a_long_query_is_cut_at_a_character_boundary() {
        let q = "é".repeat(150);
        let s = parse(&q);
        assert!(s.text.len() <= MAX_QUERY);
        assert!(s.text.chars().all(|c| c == 'é'));
    }
}
