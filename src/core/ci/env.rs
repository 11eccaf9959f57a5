//! Which CI a command runs on, and the run it belongs to (repository, commit, branch, run id,
//! attempt), from the variables each CI sets. A lookup function stands in for the environment.

use serde::Serialize;

/// The run, as far as the CI's variables tell.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CiRun {
    /// `github-actions`, `gitlab`, `buildkite`, `circleci`, `jenkins`, or none.
    pub ci: Option<&'static str>,
    pub repo: Option<String>,
    pub sha: Option<String>,
    pub branch: Option<String>,
    pub run: Option<String>,
    pub attempt: Option<i64>,
    /// The run's page.
    pub url: Option<String>,
    /// The pull (merge) request it runs for.
    pub pr: Option<i64>,
}

/// `N` of a pull request's number, ref (`refs/pull/N/merge`) or URL (`…/pull/N`).
fn pr_number(s: &str) -> Option<i64> {
    let s = s.trim().trim_end_matches('/');
    let s = s.strip_prefix("refs/pull/").unwrap_or(s);
    let s = s
        .strip_suffix("/merge")
        .or_else(|| s.strip_suffix("/head"))
        .unwrap_or(s);
    let n = s.rsplit('/').next()?;
    n.parse::<i64>().ok().filter(|n| *n > 0)
}

/// `owner/name` from a clone URL (`https://host/o/r.git`, `git@host:o/r.git`,
/// `ssh://git@host/o/r`).
pub fn repo_from_url(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    let path = if let Some((_, rest)) = url.split_once("://") {
        rest.split_once('/')?.1
    } else {
        url.split_once(':')?.1
    };
    let path = path.strip_suffix(".git").unwrap_or(path);
    let mut parts = path.rsplit('/');
    let name = parts.next().filter(|s| !s.is_empty())?;
    let owner = parts.next().filter(|s| !s.is_empty())?;
    Some(format!("{owner}/{name}"))
}

/// The CI run from the environment `get`.
pub fn detect(get: &dyn Fn(&str) -> Option<String>) -> CiRun {
    let var = |k: &str| {
        get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let first = |ks: &[&str]| ks.iter().find_map(|k| var(k));
    let num = |k: &str| var(k).and_then(|v| v.parse::<i64>().ok());
    if var("GITHUB_ACTIONS").as_deref() == Some("true") {
        return CiRun {
            ci: Some("github-actions"),
            repo: var("GITHUB_REPOSITORY"),
            sha: var("GITHUB_SHA"),
            // A pull request's run: its head branch, not `123/merge`.
            branch: first(&["GITHUB_HEAD_REF", "GITHUB_REF_NAME"]),
            run: var("GITHUB_RUN_ID"),
            attempt: num("GITHUB_RUN_ATTEMPT"),
            url: match (var("GITHUB_REPOSITORY"), var("GITHUB_RUN_ID")) {
                (Some(r), Some(id)) => Some(format!(
                    "{}/{r}/actions/runs/{id}",
                    var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into())
                )),
                _ => None,
            },
            pr: var("GITHUB_REF")
                .filter(|r| r.starts_with("refs/pull/"))
                .and_then(|r| pr_number(&r)),
        };
    }
    if var("GITLAB_CI").is_some() {
        return CiRun {
            ci: Some("gitlab"),
            repo: var("CI_PROJECT_PATH"),
            sha: var("CI_COMMIT_SHA"),
            branch: first(&["CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME"]),
            run: var("CI_JOB_ID"),
            attempt: Some(1),
            url: first(&["CI_JOB_URL", "CI_PIPELINE_URL"]),
            pr: var("CI_MERGE_REQUEST_IID").and_then(|n| pr_number(&n)),
        };
    }
    if var("BUILDKITE").as_deref() == Some("true") {
        return CiRun {
            ci: Some("buildkite"),
            repo: var("BUILDKITE_REPO").and_then(|u| repo_from_url(&u)),
            sha: var("BUILDKITE_COMMIT"),
            branch: var("BUILDKITE_BRANCH"),
            run: var("BUILDKITE_JOB_ID"),
            attempt: Some(num("BUILDKITE_RETRY_COUNT").unwrap_or(0) + 1),
            url: var("BUILDKITE_BUILD_URL"),
            // `false` when the build is not for one.
            pr: var("BUILDKITE_PULL_REQUEST").and_then(|n| pr_number(&n)),
        };
    }
    if var("CIRCLECI").as_deref() == Some("true") {
        let repo = match (
            var("CIRCLE_PROJECT_USERNAME"),
            var("CIRCLE_PROJECT_REPONAME"),
        ) {
            (Some(o), Some(r)) => Some(format!("{o}/{r}")),
            _ => var("CIRCLE_REPOSITORY_URL").and_then(|u| repo_from_url(&u)),
        };
        return CiRun {
            ci: Some("circleci"),
            repo,
            sha: var("CIRCLE_SHA1"),
            branch: var("CIRCLE_BRANCH"),
            run: first(&["CIRCLE_WORKFLOW_JOB_ID", "CIRCLE_BUILD_NUM"]),
            attempt: Some(1),
            url: var("CIRCLE_BUILD_URL"),
            pr: var("CIRCLE_PULL_REQUEST").and_then(|u| pr_number(&u)),
        };
    }
    if var("JENKINS_URL").is_some() {
        return CiRun {
            ci: Some("jenkins"),
            repo: var("GIT_URL").and_then(|u| repo_from_url(&u)),
            sha: var("GIT_COMMIT"),
            branch: first(&["CHANGE_BRANCH", "BRANCH_NAME", "GIT_BRANCH"])
                .map(|b| b.strip_prefix("origin/").map(str::to_string).unwrap_or(b)),
            run: var("BUILD_TAG"),
            attempt: Some(1),
            url: var("BUILD_URL"),
            pr: var("CHANGE_ID").and_then(|n| pr_number(&n)),
        };
    }
    CiRun::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> CiRun {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect(&|k: &str| map.get(k).cloned())
    }

    #[test]
    fn each_ci_names_its_run() {
        let gh = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", "acme/pool"),
            ("GITHUB_SHA", "abc"),
            ("GITHUB_REF_NAME", "12/merge"),
            ("GITHUB_HEAD_REF", "fix-wakeup"),
            ("GITHUB_RUN_ID", "991"),
            ("GITHUB_RUN_ATTEMPT", "2"),
            ("GITHUB_REF", "refs/pull/12/merge"),
            ("GITHUB_SERVER_URL", "https://github.com"),
        ]);
        assert_eq!(
            gh,
            CiRun {
                ci: Some("github-actions"),
                repo: Some("acme/pool".into()),
                sha: Some("abc".into()),
                branch: Some("fix-wakeup".into()),
                run: Some("991".into()),
                attempt: Some(2),
                url: Some("https://github.com/acme/pool/actions/runs/991".into()),
                pr: Some(12),
            }
        );
        let push = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_HEAD_REF", ""),
            ("GITHUB_REF_NAME", "main"),
        ]);
        assert_eq!(push.branch.as_deref(), Some("main"));
        let gl = env(&[
            ("GITLAB_CI", "true"),
            ("CI_PROJECT_PATH", "acme/pool"),
            ("CI_COMMIT_SHA", "abc"),
            ("CI_COMMIT_REF_NAME", "main"),
            ("CI_JOB_ID", "77"),
        ]);
        assert_eq!(
            (gl.ci, gl.repo.as_deref(), gl.run.as_deref(), gl.attempt),
            (Some("gitlab"), Some("acme/pool"), Some("77"), Some(1))
        );
        let bk = env(&[
            ("BUILDKITE", "true"),
            ("BUILDKITE_REPO", "git@github.com:acme/pool.git"),
            ("BUILDKITE_COMMIT", "abc"),
            ("BUILDKITE_BRANCH", "main"),
            ("BUILDKITE_JOB_ID", "j-1"),
            ("BUILDKITE_RETRY_COUNT", "1"),
            ("BUILDKITE_PULL_REQUEST", "false"),
            (
                "BUILDKITE_BUILD_URL",
                "https://buildkite.com/acme/pool/builds/3",
            ),
        ]);
        assert_eq!(
            (bk.repo.as_deref(), bk.attempt, bk.pr, bk.url.as_deref()),
            (
                Some("acme/pool"),
                Some(2),
                None,
                Some("https://buildkite.com/acme/pool/builds/3")
            )
        );
        let cc = env(&[
            ("CIRCLECI", "true"),
            ("CIRCLE_PROJECT_USERNAME", "acme"),
            ("CIRCLE_PROJECT_REPONAME", "pool"),
            ("CIRCLE_SHA1", "abc"),
            ("CIRCLE_BRANCH", "main"),
            ("CIRCLE_BUILD_NUM", "5"),
            (
                "CIRCLE_PULL_REQUEST",
                "https://github.com/acme/pool/pull/31",
            ),
        ]);
        assert_eq!(
            (cc.repo.as_deref(), cc.run.as_deref(), cc.pr),
            (Some("acme/pool"), Some("5"), Some(31))
        );
        let jk = env(&[
            ("JENKINS_URL", "https://ci.example/"),
            ("GIT_URL", "https://github.com/acme/pool.git"),
            ("GIT_COMMIT", "abc"),
            ("GIT_BRANCH", "origin/main"),
            ("BUILD_TAG", "jenkins-pool-9"),
            ("CHANGE_ID", "44"),
        ]);
        assert_eq!(jk.pr, Some(44));
        assert_eq!(
            (jk.repo.as_deref(), jk.branch.as_deref(), jk.run.as_deref()),
            (Some("acme/pool"), Some("main"), Some("jenkins-pool-9"))
        );
        assert_eq!(env(&[]), CiRun::default());
    }

    #[test]
    fn clone_urls_name_their_repository() {
        for (url, want) in [
            ("https://github.com/acme/pool.git", Some("acme/pool")),
            ("https://github.com/acme/pool", Some("acme/pool")),
            ("git@github.com:acme/pool.git", Some("acme/pool")),
            ("ssh://git@github.com/acme/pool/", Some("acme/pool")),
            ("nonsense", None),
            ("https://host/", None),
        ] {
            assert_eq!(repo_from_url(url).as_deref(), want, "{url}");
        }
    }
}
