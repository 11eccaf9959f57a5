//! Printing the offline subcommands' results.

/// Prints a value as one line of JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), String> {
    let text = serde_json::to_string(value).map_err(|e| format!("encoding the result: {e}"))?;
    println!("{text}");
    Ok(())
}
