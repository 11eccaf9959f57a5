//! PR-body evidence: does the description hold a deterministic reproduction (a seed with its
//! test, a forced interleaving, or a recorded race trace)? Pure: `(body, optional diff) ->
//! verdict`, with a problem for everything that was close but does not count.

pub mod markdown;
pub mod patterns;
mod problems;

use serde::Serialize;

use super::diff::{FileChange, LineKind, patch_lines};
use super::lang::is_test_file;
use markdown::{Block, BlockKind};
pub use problems::{Problem, TEMPLATE};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceKind {
    Seed,
    Interleaving,
    Trace,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub test: Option<String>,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceVerdict {
    pub satisfied: bool,
    pub evidence: Vec<Evidence>,
    pub problems: Vec<Problem>,
}

/// `key: value` fields of the recommended `## Reproduction` section (or anywhere, as a fallback).
#[derive(Debug, Default)]
struct Fields {
    kind: Option<String>,
    test: Option<String>,
    base: Option<String>,
    unfilled: Vec<String>,
}

/// What the PR's diff says about its tests.
struct DiffFacts {
    /// Added lines of test code.
    added_test_code: String,
    mechanisms: Vec<&'static str>,
}

/// Judges a PR description, optionally against the PR's diff.
pub fn check_body(body: &str, diff: Option<&[FileChange]>) -> EvidenceVerdict {
    let blocks = markdown::blocks(body);
    let fields = fields(&blocks);
    let facts = diff.map(diff_facts);
    let all_tests: Vec<String> = dedup(blocks.iter().flat_map(|b| patterns::tests_in(&b.text)));
    let mut evidence: Vec<Evidence> = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();

    seeds(&blocks, &fields, &all_tests, &mut evidence, &mut problems);
    traces(&blocks, &fields, &mut evidence, &mut problems);
    interleavings(
        &blocks,
        &fields,
        facts.as_ref(),
        &mut evidence,
        &mut problems,
    );
    never_evidence(&blocks, &evidence, &mut problems);
    if !fields.unfilled.is_empty() {
        problems.push(Problem::template_unfilled(&fields.unfilled));
    }
    if evidence.is_empty() {
        problems.push(Problem::no_evidence());
    }
    let mut seen = Vec::new();
    problems.retain(|p| {
        let key = (p.code.clone(), p.message.clone());
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    EvidenceVerdict {
        satisfied: !evidence.is_empty(),
        evidence,
        problems,
    }
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn where_(b: &Block) -> String {
    let place = match b.kind {
        BlockKind::Code => format!("code block #{}", b.index),
        BlockKind::Prose => format!("paragraph #{}", b.index),
    };
    match &b.heading {
        Some(h) if b.in_reproduction_section() => format!("{place}, in section \"{h}\""),
        _ => place,
    }
}

fn fields(blocks: &[Block]) -> Fields {
    let mut f = Fields::default();
    // The Reproduction section first; elsewhere only when it has none.
    let section: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.in_reproduction_section())
        .collect();
    let sources: Vec<&Block> = if section.is_empty() {
        blocks.iter().collect()
    } else {
        section
    };
    for b in sources {
        for line in b.text.lines() {
            let line = line.trim().trim_start_matches(['-', '*', '>']).trim();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().trim_matches('*').trim().to_ascii_lowercase();
            // `seed: 7311   # controls: …`: the comment is not part of the value.
            let value = value
                .split(" #")
                .next()
                .unwrap_or(value)
                .trim()
                .trim_matches('`')
                .trim();
            let slot = match key.as_str() {
                "kind" => &mut f.kind,
                "test" | "test id" | "test name" => &mut f.test,
                "base" | "merge base" => &mut f.base,
                "seed" | "trace" | "schedule" | "branch" => {
                    if patterns::is_placeholder(value) {
                        f.unfilled.push(key.clone());
                    }
                    continue;
                }
                _ => continue,
            };
            if patterns::is_placeholder(value) {
                f.unfilled.push(key.clone());
            } else if slot.is_none() {
                *slot = Some(value.to_string());
            }
        }
    }
    f.unfilled.sort();
    f.unfilled.dedup();
    f
}

fn diff_facts(files: &[FileChange]) -> DiffFacts {
    let mut added_test_code = String::new();
    let mut mechanisms = Vec::new();
    for f in files {
        let Some(patch) = f.patch.as_deref() else {
            continue;
        };
        let test_file = is_test_file(&f.path);
        // Rust and others keep unit tests beside the code: a file whose added lines define a
        // test counts as test code too.
        let defines_test = patch_lines(patch).any(|l| {
            l.kind == LineKind::Added
                && (l.text.contains("#[test]")
                    || l.text.contains("#[tokio::test")
                    || l.text.contains("@Test")
                    || l.text.contains("loom::model")
                    || l.text.trim_start().starts_with("func Test")
                    || l.text.trim_start().starts_with("def test_"))
        });
        if !(test_file || defines_test) {
            continue;
        }
        for l in patch_lines(patch).filter(|l| l.kind == LineKind::Added) {
            added_test_code.push_str(l.text);
            added_test_code.push('\n');
            if let Some(m) = patterns::diff_mechanism(l.text)
                && !mechanisms.contains(&m)
            {
                mechanisms.push(m);
            }
        }
    }
    DiffFacts {
        added_test_code,
        mechanisms,
    }
}

/// The test a block's seed or trace belongs to: in the block, its section, the fields, the body.
fn test_for(block: &Block, blocks: &[Block], fields: &Fields, all: &[String]) -> Option<String> {
    patterns::tests_in(&block.text)
        .into_iter()
        .next()
        .or_else(|| {
            blocks
                .iter()
                .filter(|b| b.heading.is_some() && b.heading == block.heading)
                .flat_map(|b| patterns::tests_in(&b.text))
                .next()
        })
        .or_else(|| fields.test.clone())
        .or_else(|| all.first().cloned())
}

fn seeds(
    blocks: &[Block],
    fields: &Fields,
    all_tests: &[String],
    evidence: &mut Vec<Evidence>,
    problems: &mut Vec<Problem>,
) {
    let mut shuffle: Vec<String> = Vec::new();
    let mut repetition: Vec<String> = Vec::new();
    for b in blocks {
        shuffle.extend(patterns::shuffle_seeds(&b.text));
        repetition.extend(patterns::repetition_settings(&b.text));
        for hit in patterns::seeds_in(&b.text) {
            match test_for(b, blocks, fields, all_tests) {
                Some(test) => push_evidence(
                    evidence,
                    Evidence {
                        kind: EvidenceKind::Seed,
                        detail: format!("{} `{}` ({})", hit.form, hit.value, where_(b)),
                        test: Some(test),
                    },
                ),
                None => problems.push(Problem::no_test_named(hit.form, &hit.value)),
            }
        }
    }
    let has_seed = evidence.iter().any(|e| e.kind == EvidenceKind::Seed);
    if !has_seed {
        if let Some(s) = shuffle.first() {
            problems.push(Problem::shuffle_only(s));
        }
        if let Some(r) = repetition.first() {
            problems.push(Problem::repetition_not_seed(r));
        }
    }
}

fn traces(
    blocks: &[Block],
    fields: &Fields,
    evidence: &mut Vec<Evidence>,
    problems: &mut Vec<Problem>,
) {
    for b in blocks {
        for hit in patterns::traces_in(&b.text) {
            if hit.complete {
                let test = patterns::tests_in(&b.text)
                    .into_iter()
                    .next()
                    .or_else(|| fields.test.clone());
                push_evidence(
                    evidence,
                    Evidence {
                        kind: EvidenceKind::Trace,
                        test,
                        detail: format!("{} ({})", hit.summary, where_(b)),
                    },
                );
            } else {
                problems.push(Problem::incomplete_trace(&hit.summary));
            }
        }
        for link in patterns::trace_links_in(&b.text) {
            push_evidence(
                evidence,
                Evidence {
                    kind: EvidenceKind::Trace,
                    test: fields.test.clone(),
                    detail: format!("recorded trace artifact {link} ({})", where_(b)),
                },
            );
        }
    }
}

fn interleavings(
    blocks: &[Block],
    fields: &Fields,
    facts: Option<&DiffFacts>,
    evidence: &mut Vec<Evidence>,
    problems: &mut Vec<Problem>,
) {
    let declared = fields
        .kind
        .as_deref()
        .is_some_and(|k| k.to_ascii_lowercase().contains("interleav"));
    let base_claim = fields
        .base
        .as_deref()
        .and_then(|b| patterns::deterministic_claim(&format!("base: {b}")));
    let section_text: String = blocks
        .iter()
        .filter(|b| b.in_reproduction_section())
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut candidates: Vec<(String, Option<String>, Option<String>, String)> = Vec::new();
    for b in blocks {
        let claim = patterns::deterministic_claim(&b.text).or_else(|| {
            b.in_reproduction_section()
                .then(|| base_claim.clone())
                .flatten()
        });
        let mech = patterns::mechanism(&b.text).or_else(|| {
            b.in_reproduction_section()
                .then(|| patterns::mechanism(&section_text))
                .flatten()
        });
        if claim.is_none() && mech.is_none() && !(declared && b.in_reproduction_section()) {
            continue;
        }
        for t in patterns::tests_in(&b.text) {
            candidates.push((t, claim.clone(), mech.clone(), where_(b)));
        }
    }
    if let Some(t) = fields.test.clone()
        && (declared || base_claim.is_some())
    {
        let mech = patterns::mechanism(&section_text);
        candidates.push((
            t,
            base_claim.clone(),
            mech,
            "the Reproduction section".into(),
        ));
    }
    for (test, claim, mech, place) in candidates {
        if evidence
            .iter()
            .any(|e| e.test.as_deref() == Some(test.as_str()))
        {
            continue;
        }
        let claim = claim.or_else(|| base_claim.clone());
        let diff_mech = facts.and_then(|f| f.mechanisms.first().copied());
        if let Some(f) = facts
            && !mentions(&f.added_test_code, patterns::short_name(&test))
        {
            if claim.is_some() || declared {
                problems.push(Problem::test_not_in_diff(&test));
            }
            continue;
        }
        let Some(claim) = claim else {
            if declared || mech.is_some() {
                problems.push(Problem::not_deterministic(&test));
            }
            continue;
        };
        let how = mech
            .map(|m| format!("forces the ordering with {m}"))
            .or_else(|| diff_mech.map(|m| format!("the diff adds it using {m}")))
            .or_else(|| declared.then(|| "declared `kind: interleaving`".to_string()));
        let Some(how) = how else {
            problems.push(Problem::no_mechanism(&test));
            continue;
        };
        let in_diff = if facts.is_some() {
            "; added in this PR's tests"
        } else {
            ""
        };
        push_evidence(
            evidence,
            Evidence {
                kind: EvidenceKind::Interleaving,
                test: Some(test),
                detail: format!("{how}; \"{claim}\" ({place}{in_diff})"),
            },
        );
    }
}

/// True when `name` appears as a whole word in `code`.
fn mentions(code: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    code.match_indices(name).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

fn never_evidence(blocks: &[Block], evidence: &[Evidence], problems: &mut Vec<Problem>) {
    let has_trace = evidence.iter().any(|e| e.kind == EvidenceKind::Trace);
    for b in blocks {
        let t = &b.text;
        if patterns::says_rerun_green(t) {
            problems.push(Problem::rerun_green());
        }
        if patterns::says_no_repro(t) {
            problems.push(Problem::no_repro());
        }
        if patterns::says_race_detector_clean(t) {
            problems.push(Problem::clean_race_detector());
        }
        if !has_trace && patterns::has_goroutine_dump(t) {
            problems.push(Problem::hang_dump());
        } else if !has_trace && b.kind == BlockKind::Code && patterns::has_single_stack(t) {
            problems.push(Problem::single_stack());
        }
        for link in patterns::ci_links_in(t) {
            problems.push(Problem::ci_link(&link));
        }
    }
}

fn push_evidence(list: &mut Vec<Evidence>, e: Evidence) {
    if !list
        .iter()
        .any(|x| x.kind == e.kind && x.test == e.test && x.detail == e.detail)
    {
        list.push(e);
    }
}

#[cfg(test)]
mod tests;
