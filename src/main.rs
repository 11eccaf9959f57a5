fn main() -> std::process::ExitCode {
    repro_gate::cli::main()
}
