//! The seeds a description claims, each with the test it drives, or the reason it reproduces
//! nothing (a shuffle seed, a sweep, a passing run, a data seed, a loop until a run fails): one
//! pass over the body's blocks, a sentence read whole across a paragraph's line breaks.

use std::collections::HashSet;

use super::markdown::BlockKind;
use super::{
    Doc, Evidence, EvidenceKind, Findings, MAX_LISTED, Problem, line_no, patterns, seeds, where_,
};

pub(super) fn seeds_of(doc: &Doc, scheduling: bool, data_seed: bool, f: &mut Findings) {
    // Shuffle values first: a seed line that copies one is still a test-order seed.
    let mut shuffles: Vec<String> = Vec::new();
    let mut first_shuffle: Option<(String, Option<usize>)> = None;
    let mut repetition: Option<(String, Option<usize>)> = None;
    let mut scratch = Vec::new();
    for b in &doc.blocks {
        for (li, line) in b.text.lines().enumerate() {
            let before = shuffles.len();
            seeds::shuffle_seeds(line, &mut shuffles);
            if first_shuffle.is_none() && shuffles.len() > before {
                first_shuffle = Some((shuffles[before].clone(), line_no(b, li)));
            }
            if repetition.is_none() {
                scratch.clear();
                seeds::repetition_settings(line, &mut scratch);
                if let Some(r) = scratch.first() {
                    repetition = Some((r.clone(), line_no(b, li)));
                }
            }
        }
    }
    let shuffles: HashSet<String> = shuffles.into_iter().collect();
    let mut copied_shuffle: Option<(String, Option<usize>)> = None;
    let mut hits = Vec::new();
    // A runner prints the seed of every run: a bare `seed=N` inside pasted output is a claim
    // only when the words around it speak of a seed, or the block is a reproduction recipe (in
    // the Reproduction section, or with its `kind:` field), or a command line passes it.
    let prose_speaks_of_seeds = doc
        .blocks
        .iter()
        .any(|b| b.kind == BlockKind::Prose && b.text.to_ascii_lowercase().contains("seed"));
    for (bi, b) in doc.blocks.iter().enumerate() {
        let recipe = b.kind == BlockKind::Prose
            || prose_speaks_of_seeds
            || b.in_reproduction_section()
            || b.text
                .lines()
                .any(|l| l.trim_start().to_ascii_lowercase().starts_with("kind:"));
        let lines: Vec<&str> = b.text.lines().collect();
        for (li, &one) in lines.iter().enumerate() {
            hits.clear();
            seeds::seeds_on(one, &mut hits);
            // A paragraph's line break is no boundary: a seed written across one (`… and at` /
            // `seed 4 of the suite`) is read from the lines of its sentence joined, once.
            let joined = (b.kind == BlockKind::Prose)
                .then(|| seeds::across_break(one, &lines[li + 1..], &hits))
                .flatten();
            // The sentence read whole: the seeds of this line with what follows it.
            let units = match joined {
                Some((text, across)) => {
                    hits.extend(across);
                    vec![(std::borrow::Cow::Owned(text), std::mem::take(&mut hits))]
                }
                None => vec![(std::borrow::Cow::Borrowed(one), std::mem::take(&mut hits))],
            };
            for (line, mut unit_hits) in units {
                let line: &str = &line;
                for hit in unit_hits.drain(..) {
                    if shuffles.contains(&hit.value) {
                        copied_shuffle.get_or_insert((hit.value, line_no(b, li)));
                        continue;
                    }
                    // Tool formats (proptest `cc`, Hypothesis, shuttle) are reproductions by their
                    // shape; a bare `seed=N` line is what every run prints.
                    if !recipe && hit.target.is_none() && matches!(hit.form, "seed field" | "seed")
                    {
                        continue;
                    }
                    let test = hit
                        .target
                        .clone()
                        .or_else(|| patterns::tests_in(line).into_iter().next())
                        .or_else(|| doc.tests[bi].first().cloned())
                        .or_else(|| doc.fields.test.clone())
                        .or_else(|| doc.section_test(bi).cloned())
                        .or_else(|| doc.first_test.clone())
                        .or_else(|| doc.first_command.clone());
                    let rule = if hit.target.is_some() {
                        "seed.command"
                    } else {
                        "seed.value"
                    };
                    // A seed run over and over until it fails does not decide the outcome.
                    if b.kind == BlockKind::Code && seeds::in_a_loop(&lines[..=li]) {
                        f.problem(
                            Problem::seed_reproduces_nothing(&hit.value, seeds::IN_A_LOOP)
                                .at(line_no(b, li)),
                        );
                        continue;
                    }
                    // A seed of a passing run, of a sweep, or of generated data reproduces nothing.
                    let at = line.find(hit.value.as_str()).unwrap_or(0);
                    let sentence = seeds::sentence_at(line, at);
                    let block_fails = seeds::says_failure(&b.text);
                    // (A seed with no test is told so first: naming the test is the next step.)
                    if test.is_some()
                    // A tool's failure record (proptest `cc`, Hypothesis, shuttle) is a failing
                    // case by its shape, whatever data it generated.
                    && let Some(why) = seeds::reproduces_nothing(
                        sentence,
                        scheduling,
                        data_seed
                            && matches!(
                                hit.form,
                                "seed field" | "seed" | "--seed flag" | "environment seed"
                            ),
                    )
                    && (why != seeds::PASSES || !block_fails)
                    {
                        f.problem(
                            Problem::seed_reproduces_nothing(&hit.value, why).at(line_no(b, li)),
                        );
                        continue;
                    }
                    match test {
                        Some(test) => f.evidence(Evidence {
                            kind: EvidenceKind::Seed,
                            detail: format!(
                                "{} `{}` ({})",
                                hit.form,
                                hit.value,
                                where_(b, b.line + li)
                            ),
                            test: Some(test),
                            rule,
                            line: line_no(b, li),
                            seed: Some(hit.value),
                            files: Vec::new(),
                        }),
                        None => {
                            f.problem(
                                Problem::no_test_named(hit.form, &hit.value).at(line_no(b, li)),
                            );
                            if f.lone_seeds.len() < MAX_LISTED && !f.lone_seeds.contains(&hit.value)
                            {
                                f.lone_seeds.push(hit.value);
                            }
                        }
                    }
                }
            }
        }
    }
    if !f.has(EvidenceKind::Seed) {
        if let Some((s, line)) = copied_shuffle.or(first_shuffle) {
            f.problem(Problem::shuffle_only(&s).at(line));
        }
        if let Some((r, line)) = repetition {
            f.problem(Problem::repetition_not_seed(&r).at(line));
        }
    }
}
