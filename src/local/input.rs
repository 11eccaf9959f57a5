//! Reading a local command's input (the CLI's and the MCP tools'): a file path or `-` for
//! stdin, as UTF-8 text.

use std::io::Read as _;
use std::path::Path;

/// Largest input read (a PR diff, body or CI log can be big, but not this big).
const MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// Reads `source` (`-` is stdin). Invalid UTF-8 is replaced, not refused: logs and diffs
/// often carry stray bytes.
pub fn read_text(source: &str, what: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let result = if source == "-" {
        std::io::stdin()
            .take(MAX_INPUT_BYTES)
            .read_to_end(&mut bytes)
    } else {
        let path = Path::new(source);
        std::fs::File::open(path).and_then(|f| f.take(MAX_INPUT_BYTES).read_to_end(&mut bytes))
    };
    result.map_err(|e| format!("cannot read {what} from {source}: {e}"))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
