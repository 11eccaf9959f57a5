//! The rerun workflow's report of one run, as files: `runner` (the family), `selection` (what
//! the runner was told: `name=`, `binary=`, `package=`, `target=`), `build.status`/`build.txt`
//! (the build's status and output) and per run `runs/N/status` (`status=`, `timed_out=`,
//! `limit=`) beside `runs/N/output.txt`. Pure: the reader hands the texts in.

use super::Ended;
use crate::core::test_ids::Selection;

fn values(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|l| l.split_once('='))
}

/// How a run ended, from its `status` file: the shell's status (128 + N for a signal) and
/// whether `timeout` ended it. `None` for a file that says nothing usable.
pub fn ended(status: &str) -> Option<Ended> {
    let (mut code, mut timed_out, mut limit) = (None, false, 0u64);
    for (k, v) in values(status) {
        match k.trim() {
            "status" => code = v.trim().parse::<i32>().ok(),
            "timed_out" => timed_out = v.trim() == "1",
            "limit" => limit = v.trim().parse().unwrap_or(0),
            _ => {}
        }
    }
    let code = code?;
    Some(Ended::from_shell(code, timed_out.then_some(limit)))
}

/// What the runner was told, from the `selection` file; `test` when a value is missing.
pub fn selection(text: &str, test: &str) -> Selection {
    let mut sel = Selection {
        target: Vec::new(),
        name: test.to_string(),
        package: None,
        binary: None,
    };
    for (k, v) in values(text) {
        let v = v.trim();
        match k.trim() {
            "name" if !v.is_empty() => sel.name = v.to_string(),
            "binary" if !v.is_empty() => sel.binary = Some(v.to_string()),
            "package" if !v.is_empty() => sel.package = Some(v.to_string()),
            "target" if !v.is_empty() => {
                sel.target = v.split_whitespace().map(str::to_string).collect()
            }
            _ => {}
        }
    }
    sel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_files_read_as_the_way_a_run_ended() {
        assert_eq!(
            ended("status=124\ntimed_out=1\nlimit=300\nseconds=300\n"),
            Some(Ended::TimedOut(300))
        );
        assert_eq!(
            ended("status=134\ntimed_out=0\n"),
            Some(Ended::Signalled(6))
        );
        assert_eq!(ended("status=101\n"), Some(Ended::Exited(101)));
        assert_eq!(ended("nothing"), None);
    }

    #[test]
    fn a_selection_file_says_what_the_runner_was_told() {
        let s = selection(
            "name=forget_blocked_sender\nbinary=bounded\npackage=\ntarget=--test bounded\n",
            "bounded::forget_blocked_sender",
        );
        assert_eq!(s.name, "forget_blocked_sender");
        assert_eq!(s.binary.as_deref(), Some("bounded"));
        assert_eq!(s.target, ["--test", "bounded"]);
        assert_eq!(selection("", "t").name, "t");
    }
}
