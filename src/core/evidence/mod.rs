//! PR-body evidence: does the description hold a deterministic reproduction (a seed with its
//! test, a forced interleaving, or a recorded race trace)? Pure: `(title, body, optional diff)
//! -> verdict`, with a problem for everything that was close but does not count, and the line
//! each was found on.
//!
//! Linear in the body: the markdown is split into blocks once; test names, claims and
//! mechanisms are read once per block and looked up from there; every list that could repeat
//! is deduplicated through a set; the lists reported are capped.

pub mod markdown;
pub mod patterns;
mod problems;
mod seed_claims;
pub mod seeds;
pub mod trace;

use std::collections::HashSet;

use serde::Serialize;

use super::classify::diff::{FileChange, LineKind, patch_lines};
use super::classify::lang::is_test_file;
use markdown::{Block, BlockKind};
use patterns::ClaimStrength;
pub use problems::{Problem, TEMPLATE};

/// Most evidence entries and problems reported (the verdict is settled long before).
const MAX_LISTED: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
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
    /// The rule that recognised it (`seed.command`, `trace.go-race`, …).
    pub rule: &'static str,
    /// The body line it was found on (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The seed's value (kind `seed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// Source files the report's frames name (kind `trace`), as written there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceVerdict {
    pub satisfied: bool,
    pub evidence: Vec<Evidence>,
    pub problems: Vec<Problem>,
    /// Seeds given with no test to run them (a simulator's own run may be the test: with
    /// `verify.command` set, such a seed can still be verified).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lone_seeds: Vec<String>,
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
    /// Identifiers in added lines of test code.
    idents: HashSet<String>,
    mechanisms: Vec<&'static str>,
    /// Tests the added lines declare (`#[test] fn x`, `func TestX`, `def test_x`,
    /// `TEST_F(Suite, Name)` as `Suite.Name` and `Name`).
    declared: HashSet<String>,
}

/// A run of blocks under one heading (the whole body when it has none).
struct Section {
    blocks: Vec<usize>,
    reproduction: bool,
    /// The first test named in it.
    first_test: Option<String>,
}

/// The body, read once.
struct Doc {
    blocks: Vec<Block>,
    /// Test names per block, in order, without repeats.
    tests: Vec<Vec<String>>,
    section_of: Vec<usize>,
    sections: Vec<Section>,
    fields: Fields,
    first_test: Option<String>,
    first_command: Option<String>,
}

impl Doc {
    fn read(title: Option<&str>, body: &str) -> Doc {
        let mut blocks = markdown::blocks(body);
        if let Some(t) = title.map(str::trim).filter(|t| !t.is_empty()) {
            // The PR title reads like a first paragraph (line 0: not in the body).
            blocks.insert(
                0,
                Block {
                    kind: BlockKind::Prose,
                    text: t.to_string(),
                    heading: None,
                    index: 0,
                    line: 0,
                },
            );
        }
        let tests: Vec<Vec<String>> = blocks.iter().map(|b| patterns::tests_in(&b.text)).collect();
        let mut sections: Vec<Section> = Vec::new();
        let mut section_of = Vec::with_capacity(blocks.len());
        let mut last: Option<&Option<String>> = None;
        for (i, b) in blocks.iter().enumerate() {
            if last != Some(&b.heading) {
                sections.push(Section {
                    blocks: Vec::new(),
                    reproduction: b.in_reproduction_section(),
                    first_test: None,
                });
                last = Some(&b.heading);
            }
            let s = sections.len() - 1;
            sections[s].blocks.push(i);
            if sections[s].first_test.is_none() {
                sections[s].first_test = tests[i].first().cloned();
            }
            section_of.push(s);
        }
        let first_test = tests.iter().flatten().next().cloned();
        let first_command = blocks
            .iter()
            .flat_map(|b| b.text.lines())
            .find_map(seeds::command_target);
        let fields = fields(&blocks);
        Doc {
            blocks,
            tests,
            section_of,
            sections,
            fields,
            first_test,
            first_command,
        }
    }

    /// A test the diff declares is a test named wherever its name stands in the text
    /// (`notify_waiters_races_drop`, in whatever shape it has).
    fn name_declared_tests(&mut self, declared: &HashSet<String>) {
        if declared.is_empty() {
            return;
        }
        for (bi, b) in self.blocks.iter().enumerate() {
            for word in b
                .text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| declared.contains(*w))
            {
                let named = &mut self.tests[bi];
                if !named
                    .iter()
                    .any(|t| crate::core::test_ids::declared_words(t).contains(&word))
                {
                    named.push(word.to_string());
                }
            }
            let s = self.section_of[bi];
            if self.sections[s].first_test.is_none() {
                self.sections[s].first_test = self.tests[bi].first().cloned();
            }
        }
        if self.first_test.is_none() {
            self.first_test = self.tests.iter().flatten().next().cloned();
        }
    }

    /// The first test named in a block's section.
    fn section_test(&self, block: usize) -> Option<&String> {
        self.sections[self.section_of[block]].first_test.as_ref()
    }
}

/// Collected findings, deduplicated.
#[derive(Default)]
struct Findings {
    lone_seeds: Vec<String>,
    evidence: Vec<Evidence>,
    seen_evidence: HashSet<(EvidenceKind, Option<String>, String)>,
    problems: Vec<Problem>,
    seen_problems: HashSet<(String, String)>,
}

impl Findings {
    fn evidence(&mut self, e: Evidence) {
        if self.evidence.len() >= MAX_LISTED {
            return;
        }
        if self
            .seen_evidence
            .insert((e.kind, e.test.clone(), e.detail.clone()))
        {
            self.evidence.push(e);
        }
    }

    fn problem(&mut self, p: Problem) {
        if self.problems.len() >= MAX_LISTED {
            return;
        }
        if self
            .seen_problems
            .insert((p.code.clone(), p.message.clone()))
        {
            self.problems.push(p);
        }
    }

    fn has(&self, kind: EvidenceKind) -> bool {
        self.evidence.iter().any(|e| e.kind == kind)
    }
}

/// Judges a PR description, optionally against the PR's diff.
pub fn check_body(body: &str, diff: Option<&[FileChange]>) -> EvidenceVerdict {
    check_pr(None, body, diff)
}

/// Judges a PR's title and description, optionally against its diff.
pub fn check_pr(title: Option<&str>, body: &str, diff: Option<&[FileChange]>) -> EvidenceVerdict {
    let facts = diff.map(diff_facts);
    let mut doc = Doc::read(title, body);
    if let Some(d) = &facts {
        doc.name_declared_tests(&d.declared);
    }
    let mut f = Findings::default();
    seed_claims::seeds_of(
        &doc,
        seeds::speaks_of_scheduling(body),
        seeds::says_data_seed(body),
        &mut f,
    );
    traces_of(&doc, body, &mut f);
    interleavings_of(&doc, facts.as_ref(), &mut f);
    never_evidence(&doc, &mut f);
    if !doc.fields.unfilled.is_empty() {
        f.problem(Problem::template_unfilled(&doc.fields.unfilled));
    }
    if f.evidence.is_empty() {
        f.problem(Problem::no_evidence());
    }
    EvidenceVerdict {
        satisfied: !f.evidence.is_empty(),
        evidence: f.evidence,
        problems: f.problems,
        lone_seeds: f.lone_seeds,
    }
}

fn where_(b: &Block, line: usize) -> String {
    if b.line == 0 {
        return "the title".into();
    }
    let place = match b.kind {
        BlockKind::Code => format!("code block #{}", b.index),
        BlockKind::Prose => format!("paragraph #{}", b.index),
    };
    match &b.heading {
        Some(h) if b.in_reproduction_section() => {
            format!("line {line}, {place}, in section \"{h}\"")
        }
        _ => format!("line {line}, {place}"),
    }
}

fn line_no(b: &Block, i: usize) -> Option<usize> {
    (b.line > 0).then_some(b.line + i)
}

fn fields(blocks: &[Block]) -> Fields {
    let mut f = Fields::default();
    // The Reproduction section first; elsewhere only when it has none.
    let in_section = blocks.iter().any(|b| b.in_reproduction_section());
    for b in blocks
        .iter()
        .filter(|b| !in_section || b.in_reproduction_section())
    {
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
                    if patterns::is_placeholder(value) && f.unfilled.len() < 10 {
                        f.unfilled.push(key.clone());
                    }
                    continue;
                }
                _ => continue,
            };
            if patterns::is_placeholder(value) {
                if f.unfilled.len() < 10 {
                    f.unfilled.push(key.clone());
                }
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
    let mut idents = HashSet::new();
    let mut mechanisms = Vec::new();
    let mut declared = HashSet::new();
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
                    || l.text.contains("TEST(")
                    || l.text.contains("TEST_F(")
                    || l.text.trim_start().starts_with("func Test")
                    || l.text.trim_start().starts_with("def test_"))
        });
        if !(test_file || defines_test) {
            continue;
        }
        let mut attribute = false;
        for l in patch_lines(patch).filter(|l| l.kind == LineKind::Added) {
            attribute = patterns::declared_tests(l.text, attribute, &mut declared);
            for word in l
                .text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
            {
                if !idents.contains(word) {
                    idents.insert(word.to_string());
                }
            }
            if let Some(m) = patterns::diff_mechanism(l.text)
                && !mechanisms.contains(&m)
            {
                mechanisms.push(m);
            }
        }
    }
    DiffFacts {
        idents,
        mechanisms,
        declared,
    }
}

/// Whether the diff's added test code holds every word of the test's declaration.
fn declared_in(idents: &HashSet<String>, test: &str) -> bool {
    let words = crate::core::test_ids::declared_words(test);
    !words.is_empty() && words.iter().all(|w| idents.contains(*w))
}

fn traces_of(doc: &Doc, body: &str, f: &mut Findings) {
    rendered_traces(doc, f);
    if f.has(EvidenceKind::Trace) {
        return;
    }
    // Markdown can read a pasted report as something else (a quoted, tab-indented report's
    // `=====` line underlines a heading): the raw lines, prefixes and all, are read too.
    let visible = without_html_comments(body);
    for hit in trace::reports(visible.lines())
        .into_iter()
        .filter(|h| h.complete)
    {
        let line = hit.at + 1;
        f.evidence(Evidence {
            kind: EvidenceKind::Trace,
            test: hit
                .tests
                .first()
                .cloned()
                .or_else(|| doc.fields.test.clone()),
            detail: format!("{} (line {line})", hit.summary),
            rule: trace_rule(hit.tool),
            line: Some(line),
            seed: None,
            files: hit.files,
        });
    }
}

/// The rule name of a race report from `tool`.
fn trace_rule(tool: &str) -> &'static str {
    match tool {
        "go-race" => "trace.go-race",
        "tsan" => "trace.tsan",
        "helgrind" => "trace.helgrind",
        "drd" => "trace.drd",
        _ => "trace.miri",
    }
}

/// The body with HTML comments (a template's hidden examples) blanked, lines kept. Linear.
fn without_html_comments(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 4..];
        let (hidden, next) = match after.find("-->") {
            Some(end) => (&after[..end], &after[end + 3..]),
            None => (after, ""),
        };
        out.extend(std::iter::repeat_n('\n', hidden.matches('\n').count()));
        rest = next;
    }
    out.push_str(rest);
    out
}

fn rendered_traces(doc: &Doc, f: &mut Findings) {
    // The whole body as one stream of lines: a report may span paragraphs and code blocks.
    let mut owner: Vec<(usize, usize)> = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    for (bi, b) in doc.blocks.iter().enumerate() {
        for (li, line) in b.text.lines().enumerate() {
            owner.push((bi, li));
            lines.push(line);
        }
    }
    for hit in trace::reports(lines.iter().copied()) {
        let (bi, li) = owner.get(hit.at).copied().unwrap_or((0, 0));
        let Some(b) = doc.blocks.get(bi) else {
            continue;
        };
        if hit.complete {
            let test = hit
                .tests
                .first()
                .cloned()
                .or_else(|| doc.tests[bi].first().cloned())
                .or_else(|| doc.fields.test.clone());
            f.evidence(Evidence {
                kind: EvidenceKind::Trace,
                test,
                detail: format!("{} ({})", hit.summary, where_(b, b.line + li)),
                rule: trace_rule(hit.tool),
                line: line_no(b, li),
                seed: None,
                files: hit.files,
            });
        } else {
            f.problem(Problem::incomplete_trace(&hit.summary).at(line_no(b, li)));
        }
    }
    for b in &doc.blocks {
        for link in patterns::trace_links_in(&b.text) {
            f.evidence(Evidence {
                kind: EvidenceKind::Trace,
                test: doc.fields.test.clone(),
                detail: format!("recorded trace artifact {link} ({})", where_(b, b.line)),
                rule: "trace.artifact",
                line: line_no(b, 0),
                seed: None,
                files: Vec::new(),
            });
        }
    }
}

/// A named test that forces the ordering and is said to fail before the change: the test, the
/// claim and the mechanism may sit in different paragraphs of one section.
fn interleavings_of(doc: &Doc, facts: Option<&DiffFacts>, f: &mut Findings) {
    let declared = doc
        .fields
        .kind
        .as_deref()
        .is_some_and(|k| k.to_ascii_lowercase().contains("interleav"));
    let base_claim = doc
        .fields
        .base
        .as_deref()
        .and_then(|b| patterns::deterministic_claim(&format!("base: {b}")));
    let diff_mech = facts.and_then(|d| d.mechanisms.first().copied());
    for section in &doc.sections {
        let mut claim: Option<(ClaimStrength, String, usize)> = None;
        let mut mech: Option<String> = None;
        let mut with_signal: Vec<usize> = Vec::new();
        for (k, &bi) in section.blocks.iter().enumerate() {
            let text = &doc.blocks[bi].text;
            let c = patterns::failure_claim(text);
            let m = patterns::mechanism(text);
            if c.is_some() || m.is_some() {
                // "This test …" / "It …" speaks of the test the paragraph before named.
                // Not the title: it names what is fixed, not a test that is added.
                if k > 0
                    && section.blocks[k - 1] > 0
                    && doc.tests[bi].is_empty()
                    && patterns::refers_back(text)
                    && !with_signal.contains(&section.blocks[k - 1])
                {
                    with_signal.push(section.blocks[k - 1]);
                }
                with_signal.push(bi);
            }
            if let Some((strength, text)) = c
                && claim.as_ref().is_none_or(|(s, _, _)| strength > *s)
            {
                claim = Some((strength, text, bi));
            }
            if mech.is_none() {
                mech = m;
            }
        }
        // A rate below every run ("about 4% of runs under stress") says the reproduction is
        // not deterministic, whatever mechanism the test also uses; only an explicit claim of
        // failing every run outweighs it.
        let rate = section
            .blocks
            .iter()
            .find_map(|&bi| patterns::stated_rate(&doc.blocks[bi].text));
        let in_repro = section.reproduction;
        if claim.is_none()
            && in_repro
            && let Some(b) = &base_claim
        {
            claim = Some((ClaimStrength::Deterministic, b.clone(), section.blocks[0]));
        }
        // The tests named where a claim or mechanism is (or anywhere in the Reproduction
        // section), then the `test:` field.
        let mut candidates: Vec<(String, usize)> = Vec::new();
        let mut seen = HashSet::new();
        let blocks: &[usize] = if in_repro && declared {
            &section.blocks
        } else {
            &with_signal
        };
        if claim.is_some() || mech.is_some() || (in_repro && declared) {
            for &bi in blocks {
                for t in &doc.tests[bi] {
                    if seen.insert(t.clone()) {
                        candidates.push((t.clone(), bi));
                    }
                }
            }
        }
        if in_repro
            && (declared || base_claim.is_some())
            && let Some(t) = doc.fields.test.clone()
            && seen.insert(t.clone())
        {
            candidates.push((t, section.blocks[0]));
        }
        for (test, bi) in candidates {
            let b = &doc.blocks[bi];
            if let Some(d) = facts
                && !declared_in(&d.idents, &test)
            {
                if claim.is_some() || (in_repro && declared) {
                    f.problem(Problem::test_not_in_diff(&test).at(line_no(b, 0)));
                }
                continue;
            }
            if let Some(r) = &rate
                && claim
                    .as_ref()
                    .is_none_or(|(s, _, _)| *s != ClaimStrength::Deterministic)
            {
                f.problem(Problem::rate_not_deterministic(&test, r).at(line_no(b, 0)));
                continue;
            }
            let Some((strength, said, _)) = claim.clone() else {
                if (in_repro && declared) || mech.is_some() {
                    f.problem(Problem::not_deterministic(&test).at(line_no(b, 0)));
                }
                continue;
            };
            let how = mech
                .as_ref()
                .map(|m| format!("forces the ordering with {m}"))
                .or_else(|| diff_mech.map(|m| format!("the diff adds it using {m}")))
                .or_else(|| {
                    (in_repro && declared).then(|| "declared `kind: interleaving`".to_string())
                });
            let Some(how) = how else {
                f.problem(Problem::no_mechanism(&test).at(line_no(b, 0)));
                continue;
            };
            // "Fails without the fix" is determinism only when an explicit mechanism forces
            // the ordering.
            if strength == ClaimStrength::FailsWithoutFix && mech.is_none() && diff_mech.is_none() {
                f.problem(Problem::not_deterministic(&test).at(line_no(b, 0)));
                continue;
            }
            let in_diff = if facts.is_some() {
                "; added in this PR's tests"
            } else {
                ""
            };
            f.evidence(Evidence {
                kind: EvidenceKind::Interleaving,
                test: Some(test),
                detail: format!("{how}; \"{said}\" ({}{in_diff})", where_(b, b.line)),
                rule: "interleaving.forcing-test",
                line: line_no(b, 0),
                seed: None,
                files: Vec::new(),
            });
        }
    }
}

fn never_evidence(doc: &Doc, f: &mut Findings) {
    let has_trace = f.has(EvidenceKind::Trace);
    for b in &doc.blocks {
        let t = &b.text;
        let at = line_no(b, 0);
        if patterns::says_rerun_green(t) {
            f.problem(Problem::rerun_green().at(at));
        }
        if patterns::says_no_repro(t) {
            f.problem(Problem::no_repro().at(at));
        }
        if patterns::says_race_detector_clean(t) {
            f.problem(Problem::clean_race_detector().at(at));
        }
        if !has_trace && patterns::has_goroutine_dump(t) {
            f.problem(Problem::hang_dump().at(at));
        } else if !has_trace && b.kind == BlockKind::Code && patterns::has_single_stack(t) {
            f.problem(Problem::single_stack().at(at));
        }
        for link in patterns::ci_links_in(t) {
            f.problem(Problem::ci_link(&link).at(at));
        }
    }
}

#[cfg(test)]
mod tests;
